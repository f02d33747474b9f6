"""Transient variables in the labels: what `set-variable` makes and what later expressions read of it.

Wrangler evaluates every expression over the row's values *and then* the transient store
(`ELContext`: row values first, then every transient variable, so a variable hides a column of the
same name). A variable is not a column of the row, so it has no place in the column list; but it
carries values from the columns its expression read into every expression that names it. Lineage
that skipped it would say `set-column :t exp:{total}` comes from an input called `total` and lose
`price` and `qty` (the verifier sees `t` move when `price` is perturbed), and `wrangler check` would
report `total` as a missing column.

So a directive that sets a variable gets an ADD label of a hidden name (``#var:total``) from the
columns it read, and a later directive whose expression names that variable reads the hidden name
instead of a column. Hidden names never enter the column list (``columns_only``), so they are never
output columns, and ``#`` cannot start a JEXL identifier, so no recipe can name one as a column.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

from directives.base import ArgKind, Directive, expression_columns
from directives.labels import ColumnLabel, Label, add, read
from grammar.errors import RecipeError

PREFIX = "#var:"


def variable_column(name: str) -> str:
    return PREFIX + name


def is_variable(column: str) -> bool:
    return column.startswith(PREFIX)


def columns_only(labels: Iterable[ColumnLabel]) -> list[ColumnLabel]:
    """The labels that change the column list (hidden variable labels do not)."""
    return [label for label in labels if not is_variable(label.column)]


def expression_names(directive: Directive) -> set[str]:
    """Lower-cased free names of the directive's expressions, its `if (…)` condition included."""
    from grammar.expression import expression_names as free_names

    names: set[str] = set()
    for arg in directive.signature:
        value = directive.bound(arg.name) if arg.kind is ArgKind.EXPRESSION else None
        if value is not None:
            names.update(name.split(".", 1)[0].lower() for name in expression_columns(value))
    condition = directive.call.condition
    if condition:
        # an `if (…)` condition is kept as text for lineage and Wrangler never evaluates it: it may not parse
        # (`if () {…} else {…}` makes `!()`), which is no error of this directive (found by bench/fuzz.py)
        with contextlib.suppress(RecipeError):
            names.update(name.split(".", 1)[0].lower() for name in free_names(condition))
    return names


class Variables:
    """The variables set so far in a recipe, by lower-cased name (the engine looks them up that way)."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._names)

    def relabel(self, directive: Directive, labels: Sequence[ColumnLabel]) -> tuple[ColumnLabel, ...]:
        """``labels`` with reads of known variables pointed at them, plus the variables this directive sets."""
        named = expression_names(directive) & self._names.keys() if self._names else set()
        if named:
            labels = [self._pointed(label, named) for label in labels]
        sets = directive.variables_set()
        if not sets:
            return tuple(labels)
        # what the variable's value is computed from (a filter's reads decide which rows go on, not the value)
        sources = tuple(dict.fromkeys(label.column for label in labels
                                      if label.label is Label.READ and label.kind.is_direct))
        kind = directive.variable_kind
        made = []
        for name in sets:
            own = (self._hidden(name),) if name.lower() in self._names and name.lower() in named else ()
            made.append(add(variable_column(name), (*sources, *own), kind=kind))
            self._names[name.lower()] = name
        return (*labels, *made)

    def _hidden(self, name: str) -> str:
        return variable_column(self._names[name.lower()])

    def _pointed(self, label: ColumnLabel, named: set[str]) -> ColumnLabel:
        if label.label is Label.READ and label.column.lower() in named and not label.pattern:
            return read(self._hidden(label.column), kind=label.kind)
        if label.label in (Label.ADD, Label.MODIFY) and any(source.lower() in named for source in label.sources):
            sources = tuple(self._hidden(s) if s.lower() in named else s for s in label.sources)
            return label._replace(sources=sources)
        return label


__all__ = ["PREFIX", "Variables", "columns_only", "expression_names", "is_variable", "variable_column"]
