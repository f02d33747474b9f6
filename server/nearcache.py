"""The in-process near-cache: answers a repeated GET without leaving the process.

A Redis round trip per request costs more than the rest of a cached request (issue 5 measured
one async GET per request at 0.3x of a hello-world endpoint), so hot answers are kept here too.
What keeps them correct is bookkeeping, not TTLs:

* a logical clock ``tick`` advances on every invalidation;
* each entry remembers the tick *captured before its value was read* (from Redis or the store);
* invalidating a dataset records the new tick for it; invalidating "everything global" does the
  same for answers that span datasets; ``flush`` (after a lost Redis connection) for all.

An entry is served only if nothing it depends on was invalidated after its capture, so a value
read just before a POST committed can never be served after that POST's invalidation, even if it
is stored afterwards. ``max_age`` only bounds the damage of an invalidation message that never
arrived from another process.

A repeated request is also found by its raw text (``alias``: route and path with query), so a hit
costs no parsing at all; an alias is registered only after that very request was validated and
answered (``server.routes.support``).

This module knows nothing of Redis, the store or aiohttp: ``server.invalidation`` decides when to
call ``invalidate`` and ``flush``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

DATASET, GLOBAL, IMMUTABLE = "dataset", "global", "immutable"


def dataset_token(namespace: str, dataset: str) -> str:
    """The hash that stands for a dataset in invalidation messages and near-cache bookkeeping."""
    text = json.dumps([namespace, dataset], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Scope:
    """What an answer depends on: one dataset (``token`` is its hash), every dataset, or nothing mutable."""

    kind: str
    token: str = ""
    namespace: str = ""
    dataset: str = ""


@dataclass(frozen=True, slots=True)
class CachedBody:
    """A response body as cached, with the pagination cursor some routes also send as a header."""

    body: bytes
    next_cursor: str | None = None
    cut: bool = False
    """The answer left out what the token may not read (sent as ``X-Lineage-Cut``)."""
    cacheable: bool = field(default=True, compare=False)
    prepared: object = field(default=None, init=False, compare=False, repr=False)
    """Memo for whoever serves this body (``server.routes.support`` keeps the response headers of a
    near-cache hit here, built once per body instead of once per request); not part of the value."""

    def encode(self) -> bytes:
        """``<cursor>[ cut]\\n<body>``: a cursor never holds a space (``server.params.Cursor``)."""
        return (self.next_cursor or "").encode("ascii") + (b" cut" if self.cut else b"") + b"\n" + self.body

    @classmethod
    def decode(cls, raw: bytes) -> CachedBody:
        head, _, body = raw.partition(b"\n")
        cursor, _, flag = head.partition(b" ")
        return cls(body=body, next_cursor=cursor.decode("ascii") or None, cut=flag == b"cut")


@dataclass(slots=True)
class _Entry:
    value: CachedBody
    scope: Scope
    captured: int
    expires: float


class NearCache:
    """A bounded LRU of response bodies with tick-based invalidation (see the module docstring)."""

    def __init__(self, max_entries: int, max_age: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.max_age = max_age
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._aliases: dict[str, tuple[str, Scope]] = {}
        self._tick = 0
        self._dataset_ticks: dict[str, int] = {}
        self._global_tick = 0
        self._flush_tick = 0

    def capture(self) -> int:
        """Take before reading a value; pass to ``put`` and ``is_current``."""
        return self._tick

    def is_current(self, scope: Scope, captured: int) -> bool:
        """Nothing ``scope`` depends on was invalidated after ``captured``."""
        if captured < self._flush_tick:
            return False
        if scope.kind == DATASET:
            return captured >= self._dataset_ticks.get(scope.token, 0)
        if scope.kind == GLOBAL:
            return captured >= self._global_tick
        return True

    def get(self, key: str, scope: Scope) -> CachedBody | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        stale = entry.captured < self._tick and not self.is_current(scope, entry.captured)  # (no tick since: current)
        if stale or entry.expires < self._clock():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry.value

    def alias(self, alias: str, key: str, scope: Scope) -> None:
        """``alias`` (a request's raw text) names the entry ``key``; bounded like the entries."""
        if len(self._aliases) >= 2 * self.max_entries:
            self._aliases.clear()
        self._aliases[alias] = (key, scope)

    def get_by_alias(self, alias: str) -> CachedBody | None:
        target = self._aliases.get(alias)
        return None if target is None else self.get(*target)

    def put(self, key: str, scope: Scope, captured: int, value: CachedBody) -> None:
        if not value.cacheable or not self.is_current(scope, captured):
            return
        self._entries[key] = _Entry(value, scope, captured, self._clock() + self.max_age)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def invalidate(self, tokens: Iterable[str]) -> None:
        """Datasets changed (a run touched them): their answers and every cross-dataset answer are stale."""
        self._tick += 1
        for token in tokens:
            self._dataset_ticks[token] = self._tick
        self._global_tick = self._tick

    def flush(self) -> None:
        """Forget everything: invalidation messages may have been missed."""
        self._tick += 1
        self._flush_tick = self._tick
        self._entries.clear()
        self._dataset_ticks.clear()

    def __len__(self) -> int:
        return len(self._entries)
