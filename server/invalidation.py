"""Keeping every server process's near-cache coherent with the store.

Three paths bring news of a new run, from fastest to most general:

1. **Own POSTs.** The process that records a run invalidates its own near-cache synchronously,
   after the store commit and before answering, so its clients can never read stale lineage.
2. **Redis pub/sub.** It then publishes the touched datasets (as hashes, never names) on the
   store's channel; every other process drops the matching entries on receipt. While a process
   is not subscribed - Redis down, connection lost, reconnecting - it does not use its near-cache
   at all, and it flushes it when the subscription is back (messages may have been missed).
   A PING every ``ping_interval`` detects a Redis that hangs rather than closes.
3. **Store polling.** Programs may record runs straight into the SQLite file (``LineageRecorder``
   with a store sink), bypassing the API. A watcher reads the store's latest watermark every
   ``poll_interval`` and invalidates the datasets touched since, so such runs show up within
   that interval even with no Redis at all.

Redis values need none of this: their keys contain the store's watermark (``server.cache``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from server.nearcache import NearCache, dataset_token

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from lineage.store.base import LineageStore

log = logging.getLogger(__name__)

MAX_BACKOFF = 1.0
STOP_TIMEOUT = 5.0
MIN_SILENCE = 2.0
"""Seconds without even a PONG before the channel counts as dead; a busy event loop on a loaded
machine can delay a PONG well past a short ping interval, and a false alarm flushes the near-cache."""

__all__ = ["Invalidator", "StoreChanges"]


class StoreChanges(Protocol):
    """What a store probe tells before a near-cache read (``server.storeprobe``, ``server.pgprobe``)."""

    def changed(self) -> bool: ...

    def changes_since(self, seen: int) -> tuple[int, dict[str, int]]: ...

    def close(self) -> None: ...


class Invalidator:
    def __init__(
        self,
        *,
        near: NearCache,
        store: LineageStore,
        redis: Redis | None,
        channel: str,
        origin: str,
        timeout: float,
        ping_interval: float,
        poll_interval: float,
    ) -> None:
        self.near = near
        self.store = store
        self.redis = redis
        self.channel = channel
        self.origin = origin
        self.timeout = timeout
        self.ping_interval = ping_interval
        self.poll_interval = poll_interval
        self.subscribed = False
        self.last_error: str | None = None
        self.closing = False
        """Set by ``stop``: redis-py can swallow a cancellation while it connects, so the listening
        loop also checks this flag instead of relying on ``CancelledError`` alone."""
        self.handled: dict[str, int] = {}
        """Dataset token -> the watermark up to which its changes were already invalidated."""
        self.seen = 0
        """The store's latest watermark whose changes were looked at (by the probe or the poll)."""
        self.probe: StoreChanges | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, probe: StoreChanges | None) -> None:
        """Take the probe (opened before the baseline is read), then watch the store and, with Redis,
        listen for the other processes' messages."""
        self.probe = probe
        self.seen = await asyncio.to_thread(self.store.latest_watermark)
        self._tasks.append(asyncio.create_task(self.watch_store(), name="store-watcher"))
        if self.redis is not None:
            self._tasks.append(asyncio.create_task(self.listen(), name="cache-invalidations"))

    async def stop(self) -> None:
        self.closing = True
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=STOP_TIMEOUT)
            for task in pending:
                log.warning("background task %s did not stop within %.0fs", task.get_name(), STOP_TIMEOUT)
        for task in self._tasks:
            if task.done() and not task.cancelled():
                task.exception()
        self._tasks.clear()
        if self.probe is not None:
            self.probe.close()
            self.probe = None

    @property
    def near_usable(self) -> bool:
        """Without Redis there is no other process to hear from; with it, only while subscribed."""
        return self.redis is None or self.subscribed

    # ------------------------------------------------------------------ sending

    async def announce(self, datasets: Iterable[tuple[str, str]]) -> bool:
        """Invalidate here, then tell the other processes; False if the message could not be sent.

        Called after the store committed. The datasets' watermarks are read *before* the near-cache
        is invalidated and travel with the message, so the store watcher (here and in the other
        processes) knows these changes were already dealt with and does not invalidate them again.
        """
        pairs = sorted(set(datasets))
        marks = await asyncio.to_thread(lambda: {dataset_token(ns, ds): self.store.watermark(ns, ds)
                                                 for ns, ds in pairs})
        self._invalidate(marks)
        if self.redis is None:
            return True
        message = json.dumps({"o": self.origin, "d": marks}, separators=(",", ":"))
        try:
            await asyncio.wait_for(self.redis.publish(self.channel, message), self.timeout)
        except Exception as error:  # fail open: the write is stored; the others' store watchers will see it
            log.warning("could not publish cache invalidation: %s", error)
            return False
        return True

    def _invalidate(self, marks: dict[str, int]) -> None:
        for token, mark in marks.items():
            if mark > self.handled.get(token, -1):
                self.handled[token] = mark
        self.near.invalidate(marks)

    def _receive(self, data: Any) -> None:
        try:
            body = json.loads(data)
            marks = body["d"]
            origin = body.get("o")
        except (ValueError, TypeError, KeyError):
            log.warning("ignoring malformed invalidation message")
            return
        if origin == self.origin or not isinstance(marks, dict):
            return
        self._invalidate({str(token): mark if isinstance(mark, int) else -1 for token, mark in marks.items()})

    # ------------------------------------------------------------------ listening

    async def listen(self) -> None:
        """Subscribe, and stay subscribed: reconnects with backoff for as long as the app runs."""
        assert self.redis is not None
        backoff = 0.05
        while not self._stopping():
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await asyncio.wait_for(pubsub.subscribe(self.channel), self.timeout * 4)
                await self._confirm(pubsub)
                self.near.flush()  # anything published while we were away is lost: start clean
                self.subscribed = True
                self.last_error = None
                backoff = 0.05
                log.info("subscribed to cache invalidations")
                await self._pump(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if self.subscribed or self.last_error is None:
                    log.warning("cache invalidation channel lost (%s); near-cache off until it is back", error)
                self.last_error = str(error) or type(error).__name__
            finally:
                self.subscribed = False
                self.near.flush()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(pubsub.aclose(), self.timeout)
            if self._stopping():
                return
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    def _stopping(self) -> bool:
        task = asyncio.current_task()
        return self.closing or (task is not None and task.cancelling() > 0)

    async def _confirm(self, pubsub: Any) -> None:
        """A PONG after SUBSCRIBE proves the subscription is live (replies arrive in order)."""
        await pubsub.ping()
        deadline = asyncio.get_running_loop().time() + self.timeout * 4
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError("no reply to PING after SUBSCRIBE")
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=remaining)
            if message is None:
                continue
            if message["type"] == "pong":
                return
            if message["type"] == "message":
                self._receive(message["data"])

    async def _pump(self, pubsub: Any) -> None:
        loop = asyncio.get_running_loop()
        last_heard = loop.time()
        last_ping = last_heard
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=self.ping_interval)
            now = loop.time()
            if message is not None:
                last_heard = now
                if message["type"] == "message":
                    self._receive(message["data"])
            if now - last_heard > max(3 * self.ping_interval, MIN_SILENCE):
                raise TimeoutError("Redis stopped answering PINGs on the invalidation channel")
            if now - last_ping >= self.ping_interval:
                last_ping = now
                await asyncio.wait_for(pubsub.ping(), self.timeout)

    # ------------------------------------------------------------------ the store

    def sync_with_store(self) -> None:
        """Before a near-cache read: if another connection committed, invalidate what it changed.

        Runs on the event loop (see ``server.storeprobe``: a few microseconds when nothing changed).
        """
        if self.probe is None:
            return
        try:
            if not self.probe.changed():
                return
            latest, marks = self.probe.changes_since(self.seen)
        except Exception as error:  # e.g. the file is briefly locked: forget rather than risk stale
            log.warning("could not check the store for changes (%s); near-cache flushed", error)
            self.near.flush()
            return
        stale = {token: mark for token, mark in marks.items() if mark > self.handled.get(token, -1)}
        if stale:
            self._invalidate(stale)
        self.seen = max(self.seen, latest)

    async def watch_store(self) -> None:
        """Invalidate datasets touched by runs that reached the store without going through this API.

        The probe already does this before every near-cache read; the poll covers a store whose
        file the probe cannot watch, and keeps ``seen`` moving while no request comes. Datasets
        whose watermark was already handled (own POSTs, messages, the probe) are skipped, so a POST
        costs one recomputation, not two.
        """
        while True:
            await asyncio.sleep(self.poll_interval)
            try:
                seen = self.seen
                latest = await asyncio.to_thread(self.store.latest_watermark)
                if latest > seen:
                    stale = await asyncio.to_thread(self._unhandled_changes, seen)
                    if stale:
                        self._invalidate(stale)
                self.seen = max(self.seen, latest)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not poll the store for new runs")

    def _unhandled_changes(self, seen: int) -> dict[str, int]:
        stale: dict[str, int] = {}
        for ns, ds in self.store.datasets_changed_since(seen):
            token = dataset_token(ns, ds)
            mark = self.store.watermark(ns, ds)
            if mark > self.handled.get(token, -1):
                stale[token] = mark
        return stale
