"""Noticing, before a near-cache hit, that another process committed to the store file.

SQLite's ``PRAGMA data_version`` changes on a connection whenever *another* connection (any
thread, any process) committed to the database since the last call, and costs a few
microseconds: no query, no lock, it reads the WAL index. So the near-cache checks it on the
event loop before every hit; only when it moved does it look up which datasets changed (the
small ``datasets`` table, by watermark) and invalidate those.

That makes the near-cache strictly coherent across server processes sharing one store file:
a GET that starts after another process's POST returned cannot be answered with what that POST
made stale - without waiting for the Redis message or the store poll, and without a round trip.
The probe's connection never writes, and lives on the event-loop thread only.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lineage.store.run_queries import datasets_changed_since, latest_watermark, watermark
from server.invalidation import dataset_token


class StoreProbe:
    def __init__(self, path: Path) -> None:
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=1.0)
        self._version = self._data_version()

    def _data_version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def changed(self) -> bool:
        """True once after each batch of commits by other connections."""
        version = self._data_version()
        if version == self._version:
            return False
        self._version = version
        return True

    def changes_since(self, seen: int) -> tuple[int, dict[str, int]]:
        """The latest watermark, and ``{dataset token: watermark}`` of datasets touched after ``seen``."""
        self._conn.execute("BEGIN")
        try:
            latest = latest_watermark(self._conn)
            marks = {dataset_token(ns, ds): watermark(self._conn, ns, ds)
                     for ns, ds in datasets_changed_since(self._conn, seen)} if latest > seen else {}
        finally:
            self._conn.execute("COMMIT")
        return latest, marks

    def close(self) -> None:
        self._conn.close()
