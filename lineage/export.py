"""Recorded and static lineage as OpenLineage events (openlineage-python's own models).

Both come from the same pure graph functions the store uses (``lineage.graph``), so an export never
disagrees with what the API answers:

* for each destination field, its source fields are the incoming summary (operation granularity);
* for each (destination field, source field) pair, the operations on a path between them are the
  intersection of the destination's backward-pruned view and the source's forward-pruned view.
  Their ``properties`` (``type``/``subtype``/``masking``, as ``lineage.from_recipe`` writes them)
  say how the value was derived; an operation recorded without them is an opaque TRANSFORMATION,
  because claiming IDENTITY for something we cannot see would be a lie to the catalogue.

What consumers rely on, and what this module therefore guarantees (tests validate every event against
the official OpenLineage JSON schemas):

* dataset namespaces follow OpenLineage's naming spec: a dataset recorded with a location (`path`,
  `inputPath` …) is named by it (`file` + absolute path, `s3://bucket` + key, `hdfs://host:port` + path …);
  one without is named ``<store namespace>.<dataset>`` in a configured namespace (`Naming`) — never in
  the CDAP namespace, which names a tenant, not a data source;
* every transformation carries ``masking`` (true or false), and a description lists each directive once;
* a run's ``columnLineage`` facet is whole: the per-field export (`field_events`) does not send a
  ``columnLineage`` facet at all, since a facet of the same name replaces the run's previous one in a
  consumer; it sends the field's lineage, INDIRECT edges included, in our ``wrangler_fieldLineage`` facet;
* custom facets name a JSON schema the project publishes (``lineage/schemas/openlineage/``, served by
  `wrangler serve` under ``/openlineage/facets/``) in their ``_schemaURL``.

Nothing here does I/O or imports pyspark; ``openlineage.client`` is imported when first needed
because its package import costs ~0.25 s (it loads its HTTP transports).
"""

from __future__ import annotations

import functools
import json
import posixpath
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

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

RUN_ID_NAMESPACE = uuid.UUID("6f1c3a52-8f0e-4c43-9a57-3f7d2f6f0a11")
"""OpenLineage run ids are UUIDs; ours are free text, so they are mapped with uuid5 (stable, per namespace)."""

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas" / "openlineage"
FACET_VERSION = "1-0-0"
RUN_FACET = "WranglerRunFacet"
FIELD_FACET = "WranglerFieldLineageDatasetFacet"
FACETS = (RUN_FACET, FIELD_FACET)
FACET_BASE_URL = "http://127.0.0.1:8080/openlineage/facets/"
"""Where `wrangler serve` with its defaults publishes our facet schemas; the server uses its own address."""
DEFAULT_DATASET_NAMESPACE = "wrangler"
"""OpenLineage namespace of datasets recorded without a location (`Naming.default_namespace`)."""

_EVENT_TYPES = {"COMPLETED": "COMPLETE", "COMPLETE": "COMPLETE", "SUCCEEDED": "COMPLETE", "FAILED": "FAIL",
                "FAIL": "FAIL", "KILLED": "ABORT", "ABORTED": "ABORT", "RUNNING": "RUNNING", "STARTING": "START"}
#: Dataset properties that say where the data lives, in the order they are consulted.
LOCATION_PROPERTIES = ("path", "inputPath", "outputPath", "inputDir", "outputDir", "location", "uri", "url")
#: URI schemes whose namespace is `scheme://authority` (OpenLineage naming spec); s3a/s3n are spelled s3 there.
_SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3"}
_KEY_NAMED = {"s3", "gs", "wasbs"}  # object stores: the name is the key, without a leading slash


def facet_schema_url(name: str, base: str = FACET_BASE_URL) -> str:
    """The ``_schemaURL`` of one of our facets: its published JSON schema and the definition inside it."""
    return f"{base.rstrip('/')}/{FACET_VERSION}/{name}.json#/$defs/{name}"


@functools.cache
def _schema_text(name: str) -> str:
    if name not in FACETS:
        raise KeyError(name)
    return (SCHEMA_DIR / f"{name}.json").read_text()


