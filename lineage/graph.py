"""Pure functions over a list of field operations: validation, origins, order, summaries, per-field views.

Nothing here touches storage; the store calls these once per distinct operation set (checksum)
and keeps the results, so the rules live in one place and are tested without a database.

Granularity rules (the same as CDAP's field lineage):

* every output of a READ or TRANSFORM depends on *all* of that operation's inputs;
* a WRITE is field-exact: destination field ``f`` depends only on the WRITE input named ``f``;
* an operation with no outputs (a drop) ends the fields it consumes; they reach no destination.

Per-field views are *pruned*: walking backward from a destination field keeps only the operations
on some path to it, and shows each kept operation with only the outputs that lead to the field;
walking forward from a source field keeps each operation with only the inputs that come from it.
That is how seed 000's ``ID`` field shows the HR parser with ``Employee_Name`` and ``Dept_Name``
but neither ``Salary`` nor the operations that consume ``Salary``.

Dataset namespaces that are still ``None`` (operations built by hand, never recorded) are read as
``DEFAULT_NAMESPACE``; recorded operations always carry explicit namespaces.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from lineage.errors import CycleError, LineageValidationError, Problem
from lineage.model import (
    DatasetKey,
    DatasetRef,
    Direction,
    FieldKey,
    FieldOperation,
    InputField,
    OperationType,
)

DEFAULT_NAMESPACE = "default"


def dataset_key(ref: DatasetRef) -> DatasetKey:
    return DatasetKey(ref.namespace or DEFAULT_NAMESPACE, ref.name)


# --------------------------------------------------------------------------- validation / origins


def check_operations(
    operations: Sequence[FieldOperation], *, require_read: bool = False, require_write: bool = False
) -> tuple[list[FieldOperation], list[Problem]]:
    """Resolve every field input to its origin and collect every problem instead of stopping at one.

    Returns the operations with explicit origins (in the given order) and the problems found.
    """
    problems: list[Problem] = []
    by_name: dict[str, FieldOperation] = {}
    for op in operations:
        if op.name in by_name:
            problems.append(Problem(f"operation name {op.name!r} is used more than once", operation=op.name))
        else:
            by_name[op.name] = op

    latest_producer: dict[str, str] = {}
    resolved: list[FieldOperation] = []
    for op in operations:
        new_inputs: list[InputField] = []
        changed = False
        for inp in op.inputs:
            if inp.is_dataset:
                new_inputs.append(inp)
                continue
            if inp.origin is not None:
                origin = by_name.get(inp.origin)
                if origin is None:
                    problems.append(
                        Problem(
                            f"operation {op.name!r}: input field {inp.field!r} names origin {inp.origin!r}, "
                            "but no operation has that name",
                            operation=op.name,
                            field=inp.field,
                        )
                    )
                elif inp.field not in origin.output_names:
                    problems.append(
                        Problem(
                            f"operation {op.name!r}: input field {inp.field!r} names origin {inp.origin!r}, "
                            f"which does not output {inp.field!r} (it outputs {list(origin.output_names)})",
                            operation=op.name,
                            field=inp.field,
                        )
                    )
                new_inputs.append(inp)
                continue
            producer = latest_producer.get(inp.field)
            if producer is None:
                if op.type is OperationType.WRITE:
                    message = (
                        f"destination field {inp.field!r} is not produced by any operation "
                        "(read it with a READ or map it with an identity operation)"
                    )
                else:
                    message = f"operation {op.name!r} reads field {inp.field!r}, but no earlier operation outputs it"
                problems.append(Problem(message, operation=op.name, field=inp.field))
                new_inputs.append(inp)
                continue
            new_inputs.append(InputField(field=inp.field, origin=producer))
            changed = True
        resolved.append(op.model_copy(update={"inputs": tuple(new_inputs)}) if changed else op)
        for name in op.output_names:
            latest_producer[name] = op.name

    types = {op.type for op in operations}
    if require_read and OperationType.READ not in types:
        problems.append(Problem("field lineage needs at least one READ operation (an operation with dataset inputs)"))
    if require_write and OperationType.WRITE not in types:
        problems.append(Problem("field lineage needs at least one WRITE operation"))
    if not problems:
        try:
            topological_order(resolved)
        except CycleError as exc:
            problems.extend(exc.problems)
    return resolved, problems


def validate_operations(
    operations: Sequence[FieldOperation], *, require_read: bool = True, require_write: bool = True
) -> list[FieldOperation]:
    """``check_operations`` that raises ``LineageValidationError`` listing every problem."""
    resolved, problems = check_operations(operations, require_read=require_read, require_write=require_write)
    if problems:
        raise LineageValidationError(problems)
    return resolved


def resolve_origins(operations: Sequence[FieldOperation]) -> list[FieldOperation]:
    """Operations with every field input's ``origin`` filled in; raises if one cannot be resolved."""
    if all(inp.is_dataset or inp.origin is not None for op in operations for inp in op.inputs):
        names = [op.name for op in operations]
        if len(set(names)) == len(names):
            return list(operations)
    return validate_operations(operations, require_read=False, require_write=False)


