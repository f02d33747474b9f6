"""Recipe runs through the whole lineage path: recipe → RecordedRun → store (SQLite, PostgreSQL) → queries.

Seed 000's shape built from two recipes: `HRFile` (one `body` column) is parsed into `HRStaged`;
a second recipe makes `EmployeeData` from it, where `ID` comes from `Employee_Name`, `Dept_Name`
and `SSN` — and not from `Salary`, which only feeds `Salary_USD`. Two hops, so multi-level
summaries, per-field pruning, time ranges, the diff between runs, column histories and several
writer processes are all checked on recorded recipe lineage, not on hand-made operations.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import directives
from lineage.runs import RecipeRunInfo, recipe_run_lineage, record_recipe_run
from lineage.store import LineageStore, SQLiteLineageStore, open_store

ROOT = Path(__file__).resolve().parents[2]
NS = "MyNamespace"
T0 = 1_600_000_000
EVER = (0, 2_000_000_000)

STAGE = """\
split-to-columns :body ','
drop :body
rename :body_1 :Employee_Name
rename :body_2 :Dept_Name
rename :body_3 :Salary
rename :body_4 :SSN
"""
STAGED = ["Employee_Name", "Dept_Name", "Salary", "SSN"]

EMPLOYEE = """\
merge :Employee_Name :Dept_Name :key '-'
merge :key :SSN :ID '-'
hash :ID 'SHA-256'
drop :key
set-column :Salary_USD exp:{Salary * 1.1}
drop :Salary
validate-standard :SSN hl7-fhir-r4
"""


def stage_run(run_id: str, start: int) -> RecipeRunInfo:
    return RecipeRunInfo(namespace=NS, source_name="HRFile", destination_name="HRStaged", run_id=run_id,
                         start=start, end=start + 5, program="StageHR",
                         source_properties={"inputDir": "/data/2017/hr", "regex": "*.csv"})


def employee_run(run_id: str, start: int) -> RecipeRunInfo:
    return RecipeRunInfo(namespace=NS, source_name="HRStaged", destination_name="EmployeeData", run_id=run_id,
                         start=start, end=start + 5, program="BuildEmployees",
                         destination_properties={"rowid": "ID"})


@pytest.fixture
def store(store_location: str | Path) -> Iterator[LineageStore]:
    with open_store(store_location) as s:
        record_recipe_run(s, directives.parse(STAGE, ["body"]), stage_run("stage1", T0), STAGED)
        record_recipe_run(s, directives.parse(EMPLOYEE, STAGED), employee_run("emp1", T0 + 60))
        yield s


def test_the_run_writes_the_recipe_outputs_and_reads_only_what_it_uses() -> None:
    recorded, history = recipe_run_lineage(directives.parse(EMPLOYEE, STAGED), employee_run("x", T0))
    assert recorded.destination.fields == ("Employee_Name", "Dept_Name", "SSN", "ID", "Salary_USD")
    reads = [op for op in recorded.operations if op.type.value == "READ"]
    assert sorted(op.inputs[0].field for op in reads) == sorted(STAGED)
    assert set(history) == set(recorded.destination.fields)
    assert history["ID"]["directive"]["name"] == "hash"
    assert history["ID"]["influences"][0]["directive"]["name"] == "validate-standard"


def test_id_depends_on_employee_name_dept_name_and_ssn_not_salary(store: LineageStore) -> None:
    lineage = store.field_lineage(NS, "EmployeeData", "ID", "backward", *EVER)
    group = lineage.groups[0]
    assert {(f.dataset, f.field) for f in group.fields} == {
        ("HRStaged", "Employee_Name"), ("HRStaged", "Dept_Name"), ("HRStaged", "SSN")}
    names = {op.name for op in group.operations}
    assert {"d1.merge.key", "d2.merge.ID", "d3.hash.ID", "write:EmployeeData"} <= names
    assert not any("Salary" in name for name in names)
    labels = {node.label for node in group.graph.nodes}
    assert "Salary" not in labels and {"Employee_Name", "Dept_Name", "SSN", "ID"} <= labels
    salary = store.field_lineage(NS, "EmployeeData", "Salary_USD", "backward", *EVER).groups[0]
    assert {(f.dataset, f.field) for f in salary.fields} == {("HRStaged", "Salary")}


def test_forward_from_a_staged_field_reaches_only_its_consumers(store: LineageStore) -> None:
    forward = store.field_lineage(NS, "HRStaged", "SSN", "forward", *EVER).groups[0]
    assert {(f.dataset, f.field) for f in forward.fields} == {("EmployeeData", "SSN"), ("EmployeeData", "ID")}


def test_multi_level_summary_walks_back_through_the_staging_run(store: LineageStore) -> None:
    one = store.summary(NS, "EmployeeData", "backward", *EVER, levels=1)
    assert {(m.source.name, m.destination.name) for m in one.mappings} == {("HRStaged", "EmployeeData")}
    two = store.summary(NS, "EmployeeData", "backward", *EVER, levels=2)
    pairs = {(m.source.name, m.destination.name): {(p.source, p.target) for p in m.fieldmap} for m in two.mappings}
    assert set(pairs) == {("HRStaged", "EmployeeData"), ("HRFile", "HRStaged")}
    assert ("body", "SSN") in pairs[("HRFile", "HRStaged")]
    assert ("Salary", "ID") not in pairs[("HRStaged", "EmployeeData")]
    forward = store.summary(NS, "HRFile", "forward", *EVER, levels=2)
    assert {(m.source.name, m.destination.name) for m in forward.mappings} == {
        ("HRFile", "HRStaged"), ("HRStaged", "EmployeeData")}
    # the staging run is outside [T0 + 30, ...): the second level disappears
    late = store.summary(NS, "EmployeeData", "backward", T0 + 30, EVER[1], levels=2)
    assert {(m.source.name, m.destination.name) for m in late.mappings} == {("HRStaged", "EmployeeData")}


def test_time_ranges_are_start_inclusive_end_exclusive(store: LineageStore) -> None:
    assert [r.run_id for r in store.runs(NS, T0, T0 + 60).items] == ["stage1"]
    assert [r.run_id for r in store.runs(NS, T0 + 60, T0 + 61).items] == ["emp1"]
    assert store.runs(NS, T0 + 1, T0 + 60).items == ()
    assert store.field_lineage(NS, "EmployeeData", "ID", "backward", T0, T0 + 60).groups == ()
    assert [f.name for f in store.fields(NS, "HRStaged", T0, T0 + 1).items] == sorted(STAGED)
    props = store.dataset_properties(NS, "HRFile", *EVER).items
    assert [(p.run.run_id, p.properties) for p in props] == [
        ("stage1", {"inputDir": "/data/2017/hr", "regex": "*.csv"})]


def test_diff_between_two_recipe_versions(store: LineageStore) -> None:
    without_hash = EMPLOYEE.replace("hash :ID 'SHA-256'\n", "")
    record_recipe_run(store, directives.parse(without_hash, STAGED), employee_run("emp2", T0 + 120))
    diff = store.diff_field(NS, "EmployeeData", "ID", "emp1", "emp2")
    assert diff.changed is True
    assert "d3.hash.ID" in {op.name for op in diff.removed_operations}
    assert diff.added_fields == () and diff.removed_fields == ()
    salary = store.diff_field(NS, "EmployeeData", "Salary_USD", "emp1", "emp2")
    # the set-column moved from directive 5 to 4: the operation is renamed, the source fields are the same
    assert salary.added_fields == () and salary.removed_fields == ()
    assert {op.name for op in salary.added_operations} >= {"d4.set-column.Salary_USD"}
    assert {op.name for op in salary.removed_operations} >= {"d5.set-column.Salary_USD"}
    unchanged = store.diff_field(NS, "EmployeeData", "Employee_Name", "emp1", "emp2")
    assert unchanged.changed is False


def test_column_directive_history_with_max_levels(store: LineageStore) -> None:
    full = store.column_history(NS, "EmployeeData", "ID", *EVER).items[0]
    assert full.run.run_id == "emp1" and full.truncated is False
    chain = []
    node = full.tree
    while node["upstream"]:
        chain.append(node["directive"]["index"])
        node = node["upstream"][0]
    assert chain == [3, 2, 1]
    cut = store.column_history(NS, "EmployeeData", "ID", *EVER, max_levels=2).items[0]
    assert cut.truncated is True
    assert cut.tree["directive"]["index"] == 3 and cut.tree["upstream"][0]["upstream"] == []


WRITER = textwrap.dedent("""
    import sys, directives
    from lineage.runs import RecipeRunInfo, record_recipe_run
    from lineage.store import open_store
    path, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    recipe = directives.parse(sys.stdin.read(), ["body"])
    new = 0
    with open_store(path) as store:
        for i in range(count):
            info = RecipeRunInfo(namespace="ns", source_name="raw", destination_name="out",
                                 run_id=f"w{worker}-{i}", start=1_700_000_000 + worker * 1000 + i, end=None)
            store_before = store.run("ns", info.run_id)
            assert store_before is None
            record_recipe_run(store, recipe, info, ["a", "b"])
            new += 1
        # a run every worker records: exactly one of them stores it, the others see an identical re-record
        shared = RecipeRunInfo(namespace="ns", source_name="raw", destination_name="out", run_id="shared",
                               start=1_600_000_000)
        record_recipe_run(store, recipe, shared, ["a", "b"])
    print(new)
