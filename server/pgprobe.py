"""Noticing, before a near-cache hit, that a run was committed to a PostgreSQL store by another process.

The SQLite probe (``server.storeprobe``) reads a shared-memory header for free; a PostgreSQL server
offers nothing that cheap. A ``LISTEN``/``NOTIFY`` channel, like the Redis message, arrives *some time
after* the writer's commit, so a GET that started after another instance's POST returned could still
be answered from the near-cache in between. Strict coherence across instances needs one question
to the server per near-cache read: the newest run id (``max(id)`` of ``runs``, one step down the
primary key; run ids grow in commit order, see ``lineage.store.postgres``). Only when it moved are the
datasets touched since looked up and invalidated, as the SQLite probe does.

The probe keeps one connection of its own (autocommit, a prepared statement, a 2 s statement timeout)
and asks on the event loop: one loopback round trip, ~0.1 ms, cheaper than handing the question to a
worker thread, and a tenth of computing an answer. If the server cannot be reached the probe raises at
once (the invalidator then flushes the near-cache and the request goes to the store, which reports the
outage) and tries to reconnect at most once per ``retry_after`` seconds, so an outage never stalls
the event loop for more than one connection attempt per interval. ``wrangler serve --no-store-probe``
turns it off: coherence then rests on the Redis message and the store poll, as for the SQLite store.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

from lineage.store import run_queries
from lineage.store.postgres import PgConn
from server.nearcache import dataset_token

CONNECT_TIMEOUT = 2
STATEMENT_TIMEOUT_MS = 2000


class PostgresStoreProbe:
    def __init__(self, url: str, *, retry_after: float = 1.0) -> None:
        self._url = url
        self._retry_after = retry_after
        self._failed_at = float("-inf")
        self._raw: psycopg.Connection[Any] | None = None
        self._latest = self._newest()

    def _conn(self) -> psycopg.Connection[Any]:
        if self._raw is not None and not self._raw.closed and not self._raw.broken:
            return self._raw
        if time.monotonic() - self._failed_at < self._retry_after:
            raise ConnectionError("the PostgreSQL store was unreachable a moment ago")
        try:
            raw = psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                                  application_name="wrangler-lineage-probe")
            raw.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS:d}")
        except psycopg.Error:
            self._failed_at = time.monotonic()
            raise
        self._raw = raw
        return raw

    def _newest(self) -> int:
        return run_queries.latest_watermark(PgConn(self._conn()))

    def changed(self) -> bool:
        """True once after each batch of commits (by any process, this one included)."""
        latest = self._newest()
        if latest == self._latest:
            return False
        self._latest = latest
        return True

    def changes_since(self, seen: int) -> tuple[int, dict[str, int]]:
        """The latest watermark, and ``{dataset token: watermark}`` of datasets touched after ``seen``."""
        raw = self._conn()
        conn = PgConn(raw)
        with raw.transaction():
            raw.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            latest = run_queries.latest_watermark(conn)
            marks = {dataset_token(ns, ds): run_queries.watermark(conn, ns, ds)
                     for ns, ds in run_queries.datasets_changed_since(conn, seen)} if latest > seen else {}
        return latest, marks

    def close(self) -> None:
        if self._raw is not None:
            self._raw.close()
            self._raw = None
