"""Directives that set transient (per-run) variables from expressions; they change no column.

Their only labels are READs of the columns the expression reads, so that lineage can show what
a variable, and through it a later expression, depends on. The variable itself is not a column:
Wrangler binds transient variables over row values of the same name (spec §3.4), so it is
excluded from the reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from directives.base import Arg, ArgKind, Directive
from directives.catalog.transform import expression_reads
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, read

ID, N, E = ArgKind.IDENTIFIER, ArgKind.NUMBER, ArgKind.EXPRESSION


class _Transient(Directive):
    """Shared shape: the expression is checked when bound, its columns are read, no column changes."""

    categories = ("transient",)
    wrangler_lineage = False
    reads: tuple[str, ...]

    def validate(self) -> None:
        self.reads = expression_reads(self.expression_columns("condition"), exclude=(self.arg("variable"),))

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [read(name) for name in self.reads]


class SetVariable(_Transient):
    """Stores the result of an expression in a transient variable that later expressions can read.

    Example: `set-variable total exp:{price * qty}`
    """

    name = "set-variable"
    signature = (Arg("variable", ID), Arg("condition", E))

    def describe(self) -> str:
        return (f"Set transient variable '{self.arg('variable')}' to the result of expression "
                f"'{self.expression_text('condition')}'")


class IncrementVariable(_Transient):
    """Adds a number to a transient variable for every row on which the condition is true.

    Example: `increment-variable errors 1 exp:{amount < 0}`
    """

    name = "increment-variable"
    signature = (Arg("variable", ID), Arg("value", N), Arg("condition", E))

    def describe(self) -> str:
        return (f"Incremented transient variable '{self.arg('variable')}' by {self.arg('value')} "
                f"when expression '{self.expression_text('condition')}' is true")
