"""``/healthz`` (for load balancers: is the store readable, is Redis usable) and ``/openapi.json``."""

from __future__ import annotations

import asyncio
import functools
import json

from aiohttp import web

from server.keys import CACHE, ROUTE_SPECS, STORE
from server.models import ComponentHealth, HealthResponse
from server.params import EmptyQuery, parse_query
from server.routes.spec import RouteSpec, RouteTable
from server.routes.support import json_response

table = RouteTable()


@table.get("/healthz", name="health", summary="Store and Redis status", tag="service", query=EmptyQuery,
           response=HealthResponse, public=True, errors=(400, 503))
async def health(request: web.Request) -> web.Response:
    """200 while the store answers (``degraded`` if Redis is down: answers come from the store); 503 otherwise."""
    parse_query(request, EmptyQuery)
    try:
        await asyncio.to_thread(request.app[STORE].latest_watermark)
        store = ComponentHealth(status="ok")
    except Exception as error:
        store = ComponentHealth(status="down", detail=f"{type(error).__name__}: {error}")
    redis_status, detail = await request.app[CACHE].redis_health()
    redis = ComponentHealth(status=redis_status, detail=detail)  # type: ignore[arg-type]
    if store.status != "ok":
        overall = "down"
    elif redis.status == "down":
        overall = "degraded"
    else:
        overall = "ok"
    body = HealthResponse(status=overall, store=store, redis=redis)
    return json_response(body, status=503 if overall == "down" else 200)


@table.get("/openapi.json", name="openapi", summary="This API's OpenAPI 3.1 document", tag="service",
           query=EmptyQuery, response=dict, public=True)
async def openapi(request: web.Request) -> web.Response:
    """Generated from the route table and the pydantic models, so it always matches the code."""
    parse_query(request, EmptyQuery)
    return web.Response(body=_document(tuple(request.app[ROUTE_SPECS].values())), content_type="application/json")


@functools.lru_cache(maxsize=4)
def _document(specs: tuple[RouteSpec, ...]) -> bytes:
    """The routes are fixed when the code is, so the ~40 ms build happens once per process."""
    from server.openapi import build_document

    return json.dumps(build_document(specs)).encode("utf-8")
