"""Directives that serialise columns into one column (CSV, JSON) and the standard-conformance check.

`write-as-csv` and `write-as-json-map` read *every* column present at that point. Wrangler
declares them as GENERATE from all input-schema fields (spec §3.4); we name the columns of
that point instead, exactly when the column list is known, and mark the label inexact when it
is not (columns the recipe has not seen may also be written).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from directives.base import Arg, ArgKind, Directive, OneColumn, RowEffect
from directives.catalog.column_ops import add_or_modify
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, add, modify, read
from grammar.errors import DirectiveArgumentError
from grammar.nodes import TokenKind

C, CL, ID = ArgKind.COLUMN, ArgKind.COLUMN_LIST, ArgKind.IDENTIFIER


def _all_columns(columns: ColumnState) -> tuple[list[ColumnLabel], tuple[str, ...], bool]:
    """READ labels of the named columns at this point, every column and pattern as sources, and exactness."""
    return [read(name) for name in columns.names()], tuple(columns.display()), columns.exact


def _inexact(label: ColumnLabel) -> ColumnLabel:
    return label._replace(exact=False)


class WriteAsCsv(OneColumn):
    """Appends a column holding every value of the row as one CSV record.

    Example: `write-as-csv :record`
    """

    name = "write-as-csv"
    categories = ("writer", "csv")
    appends_duplicates = True

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        reads, sources, exact = _all_columns(columns)
        target = add(self.column, sources)
        return [*reads, target if exact else _inexact(target)]

    def describe(self) -> str:
        return f"Wrote column '{self.column}' in the comma separated value (CSV) format"


class WriteAsJsonMap(OneColumn):
    """Sets a column to a JSON object of every column of the row, `{name: value}`.

    Example: `write-as-json-map :record`
    """

    name = "write-as-json-map"
    categories = ("writer", "json")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        reads, sources, exact = _all_columns(columns)
        target = add_or_modify(columns, self.column, sources)
        return [*reads, target if exact else _inexact(target)]

    def describe(self) -> str:
        return f"Wrote column '{self.column}' as a json map"


class WriteAsJsonObject(Directive):
    """Sets a column to a JSON object of the listed columns (at least two: one column does not bind).

    Example: `write-as-json-object :location :latitude,:longitude`
    """

    name = "write-as-json-object"
    signature = (Arg("column", C), Arg("col", CL, optional=True))
    column: str
    col: tuple[str, ...]
    categories = ("writer", "json")

    def validate(self) -> None:
        """Wrangler binds no single column to the optional list and then fails; say so at that column."""
        if bool(self.col):
            return
        stray = next((token for token in self.call.args[1:] if token.kind is TokenKind.COLUMN), None)
        span = stray.span if stray is not None else self.call.span
        raise DirectiveArgumentError(
            f"'{self.name}' needs the list of columns to write, of at least two columns.",
            line=span.line,
            column=span.column,
            hint=(f"A single column does not bind to the list; write :{stray.value},:other, or use copy."
                  if stray is not None else f"Usage: {self.usage()}"),
            directive=self.name,
        )

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        target = self.column
        listed = self.col
        if any(name.lower() == target.lower() for name in listed):
            others = [name for name in listed if name.lower() != target.lower()]
            if columns.exists(target) is False:
                return [*(read(name) for name in others), add(target, tuple(others))]
            return [*(read(name) for name in others), modify(target, listed)]
        return [*(read(name) for name in listed), add_or_modify(columns, target, listed)]

    def describe(self) -> str:
        return (f"Wrote columns '{', '.join(self.col)}' as json object into column "
                f"'{self.column}'")


class ValidateStandard(Directive):
    """Sends rows whose JSON object value does not conform to a bundled standard schema to the error output.

    Example: `validate-standard :resource hl7-fhir-r4`
    """

    #: The standards Wrangler bundles (its `schemas/manifest.json`), in manifest order.
    STANDARDS: ClassVar[tuple[str, ...]] = ("hl7-fhir-r4",)

    name = "validate-standard"
    signature = (Arg("column", C), Arg("standard-spec", ID, label=f"[one of: {', '.join(STANDARDS)}]"))
    column: str
    standard_spec: str
    categories = ("data-quality",)
    row_effect = RowEffect.ERROR
    wrangler_lineage = False

    def validate(self) -> None:
        standard = self.standard_spec
        if standard not in self.STANDARDS:
            raise self.fail("standard-spec", f"Unknown standard '{standard}'.",
                            f"Known standards: {', '.join(self.STANDARDS)}.")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [read(self.column)]

    def describe(self) -> str:
        return f"Validated column '{self.column}' against standard '{self.standard_spec}'"
