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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lineage.errors import RunConflictError
from lineage.model import DatasetKey
from lineage.recorder import RecordedRun, canonical_json
from lineage.store.db import Conn
from lineage.store.derive import Derived, DerivedCache, operations_to_json
from lineage.store.keys import invert

BACKWARD = "b"
FORWARD = "f"

# CASE rather than SQLite's two-argument min/max (PostgreSQL has LEAST/GREATEST instead): one text for both.
_UPSERT_FIELD = "INSERT INTO dataset_fields (dataset_id, field, created, updated, last_run_pk)", """
ON CONFLICT (dataset_id, field) DO UPDATE SET
    created = CASE WHEN excluded.created < dataset_fields.created THEN excluded.created ELSE dataset_fields.created END,
    last_run_pk = CASE WHEN excluded.updated >= dataset_fields.updated THEN excluded.last_run_pk
                       ELSE dataset_fields.last_run_pk END,
    updated = CASE WHEN excluded.updated > dataset_fields.updated THEN excluded.updated ELSE dataset_fields.updated END
"""

_UPSERT_DATASET_CHECKSUM = (
    "INSERT INTO dataset_checksums (direction, dataset_id, checksum_id, first_start, last_start)", """
ON CONFLICT (direction, dataset_id, checksum_id) DO UPDATE SET
    first_start = CASE WHEN excluded.first_start < dataset_checksums.first_start THEN excluded.first_start
                       ELSE dataset_checksums.first_start END,
    last_start = CASE WHEN excluded.last_start > dataset_checksums.last_start THEN excluded.last_start
                      ELSE dataset_checksums.last_start END
""")


def insert_many(conn: Conn, head: str, rows: Sequence[Sequence[Any]], tail: str = "") -> None:
    """``head VALUES (...), (...), ... tail``: one statement for many rows (chunks of 500).

    On a database server every statement is work on both ends, and most of a run is small index rows;
    SQLite takes the same text. An upsert's ``tail`` (``ON CONFLICT ... DO UPDATE``) must not meet one key
    twice in a statement, so callers pass rows with distinct keys.
    """
    if not rows:
        return
    marks = "(" + ", ".join("?" * len(rows[0])) + ")"  # only "?" marks; the values are bound
    for i in range(0, len(rows), 500):
        chunk = rows[i : i + 500]
        conn.execute(f"{head} VALUES {', '.join([marks] * len(chunk))}{tail}", [v for row in chunk for v in row])


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


@dataclass
class Known:
    """What the current write transaction already looked up or wrote: true until it ends, so a batch
    (``record_runs``) asks for each dataset, operation set and run id once, not once per run (on a
    database server every statement whose answer we wait for is a round trip)."""

    datasets: dict[DatasetKey, int] = field(default_factory=dict)
    checksums: dict[str, int] = field(default_factory=dict)
    fingerprints: dict[tuple[str, str], str] = field(default_factory=dict)
    absent: set[tuple[str, str]] = field(default_factory=set)
    """Run keys known not to be stored (until this transaction stores them)."""

    def look_up_runs(self, conn: Conn, keys: Iterable[tuple[str, str]]) -> None:
        wanted = sorted(set(keys))
        for i in range(0, len(wanted), 200):
            chunk = wanted[i : i + 200]
            pairs = ", ".join("(?, ?)" for _ in chunk)  # only "?" marks; the values are bound
            sql = f"SELECT namespace, run_id, fingerprint FROM runs WHERE (namespace, run_id) IN ({pairs})"
            rows = conn.execute(sql, [part for key in chunk for part in key]).fetchall()
            self.fingerprints.update({(ns, run_id): str(fp) for ns, run_id, fp in rows})
            self.absent.update(key for key in chunk if key not in self.fingerprints)

    def fingerprint(self, conn: Conn, key: tuple[str, str]) -> str | None:
        if key not in self.fingerprints and key not in self.absent:
            self.look_up_runs(conn, [key])
        return self.fingerprints.get(key)


def dataset_ids(conn: Conn, keys: Iterable[DatasetKey], known: dict[DatasetKey, int]) -> dict[DatasetKey, int]:
    """Ids of the datasets, the missing ones inserted (in sorted order): one look-up for all of them that
    ``known`` (filled here) does not hold yet."""
    wanted = sorted(key for key in set(keys) if key not in known)
    ids = known
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


def _checksum_id(conn: Conn, recorded: RecordedRun, derived: Derived, ids: dict[DatasetKey, int],
                 known: dict[str, int]) -> int:
    if recorded.checksum in known:
        return known[recorded.checksum]
    row = conn.execute("SELECT id FROM operations WHERE checksum = ?", (recorded.checksum,)).fetchone()
    if row is not None:
        known[recorded.checksum] = int(row[0])
        return known[recorded.checksum]
    cid = int(
        conn.execute(
            "INSERT INTO operations (checksum, json) VALUES (?, ?) RETURNING id",
            (recorded.checksum, operations_to_json(recorded.operations)),
        ).fetchone()[0]
    )
    field_rows = [(BACKWARD, ids[k], f, cid) for k, names in derived.destinations.items() for f in names]
    field_rows += [(FORWARD, ids[k], f, cid) for k, names in derived.sources.items() for f in names]
    insert_many(conn, "INSERT INTO checksum_fields (direction, dataset_id, field, checksum_id)", field_rows,
                " ON CONFLICT DO NOTHING")
    insert_many(
        conn,
        "INSERT INTO checksum_edges (checksum_id, dst_dataset_id, dst_field, src_dataset_id, src_field)",
        [
            (cid, ids[dst.dataset_key], dst.field, ids[src.dataset_key], src.field)
            for dst, sources in derived.incoming.items()
            for src in sources
        ],
        " ON CONFLICT DO NOTHING",
    )
    known[recorded.checksum] = cid
    return cid


