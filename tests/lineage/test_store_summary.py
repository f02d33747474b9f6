"""Multi-level summaries: A -> B -> C, asked from either end, with time ranges and cycles."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lineage.model import DatasetRef, Destination, FieldOperation, InputField, RunInfo
from lineage.recorder import LineageRecorder
from lineage.store import LineageStore, open_store
from lineage.store.results import LineageSummary

NS = "ns"
T0 = 1_700_000_000


@pytest.fixture
def store(store_location: str | Path) -> Iterator[LineageStore]:
    s = open_store(store_location)
    yield s
    s.close()


def copy_run(
    store: LineageStore, run_id: str, start: int, source: str, dest: str, mapping: dict[str, str]
) -> None:
    """One run reading ``source`` and writing ``dest`` with ``dest.to <- source.from`` per mapping item."""
    ref = DatasetRef(name=source)
    ops: list[FieldOperation] = []
    for src_field, dst_field in mapping.items():
        read = f"read_{src_field}"
        ops.append(FieldOperation(name=read, inputs=[InputField.of_dataset(ref, src_field)], outputs=[src_field]))
        ops.append(
            FieldOperation(
                name=f"map_{dst_field}", inputs=[InputField(field=src_field, origin=read)], outputs=[dst_field]
            )
        )
    run = RunInfo(namespace=NS, program=f"{source}_to_{dest}", run_id=run_id, start=start)
    LineageRecorder(run, store).record(Destination(name=dest, fields=tuple(mapping.values())), ops)


def flat(summary: LineageSummary) -> set[tuple[int, str, str, str, str]]:
    return {
        (m.level, m.source.name, p.source, m.destination.name, p.target) for m in summary.mappings for p in m.fieldmap
    }


@pytest.fixture
def chain(store: LineageStore) -> LineageStore:
    copy_run(store, "ab", T0, "A", "B", {"x": "x2", "y": "y2"})
    copy_run(store, "bc", T0 + 100, "B", "C", {"x2": "z"})
    return store


def test_backward_from_c_reaches_a_in_two_levels(chain: LineageStore) -> None:
    one = chain.summary(NS, "C", "backward", T0, T0 + 1000, levels=1)
    assert flat(one) == {(1, "B", "x2", "C", "z")}
    two = chain.summary(NS, "C", "backward", T0, T0 + 1000, levels=2)
    # only the B field that C used is followed: y -> y2 never reaches C
    assert flat(two) == {(1, "B", "x2", "C", "z"), (2, "A", "x", "B", "x2")}


def test_forward_from_a_reaches_c_in_two_levels(chain: LineageStore) -> None:
    two = chain.summary(NS, "A", "forward", T0, T0 + 1000, levels=2)
    assert flat(two) == {(1, "A", "x", "B", "x2"), (1, "A", "y", "B", "y2"), (2, "B", "x2", "C", "z")}
    assert flat(chain.summary(NS, "B", "forward", T0, T0 + 1000, levels=3)) == {(1, "B", "x2", "C", "z")}


def test_every_level_uses_the_same_time_range(chain: LineageStore) -> None:
    # the A -> B run started before this range, so level 2 finds nothing
    only_bc = chain.summary(NS, "C", "backward", T0 + 1, T0 + 1000, levels=2)
    assert flat(only_bc) == {(1, "B", "x2", "C", "z")}


def test_cycles_terminate_without_repeating_mappings(chain: LineageStore) -> None:
    copy_run(chain, "ca", T0 + 200, "C", "A", {"z": "x"})
    deep = chain.summary(NS, "C", "backward", T0, T0 + 1000, levels=10)
    assert flat(deep) == {(1, "B", "x2", "C", "z"), (2, "A", "x", "B", "x2"), (3, "C", "z", "A", "x")}


def test_unknown_dataset_has_an_empty_summary(chain: LineageStore) -> None:
    empty = chain.summary(NS, "Nope", "backward", T0, T0 + 1000, levels=3)
    assert empty.mappings == () and empty.next_cursor is None
    assert chain.summary("other-ns", "C", "backward", T0, T0 + 1000).mappings == ()


def test_a_dataset_rewritten_from_itself_is_not_expanded_twice(store: LineageStore) -> None:
    copy_run(store, "self", T0, "D", "D", {"a": "b"})
    copy_run(store, "self2", T0 + 1, "D", "D", {"b": "a"})
    deep = store.summary(NS, "D", "backward", T0, T0 + 1000, levels=5)
    assert flat(deep) == {(1, "D", "a", "D", "b"), (1, "D", "b", "D", "a")}