def topological_order(operations: Sequence[FieldOperation]) -> list[FieldOperation]:
    """Kahn's algorithm over origin edges; ties keep the recorded order, so output is deterministic.

    Origins that name operations outside the given list are ignored, so a pruned subset sorts too.
    """
    index = {op.name: i for i, op in enumerate(operations)}
    consumers: dict[str, set[str]] = defaultdict(set)
    indegree = {op.name: 0 for op in operations}
    for op in operations:
        for origin in {i.origin for i in op.inputs if i.origin is not None and i.origin in index}:
            if op.name not in consumers[origin]:
                consumers[origin].add(op.name)
                indegree[op.name] += 1
    ready = [(index[name], name) for name, degree in indegree.items() if degree == 0]
    heapq.heapify(ready)
    ordered: list[FieldOperation] = []
    while ready:
        _, name = heapq.heappop(ready)
        ordered.append(operations[index[name]])
        for consumer in consumers.get(name, ()):
            indegree[consumer] -= 1
            if indegree[consumer] == 0:
                heapq.heappush(ready, (index[consumer], consumer))
    if len(ordered) != len(operations):
        stuck = sorted(name for name, degree in indegree.items() if degree > 0)
        raise CycleError([Problem(f"operations {stuck} form a cycle through their origins", operation=stuck[0])])
    return ordered


