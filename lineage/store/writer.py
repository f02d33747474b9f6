"""The write path: one recorded run -> the rows of every table, inside the caller's transaction.

Operation sets are written once per checksum (with their per-set fields and summary edges);
each run adds only small integer-keyed index rows. Re-recording a run id is idempotent when the
content is identical (same run info, destination, operations, properties and column history —
compared through a fingerprint) and a ``RunConflictError`` otherwise: a run's lineage is a fact
about the past, so a second, different version of it is a bug in the producer, not an update.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping

from lineage.errors import RunConflictError
from lineage.model import DatasetKey
from lineage.recorder import RecordedRun, canonical_json
from lineage.store.db import Conn
from lineage.store.derive import Derived, DerivedCache, operations_to_json
from lineage.store.keys import invert

BACKWARD = "b"
FORWARD = "f"

# CASE rather than SQLite's two-argument min/max (PostgreSQL has LEAST/GREATEST instead): one text for both.
_UPSERT_FIELD = """
INSERT INTO dataset_fields (dataset_id, field, created, updated, last_run_pk) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (dataset_id, field) DO UPDATE SET
    created = CASE WHEN excluded.created < dataset_fields.created THEN excluded.created ELSE dataset_fields.created END,
    last_run_pk = CASE WHEN excluded.updated >= dataset_fields.updated THEN excluded.last_run_pk
                       ELSE dataset_fields.last_run_pk END,
    updated = CASE WHEN excluded.updated > dataset_fields.updated THEN excluded.updated ELSE dataset_fields.updated END
"""

_UPSERT_DATASET_CHECKSUM = """
INSERT INTO dataset_checksums (direction, dataset_id, checksum_id, first_start, last_start) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (direction, dataset_id, checksum_id) DO UPDATE SET
    first_start = CASE WHEN excluded.first_start < dataset_checksums.first_start THEN excluded.first_start
                       ELSE dataset_checksums.first_start END,
    last_start = CASE WHEN excluded.last_start > dataset_checksums.last_start THEN excluded.last_start
                      ELSE dataset_checksums.last_start END
