"""Recorded field lineage in other systems' shapes: OpenLineage events and DataHub ``fineGrainedLineages``.

Both are computed from a list of recorded operations with the same pure graph functions the store
uses (``lineage.graph``), so an export never disagrees with what the API answers:

* for each destination field, its source fields are the incoming summary (operation granularity);
* for each (destination field, source field) pair, the operations on a path between them are the
  intersection of the destination's backward-pruned view and the source's forward-pruned view.
  Their ``properties`` (``type``/``subtype``/``masking``, as ``lineage.from_recipe`` writes them)
  say how the value was derived; an operation recorded without them is an opaque TRANSFORMATION,
  because claiming IDENTITY for something we cannot see would be a lie to the catalogue.

The functions work on whole runs (``RunRecord``) and on the pruned per-field views the store
returns (``OperationGroup``), since a pruned view is itself a valid list of operations.
Nothing here does I/O or imports pyspark; ``openlineage.client`` is imported when first needed
because its package import costs ~0.25 s (it loads its HTTP transports).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from lineage import graph
from lineage.model import DatasetKey, Direction, FieldKey, FieldOperation, OperationType

if TYPE_CHECKING:
    from openlineage.client.event_v2 import RunEvent

    from directives.recipe import Recipe
    from lineage.backtrack import ColumnLineage
    from lineage.runs import RecipeRunInfo
    from lineage.store.results import FieldLineage, OperationGroup, RunRecord


def _version() -> str:
    try:
        return metadata.version("wrangler-lineage")
    except metadata.PackageNotFoundError:
        return "dev"


PRODUCER = f"urn:wrangler-lineage:{_version()}"
"""OpenLineage ``producer``: a URI naming this software and its version."""

RUN_FACET_SCHEMA = "urn:wrangler-lineage:facets:WranglerRunFacet:1"
RUN_ID_NAMESPACE = uuid.UUID("6f1c3a52-8f0e-4c43-9a57-3f7d2f6f0a11")
"""OpenLineage run ids are UUIDs; ours are free text, so they are mapped with uuid5 (stable, per namespace)."""

_EVENT_TYPES = {"COMPLETED": "COMPLETE", "COMPLETE": "COMPLETE", "SUCCEEDED": "COMPLETE", "FAILED": "FAIL",
                "FAIL": "FAIL", "KILLED": "ABORT", "ABORTED": "ABORT", "RUNNING": "RUNNING", "STARTING": "START"}


@dataclass(frozen=True)
class Dependency:
    """How one destination field depends on one source field (OpenLineage's InputField + Transformation)."""

    source: FieldKey
    type: str
    subtype: str | None
    description: str | None
    masking: bool


def column_dependencies(operations: Sequence[FieldOperation]) -> dict[FieldKey, tuple[Dependency, ...]]:
    """Destination field -> its source fields with the transformation that connects them.

    Costs one backward view per destination field and one forward view per source field, then a
    set intersection per pair, so wide runs stay cheap.
    """
    resolved = graph.resolve_origins(operations)
    incoming = graph.incoming_summary(resolved)
    forward: dict[FieldKey, set[str]] = {}
    result: dict[FieldKey, tuple[Dependency, ...]] = {}
    for target in sorted(incoming):
        backward = graph.operations_for_field(resolved, target, Direction.BACKWARD)
        found = []
        for source in sorted(incoming[target]):
            if source not in forward:
                forward[source] = {op.name for op in graph.operations_for_field(resolved, source, Direction.FORWARD)}
            path = [op for op in backward if op.name in forward[source]]
            found.append(_classify(source, path))
        result[target] = tuple(found)
    return result


def _classify(source: FieldKey, path: Sequence[FieldOperation]) -> Dependency:
    transforms = [op for op in path if op.type is OperationType.TRANSFORM]
    indirect = [op for op in transforms if op.properties.get("type") == "INDIRECT"]
    if indirect:
        kind, subtype = "INDIRECT", indirect[0].properties.get("subtype") or None
    else:
        subtypes = {op.properties.get("subtype") for op in transforms}
        kind = "DIRECT"
        if not transforms or subtypes == {"IDENTITY"}:
            subtype = "IDENTITY"
        elif "AGGREGATION" in subtypes:
            subtype = "AGGREGATION"
        else:
            subtype = "TRANSFORMATION"
    description = "; ".join(op.description for op in transforms if op.description) or None
    masking = any(op.properties.get("masking") == "true" for op in transforms)
    return Dependency(source=source, type=kind, subtype=subtype, description=description, masking=masking)


# --------------------------------------------------------------------------- OpenLineage


def column_lineage_facets(operations: Sequence[FieldOperation]) -> dict[DatasetKey, Any]:
    """One OpenLineage ``ColumnLineageDatasetFacet`` per destination dataset written by the operations."""
    from openlineage.client.generated.column_lineage_dataset import (
        ColumnLineageDatasetFacet,
        Fields,
        InputField,
        Transformation,
    )

    per_dataset: dict[DatasetKey, dict[str, Any]] = {}
    for target, dependencies in column_dependencies(operations).items():
        inputs = [
            InputField(
                namespace=dep.source.namespace,
                name=dep.source.dataset,
                field=dep.source.field,
                transformations=[
                    Transformation(
                        type=dep.type, subtype=dep.subtype, description=dep.description, masking=dep.masking
                    )
                ],
            )
            for dep in dependencies
        ]
        per_dataset.setdefault(target.dataset_key, {})[target.field] = Fields(inputFields=inputs)
    return {
        key: ColumnLineageDatasetFacet(fields=fields, dataset=[], producer=PRODUCER)
        for key, fields in per_dataset.items()
    }


def recipe_column_lineage_facet(
    lineages: Mapping[str, ColumnLineage],
    source: DatasetKey,
    *,
    indirect_in_fields: bool = False,
    producer: str = PRODUCER,
) -> Any:
    """The ``columnLineage`` facet of a recipe's output, straight from the backtracker — INDIRECT included.

    Recorded operations carry the DIRECT lineage only (CDAP's model has no place for a predicate), so
    this is the export that shows filters: every DIRECT dependency of a column goes in its
    ``inputFields``; a row filter that affects every column goes once in the facet's ``dataset`` list
    (OpenLineage's dataset-wide dependencies), or into every field too with ``indirect_in_fields``
    (the legacy form older consumers read). Column-scoped INDIRECT ones (an `if` condition) always go
    in the field. The transformation description lists the directives on the path.
    """
    from openlineage.client.generated.column_lineage_dataset import (
        ColumnLineageDatasetFacet,
        Fields,
        InputField,
        Transformation,
    )

    def input_field(column: str, kind: str, subtype: str, masking: bool, description: str | None) -> Any:
        return InputField(
            namespace=source.namespace, name=source.name, field=column,
            transformations=[Transformation(type=kind, subtype=subtype, description=description, masking=masking)],
        )

    everywhere = _dataset_wide(lineages)
    dataset: dict[tuple[str, str], Any] = {}
    fields: dict[str, Any] = {}
    for name, item in lineages.items():
        texts = "; ".join(node.directive.text for node in sorted(
            (n for n in item.tree.walk() if n.directive is not None), key=lambda n: n.directive.index  # type: ignore
        )) or None
        inputs = []
        for t in item.transformations():
            if t.type == "INDIRECT" and (t.source, t.subtype) in everywhere:
                dataset.setdefault((t.source, t.subtype), input_field(t.source, t.type, t.subtype, t.masking, None))
                if not indirect_in_fields:
                    continue
            inputs.append(input_field(t.source, t.type, t.subtype, t.masking, texts if t.type == "DIRECT" else None))
        fields[name] = Fields(inputFields=inputs)
    return ColumnLineageDatasetFacet(fields=fields, dataset=list(dataset.values()), producer=producer)


def _dataset_wide(lineages: Mapping[str, ColumnLineage]) -> set[tuple[str, str]]:
    """(source column, subtype) of row-level INDIRECT influences (not CONDITIONAL) that reach every output column."""
    sets = [
        {(t.source, t.subtype) for t in item.transformations() if t.type == "INDIRECT" and t.subtype != "CONDITIONAL"}
        for item in lineages.values()
    ]
    return set.intersection(*sets) if sets else set()


def recipe_run_event(
    recipe: Recipe,
    info: RecipeRunInfo,
    columns: Sequence[str] | None = None,
    *,
    indirect_in_fields: bool = False,
    producer: str = PRODUCER,
) -> RunEvent:
    """The OpenLineage RunEvent of one recipe run, its output carrying the full (DIRECT + INDIRECT) facet."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.generated.nominal_time_run import NominalTimeRunFacet

    from lineage.backtrack import Backtracker

    backtracker = Backtracker(recipe)
    names = list(columns) if columns is not None else backtracker.final_columns()
    lineages = {name: backtracker.lineage(name) for name in names}
    source = DatasetKey(info.namespace, info.source_name)
    facet = recipe_column_lineage_facet(lineages, source, indirect_in_fields=indirect_in_fields, producer=producer)
    run = Run(
        runId=openlineage_run_id(info.namespace, info.run_id),
        facets={"nominalTime": NominalTimeRunFacet(
            nominalStartTime=_iso(info.start), nominalEndTime=None if info.end is None else _iso(info.end),
            producer=producer)},
    )
    return RunEvent(
        eventType=RunState(_EVENT_TYPES.get(info.status.upper(), "OTHER")),
        eventTime=_iso(info.end if info.end is not None else info.start),
        run=run,
        job=Job(namespace=info.namespace, name=info.program),
        inputs=[InputDataset(namespace=info.namespace, name=info.source_name)],
        outputs=[OutputDataset(namespace=info.namespace, name=info.destination_name,
                               facets={"columnLineage": facet})],
        producer=producer,
    )


def openlineage_run_id(namespace: str, run_id: str) -> str:
    return str(uuid.uuid5(RUN_ID_NAMESPACE, f"{namespace}\x00{run_id}"))


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


@functools.cache
def _run_facet_class() -> Any:
    """Our custom run facet, defined once on first use (openlineage is imported lazily)."""
    import attr
    from openlineage.client.generated.base import RunFacet

    @attr.define
    class WranglerRunFacet(RunFacet):
        """The run as this store knows it: the original run id, program and operation-set checksum."""

        runId: str  # OpenLineage facets are camelCase
        program: str
        checksum: str

        @staticmethod
        def _get_schema() -> str:
            return RUN_FACET_SCHEMA

    return WranglerRunFacet


def _event(
    *,
    namespace: str,
    program: str,
    run_id: str,
    checksum: str,
    event_type: str | None,
    start: int,
    end: int | None,
    operations: Sequence[FieldOperation],
    producer: str,
) -> RunEvent:
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.generated.nominal_time_run import NominalTimeRunFacet

    facets = column_lineage_facets(operations)
    sources = graph.source_fields(operations)
    run = Run(
        runId=openlineage_run_id(namespace, run_id),
        facets={
            "nominalTime": NominalTimeRunFacet(
                nominalStartTime=_iso(start), nominalEndTime=None if end is None else _iso(end), producer=producer
            ),
            "wrangler_run": _run_facet_class()(runId=run_id, program=program, checksum=checksum, producer=producer),
        },
    )
    outputs = [
        OutputDataset(namespace=key.namespace, name=key.name, facets={"columnLineage": facet})
        for key, facet in sorted(facets.items())
    ]
    inputs = [InputDataset(namespace=key.namespace, name=key.name) for key in sorted(sources)]
    return RunEvent(
        eventType=None if event_type is None else RunState(event_type),
        eventTime=_iso(end if end is not None else start),
        run=run,
        job=Job(namespace=namespace, name=program),
        inputs=inputs,
        outputs=outputs,
        producer=producer,
    )


def run_event(record: RunRecord, *, producer: str = PRODUCER) -> RunEvent:
    """The OpenLineage RunEvent of one recorded run, with a ``columnLineage`` facet on its destination.

    The operations give the DIRECT dependencies; the INDIRECT ones (row filters, `if` conditions) come
    from the stored column trees, placed as `recipe_column_lineage_facet` places them.
    """
    event = _event(
        namespace=record.namespace,
        program=record.program,
        run_id=record.run_id,
        checksum=record.checksum,
        event_type=_EVENT_TYPES.get(record.status.upper(), "OTHER"),
        start=record.start,
        end=record.end,
        operations=record.operations,
        producer=producer,
    )
    destination = DatasetKey(record.destination.namespace, record.destination.name)
    for output in event.outputs or []:
        facet = (output.facets or {}).get("columnLineage")
        if facet is not None and DatasetKey(output.namespace, output.name) == destination:
            _add_indirect(facet, record)
    return event


def tree_influences(tree: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(source column, subtype) of every INDIRECT influence anywhere in a stored column tree, in tree order."""
    found: list[tuple[str, str]] = []

    def sources(node: Mapping[str, Any]) -> Iterator[str]:
        if node.get("directive") is None and not node.get("upstream"):
            yield node["column"]
        for child in node.get("upstream", ()):
            yield from sources(child)

    def visit(node: Mapping[str, Any]) -> None:
        for influence in node.get("influences", ()):
            for column in sources(influence):
                if (column, influence["subtype"]) not in found:
                    found.append((column, influence["subtype"]))
        for child in node.get("upstream", ()):
            visit(child)

    visit(tree)
    return found


def _add_indirect(facet: Any, record: RunRecord) -> None:
    """Row filters reaching every column go once in the facet's ``dataset`` list; the rest into their field."""
    from openlineage.client.generated.column_lineage_dataset import Fields, InputField, Transformation

    read_from = {name: key for key, names in graph.source_fields(record.operations).items() for name in names}
    per_column = {name: tree_influences(tree) for name, tree in record.column_trees.items()}
    sets = [{item for item in items if item[1] != "CONDITIONAL"} for items in per_column.values()]
    everywhere = set.intersection(*sets) if sets else set()

    def input_field(column: str, subtype: str) -> Any:
        key = read_from.get(column, DatasetKey(record.namespace, record.destination.name))
        return InputField(namespace=key.namespace, name=key.name, field=column,
                          transformations=[Transformation(type="INDIRECT", subtype=subtype)])

    dataset = [input_field(column, subtype) for column, subtype in sorted(everywhere)]
    facet.dataset = [*(facet.dataset or []), *dataset]
    for name, items in per_column.items():
        extra = [input_field(column, subtype) for column, subtype in items if (column, subtype) not in everywhere]
        if extra:
            fields = facet.fields.setdefault(name, Fields(inputFields=[]))
            fields.inputFields = [*fields.inputFields, *extra]


def group_event(group: OperationGroup, *, producer: str = PRODUCER) -> RunEvent:
    """An ``OTHER`` event for the newest run of a per-field operation group, carrying only that field's lineage.

    ``OTHER`` is OpenLineage's event type for "more metadata about a run that already happened".
    """
    newest = group.runs[0]
    return _event(
        namespace=newest.namespace,
        program=newest.program,
        run_id=newest.run_id,
        checksum=group.checksum,
        event_type="OTHER",
        start=newest.start,
        end=None,
        operations=group.operations,
        producer=producer,
    )


def field_events(result: FieldLineage, *, producer: str = PRODUCER) -> list[RunEvent]:
    """One event per operation group of a field-lineage answer (groups without runs are skipped)."""
    return [group_event(group, producer=producer) for group in result.groups if group.runs]


def event_to_dict(event: Any) -> dict[str, Any]:
    """JSON-ready dict in the OpenLineage wire format (nulls dropped, enums as values)."""
    from openlineage.client.serde import Serde

    return Serde.to_dict(event)


# --------------------------------------------------------------------------- DataHub

FIELD_URN_KINDS = ("schemaField", "datasetField")


def _urn_part(text: str) -> str:
    """DataHub URNs are tuples separated by commas in parentheses: percent-encode what would split them."""
    return quote(text, safe=" !$&'*+-.:;=@_~/[]")


def dataset_urn(key: DatasetKey, *, platform: str = "wrangler", env: str = "PROD") -> str:
    name = f"{_urn_part(key.namespace)}.{_urn_part(key.name)}"
    return f"urn:li:dataset:(urn:li:dataPlatform:{_urn_part(platform)},{name},{_urn_part(env)})"


def field_urn(key: FieldKey, *, platform: str = "wrangler", env: str = "PROD", kind: str = "schemaField") -> str:
    """``urn:li:schemaField:(<datasetUrn>,<fieldPath>)``; ``kind="datasetField"`` for pre-0.8 DataHub."""
    if kind not in FIELD_URN_KINDS:
        raise ValueError(f"kind must be one of {FIELD_URN_KINDS}, not {kind!r}")
    return f"urn:li:{kind}:({dataset_urn(key.dataset_key, platform=platform, env=env)},{_urn_part(key.field)})"


def datahub_fine_grained_lineages(
    operations: Sequence[FieldOperation], *, platform: str = "wrangler", env: str = "PROD", kind: str = "schemaField"
) -> list[dict[str, Any]]:
    """DataHub ``FineGrainedLineage`` entries: one per destination field and transformation kind.

    ``transformOperation`` is ``IDENTITY`` when every source reaches the field unchanged and
    ``BLACKBOX`` otherwise (DataHub leaves the text free; these are its historical values).
    A field computed from no source (a constant) gets ``upstreamType: NONE``.
    """
    entries: list[dict[str, Any]] = []
    for target, dependencies in column_dependencies(operations).items():
        downstream = field_urn(target, platform=platform, env=env, kind=kind)
        groups: dict[str, list[str]] = {}
        for dep in dependencies:
            identity = dep.type == "DIRECT" and dep.subtype == "IDENTITY" and not dep.masking
            groups.setdefault("IDENTITY" if identity else "BLACKBOX", []).append(
                field_urn(dep.source, platform=platform, env=env, kind=kind)
            )
        if not groups:
            entries.append(_fine_grained([], downstream, "BLACKBOX"))
        for operation in sorted(groups):
            entries.append(_fine_grained(sorted(groups[operation]), downstream, operation))
    return entries


def _fine_grained(upstreams: list[str], downstream: str, operation: str) -> dict[str, Any]:
    return {
        "upstreamType": "FIELD_SET" if upstreams else "NONE",
        "upstreams": upstreams,
        "downstreamType": "FIELD",
        "downstreams": [downstream],
        "transformOperation": operation,
        "confidenceScore": 1.0,
    }


def datahub_upstream_lineage(
    record: RunRecord, *, platform: str = "wrangler", env: str = "PROD", kind: str = "schemaField"
) -> dict[str, Any]:
    """The ``upstreamLineage`` aspect of a run's destination: dataset upstreams plus ``fineGrainedLineages``.

    DataHub replaces the whole aspect on every emit, so this is the lineage *as of this run*.
    """
    stamp = {"time": record.start * 1000, "actor": "urn:li:corpuser:wrangler-lineage"}
    upstreams = [
        {"dataset": dataset_urn(DatasetKey(src.namespace, src.name), platform=platform, env=env),
         "type": "TRANSFORMED", "auditStamp": stamp}
        for src in sorted(record.sources, key=lambda e: (e.namespace, e.name))
    ]
    return {
        "upstreams": upstreams,
        "fineGrainedLineages": datahub_fine_grained_lineages(record.operations, platform=platform, env=env, kind=kind),
    }

