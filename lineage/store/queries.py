"""Field-lineage queries over a time range ``[start, end)`` (seconds, start inclusive, end exclusive).

Cost model — why these stay flat as runs accumulate. Let N be the runs in the range, C the
distinct operation sets (checksums) that ever touched the dataset, F its fields:

* ``fields``: F x 2 index seeks (newest 'b' and 'f' row per field in the range): O(F log N).
* ``summary``: per dataset reached, C seeks ("does checksum c have a run in range?", skipped
  entirely when the set's first/last run lie inside or outside the range), then cached edges.
* ``field_lineage``: per checksum that contains the field, one seek returning its newest
  ``max_runs`` runs; operations, pruning and graphs are cached per checksum.

None of them reads every run in the range; the work grows with C and F, and with log N.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Unpack

from lineage.errors import QueryError, RunNotFoundError
from lineage.graph import Endpoint
from lineage.model import Direction, FieldKey
from lineage.store.catalog import StoreState
from lineage.store.cursor import (
    ViewPageOptions,
    encode_cursor,
    name_position,
    offset_position,
    start_page,
)
from lineage.store.db import Conn, like_escaped, names_after
from lineage.store.keys import check_range, inverted_bounds, uninvert
from lineage.store.results import (
    DatasetMapping,
    FieldDiff,
    FieldInfo,
    FieldLineage,
    FieldPair,
    FieldRef,
    LineageSummary,
    OperationGroup,
    Page,
    RunRef,
)
from lineage.store.visible import visible_rows
from lineage.store.writer import BACKWARD, FORWARD
from lineage.visibility import cut_graph, cut_operations

MAX_LEVELS = 20
DEFAULT_MAX_RUNS = 20

_NEWEST_FIELD_ROW = (
    "SELECT inv_start, run_pk FROM field_runs WHERE direction = ? AND dataset_id = ? AND field = ? "
    "AND inv_start > ? AND inv_start <= ? ORDER BY inv_start, run_pk LIMIT 1"
)
_NEWEST_DATASET_RUNS = (
    "SELECT inv_start, run_pk FROM dataset_runs WHERE direction = ? AND dataset_id = ? AND checksum_id = ? "
    "AND inv_start > ? AND inv_start <= ? ORDER BY inv_start, run_pk LIMIT ?"
)
# The same rows with their run's namespace, for views that leave some namespaces out (lineage.store.visible).
_FIELD_ROWS_WITH_NAMESPACE = (
    "SELECT f.inv_start, f.run_pk, r.namespace FROM field_runs f JOIN runs r ON r.id = f.run_pk "
    "WHERE f.direction = ? AND f.dataset_id = ? AND f.field = ? AND f.inv_start > ? AND f.inv_start <= ? "
    "ORDER BY f.inv_start, f.run_pk"
)
_DATASET_RUNS_WITH_NAMESPACE = (
    "SELECT d.inv_start, d.run_pk, r.namespace FROM dataset_runs d JOIN runs r ON r.id = d.run_pk "
    "WHERE d.direction = ? AND d.dataset_id = ? AND d.checksum_id = ? AND d.inv_start > ? AND d.inv_start <= ? "
    "ORDER BY d.inv_start, d.run_pk"
)


def _code(direction: Direction) -> str:
    return BACKWARD if direction is Direction.BACKWARD else FORWARD


def active_checksums(
    conn: Conn, direction: Direction, dataset_id: int, start: int, end: int
) -> list[int]:
    """Operation sets with at least one run in ``[start, end)`` that wrote (backward) / read (forward) the dataset."""
    lo, hi = inverted_bounds(start, end)
    code = _code(direction)
    active: list[int] = []
    rows = conn.execute(
        "SELECT checksum_id, first_start, last_start FROM dataset_checksums WHERE direction = ? AND dataset_id = ?",
        (code, dataset_id),
    ).fetchall()
    for checksum_id, first, last in rows:
        if last < start or first >= end:
            continue
        inside = first >= start and last < end
        if inside or conn.execute(_NEWEST_DATASET_RUNS, (code, dataset_id, checksum_id, lo, hi, 1)).fetchone():
            active.append(checksum_id)
    return active


# --------------------------------------------------------------------------- fields




# --------------------------------------------------------------------------- summary




# --------------------------------------------------------------------------- detailed per-field lineage




# --------------------------------------------------------------------------- diff between two runs


def _run_row(conn: Conn, namespace: str, run_id: str) -> tuple[RunRef, int]:
    row = conn.execute(
        "SELECT namespace, program, run_id, start_time, checksum_id FROM runs WHERE namespace = ? AND run_id = ?",
        (namespace, run_id),
    ).fetchone()
    if row is None:
        raise RunNotFoundError(f"no run {run_id!r} in namespace {namespace!r}")
    return RunRef(namespace=row[0], program=row[1], run_id=row[2], start=row[3]), int(row[4])


class FieldQueries(StoreState):
    """Field lineage over a time range: fields, summary, per-field lineage, diffs between runs."""

    def fields(
        self, namespace: str, dataset: str, start: int, end: int,
        *, prefix: str | None = None, **options: Unpack[ViewPageOptions]
    ) -> Page[FieldInfo]:
        """Fields written or read by runs in the range, by name; ``prefix`` is a case-insensitive filter.

        With a restricted ``visible``, only runs it sees count: a field only runs out of sight touched is
        left out, and ``updated``/``last_run`` come from the newest run in sight.
        """
        with self._db.read() as conn:
            catalog = self._catalog
            lo, hi = inverted_bounds(start, end)
            limit, visible, query, position = start_page(
                options, {"q": "fields", "ns": namespace, "ds": dataset, "start": start, "end": end, "prefix": prefix})
            after = name_position(position)
            dataset_id = catalog.dataset_id(conn, namespace, dataset)
            if dataset_id is None:
                return Page()
            params: list[Any] = [dataset_id]
            sql = names_after(conn.like, "SELECT field, created FROM dataset_fields WHERE dataset_id = ?", params,
                              "field", after, like_escaped(prefix) + "%" if prefix else "")

            found: list[tuple[str, int, tuple[int, int], bool, bool]] = []
            has_more = False
            cut = False
            for name, created in conn.execute(sql, params):
                newest: tuple[int, int] | None = None
                seen: dict[str, bool] = {}
                for code in (BACKWARD, FORWARD):
                    if visible is None:
                        row = conn.execute(_NEWEST_FIELD_ROW, (code, dataset_id, name, lo, hi)).fetchone()
                    else:
                        rows, skipped = visible_rows(conn, _FIELD_ROWS_WITH_NAMESPACE, (code, dataset_id, name, lo, hi),
                                                     visible, 1)
                        row, cut = (rows[0] if rows else None), cut or skipped
                    seen[code] = row is not None
                    if row is not None and (newest is None or tuple(row) < newest):
                        newest = (row[0], row[1])
                if newest is None:
                    continue
                if len(found) == limit:
                    has_more = True
                    break
                found.append((name, created, newest, seen[BACKWARD], seen[FORWARD]))
            refs = catalog.run_refs(conn, (newest[1] for _, _, newest, _, _ in found))
            items = tuple(
                FieldInfo(
                    name=name,
                    created=created,
                    updated=uninvert(newest[0]),
                    last_run=refs[newest[1]].run_id,
                    incoming=incoming,
                    outgoing=outgoing,
                )
                for name, created, newest, incoming, outgoing in found
            )
            next_cursor = encode_cursor(query, items[-1].name) if has_more else None
            return Page(items=items, next_cursor=next_cursor, cut=cut)

    def summary(
        self, namespace: str, dataset: str, direction: Direction | str, start: int, end: int,
        *, levels: int = 1, **options: Unpack[ViewPageOptions]
    ) -> LineageSummary:
        """Dataset-to-dataset field mappings, ``levels`` hops from the dataset, for runs in the range.

        Level 1 maps the dataset's fields to the datasets that fed them (backward) or that they fed
        (forward). Level k+1 follows only the fields reached at level k, so the answer stays a field
        closure (A -> B -> C asked backward from C with levels=2 reaches A through the B fields that
        C used, not through every field of B). Each (dataset, field) is expanded at most once, which
        also ends cycles.

        A restricted ``visible`` stops the walk at datasets out of sight: no mapping to one, nothing beyond.
        """
        with self._db.read() as conn:
            catalog = self._catalog
            direction = Direction.parse(direction)
            check_range(start, end)
            if isinstance(levels, bool) or not isinstance(levels, int) or not 1 <= levels <= MAX_LEVELS:
                raise QueryError(f"levels must be an integer between 1 and {MAX_LEVELS}, got {levels!r}")
            limit, visible, query, position = start_page(options, {
                "q": "summary", "ns": namespace, "ds": dataset, "dir": direction.value, "start": start, "end": end,
                "levels": levels,
            })
            offset = offset_position(position)
            cut = False

            mappings: dict[tuple[int, int, int], set[tuple[str, str]]] = defaultdict(set)
            root = catalog.dataset_id(conn, namespace, dataset)
            frontier: dict[int, set[str] | None] = {} if root is None else {root: None}
            expanded: set[tuple[int, str]] = set()
            for level in range(1, levels + 1):
                next_frontier: defaultdict[int, set[str]] = defaultdict(set)
                for dataset_id, wanted in frontier.items():
                    for checksum_id in active_checksums(conn, direction, dataset_id, start, end):
                        edges = catalog.edges(conn, checksum_id, dataset_id, direction)
                        for anchor_field, other_id, other_field in edges:
                            if wanted is not None and anchor_field not in wanted:
                                continue
                            if visible is not None and not visible.sees(catalog.dataset_key(conn, other_id).namespace):
                                cut = True
                                continue
                            expanded.add((dataset_id, anchor_field))
                            if direction is Direction.BACKWARD:
                                mappings[(level, other_id, dataset_id)].add((other_field, anchor_field))
                            else:
                                mappings[(level, dataset_id, other_id)].add((anchor_field, other_field))
                            if (other_id, other_field) not in expanded:
                                next_frontier[other_id].add(other_field)
                # a field can be reached before its own expansion at this level (a run reading and writing one dataset)
                pending = {k: {f for f in v if (k, f) not in expanded} for k, v in next_frontier.items()}
                frontier = {k: v for k, v in pending.items() if v}
                if not frontier:
                    break

            def endpoint(dataset_id: int) -> Endpoint:
                key = catalog.dataset_key(conn, dataset_id)
                return Endpoint(namespace=key.namespace, name=key.name)

            ordered = sorted(
                (
                    DatasetMapping(
                        level=level,
                        source=endpoint(src),
                        destination=endpoint(dst),
                        fieldmap=tuple(FieldPair(source=a, target=b) for a, b in sorted(pairs)),
                    )
                    for (level, src, dst), pairs in mappings.items()
                ),
                key=lambda m: (m.level, m.source.namespace, m.source.name, m.destination.namespace, m.destination.name),
            )
            page = ordered[offset : offset + limit]
            next_cursor = encode_cursor(query, offset + limit) if offset + limit < len(ordered) else None
            return LineageSummary(
                namespace=namespace,
                dataset=dataset,
                direction=direction,
                start=start,
                end=end,
                levels=levels,
                mappings=tuple(page),
                next_cursor=next_cursor,
                cut=cut,
            )

    def field_lineage(
        self, namespace: str, dataset: str, field: str, direction: Direction | str, start: int, end: int,
        *, max_runs: int = DEFAULT_MAX_RUNS, **options: Unpack[ViewPageOptions]
    ) -> FieldLineage:
        """Operations that made (backward) or consumed (forward) one field, grouped by operation set.

        Groups are ordered by their newest run in the range, newest first; each carries its newest
        ``max_runs`` runs, the operations pruned to the field in topological order, and the graph.

        A restricted ``visible`` lists only the runs it sees (a group none of whose runs it sees is left
        out) and cuts each group's operations, graph and fields at the datasets out of sight.
        """
        with self._db.read() as conn:
            catalog = self._catalog
            direction = Direction.parse(direction)
            if isinstance(max_runs, bool) or not isinstance(max_runs, int) or not 1 <= max_runs <= 1000:
                raise QueryError(f"max_runs must be an integer between 1 and 1000, got {max_runs!r}")
            lo, hi = inverted_bounds(start, end)
            limit, visible, query, position = start_page(options, {
                "q": "field_lineage", "ns": namespace, "ds": dataset, "f": field, "dir": direction.value,
                "start": start, "end": end, "max_runs": max_runs,
            })
            offset = offset_position(position)
            result = {
                "namespace": namespace,
                "dataset": dataset,
                "field": field,
                "direction": direction,
                "start": start,
                "end": end,
            }
            dataset_id = catalog.dataset_id(conn, namespace, dataset)
            if dataset_id is None:
                return FieldLineage(groups=(), **result)
            code = _code(direction)
            candidates = [
                row[0]
                for row in conn.execute(
                    "SELECT checksum_id FROM checksum_fields WHERE direction = ? AND dataset_id = ? AND field = ?",
                    (code, dataset_id, field),
                )
            ]
            found: list[tuple[int, int, list[tuple[int, int]]]] = []
            cut = False
            for checksum_id in candidates:
                params = (code, dataset_id, checksum_id, lo, hi)
                if visible is None:
                    runs = conn.execute(_NEWEST_DATASET_RUNS, (*params, max_runs)).fetchall()
                else:
                    runs, skipped = visible_rows(conn, _DATASET_RUNS_WITH_NAMESPACE, params, visible, max_runs)
                    cut = cut or skipped
                if runs:
                    found.append((runs[0][0], checksum_id, runs))
            found.sort(key=lambda g: (g[0], g[1]))
            page = found[offset : offset + limit]
            refs = catalog.run_refs(conn, (pk for _, _, runs in page for _, pk in runs))
            target = FieldKey(namespace, dataset, field)
            groups = []
            for newest_inv, checksum_id, runs in page:
                checksum, derived = catalog.derived(conn, checksum_id)
                view = catalog.cache.field_view(checksum, derived, target, direction)
                operations, graph, ends = view.operations, view.graph, view.fields
                if visible is not None:
                    operations, renamed, cut_ops = cut_operations(operations, visible)
                    graph, cut_nodes = cut_graph(graph, visible, renamed)
                    ends = tuple(k for k in ends if visible.sees(k.namespace))
                    cut = cut or cut_ops or cut_nodes or len(ends) != len(view.fields)
                groups.append(
                    OperationGroup(
                        checksum=checksum,
                        last_run_start=uninvert(newest_inv),
                        runs=tuple(refs[pk] for _, pk in runs),
                        operations=operations,
                        graph=graph,
                        fields=tuple(FieldRef(namespace=k.namespace, dataset=k.dataset, field=k.field) for k in ends),
                    )
                )
            next_cursor = encode_cursor(query, offset + limit) if offset + limit < len(found) else None
            return FieldLineage(groups=tuple(groups), next_cursor=next_cursor, cut=cut, **result)

    def diff_field(
        self,
        namespace: str,
        dataset: str,
        field: str,
        run_a: str,
        run_b: str,
        *,
        direction: Direction | str = Direction.BACKWARD,
        run_namespace: str | None = None,
    ) -> FieldDiff:
        """What changed in one field's (pruned) lineage from run ``a`` to run ``b``.

        Operations are compared by their full stored form (name, description, inputs, outputs,
        properties), so a renamed or re-described operation shows as removed + added. A field the run
        did not touch has empty lineage on that side. Runs are looked up in ``run_namespace``
        (default: the dataset's namespace).
        """
        with self._db.read() as conn:
            catalog = self._catalog
            direction = Direction.parse(direction)
            target = FieldKey(namespace, dataset, field)
            sides = []
            for run_id in (run_a, run_b):
                ref, checksum_id = _run_row(conn, run_namespace or namespace, run_id)
                checksum, derived = catalog.derived(conn, checksum_id)
                sides.append((ref, checksum, catalog.cache.field_view(checksum, derived, target, direction)))
            (ref_a, sum_a, view_a), (ref_b, sum_b, view_b) = sides
            ops_a = {op.model_dump_json(exclude={"type"}): op for op in view_a.operations}
            ops_b = {op.model_dump_json(exclude={"type"}): op for op in view_b.operations}
            added_ops = tuple(op for key, op in ops_b.items() if key not in ops_a)
            removed_ops = tuple(op for key, op in ops_a.items() if key not in ops_b)
            fields_a, fields_b = set(view_a.fields), set(view_b.fields)

            def refs(keys: set[FieldKey]) -> tuple[FieldRef, ...]:
                return tuple(FieldRef(namespace=k.namespace, dataset=k.dataset, field=k.field) for k in sorted(keys))

            added_fields, removed_fields = refs(fields_b - fields_a), refs(fields_a - fields_b)
            return FieldDiff(
                namespace=namespace,
                dataset=dataset,
                field=field,
                direction=direction,
                run_a=ref_a,
                run_b=ref_b,
                checksum_a=sum_a,
                checksum_b=sum_b,
                added_operations=added_ops,
                removed_operations=removed_ops,
                added_fields=added_fields,
                removed_fields=removed_fields,
                changed=bool(added_ops or removed_ops or added_fields or removed_fields),
            )
