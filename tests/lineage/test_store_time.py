"""Time ranges ([start, end): start inclusive, end exclusive) and cursor pagination of every list."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lineage.errors import InvalidCursorError
from lineage.model import DatasetRef, Destination, FieldOperation, RunInfo, read_fields
from lineage.recorder import LineageRecorder
from lineage.store import LineageStore, open_store

NS = "ns"
T0 = 1_600_000_000
FIELDS = ("a", "b", "c")


@pytest.fixture
def store(store_location: str | Path) -> Iterator[LineageStore]:
    s = open_store(store_location)
    yield s
    s.close()


def record(
    store: LineageStore,
    run_id: str,
    start: int,
    *,
    variant: str = "v1",
    source: str = "src",
    dest: str = "dst",
    fields: tuple[str, ...] = FIELDS,
) -> None:
    """A copy pipeline ``source -> dest``; ``variant`` changes the operations (and so the checksum)."""
    src = DatasetRef(name=source, properties={"path": f"/in/{run_id}"})
    ops = [*read_fields(src, fields)]
    ops += [FieldOperation(name=f"copy_{f}", description=variant, inputs=[f], outputs=[f]) for f in fields]
    run = RunInfo(namespace=NS, program="copy", run_id=run_id, start=start)
    history = {f: {"column": f, "run": run_id, "upstream": []} for f in fields}
    LineageRecorder(run, store).record(Destination(name=dest, fields=fields), ops, column_history=history)


def run_ids(items: Any) -> list[str]:
    return [i.run.run_id if hasattr(i, "run") else i.run_id for i in items]


def test_start_is_inclusive_and_end_exclusive_everywhere(store: LineageStore) -> None:
    for i in range(10):
        record(store, f"r{i}", T0 + 10 * i)
    lo, hi = T0 + 10, T0 + 30  # r1 and r2; r3 starts exactly at `end`
    assert run_ids(store.runs(NS, lo, hi).items) == ["r2", "r1"]
    assert run_ids(store.dataset_properties(NS, "src", lo, hi).items) == ["r2", "r1"]
    assert run_ids(store.column_history(NS, "dst", "a", lo, hi).items) == ["r2", "r1"]
    group = store.field_lineage(NS, "dst", "a", "backward", lo, hi).groups[0]
    assert [r.run_id for r in group.runs] == ["r2", "r1"] and group.last_run_start == T0 + 20
    info = store.fields(NS, "dst", lo, hi).items[0]
    assert (info.updated, info.last_run) == (T0 + 20, "r2")
    # an empty range, and ranges just outside the runs, find nothing
    assert store.runs(NS, T0 + 10, T0 + 10).items == ()
    assert store.fields(NS, "dst", T0 - 100, T0).items == ()
    assert store.field_lineage(NS, "dst", "a", "backward", T0 + 91, T0 + 1000).groups == ()
    assert store.summary(NS, "dst", "backward", T0 + 91, T0 + 1000).mappings == ()
    assert len(store.summary(NS, "dst", "backward", T0 + 90, T0 + 91).mappings) == 1


def test_operation_sets_are_selected_by_their_runs_in_range(store: LineageStore) -> None:
    record(store, "a0", T0, variant="A")
    record(store, "b0", T0 + 50, variant="B")
    record(store, "a1", T0 + 100, variant="A")  # A's first..last interval spans B, but A has no run there

    def checksums(lo: int, hi: int) -> set[str]:
        return {g.runs[0].run_id for g in store.field_lineage(NS, "dst", "a", "backward", lo, hi).groups}

    assert checksums(T0 + 10, T0 + 90) == {"b0"}
    assert checksums(T0, T0 + 51) == {"a0", "b0"}
    assert checksums(T0 + 51, T0 + 101) == {"a1"}
    assert checksums(T0 + 1, T0 + 50) == set()
    assert len(store.summary(NS, "dst", "backward", T0 + 10, T0 + 90).mappings) == 1
    assert store.summary(NS, "dst", "backward", T0 + 1, T0 + 50).mappings == ()
    groups = store.field_lineage(NS, "dst", "a", "backward", T0, T0 + 1000).groups
    assert [g.runs[0].run_id for g in groups] == ["a1", "b0"]  # grouped by checksum, newest first
    assert [r.run_id for r in groups[0].runs] == ["a1", "a0"]


def _collect(fetch: Callable[[str | None], Any], key: Callable[[Any], Any]) -> tuple[list[Any], int]:
    seen: list[Any] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = fetch(cursor)
        pages += 1
        items = getattr(page, "items", None)
        if items is None:
            items = getattr(page, "groups", None) or getattr(page, "mappings", ())
        seen.extend(key(i) for i in items)
        cursor = page.next_cursor
        if cursor is None:
            return seen, pages
        assert pages < 100


def test_runs_pagination_is_complete_without_duplicates_even_with_equal_start_times(store: LineageStore) -> None:
    for i in range(7):
        record(store, f"r{i}", T0 + 10 * (i // 3))  # three runs share each start time
    everything = run_ids(store.runs(NS, 0, T0 + 1000).items)
    assert len(everything) == 7
    paged, pages = _collect(lambda c: store.runs(NS, 0, T0 + 1000, limit=2, cursor=c), lambda r: r.run_id)
    assert paged == everything and pages == 4
    starts = [r.start for r in store.runs(NS, 0, T0 + 1000).items]
    assert starts == sorted(starts, reverse=True)


def test_every_list_paginates(store: LineageStore) -> None:
    wide = tuple(f"f{i:02d}" for i in range(7))
    for i in range(5):
        record(store, f"r{i}", T0 + i, variant=f"v{i % 3}", fields=wide)
    for i, source in enumerate(["s1", "s2", "s3"]):
        record(store, f"other{i}", T0 + 10 + i, source=source, fields=wide)
    span = (0, T0 + 1000)

    fields, pages = _collect(lambda c: store.fields(NS, "dst", *span, limit=3, cursor=c), lambda f: f.name)
    assert fields == list(wide) and pages == 3
    props, _ = _collect(lambda c: store.dataset_properties(NS, "src", *span, limit=2, cursor=c), lambda p: p.run.run_id)
    assert props == ["r4", "r3", "r2", "r1", "r0"]
    history, _ = _collect(
        lambda c: store.column_history(NS, "dst", "f03", *span, limit=3, cursor=c), lambda h: h.tree["run"]
    )
    assert history == ["other2", "other1", "other0", "r4", "r3", "r2", "r1", "r0"]
    groups, pages = _collect(
        lambda c: store.field_lineage(NS, "dst", "f00", "backward", *span, limit=1, cursor=c), lambda g: g.checksum
    )
    # variants v0, v1, v2 of src -> dst, plus one operation set per other source
    assert len(groups) == len(set(groups)) == 6 and pages == 6
    mappings, _ = _collect(
        lambda c: store.summary(NS, "dst", "backward", *span, limit=2, cursor=c), lambda m: m.source.name
    )
    assert mappings == ["s1", "s2", "s3", "src"]


def test_cursor_of_another_query_is_rejected(store: LineageStore) -> None:
    for i in range(3):
        record(store, f"r{i}", T0 + i)
    cursor = store.runs(NS, 0, T0 + 1000, limit=1).next_cursor
    assert cursor is not None
    assert store.runs(NS, 0, T0 + 1000, limit=1, cursor=cursor).items[0].run_id == "r1"
    with pytest.raises(InvalidCursorError, match="different query"):
        store.runs(NS, 0, T0 + 999, limit=1, cursor=cursor)
    with pytest.raises(InvalidCursorError, match="different query"):
        store.dataset_properties(NS, "src", 0, T0 + 1000, cursor=cursor)
