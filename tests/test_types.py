"""`mypy --strict` on grammar/ and lineage/ (the configuration is pyproject's [tool.mypy]).

Part of the test command so a type error in the two packages every other one builds on fails CI like a
failing test. mypy's cache lives in a temporary folder: a clean clone and a developer's checkout check alike.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_grammar_and_lineage_pass_mypy_strict(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"), "grammar", "lineage"],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "Success: no issues found" in result.stdout
