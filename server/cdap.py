"""CDAP's field-lineage REST API (``LineageHTTPHandler``): its query semantics and JSON shapes, our store underneath.

Clients written against CDAP must get CDAP's answers, so everything here follows CDAP's source, not taste:

* times: ``TimeMathParser.parseTimeInSeconds`` — digits are epoch seconds (any Java ``long``), ``now`` is
  lower case, offsets ``[+-]N(ms|s|m|h|d)`` follow it with nothing in between; Java's long arithmetic
  (wrap-around, truncating division, saturating unit conversion) included. Then the handler's checks:
  required, ``>= 0`` once in milliseconds, ``start <= end``, with CDAP's messages;
* parameters: the first value of a repeated one (JAX-RS), unknown ones ignored, ``includeCurrent`` read
  with ``Boolean.valueOf`` (``true`` in any case is true, anything else false), ``direction`` upper-cased
  and looked up, never trimmed (``INCOMING``, ``OUTGOING``, ``BOTH``);
* answers are complete: CDAP does not page these routes, so neither do they (every store page is read);
* shapes: Gson's, which writes a class's own fields before its superclass's (``DatasetId`` is
  ``{"dataset", "namespace", "entity"}``), leaves nulls out, and writes empty sets as ``[]`` —
  ``allfieldlineage`` always has both ``incoming`` and ``outgoing``, each related dataset with its
  ``fieldCount`` (``FieldLineageAdmin.getDatasetFieldLineage``); an operation's ``endPoint`` carries the
  dataset's recorded properties.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from lineage.model import FieldOperation, OperationType
from lineage.store.keys import INVERT_BASE
from lineage.store.results import DatasetMapping, OperationGroup
from server.errors import ParameterError

PROGRAM_TYPE = "Spark"
PROGRAM_VERSION = "-SNAPSHOT"
JAVA_LONG_MAX = 2**63 - 1
JAVA_LONG_MIN = -(2**63)
#: Store pages read per query while building a complete answer.
PAGE = 1000


# --------------------------------------------------------------------------- Java semantics


def _wrap(value: int) -> int:
    """Java ``long`` overflow: two's complement wrap-around."""
    return (value - JAVA_LONG_MIN) % 2**64 + JAVA_LONG_MIN


def _saturated(value: int) -> int:
    """``TimeUnit`` conversions saturate instead of overflowing."""
    return max(JAVA_LONG_MIN, min(JAVA_LONG_MAX, value))


def _java_div(value: int, divisor: int) -> int:
    """Java integer division truncates toward zero."""
    quotient = abs(value) // divisor
    return quotient if value >= 0 else -quotient


def _parse_long(text: str) -> int:
    value = int(text)
    if not JAVA_LONG_MIN <= value <= JAVA_LONG_MAX:
        raise ValueError(f"For input string: \"{text}\"")  # Long.parseLong's NumberFormatException
    return value


_UNIT_MILLIS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_TIMESTAMP = re.compile(r"[0-9]+")
_OPERATION = re.compile(r"([-+])([0-9]+)(ms|s|m|h|d)")


def time_math_seconds(text: str, now_seconds: int) -> int:
    """``TimeMathParser.parseTimeInSeconds(now, text)``; ``ValueError`` where Java throws IllegalArgumentException."""
    now_millis = _saturated(now_seconds * 1000)
    if _TIMESTAMP.fullmatch(text):
        return _parse_long(text)
    if not text.startswith("now"):
        raise ValueError(f"invalid time format {text}")
    output = now_millis
    position = 3
    for match in _OPERATION.finditer(text, 3):
        if match.start() != position:
            raise ValueError(f"invalid time format {text}")
        millis = _saturated(_parse_long(match.group(2)) * _UNIT_MILLIS[match.group(3)])
        output = _wrap(output + (millis if match.group(1) == "+" else -millis))
        position = match.end()
    if position != len(text):
        raise ValueError(f"invalid time format {text}")
    return _java_div(output, 1000)


def java_boolean(value: str | None) -> bool:
    """``Boolean.valueOf``: ``true`` in any letter case; anything else, or nothing, is false."""
    return value is not None and value.lower() == "true"


def first(query: Mapping[str, str], name: str) -> str | None:
    """A query parameter as JAX-RS binds it to a ``String``: its first value (``MultiDict.get`` gives the first)."""
    return query.get(name)


@dataclass(frozen=True)
class TimeRange:
    """``LineageHTTPHandler.TimeRange``: start and end in milliseconds, and the seconds our store is keyed by."""

    start_ms: int
    end_ms: int

    @property
    def start(self) -> int:
        """Seconds for the store, within the range it can hold (no run starts beyond it)."""
        return min(_java_div(self.start_ms, 1000), INVERT_BASE)

    @property
    def end(self) -> int:
        return min(_java_div(self.end_ms, 1000), INVERT_BASE)


def parse_range(query: Mapping[str, str], now_seconds: int) -> TimeRange:
    """``LineageHTTPHandler.parseRange``: both required, each ``>= 0`` once in milliseconds, ``start <= end``."""
    start_text, end_text = first(query, "start"), first(query, "end")
    if start_text is None:
        raise ParameterError("start", "Start time is required.")
    if end_text is None:
        raise ParameterError("end", "End time is required.")
    values = {}
    for name, text in (("start", start_text), ("end", end_text)):
        try:
            values[name] = _saturated(time_math_seconds(text, now_seconds) * 1000)
        except ValueError as error:
            raise ParameterError(name, str(error)) from None
    start, end = values["start"], values["end"]
    if start < 0:
        raise ParameterError("start", f"Invalid start time ({start_text} -> {start}), should be >= 0.")
    if end < 0:
        raise ParameterError("end", f"Invalid end time ({end_text} -> {end}), should be >= 0.")
    if start > end:
        raise ParameterError("end", f"Start time ({start_text} -> {start}) should be lesser than end time "
                                    f"({end_text} -> {end}).")
    return TimeRange(start, end)


