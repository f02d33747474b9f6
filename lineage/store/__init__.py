"""Durable field-lineage storage behind one ``LineageStore``: SQLite by default, PostgreSQL for shared stores.

``PostgresLineageStore`` lives in ``lineage.store.postgres`` (imported on demand: psycopg is only needed there);
``open_store(location)`` picks the backend from a ``--store`` value. What the queries answer is in
``lineage.store.results``.
"""

from __future__ import annotations

from lineage.store.base import LineageStore, open_store
from lineage.store.paths import default_path, store_location
from lineage.store.schema import SCHEMA_VERSION
from lineage.store.sqlite import SQLiteLineageStore

__all__ = ["SCHEMA_VERSION", "LineageStore", "SQLiteLineageStore", "default_path", "open_store", "store_location"]
