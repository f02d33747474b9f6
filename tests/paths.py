"""Where the team's shared material lives (seeds, conformance cases), from a checkout or a worktree.

The shared folder sits beside the main checkout; worktrees live one level deeper, so the
lookup walks up the parents instead of assuming a fixed depth. `WRANGLER_SHARED` overrides it.
A clone with no shared folder above it (a CI runner) uses the copy in `tests/data/shared`.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


VENDORED = ROOT / "tests" / "data" / "shared"


def _find_shared() -> Path:
    if "WRANGLER_SHARED" in os.environ:
        return Path(os.environ["WRANGLER_SHARED"])
    for parent in ROOT.parents:
        if (parent / "shared" / "conformance").is_dir():
            return parent / "shared"
    return VENDORED


SHARED = _find_shared()
CONFORMANCE = SHARED / "conformance" / "wrangler_cases.jsonl"
SEEDS = SHARED / "seeds"
