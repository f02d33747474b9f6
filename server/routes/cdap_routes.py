"""CDAP-compatible routes (``LineageHTTPHandler``): CDAP's paths, parameters and JSON, our queries underneath.

Parameters are read the way CDAP reads them (``server.cdap``), and answers are complete, as CDAP's are:
every page of the underlying store query is read.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web
from pydantic import RootModel

from lineage.model import Direction
from lineage.store.results import OperationGroup
from server import cdap
from server.cache import dataset_scope
from server.errors import ForbiddenError
from server.params import (
    CdapAllFieldLineageQuery,
    CdapFieldsQuery,
    CdapOperationsQuery,
    CdapSummaryQuery,
    path_name,
)
from server.routes.spec import RouteTable
from server.routes.support import cached_json, visible_store
from server.visible_store import VisibleStore

table = RouteTable()
BASE = "/v3/namespaces/{ns}/datasets/{ds}/lineage"
TAG = "cdap"
#: Which store directions each CDAP direction asks for (CDAP: INCOMING = backward, OUTGOING = forward).
PARTS = {"INCOMING": ("incoming",), "OUTGOING": ("outgoing",), "BOTH": ("incoming", "outgoing")}
STORE_DIRECTION = {"incoming": Direction.BACKWARD, "outgoing": Direction.FORWARD}
#: Runs listed per operation group: CDAP reports each program's latest run, so all runs are needed.
MAX_RUNS = 1000


class FieldNames(RootModel[list[str]]):
    pass


class FieldsWithLineage(RootModel[list[cdap.FieldWithLineage]]):
    pass


class CdapFields(RootModel[list[str] | list[cdap.FieldWithLineage]]):
    """Field names, or with ``includeCurrent=true`` names with a lineage flag."""


def _range(request: web.Request) -> cdap.TimeRange:
    return cdap.parse_range(request.query, int(time.time()))


def _all_fields(store: VisibleStore, ns: str, ds: str, span: cdap.TimeRange) -> list[str]:
    """Every field read or written in the range (``FieldLineageTable.getFields``), every page."""
    return [item.name for item in cdap.every_page(
        lambda cursor: _page(store.fields(ns, ds, span.start, span.end, limit=cdap.PAGE, cursor=cursor)))]


def _page(page: Any) -> tuple[Any, str | None]:
    return page.items, page.next_cursor


def _groups(store: VisibleStore, ns: str, ds: str, field: str, part: str, span: cdap.TimeRange
            ) -> list[OperationGroup]:
    """Every operation group of the field in one direction, every page."""
    def fetch(cursor: str | None) -> tuple[Any, str | None]:
        result = store.field_lineage(ns, ds, field, STORE_DIRECTION[part], span.start, span.end, max_runs=MAX_RUNS,
                                     limit=cdap.PAGE, cursor=cursor)
        return result.groups, result.next_cursor

    return cdap.every_page(fetch)


@table.get(f"{BASE}/fields", name="cdap_fields", summary="CDAP: fields with lineage", tag=TAG,
           query=CdapFieldsQuery, response=CdapFields, cached=True)
async def cdap_fields(request: web.Request) -> web.Response:
    """``["f1", "f2"]``, or with ``includeCurrent=true`` ``[{"name": "f1", "lineage": true}]``; ``prefix`` is a
    case-insensitive prefix of the names (``FieldLineageAdmin.getFields``)."""
    ns, ds = path_name(request, "ns"), path_name(request, "ds")
    span = _range(request)
    prefix = cdap.first(request.query, "prefix")
    include_current = cdap.java_boolean(cdap.first(request.query, "includeCurrent"))
    store = visible_store(request)

    def compute() -> Any:
        names = _all_fields(store, ns, ds, span)
        if prefix:
            names = [name for name in names if name.lower().startswith(prefix.lower())]
        if include_current:
            return FieldsWithLineage([cdap.FieldWithLineage(name=name, lineage=True) for name in names])
        return FieldNames(names)

    return await cached_json(request, kind="cdap_fields", scope=dataset_scope(ns, ds),
                             params=[ns, ds, span.start_ms, span.end_ms, prefix or "", include_current],
                             compute=compute)


@table.get(f"{BASE}/fields/{{field}}", name="cdap_field_summary", summary="CDAP: field lineage summary", tag=TAG,
           query=CdapSummaryQuery, response=cdap.FieldLineageSummary, cached=True, exclude_none=True)
async def cdap_field_summary(request: web.Request) -> web.Response:
    """``{"incoming": [DatasetField], "outgoing": [DatasetField]}``; a direction not asked for is left out."""
    ns, ds, field = path_name(request, "ns"), path_name(request, "ds"), path_name(request, "field")
    span = _range(request)
    direction = cdap.parse_direction(cdap.first(request.query, "direction"))
    store = visible_store(request)

    def compute() -> cdap.FieldLineageSummary:
        found = {part: cdap.dataset_fields(_groups(store, ns, ds, field, part, span)) for part in PARTS[direction]}
        return cdap.FieldLineageSummary(incoming=found.get("incoming"), outgoing=found.get("outgoing"))

    return await cached_json(request, kind="cdap_summary", scope=dataset_scope(ns, ds),
                             params=[ns, ds, field, span.start_ms, span.end_ms, direction], compute=compute,
                             exclude_none=True)


@table.get(f"{BASE}/fields/{{field}}/operations", name="cdap_field_operations", summary="CDAP: field operations",
           tag=TAG, query=CdapOperationsQuery, response=cdap.FieldLineageDetails, cached=True, exclude_none=True)
async def cdap_field_operations(request: web.Request) -> web.Response:
    """``{"incoming": [ProgramFieldOperationInfo], "outgoing": [...]}``, operations topologically sorted; each
    READ/WRITE ``endPoint`` carries the dataset's properties recorded for the group's newest run."""
    ns, ds, field = path_name(request, "ns"), path_name(request, "ds"), path_name(request, "field")
    span = _range(request)
    direction = cdap.parse_direction(cdap.first(request.query, "direction") or "both")
    store = visible_store(request)

    def properties(group: OperationGroup) -> cdap.Properties:
        newest = group.runs[0] if group.runs else None
        try:
            record = store.run(newest.namespace, newest.run_id) if newest is not None else None
        except ForbiddenError:  # the newest run writes a dataset out of sight: its properties are not shown
            record = None
        if record is None:
            return {}
        return {(entry.dataset.namespace, entry.dataset.name): entry.properties for entry in record.dataset_properties}

    def compute() -> cdap.FieldLineageDetails:
        found = {part: cdap.operation_details(_groups(store, ns, ds, field, part, span), properties)
                 for part in PARTS[direction]}
        return cdap.FieldLineageDetails(incoming=found.get("incoming"), outgoing=found.get("outgoing"))

    return await cached_json(request, kind="cdap_operations", scope=dataset_scope(ns, ds),
                             params=[ns, ds, field, span.start_ms, span.end_ms, direction], compute=compute,
                             exclude_none=True)


@table.get(f"{BASE}/allfieldlineage", name="cdap_all_field_lineage", summary="CDAP: all field relations",
           tag=TAG, query=CdapAllFieldLineageQuery, response=cdap.DatasetFieldLineageSummary, cached=True,
           exclude_none=True)
async def cdap_all_field_lineage(request: web.Request) -> web.Response:
    """``DatasetFieldLineageSummary``: the dataset's fields and, per neighbouring dataset, its field count and the
    field relations; ``incoming`` and ``outgoing`` are always there (empty when not asked for), as in CDAP."""
    ns, ds = path_name(request, "ns"), path_name(request, "ds")
    span = _range(request)
    direction = cdap.parse_direction(cdap.first(request.query, "direction"))
    store = visible_store(request)

    def compute() -> cdap.DatasetFieldLineageSummary:
        counts: dict[tuple[str, str], int] = {}

        def field_count(other_ns: str, other_ds: str) -> int:
            if (other_ns, other_ds) not in counts:
                counts[(other_ns, other_ds)] = len(_all_fields(store, other_ns, other_ds, span))
            return counts[(other_ns, other_ds)]

        relations: dict[str, list[cdap.DatasetRelations]] = {"incoming": [], "outgoing": []}
        for part in PARTS[direction]:
            def fetch(cursor: str | None, part: str = part) -> tuple[Any, str | None]:
                summary = store.summary(ns, ds, STORE_DIRECTION[part], span.start, span.end, levels=1,
                                        limit=cdap.PAGE, cursor=cursor)
                return summary.mappings, summary.next_cursor

            relations[part] = cdap.relations(cdap.every_page(fetch), incoming=part == "incoming",
                                             field_count=field_count)
        return cdap.DatasetFieldLineageSummary(
            direction=direction, start_ts=span.start_ms, end_ts=span.end_ms,
            entityId=cdap.DatasetId(namespace=ns, dataset=ds), fields=_all_fields(store, ns, ds, span),
            incoming=relations["incoming"], outgoing=relations["outgoing"],
        )

    return await cached_json(request, kind="cdap_all", scope=dataset_scope(ns, ds),
                             params=[ns, ds, span.start_ms, span.end_ms, direction], compute=compute,
                             exclude_none=True)
