"""Pure graph functions: origins, order, checksum, summaries, per-field pruning and the node graph."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.examples import NAMESPACE, employee_destination, employee_operations, employee_run
from lineage import graph
from lineage.errors import CycleError, LineageValidationError
from lineage.model import DatasetRef, Direction, FieldKey, FieldOperation, InputField, OperationType, read_fields
from lineage.recorder import build_recorded_run


def _employee_ops() -> list[FieldOperation]:
    return list(build_recorded_run(employee_run(), employee_destination(), employee_operations()).operations)


def _emp(field: str) -> FieldKey:
    return FieldKey(NAMESPACE, "EmployeeData", field)


HR_RECORD = FieldKey(NAMESPACE, "HRFile", "HRRecord")
PERSON_RECORD = FieldKey(NAMESPACE, "PersonFile", "PersonRecord")


def test_implicit_origin_is_the_most_recent_earlier_producer() -> None:
    src = DatasetRef(namespace="ns", name="s")
    ops = [
        FieldOperation(name="r1", inputs=[InputField.of_dataset(src, "a")], outputs=["x"]),
        FieldOperation(name="t1", inputs=["x"], outputs=["x"]),  # reads r1.x, then shadows x
        FieldOperation(name="t2", inputs=["x"], outputs=["y"]),  # reads t1.x
        FieldOperation(name="drop", inputs=["x"]),  # a drop does not unregister x
        FieldOperation(name="t3", inputs=["x"], outputs=["z"]),  # still t1.x
    ]
    resolved = {op.name: op for op in graph.resolve_origins(ops)}
    assert resolved["t1"].inputs[0].origin == "r1"
    assert resolved["t2"].inputs[0].origin == "t1"
    assert resolved["drop"].inputs[0].origin == "t1"
    assert resolved["t3"].inputs[0].origin == "t1"


def test_unresolvable_input_raises_naming_operation_and_field() -> None:
    with pytest.raises(LineageValidationError) as info:
        graph.resolve_origins([FieldOperation(name="t", inputs=["ghost"], outputs=["y"])])
    assert info.value.problems[0].operation == "t"
    assert info.value.problems[0].field == "ghost"


def test_topological_order_keeps_recorded_order_for_ties_and_detects_cycles() -> None:
    ops = [
        FieldOperation(name="late", inputs=[InputField(field="a", origin="early")], outputs=["b"]),
        FieldOperation(name="early", inputs=[InputField.of_dataset("s", "a")], outputs=["a"]),
        FieldOperation(name="other", inputs=[InputField.of_dataset("s", "c")], outputs=["c"]),
    ]
    assert [op.name for op in graph.topological_order(ops)] == ["early", "late", "other"]
    loop = [
        FieldOperation(name="a", inputs=[InputField(field="y", origin="b")], outputs=["x"]),
        FieldOperation(name="b", inputs=[InputField(field="x", origin="a")], outputs=["y"]),
    ]
    with pytest.raises(CycleError, match=r"\['a', 'b'\] form a cycle"):
        graph.topological_order(loop)


def test_incoming_summary_of_seed_000() -> None:
    incoming = graph.incoming_summary(_employee_ops())
    assert incoming[_emp("ID")] == {HR_RECORD, PERSON_RECORD}
    assert incoming[_emp("Salary_USD")] == {HR_RECORD}
    assert set(incoming) == {_emp(f) for f in employee_destination().fields}


def test_outgoing_summary_is_the_inverse_and_keeps_dropped_fields() -> None:
    src = DatasetRef(namespace="ns", name="s")
    ops = [
        *read_fields(src, ["a", "b"]),
        FieldOperation(name="drop_b", inputs=[InputField(field="b", origin="read:s.b")]),
        FieldOperation(
            name="write:out",
            inputs=[InputField(field="a", origin="read:s.a")],
            destination=src.model_copy(update={"name": "out"}),
        ),
    ]
    outgoing = graph.outgoing_summary(ops)
    assert outgoing[FieldKey("ns", "s", "a")] == {FieldKey("ns", "out", "a")}
    assert outgoing[FieldKey("ns", "s", "b")] == frozenset()
    out = graph.outgoing_summary(_employee_ops())
    assert out[PERSON_RECORD] == {_emp("ID")}
    assert out[HR_RECORD] == {_emp(f) for f in employee_destination().fields}


def test_backward_pruning_keeps_only_what_feeds_the_field() -> None:
    pruned = graph.operations_for_field(_employee_ops(), _emp("ID"), Direction.BACKWARD)
    names = [op.name for op in pruned]
    assert names == ["PersonRead", "PersonParse", "HRRead", "HRParse", "GenerateID", "write:EmployeeData"]
    by_name = {op.name: op for op in pruned}
    # seed 000: the parser shows only the outputs ID needs, not Salary / Start_Date
    assert by_name["HRParse"].output_names == ("Employee_Name", "Dept_Name")
    assert [i.field for i in by_name["write:EmployeeData"].inputs] == ["ID"]
    assert "ConvertSalary" not in names and "RenameName" not in names


def test_forward_pruning_from_a_source_field() -> None:
    pruned = graph.operations_for_field(_employee_ops(), PERSON_RECORD, "forward")
    assert [op.name for op in pruned] == ["PersonRead", "PersonParse", "GenerateID", "write:EmployeeData"]
    by_name = {op.name: op for op in pruned}
    # GenerateID keeps only the input that comes from PersonRecord
    assert [i.field for i in by_name["GenerateID"].inputs] == ["SSN"]
    assert [i.field for i in by_name["write:EmployeeData"].inputs] == ["ID"]
    assert graph.operations_for_field(_employee_ops(), FieldKey(NAMESPACE, "HRFile", "nope"), "forward") == []


def test_field_graph_has_origin_qualified_nodes_and_no_salary() -> None:
    g = graph.field_graph(_employee_ops(), _emp("ID"), Direction.BACKWARD)
    ids = {n.id for n in g.nodes}
    assert {"PersonRead.body", "HRRead.body", "HRParse.Employee_Name", "PersonParse.SSN", "GenerateID.ID"} <= ids
    assert not any("Salary" in i for i in ids)
    edges = {(c.source, c.target, c.operation) for c in g.connections}
    assert ("HRParse.Employee_Name", "GenerateID.ID", "GenerateID") in edges
    assert (f"source:{NAMESPACE}:PersonFile.PersonRecord", "PersonRead.body", "PersonRead") in edges
    dest = f"destination:{NAMESPACE}:EmployeeData.ID"
    assert ("GenerateID.ID", dest, "write:EmployeeData") in edges
    node = next(n for n in g.nodes if n.id == dest)
    assert node.destination_endpoint is not None and node.destination_endpoint.name == "EmployeeData"
    dumped = g.connections[0].model_dump()
    assert set(dumped) == {"from", "to", "operation"}


def test_operation_granularity_and_exact_reads() -> None:
    src = DatasetRef(namespace="ns", name="s")
    dest = DatasetRef(namespace="ns", name="out")
    coarse = [
        FieldOperation(
            name="read", inputs=[InputField.of_dataset(src, "a"), InputField.of_dataset(src, "b")], outputs=["a", "b"]
        ),
        FieldOperation(name="write:out", inputs=[InputField(field="a", origin="read")], destination=dest),
    ]
    assert graph.incoming_summary(coarse)[FieldKey("ns", "out", "a")] == {
        FieldKey("ns", "s", "a"),
        FieldKey("ns", "s", "b"),
    }
    exact = [
        *read_fields(src, ["a", "b"]),
        FieldOperation(name="write:out", inputs=[InputField(field="a", origin="read:s.a")], destination=dest),
    ]
    assert graph.incoming_summary(exact)[FieldKey("ns", "out", "a")] == {FieldKey("ns", "s", "a")}


def test_validate_requires_read_and_write() -> None:
    ops = [FieldOperation(name="r", inputs=[InputField.of_dataset("s", "a")], outputs=["a"])]
    with pytest.raises(LineageValidationError, match="at least one WRITE"):
        graph.validate_operations(ops)
    assert graph.validate_operations(ops, require_write=False)[0].type is OperationType.READ


# --------------------------------------------------------------------------- properties (hypothesis)


@st.composite
def _chains(draw: st.DrawFn) -> list[FieldOperation]:
    """Random DAGs of operations with explicit origins over one source and one destination."""
    src = DatasetRef(namespace="ns", name="src")
    n_fields = draw(st.integers(1, 4))
    ops = read_fields(src, [f"f{i}" for i in range(n_fields)])
    produced = [(op.name, op.output_names[0]) for op in ops]
    for i in range(draw(st.integers(0, 8))):
        picks = draw(st.lists(st.sampled_from(produced), min_size=1, max_size=3, unique=True))
        op = FieldOperation(name=f"t{i}", inputs=[InputField(field=f, origin=o) for o, f in picks], outputs=[f"v{i}"])
        ops.append(op)
        produced.append((op.name, f"v{i}"))
    written = draw(st.lists(st.sampled_from(produced), min_size=1, max_size=4, unique_by=lambda p: p[1]))
    ops.append(
        FieldOperation(
            name="write:dst",
            inputs=[InputField(field=f, origin=o) for o, f in written],
            destination=DatasetRef(namespace="ns", name="dst"),
        )
    )
    return ops


@settings(max_examples=60, deadline=None)
@given(_chains(), st.randoms(use_true_random=False))
def test_checksum_and_summaries_do_not_depend_on_recorded_order(ops: list[FieldOperation], rnd: random.Random) -> None:
    shuffled = list(ops)
    rnd.shuffle(shuffled)
    assert graph.checksum(shuffled) == graph.checksum(ops)
    assert graph.incoming_summary(shuffled) == graph.incoming_summary(ops)
    order = [op.name for op in graph.topological_order(shuffled)]
    for op in ops:
        for inp in op.inputs:
            if inp.origin is not None:
                assert order.index(inp.origin) < order.index(op.name)


@settings(max_examples=60, deadline=None)
@given(_chains())
def test_backward_pruning_agrees_with_the_summary(ops: list[FieldOperation]) -> None:
    incoming = graph.incoming_summary(ops)
    for target, sources in incoming.items():
        pruned = graph.operations_for_field(ops, target, Direction.BACKWARD)
        read_sources = {
            FieldKey(i.dataset.namespace or "", i.dataset.name, i.field)
            for op in pruned
            for i in op.inputs
            if i.dataset is not None
        }
        assert read_sources == sources
        # and the pruned slice is itself a valid operation list whose summary is that one field
        assert graph.incoming_summary(pruned) == {target: sources}