def record_run(
    conn: Conn,
    recorded: RecordedRun,
    history: Mapping[str, str],
    cache: DerivedCache,
    known: Known | None = None,
) -> bool:
    """Write one run; the caller holds a write transaction. False if it was already recorded identically.

    ``history`` maps destination columns to their directive trees as canonical JSON text
    (``encode_column_history``).
    """
    run = recorded.run
    digests = {column: _sha256(text) for column, text in history.items()}
    fingerprint = run_fingerprint(recorded, digests)
    known = Known() if known is None else known
    existing = known.fingerprint(conn, (run.namespace, run.run_id))
    if existing is not None:
        if existing == fingerprint:
            return False
        raise RunConflictError(
            f"run {run.run_id!r} in namespace {run.namespace!r} was already recorded with different lineage"
        )

    derived = cache.derived(recorded.checksum, lambda: recorded.operations)
    keys = {*derived.sources, *derived.destinations, recorded.destination_key}
    keys |= {DatasetKey(ref.namespace or run.namespace, ref.name) for ref in recorded.dataset_properties}
    ids = dataset_ids(conn, keys, known.datasets)
    cid = _checksum_id(conn, recorded, derived, ids, known.checksums)
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
    insert_many(conn, "INSERT INTO dataset_runs (direction, dataset_id, checksum_id, inv_start, run_pk)", endpoint_rows)
    insert_many(conn, _UPSERT_DATASET_CHECKSUM[0],
                [(d, ds, c, run.start, run.start) for d, ds, c, _, _ in endpoint_rows], _UPSERT_DATASET_CHECKSUM[1])
    field_rows = [(d, ids[k], f, inv, run_pk, cid) for d, side in sides for k, names in side.items() for f in names]
    insert_many(conn, "INSERT INTO field_runs (direction, dataset_id, field, inv_start, run_pk, checksum_id)",
                field_rows)
    touched = sorted({(ds, f) for _, ds, f, _, _, _ in field_rows})  # a field both read and written: one row
    insert_many(conn, _UPSERT_FIELD[0], [(ds, f, run.start, run.start, run_pk) for ds, f in touched], _UPSERT_FIELD[1])

    insert_many(
        conn,
        "INSERT INTO run_properties (dataset_id, inv_start, run_pk, json)",
        [
            (ids[DatasetKey(ref.namespace or run.namespace, ref.name)], inv, run_pk, canonical_json(ref.properties))
            for ref in recorded.dataset_properties
            if ref.properties
        ],
    )
    _record_history(conn, ids[recorded.destination_key], inv, run_pk, history, digests)
    touched_ids = sorted({ids[key] for key in keys})
    marks = ", ".join("?" * len(touched_ids))
    conn.execute(f"UPDATE datasets SET watermark = ? WHERE id IN ({marks})", [run_pk, *touched_ids])
    known.fingerprints[(run.namespace, run.run_id)] = fingerprint
    known.absent.discard((run.namespace, run.run_id))
    return True


def _record_history(
    conn: Conn,
    dest_id: int,
    inv: int,
    run_pk: int,
    history: Mapping[str, str],
    digests: Mapping[str, str],
) -> None:
    """The run's column trees, each stored once by content hash: one look-up for all, one insert of the new."""
    if not history:
        return
    texts = {digests[column]: text for column, text in history.items()}
    tree_ids: dict[str, int] = {}
    wanted = sorted(texts)
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        marks = ", ".join("?" * len(chunk))  # only "?" marks; the values are bound
        rows = conn.execute(f"SELECT hash, id FROM history_trees WHERE hash IN ({marks})", chunk).fetchall()
        tree_ids.update({str(digest): int(pk) for digest, pk in rows})
    for digest in wanted:
        if digest not in tree_ids:
            sql = "INSERT INTO history_trees (hash, json) VALUES (?, ?) RETURNING id"
            tree_ids[digest] = int(conn.execute(sql, (digest, texts[digest])).fetchone()[0])
    insert_many(conn, "INSERT INTO column_history (dataset_id, column_name, inv_start, run_pk, tree_id)",
                [(dest_id, column, inv, run_pk, tree_ids[digests[column]]) for column in history])


def record_runs(
    conn: Conn,
    items: Iterable[tuple[RecordedRun, Mapping[str, str]]],
    cache: DerivedCache,
) -> int:
    """Write many runs in the caller's transaction; returns how many were new."""
    batch = list(items)
    known = Known()
    known.look_up_runs(conn, [(recorded.run.namespace, recorded.run.run_id) for recorded, _ in batch])
    return sum(record_run(conn, recorded, history, cache, known) for recorded, history in batch)
