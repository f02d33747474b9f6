"""Column lineage from the recipe alone: walk the labelled ParseTree back from the final columns.

For each final column we find the last directive that produced that name and follow its
label: RENAME and SWAP map the new name to the old, MODIFY and ADD continue with the columns
the value was computed from, DROP ends a branch, and a column no directive produced is a
source column. Directives that only filter rows (their ``row_effect`` is FILTER / ERROR /
ABORT, or a READ label typed INDIRECT) attach to every column as INDIRECT influences; the
condition of an `if` block attaches as a CONDITIONAL influence to the columns its directives
make. Nothing here reads data, imports Spark, or knows any directive by name: everything comes
from the labels (`directives.labels`) the parser computed against the column list at each step
— which is how an input schema, propagated forward by the parser, makes `set-headers`, `keep`,
`columns-replace`, `change-column-case` and `cleanse-column-names` exact.

Without a schema, what cannot be known is over-approximated and said so on the edge
(``exact=False``): a positional rename (`set-headers`) points to an UNRESOLVED input, a
whole-schema rename points to ``*`` (any input column), a pattern (`body_<n>`) stands for the
members a later directive does not name.

Edges are typed the OpenLineage way (DIRECT: IDENTITY / TRANSFORMATION / AGGREGATION;
INDIRECT: FILTER / CONDITIONAL / SORT …) with ``masking`` for hashes and masks, and
`ColumnLineage.transformations` composes them along each path with OpenLineage's Spark rule
(INDIRECT wins, AGGREGATION > TRANSFORMATION > IDENTITY, masking is sticky).

The walk is iterative and memoised on (column, position): a 1,000-directive recipe over 500
columns is answered in milliseconds, and chains deeper than Python's recursion limit are fine.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from directives.base import RowEffect
from directives.column_state import ColumnState, pattern_regex
from directives.labels import ColumnLabel, EdgeKind, Label
from directives.recipe import Recipe, Step
from directives.transient_names import columns_only

SOURCE = "SOURCE"
FILTER = "FILTER"
CONDITIONAL = "CONDITIONAL"
UNRESOLVED = "UNRESOLVED"
ANY_COLUMN = "*"

_ROW_FILTERS = (RowEffect.FILTER, RowEffect.ERROR, RowEffect.ABORT)
_SUBTYPE_RANK = {EdgeKind.IDENTITY.value: 0, EdgeKind.TRANSFORMATION.value: 1, EdgeKind.AGGREGATION.value: 2}
_POSITIONAL = re.compile(r"#(\d+)")


@dataclass(frozen=True)
class DirectiveRef:
    index: int
    line: int
    text: str
    name: str

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "line": self.line, "text": self.text, "name": self.name}


@dataclass
class LineageNode:
    """One edge of a column's history: what `directive` did to make `column` (called `before` until then).

    Leaves have no directive: SOURCE (an input column), UNRESOLVED (an input the recipe cannot
    name without a schema or data). INDIRECT influences are FILTER / CONDITIONAL nodes whose
    ``upstream`` are the columns the predicate reads.
    """

    column: str
    label: str
    directive: DirectiveRef | None = None
    before: str | None = None
    exact: bool = True
    direct: bool = True
    subtype: str = EdgeKind.IDENTITY.value
    masking: bool = False
    upstream: list[LineageNode] = field(default_factory=list)

    @property
    def type(self) -> str:
        """OpenLineage's transformation type of this edge."""
        return "DIRECT" if self.direct else "INDIRECT"

    @property
    def after(self) -> str:
        return self.column

    def to_json(self, influences: Sequence[LineageNode] = ()) -> dict[str, object]:
        """Nested JSON; the child list is called `upstream` (the store truncates on that key).

        ``influences`` (the column's INDIRECT nodes) are put on the root under ``influences``.
        """
        root: dict[str, object] = {}
        stack: list[tuple[LineageNode, dict[str, object]]] = [(self, root)]
        while stack:
            node, out = stack.pop()
            out.update(
                column=node.column,
                label=node.label,
                directive=node.directive.to_json() if node.directive else None,
                type=node.type,
                subtype=node.subtype,
                exact=node.exact,
            )
            if node.directive is not None:
                out["before"] = node.before
                out["after"] = node.column
            if node.masking:
                out["masking"] = True
            children: list[dict[str, object]] = []
            out["upstream"] = children
            for child in node.upstream:
                child_out: dict[str, object] = {}
                children.append(child_out)
                stack.append((child, child_out))
        if influences:
            root["influences"] = [node._shared_json() for node in influences]
        return root

    def _shared_json(self) -> dict[str, object]:
        """to_json() computed once: an influence appears under every column's root (treat the result as read-only)."""
        cached = self.__dict__.get("_json")
        if cached is None:
            cached = self.to_json()
            self.__dict__["_json"] = cached
        return cached

    def walk(self) -> Iterable[LineageNode]:
        """Every node once (shared subtrees are visited once)."""
        seen: set[int] = set()
        stack = [self]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            yield node
            stack.extend(reversed(node.upstream))


