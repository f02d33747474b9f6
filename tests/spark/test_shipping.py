"""The zip of our code that a cluster's Python workers import (`directives.spark.runtime.shipping`), checked without a
cluster: what it holds, and that a Python whose own path has other `grammar`/`directives` packages imports ours
from it. (`test_cluster.py` checks the same on real workers.)"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from directives.spark.runtime.shipping import PACKAGES, code_archive, ship_code
from tests.paths import ROOT
from tests.spark.spark_servers import decoy_path


def test_the_archive_holds_both_packages_and_nothing_else() -> None:
    names = set(zipfile.ZipFile(code_archive()).namelist())
    assert {name.split("/")[0] for name in names} == set(PACKAGES)
    on_disk = {f"{package}/{path.relative_to(ROOT / package).as_posix()}"
               for package in PACKAGES for path in (ROOT / package).rglob("*.py") if "__pycache__" not in path.parts}
    assert on_disk <= names
    data = {"grammar/recipe.lark", "grammar/expression.lark", "directives/spark/runtime/log4j2-quiet.properties",
            "directives/data/hl7-fhir-r4.schema.json.gz"}
    assert data <= names
    # grammar is a namespace package here; in the zip it is a regular one (see the next test for why)
    assert not (ROOT / "grammar" / "__init__.py").exists() and "grammar/__init__.py" in names
    assert code_archive() == code_archive()  # built once per process


def test_a_worker_path_with_other_packages_of_our_names_imports_the_shipped_ones(tmp_path: Path) -> None:
    """A worker puts the shipped zip ahead of its own path (`sys.path.insert(1, …)`, as PySpark's worker does);
    its own path has decoy packages that raise on import."""
    archive = code_archive()
    code = (f"import sys; sys.path.insert(1, {str(archive)!r})\n"
            "from directives.spark.compile.dates import natural_date\n"
            "import directives, grammar.errors\n"
            "print(directives.__file__); print(grammar.errors.__file__)\n"
            "print(natural_date('March 3rd 2023', 'UTC').isoformat())\n")
    env = {"PYTHONPATH": str(decoy_path(tmp_path / "decoy")), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    first, second, date = done.stdout.split()
    assert first.startswith(str(archive)) and second.startswith(str(archive))
    assert date == "2023-03-03T00:00:00+00:00"


def test_a_worker_reads_the_fhir_schema_from_the_zip(tmp_path: Path) -> None:
    """validate-standard's UDF loads the schema on the worker, from the package data inside the shipped zip."""
    code = (f"import sys; sys.path.insert(1, {str(code_archive())!r})\n"
            "from directives.spark.compile import standards\n"
            "print(standards.__file__)\n"
            "print(standards.conformance_issues('hl7-fhir-r4', '{\"resourceType\": \"Patient\", \"active\": 1}'))\n")
    env = {"PYTHONPATH": str(decoy_path(tmp_path / "decoy")), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    where, issues = done.stdout.splitlines()
    assert where.startswith(str(code_archive()))
    assert "at data #/active: 1 is not of type 'boolean'" in issues


@pytest.mark.spark
def test_a_local_session_gets_nothing_shipped(spark) -> None:
    """Local Python workers are children of this process and import from its path."""
    assert ship_code(spark) is False
