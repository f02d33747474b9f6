"""``LineageStore``: the one store interface, its queries written once for every backend.

A backend is a ``Database`` (``lineage.store.db``): ``SQLiteLineageStore`` (one file, the embedded
default) and ``PostgresLineageStore`` (a server several API instances share) only say how to open
theirs. Everything else - the write path (``writer``), the lineage queries (``queries``), the run
queries (``run_queries``), the browsing lists (``browse``) - is shared SQL, so both answer alike.

Methods are synchronous and thread-safe; an async server calls them through ``asyncio.to_thread``
(each worker thread gets its own connection: SQLite per thread, PostgreSQL from a pool).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from types import TracebackType

from lineage.recorder import ColumnHistory, RecordedRun, encode_column_history
from lineage.store import run_queries, writer
from lineage.store.browse import BrowseQueries
from lineage.store.catalog import Catalog
from lineage.store.db import Database
from lineage.store.derive import DerivedCache
from lineage.store.paths import is_url
from lineage.store.queries import FieldQueries
from lineage.store.run_queries import RunQueries
from lineage.store.schema import migrate

log = logging.getLogger(__name__)

RunItem = RecordedRun | tuple[RecordedRun, ColumnHistory | None]


class LineageStore(FieldQueries, RunQueries, BrowseQueries):
    """Durable field-lineage store on ``db``, migrated to the current schema when opened."""

    def __init__(self, db: Database, *, cache_size: int = 256) -> None:
        self._db = db
        self._cache = DerivedCache(cache_size)
        self._catalog = Catalog(self._cache)
        try:
            migrate(db)
        except BaseException:
            db.close()
            raise

    @property
    def identity(self) -> str:
        """Names the database, alike from every process that opens it (the server's cache keys and channels)."""
        return self._db.identity

    def schema_version(self) -> int:
        with self._db.read() as conn:
            return self._db.schema_version(conn)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> LineageStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ writes

    def record_run(self, recorded: RecordedRun, column_history: ColumnHistory | None = None) -> bool:
        """Store one run atomically. True if stored, False if this exact run was already stored.

        Raises ``RunConflictError`` if the run id exists with different content and
        ``LineageValidationError`` for a column history that does not fit the destination.
        """
        history = encode_column_history(recorded.destination, column_history)
        stored = self._db.write(lambda conn: writer.record_run(conn, recorded, history, self._cache))
        log.debug("run %s/%s %s", recorded.run.namespace, recorded.run.run_id, "stored" if stored else "already stored")
        return stored

    def record_runs(self, items: Iterable[RunItem], *, batch_size: int = 1000) -> int:
        """Store many runs, ``batch_size`` per transaction (bulk loads, back-fills); returns how many were new."""
        stored = 0
        for chunk in _chunks(items, batch_size):
            prepared = []
            for item in chunk:
                recorded, history = item if isinstance(item, tuple) else (item, None)
                prepared.append((recorded, encode_column_history(recorded.destination, history)))
            stored += self._db.write(functools.partial(writer.record_runs, items=prepared, cache=self._cache))
        return stored

    # ------------------------------------------------------------------ change tracking (server caches)

    def watermark(self, namespace: str, dataset: str) -> int:
        """Changes whenever a run touching the dataset is recorded: part of a cache key for the server."""
        with self._db.read() as conn:
            return run_queries.watermark(conn, namespace, dataset)

    def latest_watermark(self) -> int:
        """Changes whenever any run is recorded: the cache key part of answers that span many datasets."""
        with self._db.read() as conn:
            return run_queries.latest_watermark(conn)

    def datasets_changed_since(self, watermark: int) -> list[tuple[str, str]]:
        """(namespace, name) of the datasets touched by runs newer than ``watermark`` (see ``latest_watermark``)."""
        with self._db.read() as conn:
            return run_queries.datasets_changed_since(conn, watermark)


def _chunks(items: Iterable[RunItem], size: int) -> Iterator[list[RunItem]]:
    if size < 1:
        raise ValueError("batch_size must be at least 1")
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def open_store(location: str | os.PathLike[str]) -> LineageStore:
    """The store at ``location``: a ``postgresql://`` URL, or a SQLite file (its directory is created)."""
    if is_url(location):
        from lineage.store.postgres import PostgresLineageStore  # psycopg is only imported when asked for

        return PostgresLineageStore(str(location))
    from lineage.store.sqlite import SQLiteLineageStore

    path = Path(location)
    path.parent.mkdir(parents=True, exist_ok=True)
    return SQLiteLineageStore(path)