"""


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_fingerprint(recorded: RecordedRun, history_digests: Mapping[str, str]) -> str:
    """Identity of everything recorded for a run, to tell an identical re-record from a conflict."""
    body = {
        "run": recorded.run.model_dump(mode="json"),
        "destination": recorded.destination.model_dump(mode="json"),
        "checksum": recorded.checksum,
        "properties": [ref.model_dump(mode="json") for ref in recorded.dataset_properties],
        "history": history_digests,
    }
    return _sha256(canonical_json(body))


def dataset_ids(conn: Conn, keys: Iterable[DatasetKey]) -> dict[DatasetKey, int]:
    """Ids of the datasets, the missing ones inserted (in sorted order): one look-up for all of them, since
    on a database server each statement whose answer we wait for is a round trip."""
    wanted = sorted(set(keys))
    ids: dict[DatasetKey, int] = {}
    for i in range(0, len(wanted), 200):
        chunk = wanted[i : i + 200]
        pairs = ", ".join("(?, ?)" for _ in chunk)  # only "?" marks; the values are bound
        params = [part for key in chunk for part in key]
        sql = f"SELECT namespace, name, id FROM datasets WHERE (namespace, name) IN ({pairs})"
        ids.update({DatasetKey(ns, name): int(pk) for ns, name, pk in conn.execute(sql, params).fetchall()})
    for key in wanted:
        if key not in ids:
            sql = "INSERT INTO datasets (namespace, name) VALUES (?, ?) RETURNING id"
            ids[key] = int(conn.execute(sql, key).fetchone()[0])
    return ids


def _checksum_id(conn: Conn, recorded: RecordedRun, derived: Derived, ids: dict[DatasetKey, int]) -> int:
    row = conn.execute("SELECT id FROM operations WHERE checksum = ?", (recorded.checksum,)).fetchone()
    if row is not None:
        return int(row[0])
    cid = int(
        conn.execute(
            "INSERT INTO operations (checksum, json) VALUES (?, ?) RETURNING id",
            (recorded.checksum, operations_to_json(recorded.operations)),
        ).fetchone()[0]
    )
    field_rows = [(BACKWARD, ids[k], f, cid) for k, names in derived.destinations.items() for f in names]
    field_rows += [(FORWARD, ids[k], f, cid) for k, names in derived.sources.items() for f in names]
    conn.executemany(
        "INSERT INTO checksum_fields (direction, dataset_id, field, checksum_id) VALUES (?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        field_rows,
    )
    conn.executemany(
        "INSERT INTO checksum_edges (checksum_id, dst_dataset_id, dst_field, src_dataset_id, src_field) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [
            (cid, ids[dst.dataset_key], dst.field, ids[src.dataset_key], src.field)
            for dst, sources in derived.incoming.items()
            for src in sources
        ],
    )
    return cid


def record_run(
    conn: Conn,
    recorded: RecordedRun,
    history: Mapping[str, str],
    cache: DerivedCache,
) -> bool:
    """Write one run; the caller holds a write transaction. False if it was already recorded identically.

    ``history`` maps destination columns to their directive trees as canonical JSON text
    (``encode_column_history``).
    """
    run = recorded.run
    digests = {column: _sha256(text) for column, text in history.items()}
    fingerprint = run_fingerprint(recorded, digests)
    existing = conn.execute(
        "SELECT fingerprint FROM runs WHERE namespace = ? AND run_id = ?", (run.namespace, run.run_id)
    ).fetchone()
    if existing is not None:
        if existing[0] == fingerprint:
            return False
        raise RunConflictError(
            f"run {run.run_id!r} in namespace {run.namespace!r} was already recorded with different lineage"
        )

    derived = cache.derived(recorded.checksum, lambda: recorded.operations)
    keys = {*derived.sources, *derived.destinations, recorded.destination_key}
    keys |= {DatasetKey(ref.namespace or run.namespace, ref.name) for ref in recorded.dataset_properties}
    ids = dataset_ids(conn, keys)
    cid = _checksum_id(conn, recorded, derived, ids)
    inv = invert(run.start)
    run_pk = int(
        conn.execute(
            "INSERT INTO runs (namespace, run_id, program, start_time, end_time, status, inv_start, checksum_id, "
            "destination_id, destination_description, fingerprint, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                run.namespace,
                run.run_id,
                run.program,
                run.start,
                run.end,
                run.status,
                inv,
                cid,
                ids[recorded.destination_key],
                recorded.destination.description,
                fingerprint,
                int(time.time()),
            ),
        ).fetchone()[0]
    )

    sides = [(BACKWARD, derived.destinations), (FORWARD, derived.sources)]
    endpoint_rows = [(d, ids[k], cid, inv, run_pk) for d, side in sides for k in side]
    conn.executemany(
        "INSERT INTO dataset_runs (direction, dataset_id, checksum_id, inv_start, run_pk) VALUES (?, ?, ?, ?, ?)",
        endpoint_rows,
    )
    conn.executemany(_UPSERT_DATASET_CHECKSUM, [(d, ds, c, run.start, run.start) for d, ds, c, _, _ in endpoint_rows])
    field_rows = [(d, ids[k], f, inv, run_pk, cid) for d, side in sides for k, names in side.items() for f in names]
    conn.executemany(
        "INSERT INTO field_runs (direction, dataset_id, field, inv_start, run_pk, checksum_id) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        field_rows,
    )
    conn.executemany(_UPSERT_FIELD, [(ds, f, run.start, run.start, run_pk) for _, ds, f, _, _, _ in field_rows])

    conn.executemany(
        "INSERT INTO run_properties (dataset_id, inv_start, run_pk, json) VALUES (?, ?, ?, ?)",
        [
            (ids[DatasetKey(ref.namespace or run.namespace, ref.name)], inv, run_pk, canonical_json(ref.properties))
            for ref in recorded.dataset_properties
            if ref.properties
        ],
    )
    _record_history(conn, ids[recorded.destination_key], inv, run_pk, history, digests)
    conn.executemany("UPDATE datasets SET watermark = ? WHERE id = ?", [(run_pk, i) for i in ids.values()])
    return True


def _record_history(
    conn: Conn,
    dest_id: int,
    inv: int,
    run_pk: int,
    history: Mapping[str, str],
    digests: Mapping[str, str],
) -> None:
    for column, text in history.items():
        digest = digests[column]
        row = conn.execute("SELECT id FROM history_trees WHERE hash = ?", (digest,)).fetchone()
        if row is not None:
            tree_id = int(row[0])
        else:
            tree_id = int(
                conn.execute("INSERT INTO history_trees (hash, json) VALUES (?, ?) RETURNING id", (digest, text))
                .fetchone()[0]
            )
        conn.execute(
            "INSERT INTO column_history (dataset_id, column_name, inv_start, run_pk, tree_id) VALUES (?, ?, ?, ?, ?)",
            (dest_id, column, inv, run_pk, tree_id),
        )


def record_runs(
    conn: Conn,
    items: Iterable[tuple[RecordedRun, Mapping[str, str]]],
    cache: DerivedCache,
) -> int:
    """Write many runs in the caller's transaction; returns how many were new."""
    return sum(record_run(conn, recorded, history, cache) for recorded, history in items)
