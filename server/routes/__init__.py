"""All routes of the API, registered on an application by ``setup_routes``."""

from __future__ import annotations

import re

from aiohttp import web

from server.keys import ROUTE_SPECS
from server.routes import cdap_routes, health, lineage, recipe, runs
from server.routes.spec import RouteSpec
from server.routes.support import with_fast_path

TABLES = (lineage.table, cdap_routes.table, runs.table, recipe.table, health.table)


def all_specs() -> list[RouteSpec]:
    return [spec for table in TABLES for spec in table.specs]


_SEGMENT = re.compile(r"{(\w+)}")


def router_path(path: str) -> str:
    """aiohttp's default segment pattern refuses ``{`` and ``}``; a dataset may be named ``{x}``."""
    return _SEGMENT.sub(r"{\1:[^/]+}", path)


def setup_routes(app: web.Application) -> None:
    specs = all_specs()
    for spec in specs:
        handler = with_fast_path(spec.handler) if spec.cached else spec.handler
        app.router.add_route(spec.method, router_path(spec.path), handler, name=spec.name)
    app[ROUTE_SPECS] = {spec.name: spec for spec in specs}
