"""Schema migrations on both backends: a fresh store, re-opening, a later migration, a store from the future,
and two processes opening a fresh store at once."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import psycopg
import pytest

from bench.examples import NAMESPACE, employee_destination, employee_operations, employee_run
from lineage.errors import SchemaVersionError
from lineage.recorder import LineageRecorder
from lineage.store import SCHEMA_VERSION, LineageStore, SQLiteLineageStore, open_store
from lineage.store.schema import MIGRATIONS, Migration, migrate
from tests.conftest import store_sql

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


def _tables(store: LineageStore) -> set[str]:
    if isinstance(store, SQLiteLineageStore):
        return {r[0] for r in store_sql(store, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
    return {r[0] for r in store_sql(store, sql)}


def test_an_empty_sqlite_file_is_migrated_to_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    path.touch()  # an existing, empty file
    with SQLiteLineageStore(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert _tables(store) >= EXPECTED_TABLES
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_a_fresh_store_is_migrated_and_logged(store_location: str | Path) -> None:
    with open_store(store_location) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert _tables(store) >= EXPECTED_TABLES
        logged = store_sql(store, "SELECT version, description FROM schema_migrations ORDER BY version")
        assert [v for v, _ in logged] == [m.version for m in MIGRATIONS]


def test_reopening_keeps_data_and_does_not_migrate_again(store_location: str | Path) -> None:
    with open_store(store_location) as store:
        LineageRecorder(employee_run(), store).record(employee_destination(), employee_operations())
    with open_store(store_location) as again:
        assert again.schema_version() == SCHEMA_VERSION
        assert [r.run_id for r in again.runs(NAMESPACE, 0, 2_000_000_000).items] == ["run1"]
        lineage = again.field_lineage(NAMESPACE, "EmployeeData", "ID", "backward", 0, 2_000_000_000)
        assert lineage.groups[0].operations[-1].name == "write:EmployeeData"
        assert store_sql(again, "SELECT count(*) FROM schema_migrations") == [(len(MIGRATIONS),)]


def test_a_later_migration_is_applied_once_on_top_of_existing_data(store_location: str | Path) -> None:
    extra = Migration(
        SCHEMA_VERSION + 1, "tags per dataset", ("CREATE TABLE dataset_tags (dataset_id INTEGER, tag TEXT)",)
    )
    with open_store(store_location) as store:
        LineageRecorder(employee_run(), store).record(employee_destination(), employee_operations())
        assert migrate(store._db, (*MIGRATIONS, extra)) == SCHEMA_VERSION + 1
        assert migrate(store._db, (*MIGRATIONS, extra)) == SCHEMA_VERSION + 1  # idempotent
        assert store.schema_version() == SCHEMA_VERSION + 1
        assert store_sql(store, "SELECT count(*) FROM runs") == [(1,)]
        assert store_sql(store, "SELECT max(version) FROM schema_migrations") == [(SCHEMA_VERSION + 1,)]
        assert "dataset_tags" in _tables(store)


def test_a_failing_migration_leaves_the_store_unchanged(store_location: str | Path) -> None:
    broken = Migration(SCHEMA_VERSION + 1, "broken", ("CREATE TABLE half (x INTEGER)", "THIS IS NOT SQL"))
    with open_store(store_location) as store:
        with pytest.raises((sqlite3.OperationalError, psycopg.errors.SyntaxError)):
            migrate(store._db, (*MIGRATIONS, broken))
        assert store.schema_version() == SCHEMA_VERSION
        assert "half" not in _tables(store)


def test_a_store_from_a_newer_version_is_refused(store_location: str | Path) -> None:
    future = SCHEMA_VERSION + 5
    with open_store(store_location) as store:
        def stamp(conn: object) -> None:
            store._db.mark_version(conn, future)  # type: ignore[arg-type]
            conn.execute("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",  # type: ignore[attr-defined]
                         (future, "from the future", 0))

        store._db.write(stamp)
    with pytest.raises(SchemaVersionError, match=f"version {future} is newer"):
        open_store(store_location)


def test_migration_versions_must_be_consecutive(tmp_path: Path) -> None:
    with SQLiteLineageStore(tmp_path / "x.db") as store, pytest.raises(ValueError, match="1, 2, 3"):
        migrate(store._db, (Migration(2, "skips one", ()),))


def test_stores_opened_at_once_on_a_fresh_database_migrate_it_once(store_location: str | Path) -> None:
    """Several processes starting together (threads here, each with its own connections) race to migrate."""
    errors: list[BaseException] = []
    stores: list[LineageStore] = []
    barrier = threading.Barrier(4)

    def start() -> None:
        barrier.wait()
        try:
            stores.append(open_store(store_location))
        except BaseException as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert store_sql(stores[0], "SELECT count(*) FROM schema_migrations") == [(len(MIGRATIONS),)]
        assert {store.schema_version() for store in stores} == {SCHEMA_VERSION}
    finally:
        for store in stores:
            store.close()
