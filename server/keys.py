"""Typed application state keys (aiohttp ``AppKey``): the only way handlers reach shared resources."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from lineage.store.base import LineageStore
    from server.auth import Grant
    from server.cache import LineageCache
    from server.recipe_pool import RecipePool
    from server.routes.spec import RouteSpec
    from server.settings import Settings

SETTINGS: web.AppKey[Settings] = web.AppKey("settings")
STORE: web.AppKey[LineageStore] = web.AppKey("store")
CACHE: web.AppKey[LineageCache] = web.AppKey("cache")
ROUTE_SPECS: web.AppKey[dict[str, RouteSpec]] = web.AppKey("route_specs")
RECIPE_WORKERS: web.AppKey[RecipePool] = web.AppKey("recipe_workers")
GRANT: web.RequestKey[Grant] = web.RequestKey("grant")
"""What the request's token may do; absent on a server without ``--auth`` (see ``routes.support.grant_of``)."""
