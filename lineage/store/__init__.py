"""Durable field-lineage storage behind one ``LineageStore``: SQLite by default, PostgreSQL for shared stores.

``PostgresLineageStore`` lives in ``lineage.store.postgres`` (imported on demand: psycopg is only needed there);
``open_store(location)`` picks the backend from a ``--store`` value.
"""

from __future__ import annotations

from lineage.store.base import LineageStore, open_store
from lineage.store.paths import default_path, store_location
from lineage.store.results import (
    ColumnHistoryEntry,
    DatasetMapping,
    FieldDiff,
    FieldInfo,
    FieldLineage,
    FieldPair,
    FieldRef,
    LineageSummary,
    OperationGroup,
    Page,
    PropertiesByDataset,
    PropertiesEntry,
    RunRecord,
    RunRef,
    RunSummary,
)
from lineage.store.schema import SCHEMA_VERSION
from lineage.store.sqlite import SQLiteLineageStore

__all__ = [
    "SCHEMA_VERSION",
    "ColumnHistoryEntry",
    "DatasetMapping",
    "FieldDiff",
    "FieldInfo",
    "FieldLineage",
    "FieldPair",
    "FieldRef",
    "LineageStore",
    "LineageSummary",
    "OperationGroup",
    "Page",
    "PropertiesByDataset",
    "PropertiesEntry",
    "RunRecord",
    "RunRef",
    "RunSummary",
    "SQLiteLineageStore",
    "default_path",
    "open_store",
    "store_location",
]
