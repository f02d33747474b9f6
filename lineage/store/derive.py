"""What the store computes from an operation set, once per checksum, and keeps in a small LRU.

Runs of the same pipeline share one operation set, so the expensive parts of a query (parsing
the operations, walking them, pruning them per field) depend on the checksum only. Computing them
once per checksum per process is what keeps query latency flat as the number of runs grows.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pydantic import TypeAdapter

from lineage import graph
from lineage.model import DatasetKey, Direction, FieldKey, FieldOperation

_OPERATIONS = TypeAdapter(tuple[FieldOperation, ...])

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Derived:
    """Endpoints and summaries of one operation set."""

    operations: tuple[FieldOperation, ...]
    destinations: dict[DatasetKey, tuple[str, ...]]
    sources: dict[DatasetKey, tuple[str, ...]]
    incoming: dict[FieldKey, frozenset[FieldKey]]
    outgoing: dict[FieldKey, frozenset[FieldKey]]


@dataclass(frozen=True)
class FieldView:
    """One field's pruned slice of an operation set, and the fields at the other end."""

    operations: tuple[FieldOperation, ...]
    graph: graph.FieldGraph
    fields: tuple[FieldKey, ...]


def derive(operations: Sequence[FieldOperation]) -> Derived:
    ops = tuple(operations)
    return Derived(
        operations=ops,
        destinations=graph.destination_fields(ops),
        sources=graph.source_fields(ops),
        incoming=graph.incoming_summary(ops),
        outgoing=graph.outgoing_summary(ops),
    )


def field_view(derived: Derived, field: FieldKey, direction: Direction) -> FieldView:
    pruned = tuple(graph.operations_for_field(derived.operations, field, direction))
    ends = derived.incoming if direction is Direction.BACKWARD else derived.outgoing
    return FieldView(operations=pruned, graph=graph.build_graph(pruned), fields=tuple(sorted(ends.get(field, ()))))


def operations_to_json(operations: Sequence[FieldOperation]) -> str:
    return json.dumps([op.stored_form() for op in operations], separators=(",", ":"), ensure_ascii=False)


def operations_from_json(text: str) -> tuple[FieldOperation, ...]:
    return _OPERATIONS.validate_json(text)


class LRU:
    """A small thread-safe LRU map; values are computed outside the lock (duplicates are harmless)."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._data: OrderedDict[object, object] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]  # type: ignore[return-value]
        value = compute()
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self._size:
                self._data.popitem(last=False)
        return value

    def discard(self, key: object) -> None:
        with self._lock:
            self._data.pop(key, None)


class DerivedCache:
    """Per-store caches keyed by checksum (never by database id, so they survive re-opening)."""

    def __init__(self, size: int = 256) -> None:
        self._derived = LRU(size)
        self._views = LRU(size * 16)

    def derived(self, checksum: str, load: Callable[[], Sequence[FieldOperation]]) -> Derived:
        return self._derived.get_or_compute(checksum, lambda: derive(load()))

    def field_view(self, checksum: str, derived: Derived, field: FieldKey, direction: Direction) -> FieldView:
        return self._views.get_or_compute((checksum, field, direction), lambda: field_view(derived, field, direction))
