"""Where the lineage store lives when nobody says: the one default shared by every command.

``$WRANGLER_STORE`` wins; otherwise ``$XDG_DATA_HOME/wrangler-lineage/lineage.sqlite`` (by default
``~/.local/share/wrangler-lineage/lineage.sqlite``), so `wrangler run`, `wrangler history` and
`wrangler serve` read and write the same file without flags.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STORE_ENV = "WRANGLER_STORE"
STORE_FILE = Path("wrangler-lineage") / "lineage.sqlite"


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """The store path from the environment, or the per-user data directory (not created here)."""
    env = os.environ if environ is None else environ
    explicit = env.get(STORE_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    data_home = env.get("XDG_DATA_HOME", "").strip()
    base = Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share"
    return base / STORE_FILE