""")


def test_separate_processes_record_into_one_store_without_losing_runs(store_location: str | Path) -> None:
    path = str(store_location)
    open_store(path).close()  # create and migrate once; the writers open it concurrently
    recipe = "split-to-columns :body ','\nrename :body_1 :a\nrename :body_2 :b\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [
        subprocess.Popen([sys.executable, "-c", WRITER, path, str(w), "40"], cwd=ROOT, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for w in range(3)
    ]
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write(recipe)
        worker.stdin.close()
    outputs = [(worker.wait(timeout=300), worker.stdout.read(), worker.stderr.read()) for worker in workers]  # type: ignore[union-attr]
    for code, _, err in outputs:
        assert code == 0, err
    assert sum(int(out) for _, out, _ in outputs) == 120
    with open_store(path) as store:
        runs = store.runs("ns", 1_700_000_000, 1_700_010_000, limit=1000).items
        assert len({r.run_id for r in runs}) == 120
        assert [r.run_id for r in store.runs("ns", 1_600_000_000, 1_600_000_001).items] == ["shared"]
        history = store.column_history("ns", "out", "a", *EVER, limit=1000).items
        assert len(history) == 121
        assert history[0].tree["upstream"][0]["directive"]["name"] == "split-to-columns"


def test_max_levels_also_cuts_indirect_influences(store: LineageStore) -> None:
    full = store.column_history(NS, "EmployeeData", "SSN", *EVER).items[0]
    assert full.tree["influences"][0]["upstream"][0]["column"] == "SSN"
    two = store.column_history(NS, "EmployeeData", "SSN", *EVER, max_levels=2).items[0]
    assert two.truncated is True
    assert two.tree["influences"][0]["directive"]["name"] == "validate-standard"
    assert two.tree["influences"][0]["upstream"] == []
    one = store.column_history(NS, "EmployeeData", "SSN", *EVER, max_levels=1).items[0]
    assert one.tree["influences"] == []


def test_a_built_run_passes_the_full_validation_it_skips() -> None:
    from lineage.recorder import RecordedRun

    recorded, _ = recipe_run_lineage(directives.parse(EMPLOYEE, STAGED), employee_run("v", T0))
    again = RecordedRun.model_validate(recorded.model_dump())
    assert again == recorded
    assert again.checksum == recorded.checksum


def test_a_whole_column_lineage_stored_as_history_is_still_cut_by_max_levels(tmp_path: Path) -> None:
    """What `wrangler run` stored before it used `to_tree()`: the API shape, with the tree one key down."""
    from lineage.backtrack import Backtracker
    from lineage.from_recipe import recipe_destination, recipe_operations
    from lineage.model import DatasetRef, RunInfo
    from lineage.recorder import LineageRecorder

    recipe = directives.parse(EMPLOYEE, STAGED)
    lineages = Backtracker(recipe).all()
    operations = recipe_operations(recipe, DatasetRef(name="HRStaged"), list(lineages), lineages)
    with SQLiteLineageStore(tmp_path / "old.sqlite") as store:
        LineageRecorder(RunInfo(namespace=NS, program="p", run_id="old", start=T0), store).record(
            recipe_destination("EmployeeData", list(lineages)), operations,
            column_history={name: item.to_json() for name, item in lineages.items()})
        cut = store.column_history(NS, "EmployeeData", "ID", *EVER, max_levels=2).items[0]
    assert cut.truncated is True
    assert cut.tree["sources"] == ["Employee_Name", "Dept_Name", "SSN"]
    assert cut.tree["tree"]["directive"]["name"] == "hash"
    assert cut.tree["tree"]["upstream"][0]["upstream"] == []
