"""Durable field-lineage storage: SQLite by default, behind the ``LineageStore`` interface."""

from __future__ import annotations

from lineage.store.base import LineageStore
from lineage.store.paths import default_path
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
]
