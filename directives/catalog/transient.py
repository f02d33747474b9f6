"""Directives that set transient (per-run) variables from expressions; they change no column.

Their labels are READs of the columns the expression reads; the binder adds the variable they set
as a hidden name (``directives.transient_names``), so lineage follows a later expression that reads
it back to those columns. The variable itself is not a column: Wrangler binds transient variables
over row values of the same name (spec §3.4), so it is excluded from the reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from directives.base import Arg, ArgKind, Directive, expression_columns, expression_text
from directives.catalog.transform import expression_reads
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, EdgeKind, read
from grammar.nodes import Expression

ID, N, E = ArgKind.IDENTIFIER, ArgKind.NUMBER, ArgKind.EXPRESSION


class _Transient(Directive):
    """Shared shape: the expression is checked when bound, its columns are read, no column changes."""

    categories = ("transient",)
    wrangler_lineage = False
    reads: tuple[str, ...]
    variable: str
    condition: Expression

    def validate(self) -> None:
        self.reads = expression_reads(expression_columns(self.condition), exclude=(self.variable,))

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [read(name) for name in self.reads]

    def variables_set(self) -> tuple[str, ...]:
        return (str(self.variable),)


class SetVariable(_Transient):
    """Stores the result of an expression in a transient variable that later expressions can read.

    Example: `set-variable total exp:{price * qty}`
    """

    name = "set-variable"
    signature = (Arg("variable", ID), Arg("condition", E))
    variable: str
    condition: Expression

    def describe(self) -> str:
        return (f"Set transient variable '{self.variable}' to the result of expression "
                f"'{expression_text(self.condition)}'")


class IncrementVariable(_Transient):
    """Adds a number to a transient variable for every row on which the condition is true.

    Example: `increment-variable errors 1 exp:{amount < 0}`
    """

    name = "increment-variable"
    #: a running total over the rows so far (Wrangler's GLOBAL scope), not a value of this row alone
    variable_kind = EdgeKind.AGGREGATION
    signature = (Arg("variable", ID), Arg("value", N), Arg("condition", E))
    variable: str
    value: float
    condition: Expression

    def describe(self) -> str:
        return (f"Incremented transient variable '{self.variable}' by {self.value} "
                f"when expression '{expression_text(self.condition)}' is true")
