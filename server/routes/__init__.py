"""All routes of the API, registered on an application by ``setup_routes``."""

from __future__ import annotations

import re

from aiohttp import web

from server.keys import ROUTE_SPECS
from server.routes import browse, cdap_routes, facets, health, lineage, recipe, runs
from server.routes.spec import RouteSpec
from server.routing import MemoRouter
from server.ui import setup_ui

TABLES = (lineage.table, cdap_routes.table, runs.table, recipe.table, health.table, browse.table, facets.table)


def all_specs() -> list[RouteSpec]:
    return [spec for table in TABLES for spec in table.specs]


_SEGMENT = re.compile(r"{(\w+)}")


def router_path(path: str) -> str:
    """aiohttp's default segment pattern refuses ``{`` and ``}``; a dataset may be named ``{x}``."""
    return _SEGMENT.sub(r"{\1:[^/]+}", path)


def setup_routes(app: web.Application) -> None:
    """Every route of the table (the API middleware answers cached ones from the near-cache first), then the
    web view; on a ``MemoRouter`` (``server.routing``), the table's routes are remembered once resolved.
    Sets ``ROUTE_SPECS`` for the API document."""
    specs = all_specs()
    for spec in specs:
        app.router.add_route(spec.method, router_path(spec.path), spec.handler, name=spec.name)
    if isinstance(app.router, MemoRouter):
        app.router.remember(spec.name for spec in specs)
    setup_ui(app)  # the web view's pages and files: no cache, no token, never remembered
    app[ROUTE_SPECS] = {spec.name: spec for spec in specs}
