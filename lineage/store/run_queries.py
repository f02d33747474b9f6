"""Run-centred queries: runs in a range, one run, dataset properties by run, column history by run.

All are keyset-paginated range scans of ``(..., inv_start, run)`` indexes, newest first, so a
page costs one seek plus ``limit`` rows however many runs lie in the range.
"""

from __future__ import annotations

import json
from typing import Any, Unpack

from lineage.graph import Endpoint
from lineage.store.catalog import StoreState
from lineage.store.cursor import (
    PageOptions,
    ViewPageOptions,
    decode_cursor,
    encode_cursor,
    keyset_position,
    page_options,
    with_view,
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
from lineage.visibility import Visibility, restricted


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
        with self._db.read() as conn:
            catalog = self._catalog
            limit, cursor = page_options(options)
            visible = restricted(options.get("visible"))
            lo, hi = inverted_bounds(start, end)
            query = with_view({"q": "properties", "ns": namespace, "ds": dataset, "start": start, "end": end}, visible)
            after = keyset_position(decode_cursor(cursor, query))
            dataset_id = catalog.dataset_id(conn, namespace, dataset)
            if dataset_id is None:
                return Page()
            sql = (
                "SELECT p.inv_start, p.run_pk, p.json, r.namespace FROM run_properties p "
                "JOIN runs r ON r.id = p.run_pk WHERE p.dataset_id = ? AND p.inv_start > ? AND p.inv_start <= ?"
            )
            rows, refs, next_cursor, cut = self._index_page(conn, sql, [dataset_id, lo, hi], "p", after, lo, limit,
                                                            query, visible)
            items = tuple(PropertiesEntry(run=refs[pk], properties=json.loads(text)) for _, pk, text in rows)
            return Page(items=items, next_cursor=next_cursor, cut=cut)

    def column_history(
        self, namespace: str, dataset: str, column: str, start: int, end: int,
        *, max_levels: int | None = None, **options: Unpack[ViewPageOptions]
    ) -> Page[ColumnHistoryEntry]:
        """The stored directive tree of ``column`` per run in the range (in sight), newest first, cut to
        ``max_levels``."""
        with self._db.read() as conn:
            catalog = self._catalog
            limit, cursor = page_options(options)
            visible = restricted(options.get("visible"))
            lo, hi = inverted_bounds(start, end)
            truncate_tree({}, max_levels)  # validates max_levels before any I/O
            query = with_view(
                {"q": "column_history", "ns": namespace, "ds": dataset, "col": column, "start": start, "end": end},
                visible,
            )
            after = keyset_position(decode_cursor(cursor, query))
            dataset_id = catalog.dataset_id(conn, namespace, dataset)
            if dataset_id is None:
                return Page()
            sql = (
                "SELECT c.inv_start, c.run_pk, t.json, r.namespace FROM column_history c "
                "JOIN history_trees t ON t.id = c.tree_id JOIN runs r ON r.id = c.run_pk "
                "WHERE c.dataset_id = ? AND c.column_name = ? AND c.inv_start > ? AND c.inv_start <= ?"
            )
            rows, refs, next_cursor, cut = self._index_page(conn, sql, [dataset_id, column, lo, hi], "c", after, lo,
                                                            limit, query, visible)
            items = []
            for _, pk, text in rows:
                tree, truncated = truncate_tree(json.loads(text), max_levels)
                items.append(ColumnHistoryEntry(run=refs[pk], tree=tree, truncated=truncated))
            return Page(items=tuple(items), next_cursor=next_cursor, cut=cut)

    def _index_page(
        self, conn: Conn, sql: str, params: list[Any], alias: str, after: tuple[int, int] | None, lo: int, limit: int,
        query: dict[str, Any], visible: Visibility | None,
    ) -> tuple[list[Any], dict[int, RunRef], str | None, bool]:
        """One keyset page of a per-run index table (``alias`` in ``sql``, newest first): its rows without the
        namespace, their runs, the next cursor, and whether runs out of sight were passed over."""
        sql += _keyset_clause(after, lo, params, f"{alias}.inv_start", f"{alias}.run_pk")
        sql += f" ORDER BY {alias}.inv_start, {alias}.run_pk"
        found, cut = _page_rows(conn, sql, params, limit, visible)
        rows, next_cursor = _page_of(found, limit, query, 1)
        return rows, self._catalog.run_refs(conn, (r[1] for r in rows)), next_cursor, cut
