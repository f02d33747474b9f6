"""What the store's queries return: frozen pydantic models the server can ``model_dump()`` as JSON.

All times are epoch seconds. Lists come newest first unless stated otherwise, and every list
that can grow with the number of runs is paginated with ``next_cursor`` (None on the last page).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from lineage.graph import Endpoint, FieldGraph
from lineage.model import Direction, FieldOperation

T = TypeVar("T")

CUT_DOC = "true when runs, datasets or fields the caller may not read were left out (lineage.visibility)"


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Page(_Result, Generic[T]):
    items: tuple[T, ...] = ()
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class FieldRef(_Result):
    namespace: str
    dataset: str
    field: str


class FieldInfo(_Result):
    """A field with lineage in the queried range.

    ``created`` is the start of the first run that ever wrote or read it; ``updated``/``last_run``
    are the newest run *in the range* that wrote or read it. ``incoming`` = some run in the range
    wrote it (it has backward lineage); ``outgoing`` = some run in the range read it.
    """

    name: str
    created: int
    updated: int
    last_run: str
    incoming: bool
    outgoing: bool


class FieldPair(_Result):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    source: str = Field(alias="from")
    target: str = Field(alias="to")


class DatasetMapping(_Result):
    """Field mappings from one dataset to another, found ``level`` hops away from the queried dataset."""

    level: int
    source: Endpoint
    destination: Endpoint
    fieldmap: tuple[FieldPair, ...]


class LineageSummary(_Result):
    namespace: str
    dataset: str
    direction: Direction
    start: int
    end: int
    levels: int
    mappings: tuple[DatasetMapping, ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class RunRef(_Result):
    namespace: str
    program: str
    run_id: str
    start: int


class OperationGroup(_Result):
    """Runs in the range that share one operation set, with that set pruned to the queried field.

    ``fields`` are the fields at the other end: the source fields (backward) or the destination
    fields (forward). ``runs`` are the newest ``max_runs`` runs of the group in the range.
    """

    checksum: str
    last_run_start: int
    runs: tuple[RunRef, ...]
    operations: tuple[FieldOperation, ...]
    graph: FieldGraph
    fields: tuple[FieldRef, ...]


class FieldLineage(_Result):
    namespace: str
    dataset: str
    field: str
    direction: Direction
    start: int
    end: int
    groups: tuple[OperationGroup, ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class PropertiesEntry(_Result):
    run: RunRef
    properties: dict[str, str]


class ColumnHistoryEntry(_Result):
    """The stored directive tree of one column in one run; ``truncated`` if ``max_levels`` cut it."""

    run: RunRef
    tree: dict[str, Any]
    truncated: bool


class FieldDiff(_Result):
    """How one field's lineage differs between run ``a`` and run ``b`` (added = in b, not in a)."""

    namespace: str
    dataset: str
    field: str
    direction: Direction
    run_a: RunRef
    run_b: RunRef
    checksum_a: str
    checksum_b: str
    added_operations: tuple[FieldOperation, ...]
    removed_operations: tuple[FieldOperation, ...]
    added_fields: tuple[FieldRef, ...]
    removed_fields: tuple[FieldRef, ...]
    changed: bool


class RunSummary(_Result):
    namespace: str
    program: str
    run_id: str
    start: int
    end: int | None
    status: str
    checksum: str
    destination: Endpoint


class PropertiesByDataset(_Result):
    dataset: Endpoint
    properties: dict[str, str]


class RunRecord(RunSummary):
    """A run with everything recorded for it."""

    destination_description: str
    destination_fields: tuple[str, ...]
    sources: tuple[Endpoint, ...]
    operations: tuple[FieldOperation, ...]
    dataset_properties: tuple[PropertiesByDataset, ...]
    columns_with_history: tuple[str, ...]
    #: Each destination column's stored directive tree (INDIRECT influences included), for exports.
    column_trees: dict[str, dict[str, Any]] = {}
    cut: bool = Field(False, description=CUT_DOC)