def checksum(operations: Iterable[FieldOperation]) -> str:
    """sha256 (hex) of the canonical JSON of the operations sorted by name.

    Canonical = ``FieldOperation.stored_form()`` with sorted keys and no whitespace, so the same
    operations recorded in any order, by any process, hash the same.
    """
    ordered = sorted(operations, key=lambda op: op.name)
    text = json.dumps([op.stored_form() for op in ordered], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- endpoints and summaries


def destination_fields(operations: Sequence[FieldOperation]) -> dict[DatasetKey, tuple[str, ...]]:
    """Fields written per destination (the inputs of the WRITE operations), in recorded order."""
    result: dict[DatasetKey, list[str]] = {}
    for op in operations:
        if op.destination is not None:
            names = result.setdefault(dataset_key(op.destination), [])
            names.extend(i.field for i in op.inputs if i.field not in names)
    return {k: tuple(v) for k, v in result.items()}


def source_fields(operations: Sequence[FieldOperation]) -> dict[DatasetKey, tuple[str, ...]]:
    """Fields read per source dataset (the dataset inputs of READ operations), in recorded order."""
    result: dict[DatasetKey, list[str]] = {}
    for op in operations:
        for inp in op.inputs:
            if inp.dataset is not None:
                names = result.setdefault(dataset_key(inp.dataset), [])
                if inp.field not in names:
                    names.append(inp.field)
    return {k: tuple(v) for k, v in result.items()}


def operation_sources(operations: Sequence[FieldOperation]) -> dict[str, frozenset[FieldKey]]:
    """For each operation, the source dataset fields all of its outputs derive from (memoised walk)."""
    ordered = topological_order(resolve_origins(operations))
    memo: dict[str, frozenset[FieldKey]] = {}
    for op in ordered:
        found: set[FieldKey] = set()
        for inp in op.inputs:
            if inp.dataset is not None:
                found.add(FieldKey(*dataset_key(inp.dataset), inp.field))
            elif inp.origin is not None:
                found |= memo.get(inp.origin, frozenset())
        memo[op.name] = frozenset(found)
    return memo


def incoming_summary(operations: Sequence[FieldOperation]) -> dict[FieldKey, frozenset[FieldKey]]:
    """Destination field -> the source dataset fields it derives from (possibly empty: a constant)."""
    resolved = resolve_origins(operations)
    memo = operation_sources(resolved)
    summary: dict[FieldKey, set[FieldKey]] = {}
    for op in resolved:
        if op.destination is None:
            continue
        for inp in op.inputs:
            target = FieldKey(*dataset_key(op.destination), inp.field)
            summary.setdefault(target, set()).update(memo.get(inp.origin or "", frozenset()))
    return {k: frozenset(v) for k, v in summary.items()}


def outgoing_summary(operations: Sequence[FieldOperation]) -> dict[FieldKey, frozenset[FieldKey]]:
    """Source field -> the destination fields it reaches; a field that is only dropped maps to an empty set."""
    result: dict[FieldKey, set[FieldKey]] = {
        FieldKey(*key, name): set() for key, names in source_fields(operations).items() for name in names
    }
    for target, sources in incoming_summary(operations).items():
        for source in sources:
            result.setdefault(source, set()).add(target)
    return {k: frozenset(v) for k, v in result.items()}


# --------------------------------------------------------------------------- per-field pruning


def operations_for_field(
    operations: Sequence[FieldOperation], field: FieldKey, direction: Direction | str
) -> list[FieldOperation]:
    """The operations that feed a destination field (backward) or that a source field feeds (forward).

    Returned in topological order and pruned (see the module docstring). Empty when the field is
    not written (backward) or not read (forward) by these operations.
    """
    direction = Direction.parse(direction)
    ordered = topological_order(resolve_origins(operations))
    if direction is Direction.BACKWARD:
        return _backward(ordered, field)
    return _forward(ordered, field)


def _backward(ordered: list[FieldOperation], field: FieldKey) -> list[FieldOperation]:
    needed: dict[str, set[str]] = defaultdict(set)
    kept: dict[str, FieldOperation] = {}
    for op in reversed(ordered):
        if op.destination is not None:
            if dataset_key(op.destination) != field.dataset_key:
                continue
            inputs = tuple(i for i in op.inputs if i.field == field.field)
            if not inputs:
                continue
            kept[op.name] = op.model_copy(update={"inputs": inputs})
        elif op.name in needed:
            outputs = tuple(o for o in op.outputs if o.field in needed[op.name])
            kept[op.name] = op.model_copy(update={"outputs": outputs})
            inputs = op.inputs
        else:
            continue
        for inp in inputs:
            if inp.origin is not None:
                needed[inp.origin].add(inp.field)
    return [kept[op.name] for op in ordered if op.name in kept]


def _forward(ordered: list[FieldOperation], field: FieldKey) -> list[FieldOperation]:
    reached: set[str] = set()
    kept: list[FieldOperation] = []
    for op in ordered:
        if op.type is OperationType.READ:
            inputs = tuple(
                i for i in op.inputs if i.dataset is not None and FieldKey(*dataset_key(i.dataset), i.field) == field
            )
        else:
            inputs = tuple(i for i in op.inputs if i.origin in reached)
        if not inputs:
            continue
        reached.add(op.name)
        kept.append(op.model_copy(update={"inputs": inputs}) if inputs != op.inputs else op)
    return kept


# --------------------------------------------------------------------------- graph of nodes and connections


class Endpoint(BaseModel):
    """A dataset as shown on a graph node (``sourceEndPoint`` / ``destinationEndPoint`` in CDAP)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    namespace: str
    name: str


class GraphNode(BaseModel):
    """A field at one point of the flow.

    ``id`` is ``<origin operation>.<field>`` for fields produced by an operation (two ``body`` fields
    from two READs stay apart), ``source:<ns>:<dataset>.<field>`` for a dataset field that is read and
    ``destination:<ns>:<dataset>.<field>`` for a field written to the destination.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    label: str
    source_endpoint: Endpoint | None = None
    destination_endpoint: Endpoint | None = None


class Connection(BaseModel):
    """An edge ``from`` -> ``to`` caused by ``operation`` (serialised with the keys ``from``/``to``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    source: str = Field(alias="from")
    target: str = Field(alias="to")
    operation: str


class FieldGraph(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    nodes: tuple[GraphNode, ...] = ()
    connections: tuple[Connection, ...] = ()


def _op_node(origin: str, name: str) -> GraphNode:
    return GraphNode(id=f"{origin}.{name}", label=name)


def _endpoint_node(kind: str, ref: DatasetRef, name: str) -> GraphNode:
    key = dataset_key(ref)
    endpoint = Endpoint(namespace=key.namespace, name=key.name)
    node_id = f"{kind}:{key.namespace}:{key.name}.{name}"
    if kind == "source":
        return GraphNode(id=node_id, label=name, source_endpoint=endpoint)
    return GraphNode(id=node_id, label=name, destination_endpoint=endpoint)


def build_graph(operations: Sequence[FieldOperation]) -> FieldGraph:
    """Nodes and connections for (usually pruned) resolved operations, in topological order."""
    nodes: dict[str, GraphNode] = {}
    connections: dict[tuple[str, str, str], Connection] = {}

    def link(src: GraphNode, dst: GraphNode, operation: str) -> None:
        nodes.setdefault(src.id, src)
        nodes.setdefault(dst.id, dst)
        key = (src.id, dst.id, operation)
        connections.setdefault(key, Connection(source=src.id, target=dst.id, operation=operation))

    for op in topological_order(resolve_origins(operations)):
        if op.destination is not None:
            for inp in op.inputs:
                written = _endpoint_node("destination", op.destination, inp.field)
                link(_op_node(inp.origin or "", inp.field), written, op.name)
            continue
        outputs = [_op_node(op.name, name) for name in op.output_names]
        for node in outputs:
            nodes.setdefault(node.id, node)
        for inp in op.inputs:
            if inp.dataset is not None:
                src = _endpoint_node("source", inp.dataset, inp.field)
            else:
                src = _op_node(inp.origin or "", inp.field)
            nodes.setdefault(src.id, src)
            for dst in outputs:
                link(src, dst, op.name)
    return FieldGraph(nodes=tuple(nodes.values()), connections=tuple(connections.values()))


def field_graph(operations: Sequence[FieldOperation], field: FieldKey, direction: Direction | str) -> FieldGraph:
    """The detailed per-field view: ``build_graph`` over ``operations_for_field``."""
    return build_graph(operations_for_field(operations, field, direction))
