"""`--udd FILE` on the command line: check and lineage follow declared UDDs; run refuses them before Spark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

CDAP_UDDS = ROOT / "tests" / "data" / "udd" / "cdap-udds.toml"
RECIPE = "parse-as-csv :body ',' true\ndrop :body\nduplicate-column :name 'copy'\ntext-reverse :copy\n"


def wrangler(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "server.cli", *argv], capture_output=True, text=True, cwd=cwd,
                          env=env, check=False, timeout=120)


def test_check_and_lineage_follow_declared_udds(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text(RECIPE)
    (tmp_path / "in.txt").write_text("name,city\nada,paris\n")
    unknown = wrangler("check", "r.txt", cwd=tmp_path)
    assert unknown.returncode == 1 and "Directive 'duplicate-column' not found" in unknown.stdout
    clean = wrangler("check", "r.txt", "--udd", str(CDAP_UDDS), "--sample", "in.txt", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, ""), clean.stdout + clean.stderr
    lineage = wrangler("lineage", "r.txt", "--udd", str(CDAP_UDDS), "--schema", "body", "--column", "copy",
                       "--format", "json", cwd=tmp_path)
    assert lineage.returncode == 0, lineage.stderr
    copy = json.loads(lineage.stdout)["columns"]["copy"]
    assert copy["directives"] == [1, 3, 4]


def test_run_refuses_udds_clearly_before_spark(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text(RECIPE)
    (tmp_path / "in.csv").write_text("body\nx\n")
    done = wrangler("run", "r.txt", "--input", "in.csv", "--udd", str(CDAP_UDDS), cwd=tmp_path)
    assert done.returncode == 1
    assert "Directive 'duplicate-column' cannot run on Spark: it is a user-defined directive" in done.stderr
    assert "SparkSession" not in done.stderr and "Traceback" not in done.stderr


def test_a_broken_declaration_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("drop :a\n")
    (tmp_path / "udds.toml").write_text('[[directive]]\nname = "drop"\n')
    done = wrangler("check", "r.txt", "--udd", "udds.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == ("wrangler check: udds.toml: directive 'drop': 'drop' is a built-in directive of "
                                   "Wrangler; a UDD cannot replace it")
