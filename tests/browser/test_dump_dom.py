"""`chromium --headless --dump-dom` of every deep link holds the names the screen shows.

This is what a crawler, a link preview or a script gets from a shared URL: the DOM after the page's
scripts ran. ``--virtual-time-budget`` lets the page's fetches and timers finish before the dump (the
budget is virtual time: Chromium skips ahead while it waits on nothing but timers).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from urllib.parse import urlencode

import pytest

from tests.browser.conftest import CHROMIUM_FLAGS, Server, chromium_binaries

FIELD_LINEAGE = "/v3/namespaces/{ns}/datasets/{ds}/fields/{field}/lineage"
RECIPE = "uppercase :a\nrename :a :shout\nrenam :b :c\n"
DEEP_LINKS = [
    ("/", ["Datasets in", "EmployeeData", "HRStaged", "emp-2"], []),
    ("/ui/hr?q=staged", ["HRStaged"], ["HRFile"]),
    ("/ui/MyNamespace/datasets/EmployeeData", ["PersonFile", "HRFile", "HRRecord", "PersonRecord", "JoiningDate",
                                               "rowid", "run-7"], []),
    ("/ui/MyNamespace/datasets/EmployeeData/fields/ID", ["Employee_Name", "Dept_Name", "SSN", "GenerateID", "HRParse"],
     ["Start_Date", "Salary_USD"]),
    ("/ui/hr/datasets/EmployeeData/fields/ID?start=now-1d&end=now", ["Employee_Name", "Dept_Name", "SSN", "#3 hash"],
     ["Salary"]),
    ("/ui/hr/datasets/EmployeeData/columns/ID", ["merge :key :SSN :ID", "hash :ID", "validate-standard", "emp-1"], []),
    ("/ui/MyNamespace/datasets/EmployeeData/columns/ID", ["GenerateID", "Employee_Name", "Dept_Name", "SSN"], []),
    ("/ui/hr/runs/emp-2", ["Salary_USD", "Salary_in_USD", "emp-1", "/warehouse/employees"], []),
    ("/ui/recipe#" + urlencode({"recipe": RECIPE, "schema": "a, b"}), ["shout", "Did you mean", "rename"], []),
    ("/docs/reference", ["/v3/lineage/recipe", FIELD_LINEAGE, "recipe_check"], []),
    ("/docs", ["/v3/lineage/recipe", FIELD_LINEAGE, "recipe_check"], []),
]


def dump_dom(url: str) -> str:
    binary, _ = chromium_binaries()
    profile = tempfile.mkdtemp(prefix="wl-dump-")
    try:
        result = subprocess.run(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=15000", "--dump-dom", url],
            capture_output=True, text=True, timeout=120,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.mark.parametrize(("path", "present", "absent"), DEEP_LINKS, ids=[link[0][:60] for link in DEEP_LINKS])
def test_dump_dom_of_a_deep_link_holds_its_names(server: Server, path: str, present: list[str],
                                                 absent: list[str]) -> None:
    dom = dump_dom(server.url(path))
    assert 'data-ready="true"' in dom, dom[-3000:]
    for name in present:
        assert name in dom, f"{name!r} missing from the DOM of {path}"
    for name in absent:
        assert name not in dom, f"{name!r} should not be on {path}"
