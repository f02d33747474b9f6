"""Cache-aside for every GET: in-process near-cache, then Redis, then the store - failing open.

Lookup order for one request (``get_or_compute``):

1. **Near-cache** (``server.nearcache``), if the invalidation channel is healthy: no I/O at all.
2. **Single flight**: concurrent requests for the same key share one computation, so a hot key
   that expires or is invalidated costs one store query, not one per waiting client. A request
   only joins a flight that started after the last invalidation touching its scope.
3. **Redis**: ``<prefix>:v<N>:<store>:<sha256(kind, parameters)>:<watermark>``. The watermark is
   read from the store *before* the value, and changes with every run touching the dataset (or,
   for answers spanning datasets, with every run), so an old value is unreachable the moment a
   run commits - in every process, even if no invalidation message ever arrives. Nothing from
   the request appears in a key except through the hash.
4. **The store**, through ``asyncio.to_thread``; the body is written back to Redis (JSON bytes
   with a TTL that only reclaims memory) and to the near-cache.

Any Redis failure or timeout serves the answer from the store marked ``bypass`` and opens a
circuit breaker for ``redis_retry_after`` seconds, so a dead or slow Redis costs each request
nothing; redis-py reconnects on the next attempt, and the subscriber reconnects on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from server.invalidation import Invalidator
from server.nearcache import DATASET, GLOBAL, IMMUTABLE, CachedBody, NearCache, Scope, dataset_token

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from lineage.store.base import LineageStore
    from server.settings import Settings

log = logging.getLogger(__name__)

CACHE_FORMAT_VERSION = 2
"""Bump whenever a cached response body changes shape: old Redis values become unreachable."""

HIT, MISS, BYPASS = "hit", "miss", "bypass"


def dataset_scope(namespace: str, dataset: str) -> Scope:
    return Scope(DATASET, dataset_token(namespace, dataset), namespace, dataset)


GLOBAL_SCOPE = Scope(GLOBAL)
IMMUTABLE_SCOPE = Scope(IMMUTABLE)


def request_key(kind: str, params: Any) -> str:
    text = json.dumps([kind, params], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Lookup:
    value: CachedBody
    status: str
    """``hit``, ``miss`` or ``bypass`` (the X-Cache header)."""
    layer: str
    """``near``, ``redis``, ``coalesced`` or ``store`` (the X-Cache-Layer header)."""


class CircuitBreaker:
    """After a failure, say "skip Redis" for ``retry_after`` seconds; then let one request try again."""

    def __init__(self, retry_after: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.retry_after = retry_after
        self._clock = clock
        self._open_until = 0.0

    def allows(self) -> bool:
        return self._clock() >= self._open_until

    def trip(self) -> None:
        self._open_until = self._clock() + self.retry_after

    def reset(self) -> None:
        self._open_until = 0.0


@dataclass(slots=True)
class _Flight:
    captured: int
    task: asyncio.Task[Lookup]


class LineageCache:
    def __init__(self, *, settings: Settings, store: LineageStore, redis: Redis | None, store_tag: str) -> None:
        self.settings = settings
        self.store = store
        self.redis = redis
        self.prefix = f"{settings.cache_prefix}:v{CACHE_FORMAT_VERSION}:{store_tag}"
        self.near = NearCache(settings.near_cache_entries, settings.near_cache_max_age)
        self.breaker = CircuitBreaker(settings.redis_retry_after)
        self.invalidator = Invalidator(
            near=self.near,
            store=store,
            redis=redis,
            channel=f"{self.prefix}:invalidate",
            origin=uuid.uuid4().hex,
            timeout=settings.redis_timeout,
            ping_interval=settings.invalidation_ping_interval,
            poll_interval=settings.store_poll_interval,
        )
        self._flights: dict[str, _Flight] = {}
        self.store_computations = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        probe = None
        if self.settings.store_probe:
            from server.storeprobe import probe_for

            probe = probe_for(self.store)
        await self.invalidator.start(probe)

    async def stop(self) -> None:
        await self.invalidator.stop()
        for flight in list(self._flights.values()):
            flight.task.cancel()

    # ------------------------------------------------------------------ reads

    def near_hit(self, alias: str) -> CachedBody | None:
        """The near-cached body of a request answered before, found by its raw text before any parsing;
        served under the rules of any near-cache hit (channel healthy, nothing invalidated since)."""
        invalidator = self.invalidator
        if not (invalidator.redis is None or invalidator.subscribed):  # near_usable, inlined: asked per request
            return None
        if invalidator.probe is not None:
            invalidator.sync_with_store()
        return self.near.get_by_alias(alias)

    async def get_or_compute(self, kind: str, params: Any, scope: Scope, compute: Callable[[], CachedBody],
                             alias: str | None = None) -> Lookup:
        """The response body for ``(kind, params)``; ``compute`` runs in a worker thread on a miss.

        ``alias`` lets ``near_hit`` find the answer next time without parsing the request.
        """
        key = request_key(kind, params)
        if alias is not None:
            self.near.alias(alias, key, scope)
        self.invalidator.sync_with_store()
        if self.invalidator.near_usable:
            value = self.near.get(key, scope)
            if value is not None:
                return Lookup(value, HIT, "near")
        flight = self._flights.get(key)
        if flight is not None and self.near.is_current(scope, flight.captured):
            shared = await asyncio.shield(flight.task)
            return Lookup(shared.value, BYPASS if shared.status == BYPASS else HIT, "coalesced")
        captured = self.near.capture()
        task = asyncio.create_task(self._load(key, scope, compute, captured))
        flight = _Flight(captured, task)
        self._flights[key] = flight
        task.add_done_callback(lambda done: self._landed(key, flight, done))
        return await asyncio.shield(task)

    def _landed(self, key: str, flight: _Flight, task: asyncio.Task[Lookup]) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]
        if not task.cancelled():
            task.exception()  # retrieved here so an error nobody awaited is not logged as "never retrieved"

    async def _load(self, key: str, scope: Scope, compute: Callable[[], CachedBody], captured: int) -> Lookup:
        redis_key: str | None = None
        status = MISS
        if self.redis is not None:
            if self.breaker.allows():
                try:
                    generation = await asyncio.to_thread(self._generation, scope)
                    redis_key = f"{self.prefix}:{key}:{generation}"
                    raw = await self.redis.get(redis_key)
                except Exception as error:
                    await self._failed("GET", error)
                    redis_key, status = None, BYPASS
                else:
                    if raw is not None:
                        value = CachedBody.decode(raw)
                        self._remember(key, scope, captured, value)
                        return Lookup(value, HIT, "redis")
            else:
                status = BYPASS
        self.store_computations += 1
        value = await asyncio.to_thread(compute)
        if redis_key is not None and value.cacheable:
            try:
                await self.redis.set(redis_key, value.encode(), ex=self.settings.cache_ttl_seconds)  # type: ignore[union-attr]
            except Exception as error:
                await self._failed("SET", error)
                status = BYPASS
        if status != BYPASS:
            self._remember(key, scope, captured, value)
        return Lookup(value, status, "store")

    def _remember(self, key: str, scope: Scope, captured: int, value: CachedBody) -> None:
        if self.invalidator.near_usable:
            self.near.put(key, scope, captured, value)

    def _generation(self, scope: Scope) -> int:
        if scope.kind == DATASET:
            return self.store.watermark(scope.namespace, scope.dataset)
        if scope.kind == GLOBAL:
            return self.store.latest_watermark()
        return 0

    async def _failed(self, command: str, error: Exception) -> None:
        """Open the breaker, and drop idle pooled connections: after a Redis restart they are all dead,
        and without this each would fail one request in turn before the pool is fresh again."""
        if self.breaker.allows():
            log.warning("Redis %s failed (%s: %s); serving from the store for %.1fs", command,
                        type(error).__name__, error, self.breaker.retry_after)
        self.breaker.trip()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.redis.connection_pool.disconnect(inuse_connections=False),
                                       self.settings.redis_timeout)

    # ------------------------------------------------------------------ writes and health

    async def invalidate(self, datasets: list[tuple[str, str]]) -> None:
        """A run touching ``datasets`` was committed: drop what depended on them, here and elsewhere."""
        await self.invalidator.announce(datasets)

    async def redis_health(self) -> tuple[str, str | None]:
        if self.redis is None:
            return "disabled", "no Redis configured: in-process near-cache only"
        try:
            await asyncio.wait_for(self.redis.ping(), self.settings.redis_timeout * 4)
        except Exception as error:
            return "down", f"{type(error).__name__}: {error}"
        self.breaker.reset()
        if not self.invalidator.subscribed:
            return "down", "reachable, but the invalidation channel is reconnecting"
        return "ok", None
