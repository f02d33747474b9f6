"""Run-centred queries: runs in a range, one run, dataset properties by run, column history by run.

All are keyset-paginated range scans of ``(..., inv_start, run)`` indexes, newest first, so a
page costs one seek plus ``limit`` rows however many runs lie in the range.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar, Unpack

from lineage.graph import Endpoint
from lineage.store.catalog import StoreState
from lineage.store.cursor import (
    PageOptions,
    ViewPageOptions,
    decode_cursor,
    encode_cursor,
    keyset_position,
    page_options,
    start_page,
)
from lineage.store.db import Conn, Executes
from lineage.store.history import truncate_tree
from lineage.store.keys import inverted_bounds
from lineage.store.results import (
    ColumnHistoryEntry,
    Page,
    PropertiesByDataset,
    PropertiesEntry,
    RunRecord,
    RunRef,
    RunSummary,
)
from lineage.store.visible import visible_rows
from lineage.visibility import Visibility


def _keyset_clause(after: tuple[int, int] | None, lo: int, params: list[Any], inv: str, pk: str) -> str:
    """Resume strictly after ``(inv_start, run_pk)``: seek to ``inv_start`` then skip the ties.

    The separate ``>=`` bound is what lets SQLite seek; a row-value comparison alone is only a filter.
    Column names come from the callers' literals, never from requests.
    """
    if after is None:
        return ""
    params.extend([max(after[0], lo + 1), after[0], after[1]])
    return f" AND {inv} >= ? AND ({inv}, {pk}) > (?, ?)"


def _page_of(rows: list[Any], limit: int, query: dict[str, Any], pk_index: int) -> tuple[list[Any], str | None]:
    if len(rows) <= limit:
        return rows, None
    rows = rows[:limit]
    last = rows[-1]
    return rows, encode_cursor(query, [last[0], last[pk_index]])


def _page_rows(
    conn: Conn, sql: str, params: list[Any], limit: int, visible: Visibility | None
) -> tuple[list[Any], bool]:
    """``limit + 1`` rows of ``sql`` (which selects the run's namespace last and has no LIMIT), only runs in
    sight when ``visible`` is restricted (``lineage.store.visible``); and whether any run was left out."""
    if visible is None:
        rows = conn.execute(sql + " LIMIT ?", [*params, limit + 1]).fetchall()
        return [row[:-1] for row in rows], False
    return visible_rows(conn, sql, params, visible, limit + 1)


def watermark(conn: Executes, namespace: str, dataset: str) -> int:
    """Id of the newest run that touched the dataset (0 if none): changes whenever its lineage may have."""
    sql = "SELECT watermark FROM datasets WHERE namespace = ? AND name = ?"
    row = conn.execute(sql, (namespace, dataset)).fetchone()
    return 0 if row is None else int(row[0])


def latest_watermark(conn: Executes) -> int:
    """Id of the newest run in the store (0 if none): raised by every recorded run, whatever it touched."""
    row = conn.execute("SELECT coalesce(max(id), 0) FROM runs").fetchone()
    return int(row[0])


def datasets_changed_since(conn: Executes, watermark: int) -> list[tuple[str, str]]:
    """(namespace, name) of every dataset touched by a run newer than ``watermark``.

    Lets a cache notice runs recorded by other processes straight into the file. It scans the small
    ``datasets`` table; callers only ask when ``latest_watermark`` has moved.
    """
    sql = "SELECT namespace, name FROM datasets WHERE watermark > ? ORDER BY namespace, name"
    return [(row[0], row[1]) for row in conn.execute(sql, (watermark,))]


_PROPERTIES = (
    "SELECT i.inv_start, i.run_pk, i.json, r.namespace FROM run_properties i "
    "JOIN runs r ON r.id = i.run_pk WHERE i.dataset_id = ? AND i.inv_start > ? AND i.inv_start <= ?"
)
_COLUMN_HISTORY = (
    "SELECT i.inv_start, i.run_pk, t.json, r.namespace FROM column_history i "
    "JOIN history_trees t ON t.id = i.tree_id JOIN runs r ON r.id = i.run_pk "
    "WHERE i.dataset_id = ? AND i.column_name = ? AND i.inv_start > ? AND i.inv_start <= ?"
)
T = TypeVar("T")


class RunQueries(StoreState):
    """Runs in a range, one run, properties and column history by run."""

    def runs(
        self, namespace: str, start: int, end: int, *, program: str | None = None, **options: Unpack[PageOptions]
    ) -> Page[RunSummary]:
        """Runs of a namespace that started in ``[start, end)``, newest first, optionally of one program."""
        with self._db.read() as conn:
            catalog = self._catalog
            limit, cursor = page_options(options)
            lo, hi = inverted_bounds(start, end)
            query = {"q": "runs", "ns": namespace, "start": start, "end": end, "program": program}
            after = keyset_position(decode_cursor(cursor, query))
            params: list[Any] = [namespace]
            sql = (
                "SELECT inv_start, id, run_id, program, start_time, end_time, status, checksum_id, destination_id "
                "FROM runs WHERE namespace = ?"
            )
            if program is not None:
                sql += " AND program = ?"
                params.append(program)
            sql += " AND inv_start > ? AND inv_start <= ?"
            params += [lo, hi]
            sql += _keyset_clause(after, lo, params, "inv_start", "id")
            sql += " ORDER BY inv_start, id LIMIT ?"
            params.append(limit + 1)
            rows, next_cursor = _page_of(conn.execute(sql, params).fetchall(), limit, query, 1)
            items = []
            for _, _, run_id, prog, start_time, end_time, status, checksum_id, destination_id in rows:
                key = catalog.dataset_key(conn, destination_id)
                items.append(
                    RunSummary(
                        namespace=namespace,
                        program=prog,
                        run_id=run_id,
                        start=start_time,
                        end=end_time,
                        status=status,
                        checksum=catalog.checksum(conn, checksum_id),
                        destination=Endpoint(namespace=key.namespace, name=key.name),
                    )
                )
            return Page(items=tuple(items), next_cursor=next_cursor)

    def run(self, namespace: str, run_id: str) -> RunRecord | None:
        """Everything recorded for one run, or None."""
        with self._db.read() as conn:
            catalog = self._catalog
            row = conn.execute(
                "SELECT id, program, start_time, end_time, status, checksum_id, destination_id, "
                "destination_description, inv_start FROM runs WHERE namespace = ? AND run_id = ?",
                (namespace, run_id),
            ).fetchone()
            if row is None:
                return None
            run_pk, program, start_time, end_time, status, checksum_id, destination_id, description, inv = row
            checksum, derived = catalog.derived(conn, checksum_id)
            dest = catalog.dataset_key(conn, destination_id)
            properties = []
            for key in sorted({*derived.sources, dest}):
                dataset_id = catalog.dataset_id(conn, key.namespace, key.name)
                found = conn.execute(
                    "SELECT json FROM run_properties WHERE dataset_id = ? AND inv_start = ? AND run_pk = ?",
                    (dataset_id, inv, run_pk),
                ).fetchone()
                if found is not None:
                    endpoint = Endpoint(namespace=key.namespace, name=key.name)
                    properties.append(PropertiesByDataset(dataset=endpoint, properties=json.loads(found[0])))
            trees = {
                name: json.loads(tree)
                for name, tree in conn.execute(
                    "SELECT c.column_name, t.json FROM column_history c JOIN history_trees t ON t.id = c.tree_id "
                    "WHERE c.dataset_id = ? AND c.inv_start = ? AND c.run_pk = ? ORDER BY c.column_name",
                    (destination_id, inv, run_pk),
                )
            }
            return RunRecord(
                namespace=namespace,
                program=program,
                run_id=run_id,
                start=start_time,
                end=end_time,
                status=status,
                checksum=checksum,
                destination=Endpoint(namespace=dest.namespace, name=dest.name),
                destination_description=description,
                destination_fields=derived.destinations.get(dest, ()),
                sources=tuple(Endpoint(namespace=k.namespace, name=k.name) for k in derived.sources),
                operations=derived.operations,
                dataset_properties=tuple(properties),
                columns_with_history=tuple(trees),
                column_trees=trees,
            )

    def dataset_properties(
        self, namespace: str, dataset: str, start: int, end: int, **options: Unpack[ViewPageOptions]
    ) -> Page[PropertiesEntry]:
        """The dataset's properties in each run in the range that gave any, newest first (runs in sight only)."""
        query = {"q": "properties", "ns": namespace, "ds": dataset, "start": start, "end": end}
        return self._per_run(query, start, end, options, _PROPERTIES, (),
                             lambda run, text: PropertiesEntry(run=run, properties=json.loads(text)))

    def column_history(
        self, namespace: str, dataset: str, column: str, start: int, end: int,
        *, max_levels: int | None = None, **options: Unpack[ViewPageOptions]
    ) -> Page[ColumnHistoryEntry]:
        """The stored directive tree of ``column`` per run in the range (in sight), newest first, cut to
        ``max_levels``."""
        truncate_tree({}, max_levels)  # validates max_levels before any I/O

        def entry(run: RunRef, text: str) -> ColumnHistoryEntry:
            tree, truncated = truncate_tree(json.loads(text), max_levels)
            return ColumnHistoryEntry(run=run, tree=tree, truncated=truncated)

        query = {"q": "column_history", "ns": namespace, "ds": dataset, "col": column, "start": start, "end": end}
        return self._per_run(query, start, end, options, _COLUMN_HISTORY, (column,), entry)

    def _per_run(
        self, query: dict[str, Any], start: int, end: int, options: ViewPageOptions, sql: str, keys: tuple[Any, ...],
        entry: Callable[[RunRef, str], T],
    ) -> Page[T]:
        """One keyset page, newest first, of a per-run index table of one dataset (``query``'s ``ns`` and ``ds``):
        ``sql`` selects ``inv_start, run_pk, json, namespace`` of the table aliased ``i`` for the dataset and the
        ``keys`` after it, and ``entry`` makes an item of each row's run and JSON text."""
        with self._db.read() as conn:
            lo, hi = inverted_bounds(start, end)
            limit, visible, query, position = start_page(options, query)
            dataset_id = self._catalog.dataset_id(conn, query["ns"], query["ds"])
            if dataset_id is None:
                return Page()
            params: list[Any] = [dataset_id, *keys, lo, hi]
            sql += _keyset_clause(keyset_position(position), lo, params, "i.inv_start", "i.run_pk")
            sql += " ORDER BY i.inv_start, i.run_pk"
            found, cut = _page_rows(conn, sql, params, limit, visible)
            rows, next_cursor = _page_of(found, limit, query, 1)
            refs = self._catalog.run_refs(conn, (row[1] for row in rows))
            return Page(items=tuple(entry(refs[pk], text) for _, pk, text in rows), next_cursor=next_cursor, cut=cut)
