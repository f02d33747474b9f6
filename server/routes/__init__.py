"""All routes of the API, registered on an application by ``setup_routes``."""

from __future__ import annotations

import re

from aiohttp import web

from server.keys import ROUTE_SPECS, SETTINGS
from server.routes import browse, cdap_routes, facets, health, lineage, recipe, runs
from server.routes.spec import RouteSpec
from server.routes.support import near_cached
from server.routing import RouteMemo
from server.ui import setup_ui

NAMESPACED = "/v3/namespaces"
"""The prefix aiohttp indexes every namespaced route under (``server.routing``)."""
TABLES = (lineage.table, cdap_routes.table, runs.table, recipe.table, health.table, browse.table, facets.table)


def all_specs() -> list[RouteSpec]:
    return [spec for table in TABLES for spec in table.specs]


_SEGMENT = re.compile(r"{(\w+)}")


def router_path(path: str) -> str:
    """aiohttp's default segment pattern refuses ``{`` and ``}``; a dataset may be named ``{x}``."""
    return _SEGMENT.sub(r"{\1:[^/]+}", path)


def setup_routes(app: web.Application) -> None:
    """Every route of the table (cached ones answered from the near-cache first), the namespaced ones
    behind a route memo (``server.routing``), then the web view; sets ``ROUTE_SPECS`` for the API document."""
    specs = all_specs()
    memo = RouteMemo(NAMESPACED, max_entries=2 * app[SETTINGS].near_cache_entries)
    app.router.register_resource(memo)  # first: aiohttp tries it before the routes it stands for
    behind_memo = []
    for spec in specs:
        handler = near_cached(spec.handler) if spec.cached else spec.handler
        route = app.router.add_route(spec.method, router_path(spec.path), handler, name=spec.name)
        if spec.path.startswith(f"{NAMESPACED}/{{"):
            behind_memo.append(route.resource)
    memo.stand_in_front_of(behind_memo)
    setup_ui(app)  # the web view's pages and files: no cache, no token, not behind the memo
    app[ROUTE_SPECS] = {spec.name: spec for spec in specs}
