"""Turning a program's ``record(destination, operations)`` call into a validated ``RecordedRun``.

This is the only way lineage enters the store, so every rule that keeps stored lineage
queryable is enforced here, before anything is written:

* operation names are unique; every origin exists and outputs the field it is asked for;
* there is at least one READ;
* the WRITE is synthesised from ``Destination.fields`` (named ``write:<destination>``), and every
  destination field must have a producer — the most recent operation that output that name.
  A column copied straight from a source is therefore declared by the READ that outputs it (or
  an identity operation); a destination field nobody produced is an error, not a silent gap;
* dataset namespaces left as ``None`` become the run's namespace;
* dataset properties are moved out of the operations into per-run dataset properties, so the
  operation checksum identifies the *logic* of a run, not its input paths.

It lives apart from ``model`` because it needs ``graph`` (which itself imports ``model``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self

from pydantic import BaseModel, ConfigDict, model_validator

from lineage import graph
from lineage.errors import LineageValidationError, Problem
from lineage.model import (
    WRITE_PREFIX,
    DatasetKey,
    DatasetRef,
    Destination,
    FieldOperation,
    InputField,
    OperationType,
    RunInfo,
)

ColumnHistory = Mapping[str, Mapping[str, Any]]
"""Final column name -> opaque JSON tree of the directives that made it (built by the backtracker)."""


class RecordedRun(BaseModel):
    """A run's lineage, validated and normalised; constructing one re-checks every invariant.

    ``operations`` have explicit origins, explicit namespaces, no dataset properties, and end with
    the synthesised WRITE. ``dataset_properties`` holds one entry per dataset the run touched, with
    the union of the properties given for it (later values win on a key clash).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: RunInfo
    destination: Destination
    operations: tuple[FieldOperation, ...]
    checksum: str
    dataset_properties: tuple[DatasetRef, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Self:
        problems: list[Problem] = []
        if self.destination.namespace is None:
            problems.append(Problem("recorded destination must have an explicit namespace"))
        for op in self.operations:
            for inp in op.inputs:
                if inp.dataset is not None and inp.dataset.namespace is None:
                    problems.append(Problem("recorded dataset inputs need explicit namespaces", op.name, inp.field))
                if inp.dataset is None and inp.origin is None:
                    problems.append(Problem("recorded field inputs need explicit origins", op.name, inp.field))
        _, found = graph.check_operations(self.operations, require_read=True, require_write=True)
        problems.extend(found)
        writes = [op for op in self.operations if op.type is OperationType.WRITE]
        if len(writes) == 1 and self.destination.namespace is not None:
            write = writes[0]
            if write.destination is None or graph.dataset_key(write.destination) != self.destination_key:
                problems.append(Problem("the WRITE operation does not write the run's destination", write.name))
            if tuple(i.field for i in write.inputs) != self.destination.fields:
                problems.append(Problem("the WRITE operation's inputs differ from the destination fields", write.name))
        elif writes:
            problems.append(Problem(f"a recorded run has exactly one WRITE operation, not {len(writes)}"))
        if not problems and graph.checksum(self.operations) != self.checksum:
            problems.append(Problem("checksum does not match the operations"))
        keys = [graph.dataset_key(ref) for ref in self.dataset_properties]
        if len(set(keys)) != len(keys):
            problems.append(Problem("dataset_properties lists a dataset more than once"))
        if problems:
            raise LineageValidationError(problems)
        return self

    @property
    def destination_key(self) -> DatasetKey:
        return DatasetKey(self.destination.namespace or graph.DEFAULT_NAMESPACE, self.destination.name)


class LineageSink(Protocol):
    """Where recorded runs go; ``SQLiteLineageStore`` is one. Returns False for an identical re-record."""

    def record_run(self, recorded: RecordedRun, column_history: ColumnHistory | None = None) -> bool: ...


def build_recorded_run(run: RunInfo, destination: Destination, operations: Sequence[FieldOperation]) -> RecordedRun:
    """Normalise and validate one ``record(destination, operations)`` call (see the module docstring)."""
    problems: list[Problem] = []
    merged: dict[DatasetKey, dict[str, str]] = {}
    normalised: list[FieldOperation] = []
    for op in operations:
        if op.destination is not None:
            problems.append(
                Problem(
                    f"operation {op.name!r} is a WRITE; WRITE operations are synthesised from Destination.fields",
                    operation=op.name,
                )
            )
            continue
        if not any(inp.dataset is not None for inp in op.inputs):
            normalised.append(op)  # nothing to normalise: keep the (immutable) operation itself
            continue
        inputs = []
        for inp in op.inputs:
            if inp.dataset is None:
                inputs.append(inp)
                continue
            key = inp.dataset.key(run.namespace)
            merged.setdefault(key, {}).update(inp.dataset.properties)
            inputs.append(InputField(field=inp.field, dataset=DatasetRef(namespace=key.namespace, name=key.name)))
        normalised.append(op.model_copy(update={"inputs": tuple(inputs)}))

    dest_key = destination.key(run.namespace)
    merged.setdefault(dest_key, {}).update(destination.properties)
    write_name = WRITE_PREFIX + destination.name
    if any(op.name == write_name for op in operations):
        problems.append(
            Problem(f"operation name {write_name!r} is reserved for the synthesised WRITE", operation=write_name)
        )
    write = FieldOperation(
        name=write_name,
        description=destination.description or f"Write to dataset {destination.name!r}",
        inputs=tuple(InputField(field=f) for f in destination.fields),
        destination=DatasetRef(namespace=dest_key.namespace, name=dest_key.name),
    )
    resolved, found = graph.check_operations([*normalised, write], require_read=True, require_write=True)
    problems.extend(found)
    if problems:
        raise LineageValidationError(problems)
    # Everything `RecordedRun` re-checks holds by construction here (explicit namespaces and origins, one
    # synthesised WRITE of the destination fields, a checksum of exactly these operations, one properties entry
    # per dataset), so the second validation pass — as costly as the first on wide runs — is skipped.
    return RecordedRun.model_construct(
        run=run,
        destination=destination.model_copy(update={"namespace": dest_key.namespace}),
        operations=tuple(resolved),
        checksum=graph.checksum(resolved),
        dataset_properties=tuple(
            DatasetRef(namespace=key.namespace, name=key.name, properties=props) for key, props in merged.items()
        ),
    )


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, no NaN: equal values always give equal text (and hashes)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def encode_column_history(destination: Destination, history: ColumnHistory | None) -> dict[str, str]:
    """Check a per-column directive history and encode each tree as canonical JSON text.

    Keys must be destination fields and values JSON objects; the trees are otherwise opaque.
    """
    if history is None:
        return {}
    problems: list[Problem] = []
    result: dict[str, str] = {}
    for column, tree in history.items():
        if column not in destination.fields:
            problems.append(Problem(f"column history for {column!r}, which is not a destination field", field=column))
            continue
        if not isinstance(tree, Mapping):
            problems.append(Problem(f"column history for {column!r} must be a JSON object", field=column))
            continue
        try:
            result[column] = canonical_json(tree)
        except (TypeError, ValueError) as exc:
            problems.append(Problem(f"column history for {column!r} is not JSON: {exc}", field=column))
    if problems:
        raise LineageValidationError(problems)
    return result


class LineageRecorder:
    """The program-facing recorder of seed 003: ``record(destination, operations)`` for one run.

    Validation errors surface here, in the program, before a sink sees anything. With no sink the
    recorder only validates and returns the ``RecordedRun`` (useful for design-time lineage).
    """

    def __init__(self, run: RunInfo, sink: LineageSink | None = None) -> None:
        self.run = run
        self.sink = sink

    def record(
        self,
        destination: Destination,
        operations: Sequence[FieldOperation],
        *,
        column_history: ColumnHistory | None = None,
    ) -> RecordedRun:
        recorded = build_recorded_run(self.run, destination, operations)
        encode_column_history(recorded.destination, column_history)  # fail here, in the program, not in the sink
        if self.sink is not None:
            self.sink.record_run(recorded, column_history)
        return recorded
