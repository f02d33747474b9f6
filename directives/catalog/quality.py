"""Directives that keep, drop, reject or stop on rows by an expression: fail, filter-row, send-to-error(-and-continue).

None of them changes a column. What they read decides which rows reach the output, so every
column the condition reads gets a READ label of kind FILTER (an INDIRECT edge in OpenLineage
terms): lineage can then answer "which columns influenced *which rows* we kept", not only
"which columns fed this value". Names Wrangler binds in every expression (`ctx`, `this`) and
the transient counters `dq_total`/`dq_failure` are not columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from directives.base import Arg, ArgKind, Directive, RowEffect, expression_columns, expression_text
from directives.catalog.transform import expression_reads
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, EdgeKind, read
from grammar.nodes import Expression

E, B, ID, T = ArgKind.EXPRESSION, ArgKind.BOOL, ArgKind.IDENTIFIER, ArgKind.TEXT

#: Transient variables `send-to-error-and-continue` keeps for the row (Wrangler's LOCAL scope).
DQ_VARIABLES = ("dq_total", "dq_failure")


class _Condition(Directive):
    """Shared shape: one condition expression, its columns read as FILTER edges, no column changes."""

    categories = ("row", "data-quality")
    reads: tuple[str, ...]
    condition: Expression

    #: Whether Wrangler rejects an empty condition when it compiles the recipe (only `fail` checks).
    empty_condition_is_error: ClassVar[bool] = False

    def validate(self) -> None:
        if not expression_text(self.condition):
            message, hint = "The condition is empty.", "Write a condition, e.g. exp:{age < 0}."
            if self.empty_condition_is_error:
                raise self.fail("condition", message, hint)
            self.warn("condition", message + " Wrangler compiles an empty condition without "
                      "complaint.", hint, runnable=False)
            self.reads = ()
            return
        self.reads = expression_reads(expression_columns(self.condition), exclude=DQ_VARIABLES)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [read(name, kind=EdgeKind.FILTER) for name in self.reads]


class Fail(_Condition):
    """Stops the whole run when the condition is true for any row.

    Example: `fail exp:{count > 10}`
    """

    name = "fail"
    signature = (Arg("condition", E),)
    condition: Expression
    row_effect = RowEffect.ABORT
    empty_condition_is_error = True

    def describe(self) -> str:
        return f"Pipeline set to fail based on condition '{expression_text(self.condition)}'"


class FilterRow(_Condition):
    """Drops the rows for which the condition equals `type` (default true: rows matching are removed).

    Example: `filter-row exp:{age < 18} true`
    """

    name = "filter-row"
    signature = (Arg("condition", E), Arg("type", B, optional=True))
    condition: Expression
    type: bool | None
    row_effect = RowEffect.FILTER

    @property
    def drops_when(self) -> bool:
        """The condition value whose rows are removed (Wrangler: `condition == type` is dropped)."""
        value = self.type
        return True if value is None else bool(value)

    def describe(self) -> str:
        return f"Filtered records based on columns '{', '.join(self.reads)}'"


class SendsToError(_Condition):
    signature = (Arg("condition", E), Arg("metric", ID, optional=True), Arg("message", T, optional=True))
    condition: Expression
    metric: str | None
    row_effect = RowEffect.ERROR

    @property
    def message(self) -> str:
        """The error text: the given message, else the condition as written (as Wrangler does)."""
        message = self.bound("message")
        return str(message) if message else expression_text(self.condition)


class SendToError(SendsToError):
    """Sends the rows for which the condition is true to the error output, with an optional message.

    Example: `send-to-error exp:{amount < 0} negative_amounts 'Amount is negative'`
    """

    name = "send-to-error"

    def describe(self) -> str:
        return f"Redirecting records to error path based on expression '{expression_text(self.condition)}'"


class SendToErrorAndContinue(SendsToError):
    """Records the rows for which the condition is true as errors and drops them; counts checks in dq_total/dq_failure.

    Example: `send-to-error-and-continue exp:{email == null} missing_email 'No e-mail'`
    """

    name = "send-to-error-and-continue"

    def variables_set(self) -> tuple[str, ...]:
        return DQ_VARIABLES

    def describe(self) -> str:
        return f"Redirect records to error path based on expression'{expression_text(self.condition)}'"
