"""The store end to end on seed 000's example, on SQLite and on PostgreSQL: record, then every query reads it back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.examples import NAMESPACE, employee_destination, employee_operations, employee_run
from lineage.errors import InvalidCursorError, LineageValidationError, QueryError, RunConflictError, RunNotFoundError
from lineage.model import FieldOperation
from lineage.recorder import LineageRecorder, RecordedRun, build_recorded_run
from lineage.store import LineageStore, SQLiteLineageStore, open_store
from tests.conftest import store_sql

T0 = 1_500_000_000
EVER = (0, 2_000_000_000)


def _history(column: str) -> dict[str, object]:
    return {
        "column": column,
        "directive": f"make {column}",
        "upstream": [{"column": "a", "directive": "parse", "upstream": [{"column": "body", "upstream": []}]}],
    }


@pytest.fixture
def store(store_location: str | Path) -> Iterator[LineageStore]:
    s = open_store(store_location)
    yield s
    s.close()


@pytest.fixture
def recorded(store: LineageStore) -> RecordedRun:
    history = {"ID": _history("ID"), "Name": _history("Name")}
    return LineageRecorder(employee_run("run1", T0), store).record(
        employee_destination(), employee_operations(), column_history=history
    )


def test_id_depends_only_on_employee_name_dept_name_and_ssn(store: LineageStore, recorded: RecordedRun) -> None:
    lineage = store.field_lineage(NAMESPACE, "EmployeeData", "ID", "backward", *EVER)
    assert len(lineage.groups) == 1
    group = lineage.groups[0]
    assert group.checksum == recorded.checksum
    assert [r.run_id for r in group.runs] == ["run1"]
    ops = {op.name: op for op in group.operations}
    assert set(ops) == {"PersonRead", "PersonParse", "HRRead", "HRParse", "GenerateID", "write:EmployeeData"}
    assert ops["HRParse"].output_names == ("Employee_Name", "Dept_Name")
    assert [i.field for i in ops["GenerateID"].inputs] == ["Employee_Name", "Dept_Name", "SSN"]
    node_labels = {n.label for n in group.graph.nodes}
    assert {"Employee_Name", "Dept_Name", "SSN", "ID"} <= node_labels
    assert "Salary" not in node_labels and "Start_Date" not in node_labels
    assert {(f.dataset, f.field) for f in group.fields} == {("HRFile", "HRRecord"), ("PersonFile", "PersonRecord")}
    # Salary_USD, by contrast, has no Person file operations at all
    salary = store.field_lineage(NAMESPACE, "EmployeeData", "Salary_USD", "backward", *EVER).groups[0]
    assert "PersonRead" not in {op.name for op in salary.operations}
    assert {f.dataset for f in salary.fields} == {"HRFile"}


def test_forward_field_lineage_from_a_source(store: LineageStore, recorded: RecordedRun) -> None:
    lineage = store.field_lineage(NAMESPACE, "PersonFile", "PersonRecord", "outgoing", *EVER)
    group = lineage.groups[0]
    assert [op.name for op in group.operations] == ["PersonRead", "PersonParse", "GenerateID", "write:EmployeeData"]
    assert [(f.dataset, f.field) for f in group.fields] == [("EmployeeData", "ID")]
    assert store.field_lineage(NAMESPACE, "PersonFile", "PersonRecord", "backward", *EVER).groups == ()


def test_fields_of_destination_and_source(store: LineageStore, recorded: RecordedRun) -> None:
    dest = store.fields(NAMESPACE, "EmployeeData", *EVER)
    assert [f.name for f in dest.items] == sorted(employee_destination().fields)
    first = dest.items[0]
    assert (first.created, first.updated, first.last_run, first.incoming, first.outgoing) == (
        T0,
        T0,
        "run1",
        True,
        False,
    )
    source = store.fields(NAMESPACE, "HRFile", *EVER)
    assert [(f.name, f.incoming, f.outgoing) for f in source.items] == [("HRRecord", False, True)]
    assert [f.name for f in store.fields(NAMESPACE, "EmployeeData", *EVER, prefix="sal").items] == ["Salary_USD"]
    assert store.fields(NAMESPACE, "EmployeeData", *EVER, prefix="%").items == ()
    assert store.fields(NAMESPACE, "Nope", *EVER).items == ()


def test_created_updated_and_last_run_follow_runs(store: LineageStore, recorded: RecordedRun) -> None:
    LineageRecorder(employee_run("run2", T0 + 100), store).record(employee_destination(), employee_operations())
    LineageRecorder(employee_run("run0", T0 - 100), store).record(employee_destination(), employee_operations())
    info = {f.name: f for f in store.fields(NAMESPACE, "EmployeeData", *EVER).items}["ID"]
    assert (info.created, info.updated, info.last_run) == (T0 - 100, T0 + 100, "run2")
    only_first = {f.name: f for f in store.fields(NAMESPACE, "EmployeeData", T0 - 100, T0).items}["ID"]
    assert (only_first.updated, only_first.last_run) == (T0 - 100, "run0")


def test_summary_and_dataset_properties(store: LineageStore, recorded: RecordedRun) -> None:
    summary = store.summary(NAMESPACE, "EmployeeData", "backward", *EVER)
    by_source = {m.source.name: {(p.source, p.target) for p in m.fieldmap} for m in summary.mappings}
    assert by_source["PersonFile"] == {("PersonRecord", "ID")}
    assert ("HRRecord", "Salary_USD") in by_source["HRFile"]
    assert summary.mappings[0].model_dump()["fieldmap"][0].keys() == {"from", "to"}
    forward = store.summary(NAMESPACE, "PersonFile", "forward", *EVER)
    assert [(m.source.name, m.destination.name) for m in forward.mappings] == [("PersonFile", "EmployeeData")]
    props = store.dataset_properties(NAMESPACE, "HRFile", *EVER)
    assert [(p.run.run_id, p.properties) for p in props.items] == [
        ("run1", {"inputDir": "/data/2017/hr", "regex": "*.csv"})
    ]
    assert store.dataset_properties(NAMESPACE, "EmployeeData", *EVER).items[0].properties == {"rowid": "ID"}


def test_column_history_is_stored_and_truncated(store: LineageStore, recorded: RecordedRun) -> None:
    full = store.column_history(NAMESPACE, "EmployeeData", "ID", *EVER)
    assert full.items[0].tree == _history("ID") and full.items[0].truncated is False
    cut = store.column_history(NAMESPACE, "EmployeeData", "ID", *EVER, max_levels=2).items[0]
    assert cut.truncated is True
    assert cut.tree["upstream"][0]["upstream"] == []
    assert cut.tree["upstream"][0]["directive"] == "parse"
    root_only = store.column_history(NAMESPACE, "EmployeeData", "ID", *EVER, max_levels=1).items[0]
    assert root_only.tree["upstream"] == [] and root_only.tree["directive"] == "make ID"
    assert store.column_history(NAMESPACE, "EmployeeData", "Department", *EVER).items == ()
    with pytest.raises(QueryError, match="max_levels"):
        store.column_history(NAMESPACE, "EmployeeData", "ID", *EVER, max_levels=0)


def test_run_and_runs(store: LineageStore, recorded: RecordedRun) -> None:
    run = store.run(NAMESPACE, "run1")
    assert run is not None
    assert run.checksum == recorded.checksum
    assert run.destination_fields == employee_destination().fields
    assert {s.name for s in run.sources} == {"HRFile", "PersonFile"}
    assert run.columns_with_history == ("ID", "Name")
    assert {p.dataset.name for p in run.dataset_properties} == {"HRFile", "PersonFile", "EmployeeData"}
    assert [op.name for op in run.operations] == [op.name for op in recorded.operations]
    assert store.run(NAMESPACE, "missing") is None
    assert store.run("other-namespace", "run1") is None
    listed = store.runs(NAMESPACE, *EVER)
    assert [(r.run_id, r.destination.name, r.end) for r in listed.items] == [("run1", "EmployeeData", T0 + 60)]
    assert store.runs(NAMESPACE, *EVER, program="OtherProgram").items == ()


def test_re_recording_is_idempotent_and_a_different_run_conflicts(
    store: LineageStore, recorded: RecordedRun
) -> None:
    history = {"ID": _history("ID"), "Name": _history("Name")}
    assert store.record_run(recorded, history) is False
    assert len(store.runs(NAMESPACE, *EVER).items) == 1
    ops = employee_operations()
    ops[0] = ops[0].model_copy(update={"description": "changed"})
    other = build_recorded_run(employee_run("run1", T0), employee_destination(), ops)
    with pytest.raises(RunConflictError, match=r"'run1'.*different lineage"):
        store.record_run(other)
    assert store.run(NAMESPACE, "run1").checksum == recorded.checksum  # type: ignore[union-attr]


def test_operation_sets_are_stored_once(store: LineageStore, recorded: RecordedRun) -> None:
    for i in range(5):
        LineageRecorder(employee_run(f"again{i}", T0 + i), store).record(employee_destination(), employee_operations())
    assert store_sql(store, "SELECT count(*) FROM operations") == [(1,)]
    assert store_sql(store, "SELECT count(*) FROM runs") == [(6,)]
    # a backward row per destination field and a forward row per source field, per run
    assert store_sql(store, "SELECT count(*) FROM field_runs WHERE direction = 'b'") == [(6 * 5,)]
    assert store_sql(store, "SELECT count(*) FROM field_runs WHERE direction = 'f'") == [(6 * 2,)]
    group = store.field_lineage(NAMESPACE, "EmployeeData", "ID", "backward", *EVER, max_runs=3).groups[0]
    assert [r.run_id for r in group.runs] == ["again4", "again3", "again2"]


def test_diff_field_between_runs(store: LineageStore, recorded: RecordedRun) -> None:
    ops = employee_operations()
    ops.insert(-3, FieldOperation.builder("HashID").input("ID").output("ID").build())
    LineageRecorder(employee_run("run2", T0 + 10), store).record(employee_destination(), ops)
    diff = store.diff_field(NAMESPACE, "EmployeeData", "ID", "run1", "run2")
    assert diff.changed is True
    assert [op.name for op in diff.added_operations] == ["HashID", "write:EmployeeData"]
    assert [op.name for op in diff.removed_operations] == ["write:EmployeeData"]
    assert diff.removed_operations[0].inputs[0].origin == "GenerateID"
    assert diff.added_fields == () and diff.removed_fields == ()
    same = store.diff_field(NAMESPACE, "EmployeeData", "Name", "run1", "run2")
    assert same.changed is False and same.checksum_a != same.checksum_b
    with pytest.raises(RunNotFoundError, match="'nope'"):
        store.diff_field(NAMESPACE, "EmployeeData", "ID", "run1", "nope")


def test_watermark_moves_when_a_run_touches_the_dataset(store: LineageStore, recorded: RecordedRun) -> None:
    before = store.watermark(NAMESPACE, "HRFile")
    assert before > 0
    assert store.watermark(NAMESPACE, "Unknown") == 0
    LineageRecorder(employee_run("run2", T0 + 10), store).record(employee_destination(), employee_operations())
    assert store.watermark(NAMESPACE, "HRFile") > before


def test_bad_queries_are_rejected(store: LineageStore, recorded: RecordedRun) -> None:
    with pytest.raises(QueryError, match="after end"):
        store.fields(NAMESPACE, "EmployeeData", 10, 5)
    with pytest.raises(QueryError, match="negative"):
        store.runs(NAMESPACE, -1, 5)
    with pytest.raises(QueryError, match="limit"):
        store.runs(NAMESPACE, *EVER, limit=0)
    with pytest.raises(QueryError, match="levels"):
        store.summary(NAMESPACE, "EmployeeData", "backward", *EVER, levels=0)
    with pytest.raises(ValueError, match="direction"):
        store.field_lineage(NAMESPACE, "EmployeeData", "ID", "up", *EVER)
    with pytest.raises(InvalidCursorError, match="malformed"):
        store.runs(NAMESPACE, *EVER, cursor="!!not-a-cursor!!")
    with pytest.raises(LineageValidationError, match="not a destination field"):
        store.record_run(recorded, {"Nope": {}})
    with pytest.raises(ValueError, match="database file"):
        SQLiteLineageStore(":memory:")


def test_lineage_and_server_layers_do_not_import_pyspark() -> None:
    import subprocess
    import sys

    code = (
        "import lineage, lineage.store, lineage.timeparse, sys; assert 'pyspark' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])
