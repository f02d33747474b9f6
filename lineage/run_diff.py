"""What changed in a pipeline's output between two of its runs: columns added, dropped, renamed, re-derived.

No lineage system shows this (reference/lineage-anchors.md §8.3); the store already keeps both
runs whole, so the diff is a pure function of two ``RunRecord``s:

* a column's *lineage* is the set of source fields it derives from plus the steps on its pruned
  path (a step is the directive text when the run came from a recipe, else the operation's name
  and description): two runs agree on a column when both are equal. Directive positions are left
  out on purpose, so a directive inserted above leaves the columns it does not touch unchanged;
* a dropped column and an added one are a **rename** when the added column's stored directive tree
  renames the dropped one (``rename :a :b`` at the end of the recipe), or else when they are the only
  pair with the same non-empty sources - the same value under a new name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lineage.graph import incoming_summary, operations_for_field
from lineage.model import Direction, FieldKey, OperationType
from lineage.store.results import CUT_DOC, RunRecord, RunRef

RenameEvidence = Literal["rename directive", "same sources"]


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ColumnRename(_Result):
    before: str
    after: str
    evidence: RenameEvidence


class ColumnChange(_Result):
    """A column both runs wrote whose lineage differs; sources are ``dataset.field``."""

    column: str
    sources_added: tuple[str, ...]
    sources_removed: tuple[str, ...]
    steps_added: tuple[str, ...]
    steps_removed: tuple[str, ...]


class RunDiff(_Result):
    run: RunRef
    previous: RunRef | None
    same_operations: bool
    """The two runs share one operation set (checksum): nothing below can differ."""
    added_columns: tuple[str, ...] = ()
    dropped_columns: tuple[str, ...] = ()
    renamed_columns: tuple[ColumnRename, ...] = ()
    changed_columns: tuple[ColumnChange, ...] = ()
    unchanged_columns: tuple[str, ...] = ()
    sources_added: tuple[str, ...] = ()
    sources_removed: tuple[str, ...] = ()
    cut: bool = Field(False, description=CUT_DOC)


class _ColumnLineage:
    """One run's view of its destination columns: their sources and the steps that made them."""

    def __init__(self, record: RunRecord) -> None:
        self.record = record
        self.destination = FieldKey(record.destination.namespace, record.destination.name, "")
        summary = incoming_summary(record.operations)
        self.sources: dict[str, frozenset[str]] = {}
        for column in record.destination_fields:
            keys = summary.get(FieldKey(self.destination.namespace, self.destination.dataset, column), frozenset())
            self.sources[column] = frozenset(_field_name(record, key) for key in keys)

    def steps(self, column: str) -> frozenset[str]:
        target = FieldKey(self.destination.namespace, self.destination.dataset, column)
        return frozenset(
            _step(op.name, op.description, op.properties)
            for op in operations_for_field(self.record.operations, target, Direction.BACKWARD)
            if op.type is OperationType.TRANSFORM
        )

    def renamed_from(self, column: str) -> Iterator[str]:
        """Names the column's stored tree says it had before, following renames from the root down."""
        node: Any = self.record.column_trees.get(column)
        while isinstance(node, dict) and node.get("label") in ("RENAME", "SWAP"):
            before = node.get("before")
            if isinstance(before, str):
                yield before
            upstream = node.get("upstream")
            node = upstream[0] if isinstance(upstream, list) and len(upstream) == 1 else None


def _field_name(record: RunRecord, key: FieldKey) -> str:
    """``dataset.field``, with the namespace only when it is not the run's own."""
    prefix = key.dataset if key.namespace == record.namespace else f"{key.namespace}:{key.dataset}"
    return f"{prefix}.{key.field}"


def _step(name: str, description: str, properties: dict[str, str]) -> str:
    directive = properties.get("directive")
    if directive:
        return directive
    return f"{name}: {description}" if description else name


def _ref(record: RunRecord) -> RunRef:
    return RunRef(namespace=record.namespace, program=record.program, run_id=record.run_id, start=record.start)


def _renames(before: _ColumnLineage, after: _ColumnLineage, dropped: list[str],
             added: list[str]) -> list[ColumnRename]:
    renames: list[ColumnRename] = []
    open_dropped, open_added = list(dropped), list(added)
    for column in added:
        old = next((name for name in after.renamed_from(column) if name in open_dropped), None)
        if old is not None:
            renames.append(ColumnRename(before=old, after=column, evidence="rename directive"))
            open_dropped.remove(old)
            open_added.remove(column)
    for column in list(open_added):
        sources = after.sources[column]
        matches = [old for old in open_dropped if sources and before.sources[old] == sources]
        rivals = [new for new in open_added if after.sources[new] == sources]
        if len(matches) == 1 and len(rivals) == 1:
            renames.append(ColumnRename(before=matches[0], after=column, evidence="same sources"))
            open_dropped.remove(matches[0])
            open_added.remove(column)
    return renames


def diff_runs(previous: RunRecord | None, run: RunRecord) -> RunDiff:
    """How ``run``'s output differs from ``previous``'s (None: the program's first run, nothing to compare)."""
    if previous is None:
        return RunDiff(run=_ref(run), previous=None, same_operations=False, cut=run.cut)
    cut = run.cut or previous.cut  # runs seen through a restricted view (lineage.visibility)
    if previous.checksum == run.checksum:
        return RunDiff(run=_ref(run), previous=_ref(previous), same_operations=True,
                       unchanged_columns=run.destination_fields, cut=cut)
    before, after = _ColumnLineage(previous), _ColumnLineage(run)
    old_columns, new_columns = previous.destination_fields, run.destination_fields
    dropped = [c for c in old_columns if c not in new_columns]
    added = [c for c in new_columns if c not in old_columns]
    renames = _renames(before, after, dropped, added)
    renamed_before = {r.before for r in renames}
    renamed_after = {r.after for r in renames}
    changed: list[ColumnChange] = []
    unchanged: list[str] = []
    for column in (c for c in new_columns if c in old_columns):
        steps_a, steps_b = before.steps(column), after.steps(column)
        sources_a, sources_b = before.sources[column], after.sources[column]
        if steps_a == steps_b and sources_a == sources_b:
            unchanged.append(column)
            continue
        changed.append(ColumnChange(column=column, sources_added=tuple(sorted(sources_b - sources_a)),
                                    sources_removed=tuple(sorted(sources_a - sources_b)),
                                    steps_added=tuple(sorted(steps_b - steps_a)),
                                    steps_removed=tuple(sorted(steps_a - steps_b))))
    old_sources = {_dataset(e.namespace, e.name, previous) for e in previous.sources}
    new_sources = {_dataset(e.namespace, e.name, run) for e in run.sources}
    return RunDiff(
        run=_ref(run),
        previous=_ref(previous),
        same_operations=False,
        added_columns=tuple(c for c in added if c not in renamed_after),
        dropped_columns=tuple(c for c in dropped if c not in renamed_before),
        renamed_columns=tuple(renames),
        changed_columns=tuple(changed),
        unchanged_columns=tuple(unchanged),
        sources_added=tuple(sorted(new_sources - old_sources)),
        sources_removed=tuple(sorted(old_sources - new_sources)),
        cut=cut,
    )


def _dataset(namespace: str, name: str, record: RunRecord) -> str:
    return name if namespace == record.namespace else f"{namespace}:{name}"
