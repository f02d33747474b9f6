"""The program API: models, builder, recorder validation and normalisation."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bench.examples import NAMESPACE, employee_destination, employee_operations, employee_run
from lineage import graph
from lineage.errors import LineageValidationError
from lineage.model import (
    DatasetRef,
    Destination,
    Direction,
    FieldOperation,
    InputField,
    OperationType,
    RunInfo,
    read_fields,
)
from lineage.recorder import LineageRecorder, RecordedRun, build_recorded_run, encode_column_history

USERS = DatasetRef(name="Users")


def _read(name: str = "read", fields: tuple[str, ...] = ("FirstName", "LastName")) -> FieldOperation:
    builder = FieldOperation.builder(name)
    for f in fields:
        builder.dataset_input(USERS, f)
    return builder.outputs(*fields).build()


class _Sink:
    def __init__(self) -> None:
        self.calls: list[tuple[RecordedRun, object]] = []

    def record_run(self, recorded: RecordedRun, column_history: object = None) -> bool:
        self.calls.append((recorded, column_history))
        return True


def test_builder_builds_the_seed_003_concat_operation() -> None:
    op = (
        FieldOperation.builder("Concat")
        .description("Concatenating the FirstName and LastName fields to create Name field.")
        .input("FirstName")
        .input("LastName")
        .output("Name")
        .build()
    )
    assert op.type is OperationType.TRANSFORM
    assert [i.field for i in op.inputs] == ["FirstName", "LastName"]
    assert op.output_names == ("Name",)
    assert op.description.startswith("Concatenating")


def test_type_is_derived_from_shape() -> None:
    assert _read().type is OperationType.READ
    drop = FieldOperation(name="Drop", inputs=["FirstName"])
    assert drop.type is OperationType.TRANSFORM and drop.outputs == ()
    write = FieldOperation(name="w", inputs=["a"], destination=DatasetRef(name="out"))
    assert write.type is OperationType.WRITE


def test_plain_strings_are_accepted_for_fields() -> None:
    op = FieldOperation(name="x", inputs=["a", {"field": "b", "origin": "p"}], outputs=["c"])
    assert op.inputs[0] == InputField(field="a")
    assert op.inputs[1].origin == "p"
    assert op.outputs[0].field == "c"


def test_dump_round_trips_and_rejects_a_wrong_declared_type() -> None:
    op = _read()
    dumped = op.model_dump(mode="json")
    assert dumped["type"] == "READ"
    assert FieldOperation.model_validate(dumped) == op
    dumped["type"] = "WRITE"
    with pytest.raises(ValidationError, match="declares type 'WRITE'"):
        FieldOperation.model_validate(dumped)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "m", "inputs": [InputField.of_dataset("Users", "a"), "b"], "outputs": ["c"]}, "mixes dataset"),
        ({"name": "empty"}, "neither inputs nor outputs"),
        ({"name": "dup", "inputs": ["a"], "outputs": ["b", "b"]}, r"\['b'\] more than once"),
        ({"name": "", "inputs": ["a"]}, "at least 1 character"),
        ({"name": "w", "inputs": ["a"], "outputs": ["b"], "destination": {"name": "out"}}, "must have field inputs"),
        ({"name": "x", "inputs": ["a"], "unknown": 1}, "Extra inputs are not permitted"),
    ],
)
def test_operation_shape_errors_name_the_operation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        FieldOperation(**kwargs)  # type: ignore[arg-type]


def test_input_cannot_be_both_dataset_and_field() -> None:
    with pytest.raises(ValidationError, match="names both a dataset"):
        InputField(field="a", dataset=USERS, origin="op")


def test_models_are_frozen() -> None:
    op = _read()
    with pytest.raises(ValidationError):
        op.name = "other"  # type: ignore[misc]


def test_destination_and_run_validation() -> None:
    with pytest.raises(ValidationError, match="at least one field"):
        Destination(name="out", fields=())
    with pytest.raises(ValidationError, match=r"\['a'\] more than once"):
        Destination(name="out", fields=("a", "a"))
    with pytest.raises(ValidationError, match=r"ends .* before it starts"):
        RunInfo(namespace="ns", program="p", run_id="r", start=10, end=5)
    with pytest.raises(ValidationError):
        RunInfo(namespace="ns", program="p", run_id="r", start=-1)


def test_direction_accepts_cdap_names() -> None:
    assert Direction.parse("incoming") is Direction.BACKWARD
    assert Direction.parse("OUTGOING") is Direction.FORWARD
    assert Direction.parse("forward") is Direction.FORWARD
    with pytest.raises(ValueError, match="direction must be"):
        Direction.parse("sideways")


def test_read_fields_emits_one_exact_read_per_field() -> None:
    ops = read_fields(USERS, ["a", "b"])
    assert [op.name for op in ops] == ["read:Users.a", "read:Users.b"]
    assert all(op.type is OperationType.READ and len(op.inputs) == 1 for op in ops)


# --------------------------------------------------------------------------- recorder


def test_recorder_normalises_namespaces_properties_and_synthesises_the_write() -> None:
    sink = _Sink()
    recorded = LineageRecorder(employee_run(), sink).record(employee_destination(), employee_operations())
    assert len(sink.calls) == 1 and sink.calls[0][0] is recorded
    write = recorded.operations[-1]
    assert write.type is OperationType.WRITE and write.name == "write:EmployeeData"
    assert [i.field for i in write.inputs] == list(employee_destination().fields)
    assert {i.origin for i in write.inputs} == {
        "GenerateID",
        "RenameName",
        "RenameDept",
        "ConvertSalary",
        "RenameStart",
    }
    assert recorded.destination.namespace == NAMESPACE
    # every dataset input got the run's namespace and lost its properties ...
    dataset_inputs = [i.dataset for op in recorded.operations for i in op.inputs if i.dataset is not None]
    assert dataset_inputs and all(d.namespace == NAMESPACE and d.properties == {} for d in dataset_inputs)
    # ... which moved to the per-run dataset properties
    props = {ref.name: ref.properties for ref in recorded.dataset_properties}
    assert props["HRFile"]["inputDir"] == "/data/2017/hr"
    assert props["EmployeeData"] == {"rowid": "ID"}
    # implicit origins resolved to the most recent producer: two different "body" fields
    parse = {op.name: op for op in recorded.operations}
    assert parse["PersonParse"].inputs[0].origin == "PersonRead"
    assert parse["HRParse"].inputs[0].origin == "HRRead"


def test_checksum_ignores_dataset_properties_and_operation_order() -> None:
    run = employee_run()
    a = build_recorded_run(run, employee_destination(), employee_operations())
    moved = [
        op.model_copy(
            update={
                "inputs": tuple(
                    i.model_copy(update={"dataset": i.dataset.model_copy(update={"properties": {"inputDir": "/x"}})})
                    if i.dataset is not None
                    else i
                    for i in op.inputs
                )
            }
        )
        for op in employee_operations()
    ]
    b = build_recorded_run(run, employee_destination(), moved)
    assert a.checksum == b.checksum
    assert graph.checksum(list(reversed(a.operations))) == a.checksum
    changed = [*employee_operations()[:-1], employee_operations()[-1].model_copy(update={"description": "other"})]
    assert build_recorded_run(run, employee_destination(), changed).checksum != a.checksum


def test_recorder_collects_every_problem_and_names_operations_and_fields() -> None:
    ops = [
        _read("read"),
        FieldOperation(name="concat", inputs=["FirstName", "Missing"], outputs=["Name"]),
        FieldOperation(name="concat", inputs=["LastName"], outputs=["Other"]),
        FieldOperation(name="bad_origin", inputs=[InputField(field="Name", origin="nope")], outputs=["X"]),
    ]
    with pytest.raises(LineageValidationError) as info:
        build_recorded_run(employee_run(), Destination(name="out", fields=("Name", "Ghost")), ops)
    problems = info.value.problems
    messages = " | ".join(p.message for p in problems)
    assert "'concat' is used more than once" in messages
    assert "operation 'concat' reads field 'Missing', but no earlier operation outputs it" in messages
    assert "names origin 'nope', but no operation has that name" in messages
    assert "destination field 'Ghost' is not produced by any operation" in messages
    by_field = {p.field: p.operation for p in problems if p.field}
    assert by_field["Missing"] == "concat" and by_field["Ghost"] == "write:out"
    assert info.value.to_dict()["rule"] == "invalid-lineage"


def test_origin_must_output_the_field() -> None:
    ops = [_read(), FieldOperation(name="t", inputs=[InputField(field="Nope", origin="read")], outputs=["Name"])]
    with pytest.raises(LineageValidationError, match="which does not output 'Nope'"):
        build_recorded_run(employee_run(), Destination(name="out", fields=("Name",)), ops)


def test_a_read_is_required() -> None:
    ops = [FieldOperation(name="const", outputs=["x"])]
    with pytest.raises(LineageValidationError, match="at least one READ"):
        build_recorded_run(employee_run(), Destination(name="out", fields=("x",)), ops)


def test_hand_written_write_and_reserved_name_are_rejected() -> None:
    write = FieldOperation(name="w", inputs=["FirstName"], destination=DatasetRef(name="out"))
    with pytest.raises(LineageValidationError, match=r"synthesised from Destination\.fields"):
        build_recorded_run(employee_run(), Destination(name="out", fields=("FirstName",)), [_read(), write])
    clash = FieldOperation(name="write:out", inputs=["FirstName"], outputs=["x"])
    with pytest.raises(LineageValidationError, match="reserved for the synthesised WRITE"):
        build_recorded_run(employee_run(), Destination(name="out", fields=("x",)), [_read(), clash])


def test_explicit_origin_may_point_forward_but_not_in_a_cycle() -> None:
    ops = [
        _read(),
        FieldOperation(name="a", inputs=[InputField(field="y", origin="b")], outputs=["x"]),
        FieldOperation(name="b", inputs=[InputField(field="x", origin="a")], outputs=["y"]),
    ]
    with pytest.raises(LineageValidationError, match="form a cycle"):
        build_recorded_run(employee_run(), Destination(name="out", fields=("x",)), ops)


def test_recorded_run_rechecks_its_invariants() -> None:
    recorded = build_recorded_run(employee_run(), employee_destination(), employee_operations())
    data = recorded.model_dump(mode="json")
    assert RecordedRun.model_validate(data) == recorded
    data["checksum"] = "0" * 64
    with pytest.raises(ValidationError, match="checksum does not match"):
        RecordedRun.model_validate(data)


def test_column_history_must_fit_the_destination() -> None:
    dest = Destination(namespace="ns", name="out", fields=("a",))
    assert encode_column_history(dest, {"a": {"upstream": [], "b": 1}}) == {"a": '{"b":1,"upstream":[]}'}
    with pytest.raises(LineageValidationError, match="'b', which is not a destination field"):
        encode_column_history(dest, {"b": {}})
    with pytest.raises(LineageValidationError, match="must be a JSON object"):
        encode_column_history(dest, {"a": [1]})  # type: ignore[dict-item]
    with pytest.raises(LineageValidationError, match="is not JSON"):
        encode_column_history(dest, {"a": {"x": object()}})