def facet_schema(name: str, base: str = FACET_BASE_URL) -> dict[str, Any]:
    """The published JSON schema of one of our facets, its ``$id`` the URL it is served at under ``base``."""
    schema: dict[str, Any] = json.loads(_schema_text(name))
    schema["$id"] = facet_schema_url(name, base).split("#", 1)[0]
    return schema


# --------------------------------------------------------------------------- dataset naming


@dataclass(frozen=True)
class Naming:
    """How a store dataset becomes an OpenLineage dataset (namespace, name), per OpenLineage's naming spec.

    ``locations`` maps a store dataset to the properties recorded for it (its path …); a dataset without a
    location is ``<store namespace>.<name>`` in ``default_namespace``.
    """

    locations: Mapping[DatasetKey, Mapping[str, str]]
    default_namespace: str = DEFAULT_DATASET_NAMESPACE

    @classmethod
    def of(cls, record: RunRecord | None, default_namespace: str = DEFAULT_DATASET_NAMESPACE) -> Naming:
        found: dict[DatasetKey, Mapping[str, str]] = {}
        for entry in (record.dataset_properties if record is not None else ()):
            found[DatasetKey(entry.dataset.namespace, entry.dataset.name)] = entry.properties
        return cls(found, default_namespace)

    def __call__(self, key: DatasetKey) -> tuple[str, str]:
        properties = self.locations.get(key, {})
        location = next((properties[name] for name in LOCATION_PROPERTIES if properties.get(name)), None)
        if location is not None:
            return location_dataset(location)
        return self.default_namespace, f"{key.namespace}.{key.name}"


def location_dataset(location: str) -> tuple[str, str]:
    """(namespace, name) of a dataset at ``location``: `file` + path, `s3://bucket` + key, `hdfs://…` + path."""
    parts = urlsplit(location)
    scheme = parts.scheme.lower()
    if len(scheme) <= 1:  # a plain path (a one-letter scheme is a Windows drive)
        return "file", posixpath.normpath(location.replace("\\", "/"))
    scheme = _SCHEME_ALIASES.get(scheme, scheme)
    if scheme == "file":
        path = posixpath.normpath(parts.path or "/")
        return ("file", path) if not parts.netloc or parts.netloc == "localhost" else (f"file://{parts.netloc}", path)
    path = parts.path or "/"
    if scheme in _KEY_NAMED:
        path = path.lstrip("/") or "/"
    return f"{scheme}://{parts.netloc}", path


# --------------------------------------------------------------------------- dependencies


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
    description = "; ".join(dict.fromkeys(op.description for op in transforms if op.description)) or None
    masking = any(op.properties.get("masking") == "true" for op in transforms)
    return Dependency(source=source, type=kind, subtype=subtype, description=description, masking=masking)


# --------------------------------------------------------------------------- OpenLineage facets

DatasetNaming = Callable[[DatasetKey], tuple[str, str]]


def _input_field(naming: DatasetNaming, source: DatasetKey, field: str, kind: str, subtype: str | None,
                 description: str | None, masking: bool) -> Any:
    from openlineage.client.generated.column_lineage_dataset import InputField, Transformation

    namespace, name = naming(source)
    return InputField(namespace=namespace, name=name, field=field, transformations=[
        Transformation(type=kind, subtype=subtype, description=description, masking=masking)])


def _fields_by_dataset(operations: Sequence[FieldOperation], naming: DatasetNaming) -> dict[DatasetKey, dict[str, Any]]:
    from openlineage.client.generated.column_lineage_dataset import Fields

    per_dataset: dict[DatasetKey, dict[str, Any]] = {}
    for target, dependencies in column_dependencies(operations).items():
        inputs = [_input_field(naming, dep.source.dataset_key, dep.source.field, dep.type, dep.subtype,
                               dep.description, dep.masking) for dep in dependencies]
        per_dataset.setdefault(target.dataset_key, {})[target.field] = Fields(inputFields=inputs)
    return per_dataset


