"""Versioned schema of the lineage store (SQLite and PostgreSQL), applied by ``migrate`` on open.

Every applied migration is logged in ``schema_migrations``; SQLite also keeps the version in ``PRAGMA
user_version`` (the file header, read without touching a table). The statements are written once, in
SQLite's dialect; the PostgreSQL backend translates the few type words that differ
(``lineage.store.postgres.pg_ddl``). A database written by a *newer* schema is refused rather than misread.

Layout (seed 000's row keys, as tables). ``direction`` is ``'b'`` for a dataset written by a run
(backward lineage rows) and ``'f'`` for a dataset read by a run (forward lineage rows). Datasets
and runs are interned to integer ids so the per-run index rows stay small.

* ``operations``          one row per distinct operation set, keyed by its sha256 ``checksum``.
* ``checksum_fields``     per operation set: the fields it writes/reads per dataset.
* ``checksum_edges``      per operation set: destination field <- source field (incoming summary).
* ``runs``                one row per run; ``UNIQUE(namespace, run_id)``.
* ``field_runs``          per run, a row per destination field ('b') and per source field ('f'),
                          keyed ``(direction, dataset, field, inv_start, run)``.
* ``dataset_runs``        per run, a row per destination/source dataset, keyed by operation set, so
                          "which operation sets touched D in [start, end)" is a seek per set.
* ``dataset_checksums``   per (dataset, operation set): first and last run start, to skip seeks.
* ``dataset_fields``      per dataset field: created (first run start), updated (last), last run.
* ``run_properties``      per run and dataset: the dataset's properties in that run.
* ``history_trees``       de-duplicated column directive trees (JSON), by content hash.
* ``column_history``      per run and destination column: which tree.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from lineage.errors import SchemaVersionError
from lineage.store.db import Conn, Database

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "initial field-lineage layout",
        (
            """CREATE TABLE schema_migrations (
                version INTEGER PRIMARY KEY,
                description TEXT NOT NULL,
                applied_at INTEGER NOT NULL
            )""",
            """CREATE TABLE datasets (
                id INTEGER PRIMARY KEY,
                namespace TEXT NOT NULL,
                name TEXT NOT NULL,
                watermark INTEGER NOT NULL DEFAULT 0,
                UNIQUE (namespace, name)
            )""",
            """CREATE TABLE operations (
                id INTEGER PRIMARY KEY,
                checksum TEXT NOT NULL UNIQUE,
                json TEXT NOT NULL
            )""",
            """CREATE TABLE checksum_fields (
                direction TEXT NOT NULL,
                dataset_id INTEGER NOT NULL,
                field TEXT NOT NULL,
                checksum_id INTEGER NOT NULL,
                PRIMARY KEY (direction, dataset_id, field, checksum_id)
            ) WITHOUT ROWID""",
            """CREATE TABLE checksum_edges (
                checksum_id INTEGER NOT NULL,
                dst_dataset_id INTEGER NOT NULL,
                dst_field TEXT NOT NULL,
                src_dataset_id INTEGER NOT NULL,
                src_field TEXT NOT NULL,
                PRIMARY KEY (checksum_id, dst_dataset_id, dst_field, src_dataset_id, src_field)
            ) WITHOUT ROWID""",
            "CREATE INDEX checksum_edges_by_source ON checksum_edges (checksum_id, src_dataset_id, src_field)",
            """CREATE TABLE runs (
                id INTEGER PRIMARY KEY,
                namespace TEXT NOT NULL,
                run_id TEXT NOT NULL,
                program TEXT NOT NULL,
                start_time INTEGER NOT NULL,
                end_time INTEGER,
                status TEXT NOT NULL,
                inv_start INTEGER NOT NULL,
                checksum_id INTEGER NOT NULL,
                destination_id INTEGER NOT NULL,
                destination_description TEXT NOT NULL DEFAULT '',
                fingerprint TEXT NOT NULL,
                recorded_at INTEGER NOT NULL,
                UNIQUE (namespace, run_id)
            )""",
            "CREATE INDEX runs_by_time ON runs (namespace, inv_start, id)",
            "CREATE INDEX runs_by_program ON runs (namespace, program, inv_start, id)",
            """CREATE TABLE field_runs (
                direction TEXT NOT NULL,
                dataset_id INTEGER NOT NULL,
                field TEXT NOT NULL,
                inv_start INTEGER NOT NULL,
                run_pk INTEGER NOT NULL,
                checksum_id INTEGER NOT NULL,
                PRIMARY KEY (direction, dataset_id, field, inv_start, run_pk)
            ) WITHOUT ROWID""",
            """CREATE TABLE dataset_runs (
                direction TEXT NOT NULL,
                dataset_id INTEGER NOT NULL,
                checksum_id INTEGER NOT NULL,
                inv_start INTEGER NOT NULL,
                run_pk INTEGER NOT NULL,
                PRIMARY KEY (direction, dataset_id, checksum_id, inv_start, run_pk)
            ) WITHOUT ROWID""",
            """CREATE TABLE dataset_checksums (
                direction TEXT NOT NULL,
                dataset_id INTEGER NOT NULL,
                checksum_id INTEGER NOT NULL,
                first_start INTEGER NOT NULL,
                last_start INTEGER NOT NULL,
                PRIMARY KEY (direction, dataset_id, checksum_id)
            ) WITHOUT ROWID""",
            """CREATE TABLE dataset_fields (
                dataset_id INTEGER NOT NULL,
                field TEXT NOT NULL,
                created INTEGER NOT NULL,
                updated INTEGER NOT NULL,
                last_run_pk INTEGER NOT NULL,
                PRIMARY KEY (dataset_id, field)
            ) WITHOUT ROWID""",
            """CREATE TABLE run_properties (
                dataset_id INTEGER NOT NULL,
                inv_start INTEGER NOT NULL,
                run_pk INTEGER NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (dataset_id, inv_start, run_pk)
            ) WITHOUT ROWID""",
            """CREATE TABLE history_trees (
                id INTEGER PRIMARY KEY,
                hash TEXT NOT NULL UNIQUE,
                json TEXT NOT NULL
            )""",
            """CREATE TABLE column_history (
                dataset_id INTEGER NOT NULL,
                column_name TEXT NOT NULL,
                inv_start INTEGER NOT NULL,
                run_pk INTEGER NOT NULL,
                tree_id INTEGER NOT NULL,
                PRIMARY KEY (dataset_id, column_name, inv_start, run_pk)
            ) WITHOUT ROWID""",
        ),
    ),
)

SCHEMA_VERSION = MIGRATIONS[-1].version


def migrate(db: Database, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database to the newest version in ``migrations``; returns the version reached.

    All pending migrations run in one write transaction of ``db``, which is serialised (SQLite's
    ``BEGIN IMMEDIATE``, PostgreSQL's advisory lock): two processes opening a fresh store at once apply
    them exactly once - the second waits, then sees the new version and does nothing. A failing
    statement rolls every migration of the call back (DDL is transactional in both engines).
    Versions must be consecutive from 1.
    """
    target = migrations[-1].version if migrations else 0
    if [m.version for m in migrations] != list(range(1, target + 1)):
        raise ValueError("migration versions must be 1, 2, 3, ... in order")
    with db.read() as conn:
        if db.schema_version(conn) == target:
            return target

    def apply(conn: Conn) -> int:
        version = db.schema_version(conn)
        if version > target:
            raise SchemaVersionError(
                f"database schema version {version} is newer than this code supports ({target}); upgrade the code"
            )
        for migration in migrations[version:]:
            log.info("applying lineage store migration %d: %s", migration.version, migration.description)
            for statement in migration.statements:
                conn.execute(db.ddl(statement))
            conn.execute(
                "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.description, int(time.time())),
            )
            db.mark_version(conn, migration.version)
        return target

    return db.write(apply)
