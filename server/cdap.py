"""CDAP's field-lineage REST shapes (``LineageHTTPHandler``), built from the same store answers.

The compatibility routes return exactly CDAP's JSON (Gson leaves null members out, so a direction
that was not asked for is absent), computed from the native queries underneath:

* ``lineage/fields/{f}`` (summary): the fields at the other end of the field's operation groups;
* ``…/operations``: the same groups, as ``ProgramFieldOperationInfo`` with CDAP's operation shape;
* ``allfieldlineage``: level-1 dataset mappings turned into per-dataset relations.

CDAP answers these unpaginated; here they page over operation groups / mappings, and a single
opaque cursor carries one position per direction (``CompositeCursor``).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lineage.model import FieldOperation, OperationType
from lineage.store.results import DatasetMapping, FieldLineage, OperationGroup
from server.errors import ParameterError

PROGRAM_TYPE = "Spark"
PROGRAM_VERSION = "-SNAPSHOT"


class _Cdap(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)


class FieldWithLineage(_Cdap):
    name: str
    lineage: bool


class DatasetId(_Cdap):
    namespace: str
    dataset: str
    entity: Literal["DATASET"] = "DATASET"


class DatasetField(_Cdap):
    dataset: DatasetId
    fields: list[str]


class FieldLineageSummary(_Cdap):
    incoming: list[DatasetField] | None = None
    outgoing: list[DatasetField] | None = None


class EndPoint(_Cdap):
    namespace: str
    name: str
    properties: dict[str, str] = Field(default_factory=dict)


class OperationInputField(_Cdap):
    origin: str
    name: str


class OperationInputs(_Cdap):
    endPoint: EndPoint | None = None  # CDAP field names
    fields: list[OperationInputField] | None = None


class OperationOutputs(_Cdap):
    fields: list[str] | None = None
    endPoint: EndPoint | None = None


class FieldOperationInfo(_Cdap):
    name: str
    description: str
    inputs: OperationInputs
    outputs: OperationOutputs


class ProgramId(_Cdap):
    namespace: str
    application: str
    version: str
    type: str
    program: str
    entity: Literal["PROGRAM"] = "PROGRAM"


class ProgramInfo(_Cdap):
    program: ProgramId
    lastExecutedTimeInSeconds: int


class ProgramFieldOperationInfo(_Cdap):
    programs: list[ProgramInfo]
    operations: list[FieldOperationInfo]


class FieldLineageDetails(_Cdap):
    incoming: list[ProgramFieldOperationInfo] | None = None
    outgoing: list[ProgramFieldOperationInfo] | None = None


class FieldRelation(_Cdap):
    source: str
    destination: str


class DatasetRelations(_Cdap):
    entityId: DatasetId
    relations: list[FieldRelation]


class DatasetFieldLineageSummary(_Cdap):
    direction: Literal["INCOMING", "OUTGOING", "BOTH"]
    start_ts: int = Field(alias="start-ts", description="milliseconds")
    end_ts: int = Field(alias="end-ts", description="milliseconds")
    entityId: DatasetId
    fields: list[str]
    incoming: list[DatasetRelations] | None = None
    outgoing: list[DatasetRelations] | None = None


# --------------------------------------------------------------------------- conversions


def dataset_fields(groups: Iterable[OperationGroup]) -> list[DatasetField]:
    """The fields at the other end of the groups, grouped by dataset (CDAP ``DatasetField``)."""
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for group in groups:
        for ref in group.fields:
            found[(ref.namespace, ref.dataset)].add(ref.field)
    return [
        DatasetField(dataset=DatasetId(namespace=ns, dataset=ds), fields=sorted(names))
        for (ns, ds), names in sorted(found.items())
    ]


def _endpoint(op: FieldOperation) -> EndPoint:
    ref = op.destination or next(i.dataset for i in op.inputs if i.dataset is not None)
    return EndPoint(namespace=ref.namespace or "", name=ref.name)


def operation_info(op: FieldOperation) -> FieldOperationInfo:
    """CDAP's operation shape: READ has an input endPoint, WRITE an output endPoint, the rest field lists."""
    fields_in = [OperationInputField(origin=i.origin or "", name=i.field) for i in op.inputs if i.dataset is None]
    outputs = list(op.output_names)
    if op.type is OperationType.READ:
        inputs, outs = OperationInputs(endPoint=_endpoint(op)), OperationOutputs(fields=outputs)
    elif op.type is OperationType.WRITE:
        inputs, outs = OperationInputs(fields=fields_in), OperationOutputs(endPoint=_endpoint(op))
    else:
        inputs, outs = OperationInputs(fields=fields_in), OperationOutputs(fields=outputs)
    return FieldOperationInfo(name=op.name, description=op.description, inputs=inputs, outputs=outs)


