"""``create_app``: the only way to build the API (tests, the benchmark and `wrangler serve` all use it).

No module-level state: the store, the Redis client and the cache live in cleanup contexts, so
they are opened when the app starts, closed when it stops, and never half-open. A store or Redis
client passed in is used as-is and left open for its owner to close.

This module (and everything it imports) stays free of pyspark: the API runs without Java.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from lineage.store import open_store
from server.auth import Authorizer
from server.cache import LineageCache
from server.keys import CACHE, SETTINGS, STORE
from server.middlewares import api_middleware
from server.protocol import answer_protocol_errors_as_json
from server.recipe_pool import recipe_pool_context
from server.routes import all_specs, setup_routes
from server.routing import MemoRouter, application
from server.settings import Settings

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from lineage.store.base import LineageStore

log = logging.getLogger(__name__)

CleanupContext = Callable[[web.Application], AsyncIterator[None]]


def create_app(
    settings: Settings, *, redis: Redis | None = None, store: LineageStore | None = None
) -> web.Application:
    """Build the application; reads the auth file now, so a bad one fails before the server listens."""
    authorizer = Authorizer.from_file(settings.auth_file) if settings.auth_file is not None else None
    middleware = api_middleware(settings, authorizer, {spec.name: spec for spec in all_specs()})
    app = application(MemoRouter(max_entries=2 * settings.near_cache_entries),
                      client_max_size=settings.max_body_bytes, middlewares=[middleware])
    app[SETTINGS] = settings
    setup_routes(app)
    answer_protocol_errors_as_json(app)
    app.cleanup_ctx.append(_store_context(settings, store))
    app.cleanup_ctx.append(_cache_context(settings, redis))
    app.cleanup_ctx.append(recipe_pool_context(settings))
    return app


def _store_context(settings: Settings, injected: LineageStore | None) -> CleanupContext:
    async def store_context(app: web.Application) -> AsyncIterator[None]:
        if injected is not None:
            app[STORE] = injected
            yield
            return
        opened = await asyncio.to_thread(open_store, settings.store_path)  # a file or a postgresql:// URL
        app[STORE] = opened
        try:
            yield
        finally:
            await asyncio.to_thread(opened.close)

    return store_context


def _redis_client(url: str, timeout: float) -> Redis:
    """A client that fails fast (one attempt, short timeouts): the cache would rather bypass than wait."""
    from redis.asyncio import Redis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        decode_responses=False,
    )


def store_tag(store: LineageStore, settings: Settings) -> str:
    """Tells stores apart in shared Redis keys and channels: a hash of the store's identity (the database
    file's resolved path; a PostgreSQL cluster's system identifier, database and schema), so every instance
    on one store shares keys and invalidation messages."""
    identity = getattr(store, "identity", None) or str(Path(settings.store_path).resolve())
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]


def _cache_context(settings: Settings, injected: Redis | None) -> CleanupContext:
    async def cache_context(app: web.Application) -> AsyncIterator[None]:
        client = injected
        if client is None and settings.redis_url is not None:
            client = _redis_client(settings.redis_url, settings.redis_timeout)
        cache = LineageCache(settings=settings, store=app[STORE], redis=client,
                             store_tag=store_tag(app[STORE], settings))
        await cache.start()
        app[CACHE] = cache
        try:
            yield
        finally:
            await cache.stop()
            if client is not None and injected is None:
                await client.aclose()

    return cache_context