Direction = Literal["INCOMING", "OUTGOING", "BOTH"]
_DIRECTIONS: tuple[Direction, ...] = ("INCOMING", "OUTGOING", "BOTH")


def parse_direction(value: str | None) -> Direction:
    """``Constants.FieldLineage.Direction.valueOf(directionStr.toUpperCase())``; a missing one is refused too."""
    upper = value.upper() if value is not None else None
    for direction in _DIRECTIONS:
        if upper == direction:
            return direction
    raise ParameterError("direction", "Direction must be specified to get the field lineage summary and should be "
                                      "one of the following: [incoming, outgoing, both].")


T = TypeVar("T")


def every_page(fetch: Callable[[str | None], tuple[Sequence[T], str | None]]) -> list[T]:
    """Every item of a paged store query: CDAP answers these routes whole."""
    items: list[T] = []
    cursor: str | None = None
    while True:
        page, cursor = fetch(cursor)
        items.extend(page)
        if cursor is None:
            return items


class _Cdap(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)


class FieldWithLineage(_Cdap):
    """``io.cdap.cdap.proto.metadata.lineage.Field``."""

    name: str
    lineage: bool


class DatasetId(_Cdap):
    """``DatasetId`` as Gson writes it: its own field, then ``NamespacedEntityId``'s, then ``EntityId``'s."""

    dataset: str
    namespace: str
    entity: Literal["DATASET"] = "DATASET"


class DatasetField(_Cdap):
    dataset: DatasetId
    fields: list[str]


class FieldLineageSummary(_Cdap):
    incoming: list[DatasetField] | None = None
    outgoing: list[DatasetField] | None = None


class EndPoint(_Cdap):
    """``io.cdap.cdap.api.lineage.field.EndPoint``: the properties are the dataset's, as recorded for the run."""

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
    """``ProgramId`` as Gson writes it (own fields first, then the namespace, then the entity type)."""

    application: str
    version: str
    type: str
    program: str
    namespace: str
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
    """``DatasetFieldLineageSummary.FieldLineageRelations``: a related dataset, how many fields it has with
    lineage in the range, and the field relations with it."""

    entityId: DatasetId
    fieldCount: int
    relations: list[FieldRelation]


class DatasetFieldLineageSummary(_Cdap):
    direction: Direction
    start_ts: int = Field(alias="start-ts", description="milliseconds")
    end_ts: int = Field(alias="end-ts", description="milliseconds")
    entityId: DatasetId
    fields: list[str]
    incoming: list[DatasetRelations]
    outgoing: list[DatasetRelations]


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


Properties = Mapping[tuple[str, str], Mapping[str, str]]


def _endpoint(op: FieldOperation, properties: Properties) -> EndPoint:
    ref = op.destination or next(i.dataset for i in op.inputs if i.dataset is not None)
    namespace = ref.namespace or ""
    return EndPoint(namespace=namespace, name=ref.name,
                    properties=dict(properties.get((namespace, ref.name), ref.properties)))


def operation_info(op: FieldOperation, properties: Properties | None = None) -> FieldOperationInfo:
    """CDAP's operation shape: READ has an input endPoint, WRITE an output endPoint, the rest field lists.

    ``properties``: each dataset's recorded properties (path, regex …) in the run, by (namespace, name).
    """
    known = properties or {}
    fields_in = [OperationInputField(origin=i.origin or "", name=i.field) for i in op.inputs if i.dataset is None]
    outputs = list(op.output_names)
    if op.type is OperationType.READ:
        inputs, outs = OperationInputs(endPoint=_endpoint(op, known)), OperationOutputs(fields=outputs)
    elif op.type is OperationType.WRITE:
        inputs, outs = OperationInputs(fields=fields_in), OperationOutputs(endPoint=_endpoint(op, known))
    else:
        inputs, outs = OperationInputs(fields=fields_in), OperationOutputs(fields=outputs)
    return FieldOperationInfo(name=op.name, description=op.description, inputs=inputs, outputs=outs)


def program_operations(group: OperationGroup, properties: Properties | None = None) -> ProgramFieldOperationInfo:
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
    return ProgramFieldOperationInfo(programs=programs,
                                     operations=[operation_info(op, properties) for op in group.operations])


def operation_details(groups: Sequence[OperationGroup] | None,
                      properties: Callable[[OperationGroup], Properties] | None = None,
                      ) -> list[ProgramFieldOperationInfo] | None:
    if groups is None:
        return None
    return [program_operations(group, properties(group) if properties else None) for group in groups]


def relations(mappings: Sequence[DatasetMapping], *, incoming: bool,
              field_count: Callable[[str, str], int]) -> list[DatasetRelations]:
    """Level-1 mappings as CDAP relations, keyed by the dataset at the other end, with its field count."""
    by_dataset: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for mapping in mappings:
        other = mapping.source if incoming else mapping.destination
        for pair in mapping.fieldmap:
            by_dataset[(other.namespace, other.name)].add((pair.source, pair.target))
    return [
        DatasetRelations(
            entityId=DatasetId(namespace=ns, dataset=ds),
            fieldCount=field_count(ns, ds),
            relations=[FieldRelation(source=s, destination=d) for s, d in sorted(pairs)],
        )
        for (ns, ds), pairs in sorted(by_dataset.items())
    ]
