"""Queries for finding your way around the store: namespaces, the datasets of one, the runs of one dataset.

The lineage queries (``queries``) answer "where does this field come from"; a person arriving with no
names in mind first needs "what is there". These answer it with the same index seeks and keyset
pages, never a scan of every run:

* ``namespaces``: the small ``datasets`` table grouped by namespace, plus one seek per namespace
  on ``runs_by_time`` for its newest run.
* ``datasets``: the namespace's datasets by name; per dataset, one seek per operation set that
  touched it (``dataset_checksums`` says which can have a run in the range) for its newest run.
* ``dataset_runs``: per (direction, operation set) of the dataset, one ordered seek of at most
  ``limit + 1`` rows, merged: a page costs C seeks however many runs the range holds.
* ``previous_run``: one seek on ``runs_by_program``.

Like every store query they take a ``Visibility`` (``lineage.visibility``): runs of namespaces out of
sight never count, so a dataset's newest run is the newest one in sight, and an answer that passed
over something says so (``cut``).
"""

from __future__ import annotations

import heapq
from typing import Any, Literal, Unpack

from pydantic import BaseModel, ConfigDict

from lineage.store.catalog import StoreState
from lineage.store.cursor import (
    ViewPageOptions,
    decode_cursor,
    encode_cursor,
    keyset_position,
    name_position,
    page_options,
    start_page,
)
from lineage.store.db import Conn, like_escaped, names_after
from lineage.store.keys import inverted_bounds
from lineage.store.results import Page, RunRef
from lineage.store.visible import visible_rows
from lineage.store.writer import BACKWARD, FORWARD
from lineage.visibility import Visibility

Role = Literal["wrote", "read"]
_ROLES: dict[str, Role] = {BACKWARD: "wrote", FORWARD: "read"}


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NamespaceInfo(_Result):
    name: str
    datasets: int
    last_run: RunRef | None


class DatasetInfo(_Result):
    """A dataset with a run in the range: its newest run there, and whether runs in the range wrote or read it."""

    name: str
    fields: int
    last_run: RunRef
    last_role: Role
    written: bool
    read: bool


class DatasetRun(_Result):
    """A run of the dataset's namespace that wrote or read the dataset."""

    run: RunRef
    role: Role


_CHECKSUMS = "SELECT direction, checksum_id, first_start, last_start FROM dataset_checksums WHERE dataset_id = ?"
_NEWEST = (
    "SELECT inv_start, run_pk FROM dataset_runs WHERE direction = ? AND dataset_id = ? AND checksum_id = ? "
    "AND inv_start > ? AND inv_start <= ? ORDER BY inv_start, run_pk LIMIT 1"
)
_IN_ORDER_WITH_NAMESPACE = (
    "SELECT d.inv_start, d.run_pk, r.namespace FROM dataset_runs d JOIN runs r ON r.id = d.run_pk "
    "WHERE d.direction = ? AND d.dataset_id = ? AND d.checksum_id = ? AND d.inv_start > ? AND d.inv_start <= ? "
    "ORDER BY d.inv_start, d.run_pk"
)
_FIELD_COUNT = "SELECT count(DISTINCT field) FROM checksum_fields WHERE dataset_id = ? AND ({pairs})"




class _Touched:
    """What runs in the range (in sight) did to one dataset: the newest run per direction, the operation
    sets they belong to, and whether a run out of sight was passed over."""

    def __init__(self) -> None:
        self.newest: dict[str, tuple[int, int]] = {}
        self.sets: list[tuple[str, int]] = []
        self.cut = False


def _touched(conn: Conn, dataset_id: int, start: int, end: int, visible: Visibility | None) -> _Touched:
    lo, hi = inverted_bounds(start, end)
    touched = _Touched()
    for code, checksum_id, first, last in conn.execute(_CHECKSUMS, (dataset_id,)).fetchall():
        if last < start or first >= end:
            continue
        params = (code, dataset_id, checksum_id, lo, hi)
        if visible is None:
            row = conn.execute(_NEWEST, params).fetchone()
        else:
            rows, skipped = visible_rows(conn, _IN_ORDER_WITH_NAMESPACE, params, visible, 1)
            row, touched.cut = (rows[0] if rows else None), touched.cut or skipped
        if row is None:
            continue
        touched.sets.append((code, checksum_id))
        if code not in touched.newest or tuple(row) < touched.newest[code]:
            touched.newest[code] = (row[0], row[1])
    return touched


def _field_count(conn: Conn, dataset_id: int, sets: list[tuple[str, int]]) -> int:
    """Distinct fields the given operation sets wrote or read in the dataset."""
    pairs = " OR ".join("(direction = ? AND checksum_id = ?)" for _ in sets)  # only "?" marks; values are bound
    params: list[Any] = [dataset_id]
    for code, checksum_id in sets:
        params += [code, checksum_id]
    return int(conn.execute(_FIELD_COUNT.format(pairs=pairs), params).fetchone()[0])


