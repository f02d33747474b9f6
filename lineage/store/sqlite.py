"""``SQLiteLineageStore``: the default, single-file lineage store.

Open one per process (or share one between threads): connections are per thread, writes are
``BEGIN IMMEDIATE`` transactions retried while the file is busy, reads run in snapshot
transactions (``connection``). The queries are ``LineageStore``'s, shared with PostgreSQL.
"""

from __future__ import annotations

import os
from pathlib import Path

from lineage.store.base import LineageStore
from lineage.store.connection import ConnectionManager


class SQLiteLineageStore(LineageStore):
    """Durable field-lineage store in one SQLite file (created and migrated on open)."""

    _db: ConnectionManager

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = 10_000,
        synchronous: str = "NORMAL",
        cache_size: int = 256,
    ) -> None:
        super().__init__(ConnectionManager(path, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous),
                         cache_size=cache_size)

    @property
    def path(self) -> Path:
        return self._db.path