def program_operations(group: OperationGroup) -> ProgramFieldOperationInfo:
    """One group: each program's latest run in it (newest first) and the pruned operations."""
    latest: dict[tuple[str, str], int] = {}
    for run in group.runs:
        key = (run.namespace, run.program)
        latest[key] = max(latest.get(key, run.start), run.start)
    programs = [
        ProgramInfo(
            program=ProgramId(namespace=ns, application=program, version=PROGRAM_VERSION, type=PROGRAM_TYPE,
                              program=program),
            lastExecutedTimeInSeconds=started,
        )
        for (ns, program), started in sorted(latest.items(), key=lambda item: (-item[1], item[0]))
    ]
    return ProgramFieldOperationInfo(programs=programs, operations=[operation_info(op) for op in group.operations])


def operation_details(lineage: FieldLineage | None) -> list[ProgramFieldOperationInfo] | None:
    return None if lineage is None else [program_operations(group) for group in lineage.groups]


def relations(mappings: Sequence[DatasetMapping], *, incoming: bool) -> list[DatasetRelations]:
    """Level-1 mappings as CDAP relations, keyed by the dataset at the other end."""
    by_dataset: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for mapping in mappings:
        other = mapping.source if incoming else mapping.destination
        for pair in mapping.fieldmap:
            by_dataset[(other.namespace, other.name)].add((pair.source, pair.target))
    return [
        DatasetRelations(
            entityId=DatasetId(namespace=ns, dataset=ds),
            relations=[FieldRelation(source=s, destination=d) for s, d in sorted(pairs)],
        )
        for (ns, ds), pairs in sorted(by_dataset.items())
    ]


# --------------------------------------------------------------------------- one cursor for several lists

DONE = object()
"""Marks a part whose pages are exhausted (absent from a continuation cursor)."""


class CompositeCursor:
    """One opaque cursor holding a store cursor per part ("b", "f", "fields", ...).

    No cursor means the first page of every part; a continuation lists only the parts with more
    pages, so a part that is finished stays finished.
    """

    @staticmethod
    def decode(cursor: str | None, parts: Sequence[str]) -> dict[str, Any]:
        if cursor is None:
            return dict.fromkeys(parts)
        try:
            raw = base64.urlsafe_b64decode((cursor + "=" * (-len(cursor) % 4)).encode("ascii"))
            data = json.loads(raw)
        except (ValueError, binascii.Error, UnicodeError):
            raise ParameterError("cursor", "malformed cursor") from None
        if (
            not isinstance(data, dict)
            or not data
            or not set(data) <= set(parts)
            or not all(isinstance(value, str) for value in data.values())
        ):
            raise ParameterError("cursor", "cursor does not belong to this query")
        return {part: data.get(part, DONE) for part in parts}

    @staticmethod
    def encode(next_cursors: dict[str, str | None]) -> str | None:
        live = {part: value for part, value in next_cursors.items() if value is not None}
        if not live:
            return None
        raw = json.dumps(live, separators=(",", ":"), sort_keys=True).encode("utf-8")
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