def column_lineage_facets(operations: Sequence[FieldOperation], naming: DatasetNaming | None = None,
                          producer: str = PRODUCER) -> dict[DatasetKey, Any]:
    """One OpenLineage ``ColumnLineageDatasetFacet`` per destination dataset written by the operations."""
    from openlineage.client.generated.column_lineage_dataset import ColumnLineageDatasetFacet

    fields = _fields_by_dataset(operations, naming or Naming({}))
    return {key: ColumnLineageDatasetFacet(fields=items, dataset=[], producer=producer)
            for key, items in fields.items()}


def recipe_column_lineage_facet(
    lineages: Mapping[str, ColumnLineage],
    source: DatasetKey,
    *,
    indirect_in_fields: bool = False,
    producer: str = PRODUCER,
    naming: DatasetNaming | None = None,
) -> Any:
    """The ``columnLineage`` facet of a recipe's output, straight from the backtracker — INDIRECT included.

    Recorded operations carry the DIRECT lineage only (CDAP's model has no place for a predicate), so
    this is the export that shows filters: every DIRECT dependency of a column goes in its
    ``inputFields``; a row filter that affects every column goes once in the facet's ``dataset`` list
    (OpenLineage's dataset-wide dependencies), or into every field too with ``indirect_in_fields``
    (the legacy form older consumers read). Column-scoped INDIRECT ones (an `if` condition) always go
    in the field. The transformation description lists the directives on the path, each once.
    """
    from openlineage.client.generated.column_lineage_dataset import ColumnLineageDatasetFacet, Fields

    naming = naming or Naming({})
    everywhere = _dataset_wide(lineages)
    dataset: dict[tuple[str, str], Any] = {}
    fields: dict[str, Any] = {}
    for name, item in lineages.items():
        steps = {node.directive.index: node.directive.text for node in item.tree.walk() if node.directive is not None}
        texts = "; ".join(steps[index] for index in sorted(steps)) or None
        inputs = []
        for t in item.transformations():
            if t.type == "INDIRECT" and (t.source, t.subtype) in everywhere:
                dataset.setdefault((t.source, t.subtype), _input_field(naming, source, t.source, t.type, t.subtype,
                                                                       None, t.masking))
                if not indirect_in_fields:
                    continue
            inputs.append(_input_field(naming, source, t.source, t.type, t.subtype,
                                       texts if t.type == "DIRECT" else None, t.masking))
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
    default_namespace: str = DEFAULT_DATASET_NAMESPACE,
) -> RunEvent:
    """The OpenLineage RunEvent of one recipe run, its output carrying the full (DIRECT + INDIRECT) facet."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.generated.nominal_time_run import NominalTimeRunFacet

    from lineage.backtrack import Backtracker

    backtracker = Backtracker(recipe)
    names = list(columns) if columns is not None else backtracker.final_columns()
    lineages = {name: backtracker.lineage(name) for name in names}
    source, target = DatasetKey(info.namespace, info.source_name), DatasetKey(info.namespace, info.destination_name)
    naming = Naming({source: info.source_properties, target: info.destination_properties}, default_namespace)
    facet = recipe_column_lineage_facet(lineages, source, indirect_in_fields=indirect_in_fields, producer=producer,
                                        naming=naming)
    run = Run(
        runId=openlineage_run_id(info.namespace, info.run_id),
        facets={"nominalTime": NominalTimeRunFacet(
            nominalStartTime=_iso(info.start), nominalEndTime=None if info.end is None else _iso(info.end),
            producer=producer)},
    )
    (source_ns, source_name), (target_ns, target_name) = naming(source), naming(target)
    return RunEvent(
        eventType=RunState(_EVENT_TYPES.get(info.status.upper(), "OTHER")),
        eventTime=_iso(info.end if info.end is not None else info.start),
        run=run,
        job=Job(namespace=info.namespace, name=info.program),
        inputs=[InputDataset(namespace=source_ns, name=source_name)],
        outputs=[OutputDataset(namespace=target_ns, name=target_name, facets={"columnLineage": facet})],
        producer=producer,
    )


def openlineage_run_id(namespace: str, run_id: str) -> str:
    return str(uuid.uuid5(RUN_ID_NAMESPACE, f"{namespace}\x00{run_id}"))


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


@functools.cache
def _facet_classes() -> tuple[Any, Any]:
    """Our custom facets as openlineage-python models, defined once on first use (openlineage is imported lazily)."""
    import attr
    from openlineage.client.generated.base import DatasetFacet, RunFacet

    @attr.define
    class WranglerRunFacet(RunFacet):
        """The run as this store knows it: the original run id, program and operation-set checksum."""

        runId: str  # OpenLineage facets are camelCase
        program: str
        checksum: str

        @staticmethod
        def _get_schema() -> str:
            return facet_schema_url(RUN_FACET)

    @attr.define
    class WranglerFieldLineageDatasetFacet(DatasetFacet):
        """One field's lineage (a per-field export), shaped like ``columnLineage`` but under its own name."""

        field: str
        direction: str
        fields: dict[str, Any]
        dataset: list[Any] = attr.field(factory=list)

        @staticmethod
        def _get_schema() -> str:
            return facet_schema_url(FIELD_FACET)

    return WranglerRunFacet, WranglerFieldLineageDatasetFacet


