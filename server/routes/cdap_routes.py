"""CDAP-compatible routes (``LineageHTTPHandler``): CDAP's paths and JSON, our queries underneath.

List answers that CDAP sends as bare JSON arrays carry their next-page cursor in the
``X-Next-Cursor`` header; object answers carry it there too, so clients page the same way.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from pydantic import RootModel

from lineage.model import Direction
from lineage.store.base import LineageStore
from lineage.store.results import FieldLineage
from server import cdap
from server.cache import dataset_scope
from server.params import (
    CdapAllFieldLineageQuery,
    CdapFieldsQuery,
    CdapOperationsQuery,
    CdapSummaryQuery,
    parse_query,
    path_name,
)
from server.routes.spec import RouteTable
from server.routes.support import cached_json, visible_store

table = RouteTable()
BASE = "/v3/namespaces/{ns}/datasets/{ds}/lineage"
TAG = "cdap"
PARTS = {"incoming": ("b",), "outgoing": ("f",), "both": ("b", "f")}
DIRECTIONS = {"b": Direction.BACKWARD, "f": Direction.FORWARD}


class FieldNames(RootModel[list[str]]):
    pass


class FieldsWithLineage(RootModel[list[cdap.FieldWithLineage]]):
    pass


class CdapFields(RootModel[list[str] | list[cdap.FieldWithLineage]]):
    """Field names, or with ``includeCurrent=true`` names with a lineage flag."""


@table.get(f"{BASE}/fields", name="cdap_fields", summary="CDAP: fields with lineage", tag=TAG,
           query=CdapFieldsQuery, response=CdapFields, cached=True)
async def cdap_fields(request: web.Request) -> web.Response:
    """``["f1", "f2"]``, or with ``includeCurrent=true`` ``[{"name": "f1", "lineage": true}]``."""
    ns, ds = path_name(request, "ns"), path_name(request, "ds")
    q = parse_query(request, CdapFieldsQuery)
    store = visible_store(request)

    def compute() -> tuple[Any, str | None]:
        page = store.fields(ns, ds, q.start, q.end, prefix=q.prefix, limit=q.limit, cursor=q.cursor)
        if q.include_current:
            body: Any = FieldsWithLineage([cdap.FieldWithLineage(name=f.name, lineage=True) for f in page.items])
        else:
            body = FieldNames([f.name for f in page.items])
        return body, page.next_cursor

    return await cached_json(request, kind="cdap_fields", scope=dataset_scope(ns, ds),
                             params=[ns, ds, q.cache_params()], compute=compute)


def _per_direction(store: LineageStore, ns: str, ds: str, field: str, q: Any) -> tuple[dict[str, FieldLineage],
                                                                                        str | None]:
    """One field-lineage page per requested direction, resumed from the composite cursor."""
    parts = PARTS[q.direction]
    positions = cdap.CompositeCursor.decode(q.cursor, parts)
    results: dict[str, FieldLineage] = {}
    next_positions: dict[str, str | None] = {}
    for part in parts:
        if positions[part] is cdap.DONE:
            results[part] = FieldLineage(namespace=ns, dataset=ds, field=field, direction=DIRECTIONS[part],
                                         start=q.start, end=q.end, groups=())
            continue
        result = store.field_lineage(ns, ds, field, DIRECTIONS[part], q.start, q.end, limit=q.limit,
                                     cursor=positions[part])
        results[part] = result
        next_positions[part] = result.next_cursor
    return results, cdap.CompositeCursor.encode(next_positions)


@table.get(f"{BASE}/fields/{{field}}", name="cdap_field_summary", summary="CDAP: field lineage summary", tag=TAG,
           query=CdapSummaryQuery, response=cdap.FieldLineageSummary, cached=True, exclude_none=True)
async def cdap_field_summary(request: web.Request) -> web.Response:
    """``{"incoming": [DatasetField], "outgoing": [DatasetField]}``; a direction not asked for is left out."""
    ns, ds, field = path_name(request, "ns"), path_name(request, "ds"), path_name(request, "field")
    q = parse_query(request, CdapSummaryQuery)
    store = visible_store(request)

    def compute() -> tuple[cdap.FieldLineageSummary, str | None]:
        results, cursor = _per_direction(store, ns, ds, field, q)
        body = cdap.FieldLineageSummary(
            incoming=cdap.dataset_fields(results["b"].groups) if "b" in results else None,
            outgoing=cdap.dataset_fields(results["f"].groups) if "f" in results else None,
        )
        return body, cursor

    return await cached_json(request, kind="cdap_summary", scope=dataset_scope(ns, ds),
                             params=[ns, ds, field, q.cache_params()], compute=compute, exclude_none=True)


@table.get(f"{BASE}/fields/{{field}}/operations", name="cdap_field_operations", summary="CDAP: field operations",
           tag=TAG, query=CdapOperationsQuery, response=cdap.FieldLineageDetails, cached=True, exclude_none=True)
async def cdap_field_operations(request: web.Request) -> web.Response:
    """``{"incoming": [ProgramFieldOperationInfo], "outgoing": [...]}``, operations topologically sorted."""
    ns, ds, field = path_name(request, "ns"), path_name(request, "ds"), path_name(request, "field")
    q = parse_query(request, CdapOperationsQuery)
    store = visible_store(request)

    def compute() -> tuple[cdap.FieldLineageDetails, str | None]:
        results, cursor = _per_direction(store, ns, ds, field, q)
        body = cdap.FieldLineageDetails(
            incoming=cdap.operation_details(results.get("b")), outgoing=cdap.operation_details(results.get("f"))
        )
        return body, cursor

    return await cached_json(request, kind="cdap_operations", scope=dataset_scope(ns, ds),
                             params=[ns, ds, field, q.cache_params()], compute=compute, exclude_none=True)


@table.get(f"{BASE}/allfieldlineage", name="cdap_all_field_lineage", summary="CDAP: all field relations",
           tag=TAG, query=CdapAllFieldLineageQuery, response=cdap.DatasetFieldLineageSummary, cached=True,
           exclude_none=True)
async def cdap_all_field_lineage(request: web.Request) -> web.Response:
    """``DatasetFieldLineageSummary``: the dataset's fields and, per neighbouring dataset, field relations."""
    ns, ds = path_name(request, "ns"), path_name(request, "ds")
    q = parse_query(request, CdapAllFieldLineageQuery)
    store = visible_store(request)

    def compute() -> tuple[cdap.DatasetFieldLineageSummary, str | None]:
        parts = ("fields", *PARTS[q.direction])
        positions = cdap.CompositeCursor.decode(q.cursor, parts)
        next_positions: dict[str, str | None] = {}
        names: list[str] = []
        if positions["fields"] is not cdap.DONE:
            page = store.fields(ns, ds, q.start, q.end, limit=q.limit, cursor=positions["fields"])
            names = [f.name for f in page.items]
            next_positions["fields"] = page.next_cursor
        relations: dict[str, list[cdap.DatasetRelations]] = {}
        for part in PARTS[q.direction]:
            relations[part] = []
            if positions[part] is cdap.DONE:
                continue
            summary = store.summary(ns, ds, DIRECTIONS[part], q.start, q.end, levels=1, limit=q.limit,
                                    cursor=positions[part])
            relations[part] = cdap.relations(summary.mappings, incoming=part == "b")
            next_positions[part] = summary.next_cursor
        body = cdap.DatasetFieldLineageSummary(
            direction=q.direction.upper(),
            start_ts=q.start * 1000,
            end_ts=q.end * 1000,
            entityId=cdap.DatasetId(namespace=ns, dataset=ds),
            fields=names,
            incoming=relations.get("b"),
            outgoing=relations.get("f"),
        )
        return body, cdap.CompositeCursor.encode(next_positions)

    return await cached_json(request, kind="cdap_all", scope=dataset_scope(ns, ds), params=[ns, ds, q.cache_params()],
                             compute=compute, exclude_none=True)
