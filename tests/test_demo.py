"""The demo runs end to end (real Spark) and shows the table, the counts and every column's lineage."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.spark


def test_demo_prints_table_counts_and_lineage() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    result = subprocess.run([sys.executable, "-m", "examples.demo"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    out = result.stdout

    with (ROOT / "examples" / "employees.csv").open() as handle:
        source = list(csv.DictReader(handle))
    counts = re.search(r"rows in (\d+) = out (\d+) \+ errors (\d+) \+ filtered (\d+) \+ header (\d+) - added (\d+)"
                       r"\s+\(reconciled\)", out)
    assert counts is not None, out
    rows_in, rows_out, errors, filtered, header, added = map(int, counts.groups())
    assert rows_in == len(source) + 1  # the header line is a row too, as in Wrangler
    assert header == 1  # ... read as column names by parse-as-csv, not a filtered row (issue 20)
    assert rows_in + added == rows_out + errors + filtered + header
    # stderr holds no JVM start-up notice and no Spark log chatter (issue 20)
    assert [line for line in result.stderr.splitlines() if line.startswith("WARNING") or " WARN " in line] == []

    # the table: managers are filtered out, names merged, SSNs masked
    assert "full_name" in out and "Ada Lovelace" in out
    managers = [r for r in source if r["department"].strip().lower() == "management"]
    for manager in managers:
        assert manager["last_name"] not in out.split("== Error rows")[0]
    assert "123-45-6789" not in out and "xxx-xx-6789" in out
    # a salary that is not a number lands in the error rows with its directive and line
    bad = [r for r in source if r["salary"] and not r["salary"].replace(".", "").isdigit()]
    assert errors == len(bad)
    for row in bad:
        assert row["last_name"] in out.split("== Error rows")[1]
    assert "set-type :salary double" in out

    # lineage: every output column traces back to body; full_name goes through merge
    lineage = out.split("== Lineage of each output column")[1]
    assert re.search(r"full_name\s+<- body\s+via directives .*#1", lineage)
    assert "merge :first_name :last_name :full_name" in lineage
    assert re.search(r"ssn\s+<- body", lineage)
