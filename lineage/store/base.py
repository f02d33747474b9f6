"""The store interface the server codes against (``SQLiteLineageStore`` implements it).

Methods are synchronous and thread-safe; an async server calls them through
``asyncio.to_thread`` (each worker thread gets its own SQLite connection).
"""

from __future__ import annotations

from typing import Protocol

from lineage.model import Direction
from lineage.recorder import ColumnHistory, RecordedRun
from lineage.store.browse import DatasetInfo, DatasetRun, NamespaceInfo
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
from lineage.visibility import Visibility


class LineageStore(Protocol):
    def record_run(self, recorded: RecordedRun, column_history: ColumnHistory | None = None) -> bool: ...

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
    ) -> Page[FieldInfo]: ...

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
    ) -> LineageSummary: ...

    def field_lineage(
        self,
        namespace: str,
        dataset: str,
        field: str,
        direction: Direction | str,
        start: int,
        end: int,
        *,
        max_runs: int = 20,
        limit: int = 100,
        cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> FieldLineage: ...

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
    ) -> Page[PropertiesEntry]: ...

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
    ) -> Page[ColumnHistoryEntry]: ...

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
    ) -> FieldDiff: ...

    def run(self, namespace: str, run_id: str) -> RunRecord | None: ...

    def runs(
        self,
        namespace: str,
        start: int,
        end: int,
        *,
        program: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page[RunSummary]: ...

    def namespaces(self, *, visible: Visibility | None = None) -> list[NamespaceInfo]: ...

    def datasets(
        self, namespace: str, start: int, end: int, *, search: str | None = None, limit: int = 100,
        cursor: str | None = None, visible: Visibility | None = None,
    ) -> Page[DatasetInfo]: ...

    def dataset_runs(
        self, namespace: str, dataset: str, start: int, end: int, *, limit: int = 100, cursor: str | None = None,
        visible: Visibility | None = None,
    ) -> Page[DatasetRun]: ...

    def previous_run(self, namespace: str, run_id: str) -> str | None: ...

    def watermark(self, namespace: str, dataset: str) -> int: ...

    def latest_watermark(self) -> int: ...

    def datasets_changed_since(self, watermark: int) -> list[tuple[str, str]]: ...