def _published(facet: Any, name: str, base: str) -> Any:
    facet._schemaURL = facet_schema_url(name, base)
    return facet


def _event(
    *,
    namespace: str,
    program: str,
    run_id: str,
    checksum: str,
    event_type: str | None,
    start: int,
    end: int | None,
    outputs: Mapping[DatasetKey, Mapping[str, Any]],
    sources: Sequence[DatasetKey],
    naming: DatasetNaming,
    producer: str,
    facet_base: str,
) -> RunEvent:
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
    from openlineage.client.generated.nominal_time_run import NominalTimeRunFacet

    run_facet = _facet_classes()[0](runId=run_id, program=program, checksum=checksum, producer=producer)
    run = Run(
        runId=openlineage_run_id(namespace, run_id),
        facets={
            "nominalTime": NominalTimeRunFacet(
                nominalStartTime=_iso(start), nominalEndTime=None if end is None else _iso(end), producer=producer
            ),
            "wrangler_run": _published(run_facet, RUN_FACET, facet_base),
        },
    )
    return RunEvent(
        eventType=None if event_type is None else RunState(event_type),
        eventTime=_iso(end if end is not None else start),
        run=run,
        job=Job(namespace=namespace, name=program),
        inputs=[InputDataset(*naming(key)) for key in sorted(sources)],
        outputs=[OutputDataset(*naming(key), facets=dict(facets)) for key, facets in sorted(outputs.items())],
        producer=producer,
    )


def run_event(record: RunRecord, *, producer: str = PRODUCER, facet_base: str = FACET_BASE_URL,
              default_namespace: str = DEFAULT_DATASET_NAMESPACE) -> RunEvent:
    """The OpenLineage RunEvent of one recorded run, with a ``columnLineage`` facet on its destination.

    The operations give the DIRECT dependencies; the INDIRECT ones (row filters, `if` conditions) come
    from the stored column trees, placed as `recipe_column_lineage_facet` places them.
    """
    naming = Naming.of(record, default_namespace)
    facets = column_lineage_facets(record.operations, naming, producer)
    destination = DatasetKey(record.destination.namespace, record.destination.name)
    if destination in facets:
        _add_indirect(facets[destination], record, naming, legacy=False)
    return _event(
        namespace=record.namespace, program=record.program, run_id=record.run_id, checksum=record.checksum,
        event_type=_EVENT_TYPES.get(record.status.upper(), "OTHER"), start=record.start, end=record.end,
        outputs={key: {"columnLineage": facet} for key, facet in facets.items()},
        sources=sorted(graph.source_fields(record.operations)), naming=naming, producer=producer,
        facet_base=facet_base,
    )


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