class BrowseQueries(StoreState):
    """Namespaces, their datasets, a dataset's runs, a run's predecessor."""

    def namespaces(self, *, visible: Visibility | None = None) -> list[NamespaceInfo]:
        """Every namespace in sight that holds a dataset or a run, by name, with its dataset count and newest run."""
        with self._db.read() as conn:
            catalog = self._catalog
            counts: dict[str, int] = dict(conn.execute("SELECT namespace, count(*) FROM datasets GROUP BY namespace"))
            for (name,) in conn.execute("SELECT DISTINCT namespace FROM runs"):
                counts.setdefault(name, 0)
            found = []
            for name in sorted(counts):
                if visible is not None and not visible.sees(name):
                    continue
                row = conn.execute(
                    "SELECT id FROM runs WHERE namespace = ? ORDER BY inv_start, id LIMIT 1", (name,)
                ).fetchone()
                last = catalog.run_refs(conn, [row[0]])[row[0]] if row is not None else None
                found.append(NamespaceInfo(name=name, datasets=counts[name], last_run=last))
            return found

    def datasets(
        self, namespace: str, start: int, end: int, *, search: str | None = None, **options: Unpack[ViewPageOptions]
    ) -> Page[DatasetInfo]:
        """The namespace's datasets some run in the range (in sight) wrote or read, by name; ``search`` matches any
        part of the name, ignoring case. ``fields`` counts the fields those runs wrote or read."""
        with self._db.read() as conn:
            catalog = self._catalog
            inverted_bounds(start, end)  # validates the range before any I/O
            limit, visible, query, position = start_page(
                options, {"q": "datasets", "ns": namespace, "start": start, "end": end, "search": search})
            after = name_position(position)
            params: list[Any] = [namespace]
            sql = names_after(conn.like, "SELECT id, name FROM datasets WHERE namespace = ?", params, "name", after,
                              f"%{like_escaped(search)}%" if search else "")
            if visible is not None and not visible.sees(namespace):
                return Page(cut=True)
            found: list[tuple[int, str, _Touched]] = []
            has_more = False
            cut = False
            for dataset_id, name in conn.execute(sql, params).fetchall():
                touched = _touched(conn, dataset_id, start, end, visible)
                cut = cut or touched.cut
                if not touched.newest:
                    continue
                if len(found) == limit:
                    has_more = True
                    break
                found.append((dataset_id, name, touched))
            refs = catalog.run_refs(conn, (pk for _, _, touched in found for _, pk in touched.newest.values()))
            items = []
            for dataset_id, name, touched in found:
                newest = touched.newest
                code = min(newest, key=lambda c: newest[c])
                items.append(DatasetInfo(name=name, fields=_field_count(conn, dataset_id, touched.sets),
                                         last_run=refs[newest[code][1]], last_role=_ROLES[code],
                                         written=BACKWARD in newest, read=FORWARD in newest))
            next_cursor = encode_cursor(query, items[-1].name) if has_more else None
            return Page(items=tuple(items), next_cursor=next_cursor, cut=cut)

    def dataset_runs(
        self, namespace: str, dataset: str, start: int, end: int, **options: Unpack[ViewPageOptions]
    ) -> Page[DatasetRun]:
        """Runs of ``namespace`` in the range that wrote or read the dataset, newest first (a run that did both
        is listed once, as the writer). Runs of other namespaces are never listed, so a view that sees the
        namespace sees them all."""
        with self._db.read() as conn:
            catalog = self._catalog
            limit, cursor = page_options(options)
            visible = options.get("visible")
            if visible is not None and not visible.sees(namespace):
                return Page(cut=True)
            lo, hi = inverted_bounds(start, end)
            query = {"q": "dataset_runs", "ns": namespace, "ds": dataset, "start": start, "end": end}
            after = keyset_position(decode_cursor(cursor, query))
            dataset_id = catalog.dataset_id(conn, namespace, dataset)
            if dataset_id is None:
                return Page()
            streams = []
            for code, checksum_id, first, last in conn.execute(_CHECKSUMS, (dataset_id,)).fetchall():
                if last < start or first >= end:
                    continue
                sql = ("SELECT d.inv_start, d.run_pk FROM dataset_runs d "
                       "JOIN runs r ON r.id = d.run_pk AND r.namespace = ? "
                       "WHERE d.direction = ? AND d.dataset_id = ? AND d.checksum_id = ? "
                       "AND d.inv_start > ? AND d.inv_start <= ?")
                params: list[Any] = [namespace, code, dataset_id, checksum_id, lo, hi]
                if after is not None:
                    sql += " AND d.inv_start >= ? AND (d.inv_start, d.run_pk) > (?, ?)"
                    params += [max(after[0], lo + 1), after[0], after[1]]
                sql += " ORDER BY d.inv_start, d.run_pk LIMIT ?"
                params.append(limit + 1)
                rows = conn.execute(sql, params).fetchall()
                streams.append([(inv, pk, code) for inv, pk in rows])
            merged: list[tuple[int, int, str]] = []
            for inv, pk, code in heapq.merge(*streams):
                if merged and merged[-1][:2] == (inv, pk):
                    continue  # read and written by one run: 'b' sorts first, so it stays the writer
                merged.append((inv, pk, code))
            page, more = merged[:limit], len(merged) > limit
            refs = catalog.run_refs(conn, (pk for _, pk, _ in page))
            items = tuple(DatasetRun(run=refs[pk], role=_ROLES[code]) for _, pk, code in page)
            next_cursor = encode_cursor(query, [page[-1][0], page[-1][1]]) if more else None
            return Page(items=items, next_cursor=next_cursor)

    def previous_run(self, namespace: str, run_id: str) -> str | None:
        """The run of the same program listed right after ``run_id`` in its newest-first order (an earlier start,
        or the same start recorded later), or None for the program's first run or an unknown run."""
        with self._db.read() as conn:
            row = conn.execute("SELECT id, program, inv_start FROM runs WHERE namespace = ? AND run_id = ?",
                               (namespace, run_id)).fetchone()
            if row is None:
                return None
            pk, program, inv = row
            found = conn.execute(
                "SELECT run_id FROM runs WHERE namespace = ? AND program = ? AND inv_start >= ? "
                "AND (inv_start, id) > (?, ?) ORDER BY inv_start, id LIMIT 1",
                (namespace, program, inv, inv, pk),
            ).fetchone()
            return None if found is None else str(found[0])
