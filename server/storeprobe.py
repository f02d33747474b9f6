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

Even the PRAGMA costs ~5-15 us through Python's sqlite3 module, a tenth of a cached request. So
first, the WAL-index header is compared: the first 48 bytes of the ``-shm`` file (documented in
SQLite's WAL format, "the wal-index header"), which every commit rewrites - its change counter
and frame count move - before the commit becomes visible to any reader. Reading it through a
read-only shared mapping costs well under a microsecond; only when it differs is the PRAGMA
asked. If the file cannot be mapped, the PRAGMA is asked every time.
"""

from __future__ import annotations

import contextlib
import mmap
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from lineage.store.run_queries import datasets_changed_since, latest_watermark, watermark
from server.nearcache import dataset_token

if TYPE_CHECKING:
    from lineage.store.base import LineageStore
    from server.pgprobe import PostgresStoreProbe

WAL_INDEX_HEADER_BYTES = 48


class StoreProbe:
    def __init__(self, path: Path) -> None:
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=1.0)
        self._version = self._data_version()  # also makes this connection open the WAL index
        self._shm: mmap.mmap | None = None
        with contextlib.suppress(OSError, ValueError), open(f"{path}-shm", "rb") as handle:
            self._shm = mmap.mmap(handle.fileno(), WAL_INDEX_HEADER_BYTES, access=mmap.ACCESS_READ)
        self._header = self._shm[:WAL_INDEX_HEADER_BYTES] if self._shm is not None else b""

    def _data_version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def changed(self) -> bool:
        """True once after each batch of commits by other connections."""
        if self._shm is not None:
            header = self._shm[:WAL_INDEX_HEADER_BYTES]
            if header == self._header:
                return False
            self._header = header
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
        if self._shm is not None:
            self._shm.close()
            self._shm = None
        self._conn.close()


def probe_for(store: LineageStore) -> StoreProbe | PostgresStoreProbe | None:
    """The probe that fits the store: the WAL-index header of a SQLite file, the newest run id of a
    PostgreSQL store (``server.pgprobe``); None for a store of another kind (the poll still covers it)."""
    path = getattr(store, "path", None)
    if path is not None:
        return StoreProbe(Path(path))
    url = getattr(store, "url", None)
    if isinstance(url, str):
        from server.pgprobe import PostgresStoreProbe

        return PostgresStoreProbe(url)
    return None
