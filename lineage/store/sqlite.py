"""``SQLiteLineageStore``: the default, single-file lineage store (a facade over the store modules).

Open one per process (or share one between threads): connections are per thread, writes are
``BEGIN IMMEDIATE`` transactions retried while the file is busy, reads run in snapshot
transactions. See ``schema`` for the layout, ``writer`` for the write path and ``queries`` /
``run_queries`` for the read paths and their costs.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from types import TracebackType

from lineage.model import Direction
from lineage.recorder import ColumnHistory, RecordedRun, encode_column_history
from lineage.store import browse, queries, run_queries, writer
from lineage.store.catalog import Catalog
from lineage.store.connection import ConnectionManager
from lineage.store.derive import DerivedCache
from lineage.store.results import (
    ColumnHistoryEntry,
    FieldDiff,
    FieldInfo,
    FieldLineage,
    LineageSummary,
    Page,
    PropertiesEntry,
    RunRecord,
    RunSummary,
)
from lineage.store.schema import current_version
from lineage.visibility import Visibility

log = logging.getLogger(__name__)

RunItem = RecordedRun | tuple[RecordedRun, ColumnHistory | None]


class SQLiteLineageStore:
    """Durable field-lineage store in one SQLite file (created and migrated on open)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = 10_000,
        synchronous: str = "NORMAL",
        cache_size: int = 256,
    ) -> None:
        self._db = ConnectionManager(path, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous)
        self._cache = DerivedCache(cache_size)
        self._catalog = Catalog(self._cache)

    @property
    def path(self) -> Path:
        return self._db.path

    def schema_version(self) -> int:
        return current_version(self._db.get())

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SQLiteLineageStore:
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
        stored = self._db.run_write(lambda conn: writer.record_run(conn, recorded, history, self._cache))
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
            stored += self._db.run_write(lambda conn, batch=prepared: writer.record_runs(conn, batch, self._cache))
        return stored

    # ------------------------------------------------------------------ field lineage

    def fields(
        self,
        namespace: str,
        dataset: str,
        start: int,
        end: int,
        *,
        prefix: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> Page[FieldInfo]:
        with self._db.read() as conn:
            return queries.fields(
                conn, self._catalog, namespace, dataset, start, end, prefix=prefix, limit=limit, cursor=cursor,
                visible=visible,
            )

    def summary(
        self,
        namespace: str,
        dataset: str,
        direction: Direction | str,
        start: int,
        end: int,
        *,
        levels: int = 1,
        limit: int = 100,
        cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> LineageSummary:
        with self._db.read() as conn:
            return queries.summary(
                conn,
                self._catalog,
                namespace,
                dataset,
                direction,
                start,
                end,
                levels=levels,
                limit=limit,
                cursor=cursor,
                visible=visible,
            )

    def field_lineage(
        self,
        namespace: str,
        dataset: str,
        field: str,
        direction: Direction | str,
        start: int,
        end: int,
        *,
        max_runs: int = queries.DEFAULT_MAX_RUNS,
        limit: int = 100,
        cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> FieldLineage:
        with self._db.read() as conn:
            return queries.field_lineage(
                conn,
                self._catalog,
                namespace,
                dataset,
                field,
                direction,
                start,
                end,
                max_runs=max_runs,
                limit=limit,
                cursor=cursor,
                visible=visible,
            )

    def diff_field(
        self,
        namespace: str,
        dataset: str,
        field: str,
        run_a: str,
        run_b: str,
        *,
        direction: Direction | str = Direction.BACKWARD,
        run_namespace: str | None = None,
    ) -> FieldDiff:
        with self._db.read() as conn:
            return queries.diff_field(
                conn,
                self._catalog,
                namespace,
                dataset,
                field,
                run_a,
                run_b,
                direction=direction,
                run_namespace=run_namespace,
            )

    # ------------------------------------------------------------------ runs, properties, column history

    def dataset_properties(
        self,
        namespace: str,
        dataset: str,
        start: int,
        end: int,
        *,
        limit: int = 100,
        cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> Page[PropertiesEntry]:
        with self._db.read() as conn:
            return run_queries.dataset_properties(
                conn, self._catalog, namespace, dataset, start, end, limit=limit, cursor=cursor, visible=visible
            )

    def column_history(
        self,
        namespace: str,
        dataset: str,
        column: str,
        start: int,
        end: int,
        *,
        max_levels: int | None = None,
        limit: int = 100,
        cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> Page[ColumnHistoryEntry]:
        with self._db.read() as conn:
            return run_queries.column_history(
                conn,
                self._catalog,
                namespace,
                dataset,
                column,
                start,
                end,
                max_levels=max_levels,
                limit=limit,
                cursor=cursor,
                visible=visible,
            )

    def run(self, namespace: str, run_id: str) -> RunRecord | None:
        with self._db.read() as conn:
            return run_queries.run(conn, self._catalog, namespace, run_id)

    def runs(
        self,
        namespace: str,
        start: int,
        end: int,
        *,
        program: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page[RunSummary]:
        with self._db.read() as conn:
            return run_queries.runs(
                conn, self._catalog, namespace, start, end, program=program, limit=limit, cursor=cursor
            )

    # ------------------------------------------------------------------ browsing (the web view's lists)

    def namespaces(self, *, visible: Visibility | None = None) -> list[browse.NamespaceInfo]:
        with self._db.read() as conn:
            return browse.namespaces(conn, self._catalog, visible=visible)

    def datasets(
        self, namespace: str, start: int, end: int, *, search: str | None = None, limit: int = 100,
        cursor: str | None = None, visible: Visibility | None = None,
    ) -> Page[browse.DatasetInfo]:
        with self._db.read() as conn:
            return browse.datasets(conn, self._catalog, namespace, start, end, search=search, limit=limit,
                                   cursor=cursor, visible=visible)

    def dataset_runs(
        self, namespace: str, dataset: str, start: int, end: int, *, limit: int = 100, cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> Page[browse.DatasetRun]:
        with self._db.read() as conn:
            return browse.dataset_runs(conn, self._catalog, namespace, dataset, start, end, limit=limit,
                                       cursor=cursor, visible=visible)

    def previous_run(self, namespace: str, run_id: str) -> str | None:
        with self._db.read() as conn:
            return browse.previous_run(conn, namespace, run_id)

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