def _add_indirect(facet: Any, record: RunRecord, naming: DatasetNaming, *, legacy: bool,
                  only: Sequence[str] | None = None) -> None:
    """Add the stored trees' INDIRECT influences to a facet.

    Row filters that reach every column go once in the facet's ``dataset`` list; the rest into their
    field. ``legacy`` (the per-field export) puts every influence into its field, since the facet shows
    one field and a dataset-wide list would lose which field it was about. ``only``: these fields' trees.
    """
    from openlineage.client.generated.column_lineage_dataset import Fields

    read_from = {name: key for key, names in graph.source_fields(record.operations).items() for name in names}
    trees = {name: tree for name, tree in record.column_trees.items() if only is None or name in only}
    per_column = {name: tree_influences(tree) for name, tree in trees.items()}
    sets = [{item for item in items if item[1] != "CONDITIONAL"} for items in per_column.values()]
    everywhere = set() if legacy or not sets else set.intersection(*sets)

    def input_field(column: str, subtype: str) -> Any:
        key = read_from.get(column, DatasetKey(record.namespace, record.destination.name))
        return _input_field(naming, key, column, "INDIRECT", subtype, None, False)

    facet.dataset = [*(facet.dataset or []), *(input_field(c, s) for c, s in sorted(everywhere))]
    for name, items in per_column.items():
        extra = [input_field(column, subtype) for column, subtype in items if (column, subtype) not in everywhere]
        if extra:
            fields = facet.fields.setdefault(name, Fields(inputFields=[]))
            fields.inputFields = [*fields.inputFields, *extra]


def group_event(group: OperationGroup, field: str, direction: Direction, record: RunRecord | None = None, *,
                producer: str = PRODUCER, facet_base: str = FACET_BASE_URL,
                default_namespace: str = DEFAULT_DATASET_NAMESPACE) -> RunEvent:
    """An ``OTHER`` event for the newest run of a per-field operation group, carrying only that field's lineage.

    ``OTHER`` is OpenLineage's event type for "more metadata about a run that already happened". The
    lineage goes in the ``wrangler_fieldLineage`` facet, not ``columnLineage``: a consumer replaces a run's
    facet by name, so a one-field ``columnLineage`` would erase the run's whole one. ``record`` (the newest
    run, as stored) brings the dataset locations and the column trees, whose INDIRECT edges are kept.
    """
    newest = group.runs[0]
    naming = Naming.of(record, default_namespace)
    per_dataset = _fields_by_dataset(group.operations, naming)
    facet_class = _facet_classes()[1]
    outputs: dict[DatasetKey, dict[str, Any]] = {}
    for key, fields in per_dataset.items():
        facet = facet_class(field=field, direction=direction.value, fields=fields, producer=producer)
        if record is not None and key == DatasetKey(record.destination.namespace, record.destination.name):
            _add_indirect(facet, record, naming, legacy=True, only=list(fields))
        outputs[key] = {"wrangler_fieldLineage": _published(facet, FIELD_FACET, facet_base)}
    return _event(
        namespace=newest.namespace, program=newest.program, run_id=newest.run_id, checksum=group.checksum,
        event_type="OTHER", start=newest.start, end=None, outputs=outputs,
        sources=sorted(graph.source_fields(group.operations)), naming=naming, producer=producer,
        facet_base=facet_base,
    )


def field_events(result: FieldLineage, records: Mapping[str, RunRecord] | None = None, *,
                 producer: str = PRODUCER, facet_base: str = FACET_BASE_URL,
                 default_namespace: str = DEFAULT_DATASET_NAMESPACE) -> list[RunEvent]:
    """One event per operation group of a field-lineage answer (groups without runs are skipped).

    ``records``: the stored runs by run id (the newest run of each group), for locations and INDIRECT edges.
    """
    found = records or {}
    return [group_event(group, result.field, result.direction, found.get(group.runs[0].run_id), producer=producer,
                        facet_base=facet_base, default_namespace=default_namespace)
            for group in result.groups if group.runs]


def event_to_dict(event: Any) -> dict[str, Any]:
    """JSON-ready dict in the OpenLineage wire format (nulls dropped, enums as values)."""
    from openlineage.client.serde import Serde

    return Serde.to_dict(event)
