"""SQLite connections (``SQLiteLineageStore``'s ``Database``): one per thread and per process, WAL, busy
timeout, retried write transactions.

Why each setting:

* **WAL** (``journal_mode=WAL``): readers never block the writer and the writer never blocks
  readers, so queries keep answering while runs are recorded. It is a property of the file and
  persists once set.
* **busy_timeout**: a writer that finds the write lock taken sleeps and retries inside SQLite
  instead of failing at once.
* **BEGIN IMMEDIATE** for every write: takes the write lock at ``BEGIN``, where the busy timeout
  applies. A deferred transaction that reads first and writes later gets ``SQLITE_BUSY``
  *immediately* (no timeout) if another writer committed in between, because its snapshot is stale.
* **retries** on top: if the timeout still expires under heavy contention, the whole transaction
  is retried with jittered backoff, so concurrent recorders lose nothing.
* **one connection per thread and process**: sqlite3 connections must not cross threads, and a
  connection inherited through ``fork`` must not be used by the child. ``get()`` notices a new
  pid and opens a fresh connection.
* ``synchronous=NORMAL`` (default): in WAL mode the database cannot be corrupted by a crash; a
  power loss may roll back the last commits. Pass ``synchronous="FULL"`` to fsync every commit.
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from lineage.store.db import Conn, Database

log = logging.getLogger(__name__)

T = TypeVar("T")

SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
_BUSY_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


def is_busy(exc: BaseException) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED, including their extended codes."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SQLiteConn(sqlite3.Connection):
    """A sqlite3 connection with what ``lineage.store.db.Conn`` adds: its cursors are lazy already."""

    like = "LIKE"  # SQLite's LIKE ignores the case of ASCII letters

    def stream(self, sql: str, parameters: Sequence[Any]) -> Iterator[Any]:
        return iter(self.execute(sql, parameters))


class ConnectionManager(Database):
    """Opens, configures and hands out connections to one database file."""

    max_write_seconds = 120.0
    """How long a write keeps retrying while the file is busy."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout_ms: int = 10_000,
                 synchronous: str = "NORMAL") -> None:
        text = os.fspath(path)
        if text == ":memory:" or text.startswith("file::memory:"):
            raise ValueError("the lineage store needs a database file (WAL and per-thread connections)")
        if synchronous.upper() not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}, not {synchronous!r}")
        self.path = Path(text)
        self.busy_timeout_ms = int(busy_timeout_ms)
        self.synchronous = synchronous.upper()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[tuple[int, SQLiteConn]] = []

    def _connect(self) -> SQLiteConn:
        conn = sqlite3.connect(
            self.path,
            timeout=self.busy_timeout_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
            factory=SQLiteConn,
        )
        # PRAGMA values cannot be bound parameters; both are validated integers/constants.
        conn.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms:d}")
        self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
        conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        return conn

    def get(self) -> SQLiteConn:
        """This thread's connection in this process, opened on first use."""
        pid = os.getpid()
        conn: SQLiteConn | None = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != pid:
            conn = self._connect()
            self._local.conn = conn
            self._local.pid = pid
            with self._lock:
                self._opened.append((pid, conn))
        return conn

    def close(self) -> None:
        """Close every connection this process opened (connections inherited via fork are left alone)."""
        pid = os.getpid()
        with self._lock:
            mine = [c for p, c in self._opened if p == pid]
            self._opened = [(p, c) for p, c in self._opened if p != pid]
        for conn in mine:
            conn.close()
        self._local = threading.local()

    def write(self, work: Callable[[Conn], T]) -> T:
        """Run ``work`` in a ``BEGIN IMMEDIATE`` transaction, retrying the whole of it while busy.

        ``work`` must not manage the transaction itself and must be safe to re-run after a rollback.
        """
        conn = self.get()

        def attempt() -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return result

        return self._retry(attempt)

    def _retry(self, attempt: Callable[[], T]) -> T:
        deadline = time.monotonic() + self.max_write_seconds
        delay = 0.005
        tries = 0
        while True:
            tries += 1
            try:
                return attempt()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or time.monotonic() >= deadline:
                    raise
                log.debug("database busy (attempt %d), retrying in %.3fs: %s", tries, delay, exc)
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)

    @contextmanager
    def read(self) -> Iterator[Conn]:
        """A read transaction: every statement inside sees the same snapshot of the file."""
        conn = self.get()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def schema_version(self, conn: Conn) -> int:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def mark_version(self, conn: Conn, version: int) -> None:
        # PRAGMA takes no bound parameters; the value is an int from our own migration table.
        conn.execute(f"PRAGMA user_version = {int(version)}")

    def ddl(self, statement: str) -> str:
        return statement  # migrations are written in SQLite's dialect

    @property
    def identity(self) -> str:
        return str(self.path.resolve())
