"""Schema migrations: a fresh file, re-opening, a later migration, and a file from the future."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lineage.errors import SchemaVersionError
from lineage.examples import NAMESPACE, employee_destination, employee_operations, employee_run
from lineage.recorder import LineageRecorder
from lineage.store import SCHEMA_VERSION, SQLiteLineageStore
from lineage.store.schema import MIGRATIONS, Migration, current_version, migrate

EXPECTED_TABLES = {
    "schema_migrations",
    "datasets",
    "operations",
    "checksum_fields",
    "checksum_edges",
    "runs",
    "field_runs",
    "dataset_runs",
    "dataset_checksums",
    "dataset_fields",
    "run_properties",
    "history_trees",
    "column_history",
}


def _tables(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def test_empty_file_is_migrated_to_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    path.touch()  # an existing, empty file
    with SQLiteLineageStore(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
    assert _tables(path) >= EXPECTED_TABLES
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        logged = conn.execute("SELECT version, description FROM schema_migrations").fetchall()
        assert [v for v, _ in logged] == [m.version for m in MIGRATIONS]
    finally:
        conn.close()


def test_reopening_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "lineage.db"
    with SQLiteLineageStore(path) as store:
        LineageRecorder(employee_run(), store).record(employee_destination(), employee_operations())
    with SQLiteLineageStore(path) as again:
        assert again.schema_version() == SCHEMA_VERSION
        assert [r.run_id for r in again.runs(NAMESPACE, 0, 2_000_000_000).items] == ["run1"]
        lineage = again.field_lineage(NAMESPACE, "EmployeeData", "ID", "backward", 0, 2_000_000_000)
        assert lineage.groups[0].operations[-1].name == "write:EmployeeData"
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)
    finally:
        conn.close()


def test_a_later_migration_is_applied_once_on_top_of_existing_data(tmp_path: Path) -> None:
    path = tmp_path / "lineage.db"
    with SQLiteLineageStore(path) as store:
        LineageRecorder(employee_run(), store).record(employee_destination(), employee_operations())
    extra = Migration(
        SCHEMA_VERSION + 1, "tags per dataset", ("CREATE TABLE dataset_tags (dataset_id INTEGER, tag TEXT)",)
    )
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        assert migrate(conn, (*MIGRATIONS, extra)) == SCHEMA_VERSION + 1
        assert migrate(conn, (*MIGRATIONS, extra)) == SCHEMA_VERSION + 1  # idempotent
        assert current_version(conn) == SCHEMA_VERSION + 1
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION + 1
    finally:
        conn.close()
    assert "dataset_tags" in _tables(path)


def test_a_failing_migration_leaves_the_file_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "lineage.db"
    SQLiteLineageStore(path).close()
    broken = Migration(SCHEMA_VERSION + 1, "broken", ("CREATE TABLE half (x)", "THIS IS NOT SQL"))
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError):
            migrate(conn, (*MIGRATIONS, broken))
        assert current_version(conn) == SCHEMA_VERSION
    finally:
        conn.close()
    assert "half" not in _tables(path)


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SQLiteLineageStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    with pytest.raises(SchemaVersionError, match=f"version {SCHEMA_VERSION + 5} is newer"):
        SQLiteLineageStore(path)


def test_migration_versions_must_be_consecutive(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    try:
        with pytest.raises(ValueError, match="1, 2, 3"):
            migrate(conn, (Migration(2, "skips one", ()),))
    finally:
        conn.close()
