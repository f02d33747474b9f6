"""Cached look-ups of immutable rows: dataset ids/names, checksums, per-checksum edges, run refs.

Dataset ids, operation sets and their edges never change once committed, so each store instance
caches them; only the per-run index rows are read fresh for every query.
"""

from __future__ import annotations

from collections.abc import Iterable

from lineage.model import DatasetKey, Direction, FieldOperation
from lineage.store.db import Conn, Database
from lineage.store.derive import LRU, Derived, DerivedCache, operations_from_json
from lineage.store.keys import uninvert
from lineage.store.results import RunRef

Edge = tuple[str, int, str]
"""(field of the anchor dataset, other dataset id, field of the other dataset)."""


class Catalog:
    def __init__(self, cache: DerivedCache, size: int = 4096) -> None:
        self.cache = cache
        self._dataset_ids = LRU(size)
        self._dataset_keys = LRU(size)
        self._checksums = LRU(size)
        self._edges = LRU(size)

    def dataset_id(self, conn: Conn, namespace: str, name: str) -> int | None:
        """Id of a dataset, or None if no run touched it (misses are not cached: it may appear later)."""
        key = DatasetKey(namespace, name)

        def load() -> int | None:
            row = conn.execute("SELECT id FROM datasets WHERE namespace = ? AND name = ?", key).fetchone()
            return None if row is None else int(row[0])

        found = self._dataset_ids.get_or_compute(key, load)
        if found is None:
            self._dataset_ids.discard(key)
        return found

    def dataset_key(self, conn: Conn, dataset_id: int) -> DatasetKey:
        def load() -> DatasetKey:
            row = conn.execute("SELECT namespace, name FROM datasets WHERE id = ?", (dataset_id,)).fetchone()
            return DatasetKey(row[0], row[1])

        return self._dataset_keys.get_or_compute(dataset_id, load)

    def checksum(self, conn: Conn, checksum_id: int) -> str:
        def load() -> str:
            return str(conn.execute("SELECT checksum FROM operations WHERE id = ?", (checksum_id,)).fetchone()[0])

        return self._checksums.get_or_compute(checksum_id, load)

    def derived(self, conn: Conn, checksum_id: int) -> tuple[str, Derived]:
        checksum = self.checksum(conn, checksum_id)

        def load() -> tuple[FieldOperation, ...]:
            text = conn.execute("SELECT json FROM operations WHERE id = ?", (checksum_id,)).fetchone()[0]
            return operations_from_json(text)

        return checksum, self.cache.derived(checksum, load)

    def edges(self, conn: Conn, checksum_id: int, dataset_id: int, direction: Direction) -> list[Edge]:
        """Summary edges of one operation set, seen from ``dataset_id`` (as destination or as source)."""

        def load() -> list[Edge]:
            if direction is Direction.BACKWARD:
                sql = (
                    "SELECT dst_field, src_dataset_id, src_field FROM checksum_edges "
                    "WHERE checksum_id = ? AND dst_dataset_id = ?"
                )
            else:
                sql = (
                    "SELECT src_field, dst_dataset_id, dst_field FROM checksum_edges "
                    "WHERE checksum_id = ? AND src_dataset_id = ?"
                )
            return [(str(a), int(b), str(c)) for a, b, c in conn.execute(sql, (checksum_id, dataset_id))]

        return self._edges.get_or_compute((checksum_id, dataset_id, direction), load)

    @staticmethod
    def run_refs(conn: Conn, run_pks: Iterable[int]) -> dict[int, RunRef]:
        pks = sorted(set(run_pks))
        refs: dict[int, RunRef] = {}
        for i in range(0, len(pks), 500):
            chunk = pks[i : i + 500]
            placeholders = ",".join("?" * len(chunk))  # only "?" marks; the values are bound
            sql = f"SELECT id, namespace, program, run_id, inv_start FROM runs WHERE id IN ({placeholders})"
            for pk, namespace, program, run_id, inv in conn.execute(sql, chunk):
                refs[pk] = RunRef(namespace=namespace, program=program, run_id=run_id, start=uninvert(inv))
        return refs


class StoreState:
    """What the query mixins (``queries``, ``run_queries``, ``browse``) share: the database and its catalog."""

    _db: Database
    _catalog: Catalog
