"""Which namespaces an answer may show, and how a lineage answer is cut where it would leave them.

Lineage crosses namespaces: a run in ``teamA`` may read a dataset of ``teamB``, and a run of
``teamB`` may read ``teamA``'s. Whoever asks ``teamA``'s lineage with a token that may read
``teamA`` alone must not learn ``teamB``'s runs, datasets or fields from the answer - not in a
graph node, an operation input, a field reference, a run reference or a field's ``last_run``.

So every store query takes a ``Visibility``. The store leaves out the runs of namespaces it does
not see (in SQL, so pages stay full) and stops walking the graph at datasets it does not see; the
pure functions here cut what remains of an answer at the boundary:

* an operation that writes a dataset out of sight is dropped; an operation that reads keeps only
  the datasets in sight, and is dropped when none is left (its outputs stay, as fields whose
  origin is cut);
* a graph node on a dataset out of sight is dropped, with every connection that touches it;
* a field reference to a dataset out of sight is dropped.

Every answer says whether anything was cut (``cut``), so a client never mistakes a cut graph for
the whole one. ``EVERYTHING`` is the view of an open server or an operator's token: nothing is
filtered and the queries run exactly as without visibility.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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


def cut_operations(
    operations: Iterable[FieldOperation], visible: Visibility
) -> tuple[tuple[FieldOperation, ...], bool]:
    """The operations cut at the datasets out of sight (see the module docstring), and whether any was."""
    kept: list[FieldOperation] = []
    cut = False
    for op in operations:
        if op.destination is not None and not visible.sees_dataset(op.destination):
            cut = True
            continue
        datasets = [i.dataset for i in op.inputs if i.dataset is not None]
        if datasets and not all(visible.sees_dataset(ref) for ref in datasets):
            cut = True
            inputs = tuple(i for i in op.inputs if i.dataset is not None and visible.sees_dataset(i.dataset))
            if not inputs:
                continue
            op = op.model_copy(update={"inputs": inputs})
        kept.append(op)
    return tuple(kept), cut


def cut_graph(graph: FieldGraph, visible: Visibility) -> tuple[FieldGraph, bool]:
    """The graph without nodes on datasets out of sight and without the connections touching them."""
    dropped = {
        node.id
        for node in graph.nodes
        if any(end is not None and not visible.sees(end.namespace)
               for end in (node.source_endpoint, node.destination_endpoint))
    }
    if not dropped:
        return graph, False
    nodes = tuple(node for node in graph.nodes if node.id not in dropped)
    connections = tuple(c for c in graph.connections if c.source not in dropped and c.target not in dropped)
    return FieldGraph(nodes=nodes, connections=connections), True
