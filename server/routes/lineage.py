"""The native lineage queries of one dataset (seed 000 and 001 paths), all cached."""

from __future__ import annotations

from aiohttp import web

from lineage import export
from lineage.store.results import FieldLineage, LineageSummary, OperationGroup, RunRecord
from server.cache import GLOBAL_SCOPE, dataset_scope
from server.errors import ForbiddenError
from server.keys import SETTINGS
from server.models import ColumnHistoryResponse, FieldEventsResponse, FieldsResponse, PropertiesResponse
from server.params import (
    ColumnHistoryQuery,
    DatasetLineageQuery,
    FieldLineageQuery,
    FieldsQuery,
    PropertiesQuery,
)
from server.routes.spec import RouteTable
from server.routes.support import cached_json, cached_page, dataset_page, read_request
from server.visible_store import VisibleStore

table = RouteTable()
DATASET = "/v3/namespaces/{ns}/datasets/{ds}"
TAG = "lineage"


@table.get(f"{DATASET}/fields", name="dataset_fields", summary="Fields with lineage in a time range",
           tag=TAG, query=FieldsQuery, response=FieldsResponse, cached=True)
async def dataset_fields(request: web.Request) -> web.Response:
    """Each field written or read by a run in [start, end): when it was created, last updated, and by which run."""
    return await dataset_page(request, FieldsQuery, FieldsResponse, "fields", kind="fields", items="fields",
                              options=("prefix",))


@table.get(f"{DATASET}/fields/lineage", name="dataset_lineage", summary="Field mappings between datasets",
           tag=TAG, query=DatasetLineageQuery, response=LineageSummary, cached=True)
async def dataset_lineage(request: web.Request) -> web.Response:
    """High-level lineage: which fields of which datasets map to which, ``level`` dataset hops away.

    Level 2 and beyond follow only the fields reached at the previous level, so the answer stays a
    field closure. Multi-level answers depend on other datasets, so any new run refreshes them.
    """
    (ns, ds), q, store = read_request(request, DatasetLineageQuery, "ns", "ds")

    def compute() -> tuple[LineageSummary, str | None]:
        summary = store.summary(ns, ds, q.lineage_direction, q.start, q.end, levels=q.level, limit=q.limit,
                                cursor=q.cursor)
        return summary, summary.next_cursor

    scope = dataset_scope(ns, ds) if q.level == 1 else GLOBAL_SCOPE
    return await cached_json(request, kind="summary", scope=scope, params=[ns, ds, q.cache_params()], compute=compute)


@table.get(f"{DATASET}/fields/{{field}}/lineage", name="field_lineage", summary="Detailed lineage of one field",
           tag=TAG, query=FieldLineageQuery, response=FieldLineage, cached=True)
async def field_lineage(request: web.Request) -> web.Response:
    """Operations, graph (nodes and connections) and runs that made (backward) or consumed (forward) the field.

    One group per distinct operation set in the range, newest first; operations are pruned to the
    field, so seed 000's ID shows the HR parser with Employee_Name and Dept_Name but not Salary.
    """
    (ns, ds, field), q, store = read_request(request, FieldLineageQuery, "ns", "ds", "field")

    def compute() -> tuple[FieldLineage, str | None]:
        result = store.field_lineage(ns, ds, field, q.lineage_direction, q.start, q.end, max_runs=q.max_runs,
                                     limit=q.limit, cursor=q.cursor)
        return result, result.next_cursor

    return await cached_json(request, kind="field_lineage", scope=dataset_scope(ns, ds),
                             params=[ns, ds, field, q.cache_params()], compute=compute)


@table.get(f"{DATASET}/fields/{{field}}/lineage/openlineage", name="field_lineage_openlineage",
           summary="A field's lineage as OpenLineage events", tag="export", query=FieldLineageQuery,
           response=FieldEventsResponse, cached=True)
async def field_lineage_openlineage(request: web.Request) -> web.Response:
    """One OpenLineage RunEvent (type OTHER) per operation set, for its newest run in the range, carrying this
    field's lineage (INDIRECT edges included) in the ``wrangler_fieldLineage`` facet: a ``columnLineage`` facet
    would replace the run's whole one in a consumer."""
    (ns, ds, field), q, store = read_request(request, FieldLineageQuery, "ns", "ds", "field")

    settings = request.app[SETTINGS]

    def compute() -> tuple[FieldEventsResponse, str | None]:
        result = store.field_lineage(ns, ds, field, q.lineage_direction, q.start, q.end, max_runs=q.max_runs,
                                     limit=q.limit, cursor=q.cursor)
        # each group's newest run, as this token may see it: dataset locations (naming), column trees (INDIRECT)
        records = {group.runs[0].run_id: record for group in result.groups if group.runs
                   if (record := _newest_run(store, group)) is not None}
        events = tuple(export.event_to_dict(event) for event in export.field_events(
            result, records, facet_base=settings.facet_base, default_namespace=settings.openlineage_namespace))
        body = FieldEventsResponse(namespace=ns, dataset=ds, field=field, direction=result.direction,
                                   start=q.start, end=q.end, events=events, next_cursor=result.next_cursor,
                                   cut=result.cut)
        return body, result.next_cursor

    return await cached_json(request, kind="field_openlineage", scope=dataset_scope(ns, ds),
                             params=[ns, ds, field, q.cache_params()], compute=compute)


@table.get(f"{DATASET}/columns/{{col}}/lineage", name="column_history", summary="Directive history of one column",
           tag=TAG, query=ColumnHistoryQuery, response=ColumnHistoryResponse, cached=True)
async def column_history(request: web.Request) -> web.Response:
    """The directive tree recorded for the column in each run in the range, newest first (seed 001)."""
    (ns, ds, col), q, store = read_request(request, ColumnHistoryQuery, "ns", "ds", "col")

    return await cached_page(
        request, q, ColumnHistoryResponse, store.column_history, options=("max_levels",),
        kind="column_history", scope=dataset_scope(ns, ds), names=[ns, ds, col], namespace=ns, dataset=ds,
        column=col, max_levels=q.max_levels)


@table.get(f"{DATASET}/properties", name="dataset_properties", summary="Dataset properties by run",
           tag=TAG, query=PropertiesQuery, response=PropertiesResponse, cached=True)
async def dataset_properties(request: web.Request) -> web.Response:
    """The properties (input path, regex, ...) the dataset had in each run in the range, newest first."""
    return await dataset_page(request, PropertiesQuery, PropertiesResponse, "dataset_properties", kind="properties")


def _newest_run(store: VisibleStore, group: OperationGroup) -> RunRecord | None:
    """The group's newest run as the token sees it; None when it writes a dataset out of sight (then the event
    keeps the group's own, already cut, operations and nothing more)."""
    try:
        return store.run(group.runs[0].namespace, group.runs[0].run_id)
    except ForbiddenError:
        return None