@dataclass(frozen=True)
class Transformation:
    """How a final column depends on one input column, composed along the path(s) between them."""

    source: str
    type: str
    subtype: str
    masking: bool = False
    exact: bool = True

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"source": self.source, "type": self.type, "subtype": self.subtype}
        if self.masking:
            data["masking"] = True
        if not self.exact:
            data["exact"] = False
        return data


_State = tuple[str, str, bool, bool]  # (type, subtype, masking, exact)


def _compose(edge: LineageNode, below: _State) -> _State:
    """OpenLineage's rule for a chain: INDIRECT wins, then AGGREGATION > TRANSFORMATION > IDENTITY; masking sticks."""
    kind, subtype, masking, exact = below
    masking = masking or edge.masking
    exact = exact and edge.exact
    if kind == "INDIRECT":
        return kind, subtype, masking, exact
    if not edge.direct:
        return "INDIRECT", edge.subtype, masking, exact
    if _SUBTYPE_RANK.get(edge.subtype, 1) > _SUBTYPE_RANK.get(subtype, 1):
        subtype = edge.subtype
    return "DIRECT", subtype, masking, exact


def _source_states(root: LineageNode) -> dict[str, set[_State]]:
    """Input column -> the composed edge types of every path from it to ``root`` (DAG-memoised, iterative)."""
    memo: dict[int, dict[str, set[_State]]] = {}
    stack: list[tuple[LineageNode, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in memo:
            continue
        cached = node.__dict__.get("_states")
        if cached is not None:  # computed for another column sharing this subtree
            memo[id(node)] = cached
            continue
        if not expanded and node.upstream:
            stack.append((node, True))
            stack.extend((child, False) for child in node.upstream if id(child) not in memo)
            continue
        if node.directive is None:
            if node.label == SOURCE:
                memo[id(node)] = {node.column: {("DIRECT", EdgeKind.IDENTITY.value, False, node.exact)}}
            else:
                memo[id(node)] = {}
            continue
        states: dict[str, set[_State]] = {}
        for child in node.upstream:
            for source, below in memo[id(child)].items():
                states.setdefault(source, set()).update(_compose(node, state) for state in below)
        memo[id(node)] = states
        node.__dict__["_states"] = states
    return memo[id(root)]


def _influence_transformations(influence: LineageNode) -> list[Transformation]:
    """An INDIRECT influence's typed inputs; computed once, since every column of the recipe shares it."""
    cached = influence.__dict__.get("_transformations")
    if cached is None:
        cached = [
            Transformation(source, "INDIRECT", influence.subtype, masking, exact)
            for source, states in _source_states(influence).items()
            for _, _, masking, exact in sorted(states)
        ]
        influence.__dict__["_transformations"] = cached
    return cached


@dataclass(frozen=True)
class GeneratedColumns:
    """Output columns whose names only the data can tell (`body_<n>`), made by ``directive``: not a column itself."""

    pattern: str
    directive: DirectiveRef | None
    lineage: ColumnLineage

    @property
    def description(self) -> str:
        where = f"directive {self.directive.index}" if self.directive is not None else "the recipe"
        return f"columns named by the data, from {where}"

    def to_json(self) -> dict[str, object]:
        return {"pattern": self.pattern, "description": self.description,
                "directive": self.directive.to_json() if self.directive is not None else None,
                "sources": self.lineage.sources, "directives": self.lineage.directives,
                "exact": self.lineage.exact}


@dataclass
class ColumnLineage:
    """The lineage of one final column: its direct tree and the row-level (INDIRECT) influences."""

    column: str
    tree: LineageNode
    indirect: list[LineageNode]

    @property
    def sources(self) -> list[str]:
        """Input columns the value derives from (direct edges only), in first-seen order.

        An input the recipe cannot name without a schema is listed as the tree names it (`*` = any input
        column, `#2` = the second one); `exact` is then False.
        """
        names: list[str] = []
        for node in self.tree.walk():
            if node.directive is None and node.label in (SOURCE, UNRESOLVED) and node.column not in names:
                names.append(node.column)
        return names

    @property
    def path_directives(self) -> list[int]:
        """Indexes of the directives that made the value (the direct tree), in recipe order."""
        return sorted({node.directive.index for node in self.tree.walk() if node.directive is not None})

    @property
    def indirect_directives(self) -> list[int]:
        return sorted({node.directive.index for node in self.indirect if node.directive is not None})

    @property
    def directives(self) -> list[int]:
        """Every directive on the column's path — the direct tree and its INDIRECT influences — in recipe order."""
        return sorted({*self.path_directives, *self.indirect_directives})

    @property
    def exact(self) -> bool:
        return all(node.exact for node in self.tree.walk()) and all(
            node.exact for influence in self.indirect for node in influence.walk()
        )

    def transformations(self) -> list[Transformation]:
        """Per input column, how this column depends on it: DIRECT ones from the tree, then INDIRECT influences."""
        found: dict[tuple[str, str, str, bool], Transformation] = {}
        for source, states in _source_states(self.tree).items():
            for kind, subtype, masking, exact in sorted(states):
                key = (source, kind, subtype, masking)
                found.setdefault(key, Transformation(source, kind, subtype, masking, exact))
        for influence in self.indirect:
            for transformation in _influence_transformations(influence):
                key = (transformation.source, "INDIRECT", transformation.subtype, transformation.masking)
                found.setdefault(key, transformation)
        return list(found.values())

    def to_tree(self) -> dict[str, object]:
        """The column's history tree with its influences on the root: what a run stores for `wrangler history`."""
        return self.tree.to_json(self.indirect)

    def to_document(self) -> dict[str, object]:
        """The `wrangler lineage --format json` shape: exactly sources, directives (1-based) and the tree."""
        return {"sources": self.sources, "directives": self.directives, "tree": self.tree.to_json(self.indirect)}

    def to_json(self) -> dict[str, object]:
        """The API shape: the document plus the split into direct and indirect, and the precision flag."""
        return {
            "sources": self.sources,
            "directives": self.directives,
            "indirect": self.indirect_directives,
            "exact": self.exact,
            "tree": self.tree.to_json(self.indirect),
            "influences": [node._shared_json() for node in self.indirect],
        }


class _Index:
    """Where each column name is produced: step positions per lower-cased name, plus pattern producers.

    Pattern producers (`body_<n>`, `<header>`, `*`) are grouped by their literal prefix, so a lookup
    only tries the patterns whose prefix starts the name (a handful), never every pattern of the recipe.
    """

    def __init__(self, steps: Sequence[Step]) -> None:
        self.positions: dict[str, list[int]] = {}
        self.labels: dict[tuple[str, int], ColumnLabel] = {}
        #: literal prefix (lower-cased) -> [(position, label, regex or None for `*`)], positions ascending.
        self.patterns: dict[str, list[tuple[int, ColumnLabel, re.Pattern[str] | None, str]]] = {}
        self.pattern_positions: dict[str, list[int]] = {}
        self.drops_all: set[int] = set()
        #: names a pattern-producing step also labels by name (`keep :a` next to its `drop *`): the pattern skips them.
        self.shielded: dict[int, set[str]] = {}
        for position, step in enumerate(steps, start=1):
            has_pattern = False
            for label in step.labels:
                produced = _produced_name(label)
                if produced is None:
                    continue
                if label.pattern:
                    has_pattern = True
                    if produced == ANY_COLUMN:
                        prefix, regex = "", None
                        if label.label is Label.DROP:
                            self.drops_all.add(position)
                    else:
                        prefix, regex = _literal_prefix(produced).lower(), pattern_regex(produced)
                    self.patterns.setdefault(prefix, []).append((position, label, regex, produced.lower()))
                    self.pattern_positions.setdefault(prefix, []).append(position)
                    continue
                key = produced.lower()
                if (key, position) in self.labels:
                    continue
                self.labels[(key, position)] = label
                self.positions.setdefault(key, []).append(position)
            if has_pattern:
                self.shielded[position] = {
                    label.column.lower() for label in step.labels if not label.pattern and label.label is Label.READ
                }

    def producer(self, name: str, before: int) -> tuple[int, ColumnLabel] | None:
        """The last step at or before ``before`` that produced ``name``."""
        key = name.lower()
        best: tuple[int, ColumnLabel] | None = None
        positions = self.positions.get(key)
        if positions:
            at = bisect.bisect_right(positions, before) - 1
            if at >= 0:
                best = (positions[at], self.labels[(key, positions[at])])
        if not self.patterns:
            return best
        floor = best[0] if best is not None else 0
        matched: list[tuple[int, ColumnLabel]] = []
        for end in range(len(key) + 1):
            entries = self.patterns.get(key[:end])
            if not entries:
                continue
            index = bisect.bisect_right(self.pattern_positions[key[:end]], before) - 1
            while index >= 0:
                position, label, regex, produced = entries[index]
                if position <= floor or (matched and position < matched[0][0]):
                    break
                if key not in self.shielded.get(position, ()) and (
                    regex is None or produced == key or regex.fullmatch(name) is not None
                ):
                    if matched and position > matched[0][0]:
                        matched = []
                    matched.append((position, label))
                index -= 1
        if not matched:
            return best
        # One step may drop everything and generate new columns (a parser that replaces the row): the generated
        # name wins over the drop.
        for position, label in matched:
            if label.label is not Label.DROP:
                return position, label
        return matched[0]

    def drops(self, name: str, position: int) -> bool:
        """Whether step ``position`` drops ``name`` (by name, or all columns by a ``*`` pattern)."""
        label = self.labels.get((name.lower(), position))
        if label is not None and label.label is Label.DROP:
            return True
        return position in self.drops_all


def _produced_name(label: ColumnLabel) -> str | None:
    if label.label in (Label.RENAME, Label.SWAP):
        return label.to
    if label.label in (Label.ADD, Label.MODIFY, Label.DROP):
        return label.column
    return None


def _literal_prefix(pattern: str) -> str:
    return pattern.split("<", 1)[0]


def _ref(step: Step) -> DirectiveRef:
    call = step.directive.call
    return DirectiveRef(step.directive.index, call.span.line, call.text, step.directive.name)


class Backtracker:
    """Answers lineage questions about one recipe; memoised, so asking for every column costs little more than one."""

    def __init__(self, recipe: Recipe) -> None:
        self.recipe = recipe
        self.steps = recipe.steps
        self.index = _Index(recipe.steps)
        self.schema = {name.lower() for name in recipe.schema} if recipe.schema is not None else None
        self._memo: dict[tuple[str, int], LineageNode] = {}
        self._influences: list[tuple[LineageNode, int | None]] | None = None
        self._positional: dict[int, list[tuple[str, bool]]] | None = None

    def final_columns(self) -> list[str]:
        """The recipe's output columns known by name; a generated column a directive names (`swap :body_2 :body_3`)
        is one of them. Families whose names only the data can tell (`body_<n>`, `<header>`) are not columns:
        see `generated`."""
        return [name for name, pattern in self._outputs() if not pattern]

    def generated(self) -> list[GeneratedColumns]:
        """The output's data-named families (`body_<n>`, `<header>`), each with the directive that makes it and
        the lineage every member shares."""
        slots = {slot.name: slot for slot in self.recipe.final_columns.slots if slot.pattern is not None}
        refs = {step.directive.index: _ref(step) for step in self.steps}
        return [GeneratedColumns(name, refs.get(slots[name].created_by or 0), self.lineage(name))
                for name, pattern in self._outputs() if pattern]

    def _outputs(self) -> list[tuple[str, bool]]:
        """Every output slot in order, (name, is a pattern); members a directive names come right before their
        pattern, so their own history is not hidden behind `body_<n>`."""
        state = self.recipe.final_columns
        named: dict[str, list[str]] = {}
        for step in self.steps:
            for label in step.labels:
                if label.pattern or label.label in (Label.READ, Label.DROP):
                    continue
                for name in (label.column, label.to):
                    slot = state.find(name) if name else None
                    if name and slot is not None and slot.pattern is not None and name.lower() not in state.gone \
                            and name not in named.setdefault(slot.name, []):
                        named[slot.name].append(name)
        entries: list[tuple[str, bool]] = []
        for slot in state.slots:
            entries.extend((member, False) for member in named.get(slot.name, ()))
            entries.append((slot.name, slot.pattern is not None))
        return entries

    def member_of(self, name: str) -> GeneratedColumns | None:
        """The data-named family ``name`` belongs to, when the family has a literal part (`body_3` of `body_<n>`);
        a family that can be named anything (`<header>`) claims no name without data."""
        for family in self.generated():
            if _literal_prefix(family.pattern) and pattern_regex(family.pattern).fullmatch(name):
                return family
        return None

    def lineage(self, name: str) -> ColumnLineage:
        tree = self.node(name, len(self.steps))
        return ColumnLineage(name, tree, self._influences_for(tree))

    def all(self, columns: Sequence[str] | None = None) -> dict[str, ColumnLineage]:
        return {name: self.lineage(name) for name in (columns if columns is not None else self.final_columns())}

    def indirect(self) -> list[LineageNode]:
        """Every row-level influence of the recipe (filters, error routing, `if` conditions), in recipe order."""
        return [node for node, _ in self._all_influences()]

    # -- INDIRECT ----------------------------------------------------------------------------------------------------
    def _all_influences(self) -> list[tuple[LineageNode, int | None]]:
        """(influence, scope): scope None means every column, else only columns made by that directive."""
        if self._influences is None:
            self._influences = []
            for position, step in enumerate(self.steps, start=1):
                filters = step.directive.row_effect in _ROW_FILTERS
                multiplies = step.directive.row_effect is RowEffect.MULTIPLY
                by_kind: dict[str, list[str]] = {}
                for label in step.labels:
                    if multiplies and label.label is Label.MODIFY:
                        # the old values decide how many rows there are (`flatten :a,:b`: a and b, for every column)
                        by_kind.setdefault(EdgeKind.EXPLODE.value, []).extend(label.sources)
                    if label.label is not Label.READ:
                        continue
                    if not label.kind.is_direct:
                        by_kind.setdefault(label.kind.value, []).append(label.column)
                    elif filters:
                        by_kind.setdefault(EdgeKind.FILTER.value, []).append(label.column)
                    elif multiplies:
                        by_kind.setdefault(EdgeKind.EXPLODE.value, []).append(label.column)
                if filters and not by_kind:
                    by_kind[EdgeKind.FILTER.value] = []  # a filter that reads no column still drops rows
                for subtype, columns in by_kind.items():
                    node = LineageNode(
                        column=ANY_COLUMN,
                        label=FILTER if subtype == EdgeKind.FILTER.value else subtype,
                        directive=_ref(step),
                        direct=False,
                        subtype=subtype,
                        upstream=[self.node(column, position - 1) for column in dict.fromkeys(columns)],
                    )
                    self._influences.append((node, None))
                condition = step.directive.call.condition
                if condition is not None:
                    node = LineageNode(
                        column=ANY_COLUMN,
                        label=CONDITIONAL,
                        directive=_ref(step),
                        direct=False,
                        subtype=EdgeKind.CONDITIONAL.value,
                        upstream=[self.node(column, position - 1) for column in _condition_columns(condition)],
                    )
                    self._influences.append((node, step.directive.index))
        return self._influences

    def _influences_for(self, tree: LineageNode) -> list[LineageNode]:
        influences = self._all_influences()
        if not influences:
            return []
        scoped = any(scope is not None for _, scope in influences)
        made_by = {node.directive.index for node in tree.walk() if node.directive is not None} if scoped else set()
        return [node for node, scope in influences if scope is None or scope in made_by]

    # -- DIRECT ------------------------------------------------------------------------------------------------------
    def node(self, name: str, position: int) -> LineageNode:
        """The history of column ``name`` as it is after step ``position`` (0 = the input)."""
        key = (name.lower(), position)
        if key in self._memo:
            return self._memo[key]
        # Iterative post-order: expand a key into the keys it needs, build it once they are built.
        pending: list[tuple[str, int, bool]] = [(name, position, False)]
        while pending:
            current, at, expanded = pending.pop()
            current_key = (current.lower(), at)
            if current_key in self._memo:
                continue
            found, also_source = self._find(current, at)
            needs = self._needs(current, found)
            if also_source:
                needs.append((current, found[0] - 1))  # type: ignore[index]
            if not expanded:
                missing = [(n, p) for n, p in needs if (n.lower(), p) not in self._memo]
                if missing:
                    pending.append((current, at, True))
                    pending.extend((n, p, False) for n, p in missing)
                    continue
            node = self._build(current, found, needs)
            if also_source:
                node.exact = False
            self._memo[current_key] = node
        return self._memo[key]

    def _find(self, name: str, at: int) -> tuple[tuple[int, ColumnLabel] | None, bool]:
        """The step that made ``name`` as of step ``at``, and whether the column may also be an older one.

        A generated-name pattern (`body_<n>`, `<header>`) only makes columns that did not exist: an
        older column of that name (produced earlier by name, or in the schema) that the step does not
        drop is still that column. When only data-named families may hold the name (a CSV header
        `email_1_1`, then `extract-regex-groups :email`), the newest one made it, as the engine replaces a
        column a directive generates again. Without a schema, a pattern that may produce any name
        (`<header>`) cannot be told from an input column of the same name: both are kept, over-approximated.
        """
        found = self.index.producer(name, at)
        newest: tuple[int, ColumnLabel] | None = None
        while found is not None and found[1].pattern and found[1].label is Label.ADD:
            position, label = found
            if label.column.lower() == name.lower():
                return found, False  # the pattern itself (`body_<n>` as a final column)
            newest = newest or found
            if self.index.drops(name, position):
                return newest, False
            found = self.index.producer(name, position - 1)
            if found is not None and found[1].label is Label.DROP:
                return newest, False
        if found is not None or newest is None:
            return found, False  # a column known by name (or no family at all)
        if self.schema is not None:
            return (None, False) if name.lower() in self.schema else (newest, False)
        return newest, _literal_prefix(newest[1].column) == ""

    def _needs(self, name: str, found: tuple[int, ColumnLabel] | None) -> list[tuple[str, int]]:
        if found is None:
            return []
        position, label = found
        if label.label in (Label.RENAME, Label.SWAP):
            if label.pattern:
                return [] if label.column == ANY_COLUMN else [(name, position - 1)]
            positional = _POSITIONAL.fullmatch(label.column)
            if positional is not None:
                old, _ = self._resolve_position(position, int(positional.group(1)))
                return [] if old is None else [(old, position - 1)]
            return [(label.column, position - 1)]
        if label.label in (Label.ADD, Label.MODIFY):
            if label.pattern and label.column == ANY_COLUMN:
                return [(name, position - 1)]  # "may change any column": each from its own earlier value
            return [(source, position - 1) for source in label.sources]
        return []

    def _build(self, name: str, found: tuple[int, ColumnLabel] | None, needs: list[tuple[str, int]]) -> LineageNode:
        if found is None:
            exact = self.schema is None or name.lower() in self.schema
            return LineageNode(name, SOURCE if exact else UNRESOLVED, exact=exact)
        position, label = found
        step = self.steps[position - 1]
        upstream = [self._memo[(n.lower(), p)] for n, p in needs]
        if label.label is Label.DROP:
            return LineageNode(name, UNRESOLVED, _ref(step), before=name, exact=False)
        if label.label in (Label.RENAME, Label.SWAP):
            before: str | None = label.column if not label.pattern else name
            exact = label.exact
            if label.pattern and label.column == ANY_COLUMN:
                before = None  # a whole-schema rename without a schema: any input column may be the old one
                upstream = [LineageNode(ANY_COLUMN, UNRESOLVED, exact=False)]
            elif _POSITIONAL.fullmatch(label.column):
                before, exact = self._resolve_position(position, int(label.column[1:]))
                if before is None:
                    upstream = [LineageNode(label.column, UNRESOLVED, exact=False)]
            return LineageNode(
                name,
                label.label.value,
                _ref(step),
                before=before,
                exact=exact,
                subtype=EdgeKind.IDENTITY.value,
                upstream=upstream,
            )
        return LineageNode(
            name,
            label.label.value,
            _ref(step),
            before=name if label.label is Label.MODIFY else None,
            exact=label.exact,
            direct=label.kind.is_direct,
            subtype=label.kind.value,
            masking=label.masking,
            upstream=upstream,
        )

    # -- positional renames ------------------------------------------------------------------------------------------
    def _resolve_position(self, position: int, number: int) -> tuple[str | None, bool]:
        """The name of the ``number``-th column before step ``position``, when the recipe can tell; never exact.

        The parser labels `#n` only when it could not name the column itself (no schema, or a
        data-dependent pattern before it). With a schema, columns before the first pattern are
        known; a position inside a numbered pattern (`body_<n>`, the last slot) is its member
        `body_<k>` — right when the data has that many parts, hence over-approximated.
        """
        if self._positional is None:
            self._positional = self._replay()
        slots = self._positional.get(position, [])
        offset = 0
        for name, is_pattern in slots:
            if not is_pattern:
                offset += 1
                if offset == number:
                    return name, False
                continue
            if name.endswith("<n>") and name.count("<") == 1:
                return f"{name[:-3]}{number - offset}", False
            return name, False
        return None, False

    def _replay(self) -> dict[int, list[tuple[str, bool]]]:
        """Column lists just before each step with a positional label (replaying the parser's column updates)."""
        wanted = {
            position
            for position, step in enumerate(self.steps, start=1)
            if any(_POSITIONAL.fullmatch(label.column) for label in step.labels if label.label is Label.RENAME)
        }
        snapshots: dict[int, list[tuple[str, bool]]] = {}
        if not wanted or self.recipe.schema is None:
            return snapshots
        state = ColumnState.from_schema(self.recipe.schema)
        last = max(wanted)
        for position, step in enumerate(self.steps, start=1):
            if position in wanted:
                snapshots[position] = [(slot.name, slot.pattern is not None) for slot in state.slots]
            if position == last:
                break
            step.directive.update_columns(state, columns_only(step.labels))
        return snapshots


def _condition_columns(condition: str) -> list[str]:
    from grammar.errors import RecipeError
    from grammar.expression import parse_expression, referenced_names

    try:
        return list(referenced_names(parse_expression(condition)))
    except RecipeError:
        return []


def lineage(recipe: Recipe, column: str | None = None) -> dict[str, ColumnLineage]:
    """Lineage of every final column of a recipe (or of one column)."""
    backtracker = Backtracker(recipe)
    if column is not None:
        return {column: backtracker.lineage(column)}
    return backtracker.all()
