"""Which namespaces an answer may show, and how a lineage answer is cut where it would leave them.

Lineage crosses namespaces: a run in ``teamA`` may read a dataset of ``teamB``, and a run of
``teamB`` may read ``teamA``'s. Whoever asks ``teamA``'s lineage with a token that may read
``teamA`` alone must not learn ``teamB``'s runs, datasets or fields from the answer - not in a
graph node, an operation input, a field reference, a run reference or a field's ``last_run``.

So every store query takes a ``Visibility``. The store leaves out the runs of namespaces it does
not see (in SQL, so pages stay full) and stops walking the graph at datasets it does not see; the
pure functions here cut what remains of an answer at the boundary:

* an operation that writes a dataset out of sight is dropped; an operation that reads keeps only
  the datasets in sight, and is dropped when none is left. Its outputs stay, as fields whose origin
  is cut: the origin is renamed ``cut#1``, ``cut#2`` … wherever it appears, because an operation's
  name often names what it read (the recorder calls a READ ``read:<dataset>.<field>``);
* a graph node on a dataset out of sight is dropped, with every connection that touches it, and
  the output nodes of a dropped operation are renamed like its origin;
* a field reference to a dataset out of sight is dropped.

Every answer says whether anything was cut (``cut``), so a client never mistakes a cut graph for
the whole one. ``EVERYTHING`` is the view of an open server or an operator's token: nothing is
filtered and the queries run exactly as without visibility.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from lineage.graph import DEFAULT_NAMESPACE, FieldGraph
from lineage.model import DatasetRef, FieldOperation


@dataclass(frozen=True, slots=True)
class Visibility:
    """The namespaces an answer may show; ``None`` means every namespace."""

    namespaces: frozenset[str] | None = None

    @property
    def everything(self) -> bool:
        return self.namespaces is None

    def sees(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces

    def sees_dataset(self, ref: DatasetRef) -> bool:
        return self.sees(ref.namespace or DEFAULT_NAMESPACE)

    @property
    def key(self) -> str:
        """Tells views apart in cache keys: ``*`` for everything, else the sorted namespaces."""
        if self.namespaces is None:
            return "*"
        return "\x00".join(sorted(self.namespaces))


EVERYTHING = Visibility()


def restricted(visible: Visibility | None) -> Visibility | None:
    """``visible`` if it filters anything, else None: lets a query keep its unfiltered fast path."""
    return None if visible is None or visible.everything else visible


CUT_ORIGIN = "cut#"
"""Prefix of the name that replaces a dropped operation's where later operations and nodes refer to it."""


class CutOperations(NamedTuple):
    operations: tuple[FieldOperation, ...]
    renamed: dict[str, str]
    """The names given to the dropped operations where the kept ones and the graph refer to them."""
    cut: bool


def cut_operations(operations: Iterable[FieldOperation], visible: Visibility) -> CutOperations:
    """The operations cut at the datasets out of sight (see the module docstring)."""
    ops = tuple(operations)
    taken = {op.name for op in ops}
    renamed: dict[str, str] = {}
    kept: list[FieldOperation] = []
    cut = False
    for op in ops:
        if op.destination is not None and not visible.sees_dataset(op.destination):
            cut = True
            renamed[op.name] = _placeholder(len(renamed) + 1, taken)
            continue
        datasets = [i.dataset for i in op.inputs if i.dataset is not None]
        if datasets and not all(visible.sees_dataset(ref) for ref in datasets):
            cut = True
            inputs = tuple(i for i in op.inputs if i.dataset is not None and visible.sees_dataset(i.dataset))
            if not inputs:
                renamed[op.name] = _placeholder(len(renamed) + 1, taken)
                continue
            op = op.model_copy(update={"inputs": inputs})
        kept.append(op)
    if not cut:
        return CutOperations(ops, {}, False)
    return CutOperations(tuple(_with_origins_renamed(op, renamed) for op in kept), renamed, True)


def _placeholder(number: int, taken: set[str]) -> str:
    name = f"{CUT_ORIGIN}{number}"
    while name in taken:
        name += "#"
    taken.add(name)
    return name


def _with_origins_renamed(op: FieldOperation, renamed: dict[str, str]) -> FieldOperation:
    if not any(i.origin in renamed for i in op.inputs):
        return op
    inputs = tuple(i.model_copy(update={"origin": renamed[i.origin]}) if i.origin in renamed else i
                   for i in op.inputs)
    return op.model_copy(update={"inputs": inputs})


def cut_graph(graph: FieldGraph, visible: Visibility, renamed: dict[str, str]) -> tuple[FieldGraph, bool]:
    """The graph without nodes on datasets out of sight and the connections touching them; the output nodes
    of the operations ``cut_operations`` dropped renamed as they were (``renamed``)."""
    dropped = {
        node.id
        for node in graph.nodes
        if any(end is not None and not visible.sees(end.namespace)
               for end in (node.source_endpoint, node.destination_endpoint))
    }
    new_ids: dict[str, str] = {}
    for node in graph.nodes:
        origin = node.id[: -len(node.label) - 1] if node.id.endswith(f".{node.label}") else None
        if origin in renamed:
            new_ids[node.id] = f"{renamed[origin]}.{node.label}"
    if not dropped and not new_ids:
        return graph, False
    nodes = tuple(node.model_copy(update={"id": new_ids[node.id]}) if node.id in new_ids else node
                  for node in graph.nodes if node.id not in dropped)
    connections = tuple(
        c.model_copy(update={"source": new_ids.get(c.source, c.source), "target": new_ids.get(c.target, c.target)})
        for c in graph.connections
        if c.source not in dropped and c.target not in dropped and c.operation not in renamed
    )
    return FieldGraph(nodes=nodes, connections=connections), True
