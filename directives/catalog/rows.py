"""Directives that change which rows exist: explode lists, filter rows out, split one row into many.

They touch few columns but every row, so besides their column labels they declare a
`row_effect`: filters make every output column depend INDIRECTLY on the columns they test
(their READ labels carry the FILTER edge kind), and multiplying directives tell the runner
and the lineage that one input row may become several output rows.
(`fail`, `filter-row` and the `send-to-error` pair live in the quality family.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from directives.base import Arg, ArgKind, Directive, RowEffect, whole_number
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, EdgeKind, add, drop, modify, read

C, CL, T, N, ID = ArgKind.COLUMN, ArgKind.COLUMN_LIST, ArgKind.TEXT, ArgKind.NUMBER, ArgKind.IDENTIFIER


class Flatten(Directive):
    """Explodes list columns into one row per element; other columns are repeated on every row.

    Shorter lists give null on the extra rows and scalar values repeat; listed columns that are
    missing are added as null, and a row that has none of them is dropped.

    Example: `flatten :tags,:scores`
    """

    name = "flatten"
    signature = (Arg("column", CL),)
    column: tuple[str, ...]
    categories = ("row",)
    row_effect = RowEffect.MULTIPLY
    #: A missing column is not a mistake here: it is added (as null).
    needs_existing_columns = False

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        labels: list[ColumnLabel] = []
        for name in _unique(self.column):
            if columns.exists(name) is False:
                labels.append(add(name))
            else:
                labels.append(modify(name))
        return labels

    def describe(self) -> str:
        return f"Expanded to individual records based on values in columns '[{', '.join(self.column)}]'"


class FilterEmptyOrNull(Directive):
    """Drops rows in which every listed column is missing or null (an empty string counts as a value).

    Example: `filter-empty-or-null :email,:phone`
    """

    name = "filter-empty-or-null"
    signature = (Arg("column", CL),)
    column: tuple[str, ...]
    categories = ("row", "data-quality")
    row_effect = RowEffect.FILTER

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [read(name, kind=EdgeKind.FILTER) for name in _unique(self.column)]

    def describe(self) -> str:
        return f"Filtered null or empty records based on check on columns '[{', '.join(self.column)}]'"


class FilterByRegex(Directive):
    """Drops rows whose value fully matches the regex (`if-matched`) or does not (`if-not-matched`).

    A regex of '' or 'null' disables the filter, as in Wrangler; a null value sends the row to
    the error output, and rows without the column are kept.

    Example: `filter-by-regex if-not-matched :email '.*@.*'`
    """

    name = "filter-by-regex"
    signature = (Arg("match-type", ID), Arg("column", C), Arg("regex", T))
    match_type: str
    column: str
    regex: str
    categories = ("row", "data-quality")
    row_effect = RowEffect.FILTER
    MATCH_TYPES: ClassVar[dict[str, bool]] = {"if-matched": True, "if-not-matched": False}

    def validate(self) -> None:
        if str(self.match_type).lower() not in self.MATCH_TYPES:
            raise self.fail("match-type",
                            f"Match type '{self.match_type}' is not 'if-matched' or 'if-not-matched'.",
                            "Write filter-by-regex if-matched :column 'regex' (or if-not-matched).")

    @property
    def drop_matches(self) -> bool:
        """True: rows that match are dropped; False: rows that do not match are dropped."""
        return self.MATCH_TYPES[str(self.match_type).lower()]

    @property
    def enabled(self) -> bool:
        """Wrangler turns the filter off for a regex of '' or 'null' (any case)."""
        regex = str(self.regex)
        return regex != "" and regex.lower() != "null"

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        if not self.enabled:
            return []
        return [read(self.column, kind=EdgeKind.FILTER)]

    def describe(self) -> str:
        if not self.enabled:
            return f"Filter on column '{self.column}' is disabled (regex '{self.regex}')"
        outcome = "matched" if self.drop_matches else "not matched"
        return f"Filtered column '{self.column}' based on whether the expression '{self.regex}' " \
               f"{outcome}"


class SetRecordDelim(Directive):
    """Splits a text column on a delimiter regex into new rows that hold only that column.

    At most `limit` rows come from one input row (Wrangler emits one more than the limit).

    Example: `set-record-delim :body '\\n' 100`
    """

    name = "set-record-delim"
    signature = (Arg("column", C), Arg("delimiter", T), Arg("limit", N, optional=True))
    column: str
    delimiter: str
    categories = ("row",)
    row_effect = RowEffect.MULTIPLY
    #: Every other column disappears, unnamed.
    names_its_columns = False

    def validate(self) -> None:
        limit = self.limit
        if limit is not None and limit < 1:  # SetRecordDelimiter.initialize takes intValue(), unchecked
            self.warn("limit", f"The limit must be a positive whole number, not {self.bound('limit')}. Wrangler "
                      "accepts it when it compiles the recipe.", runnable=False)

    @property
    def limit(self) -> int | None:
        value = self.bound("limit")
        if value is None:
            return None
        number = getattr(value, "value", value)
        return whole_number(number)  # None (no limit) for 4,300+ digits, read as infinity

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        labels: list[ColumnLabel] = [modify(column)]
        if columns.exact:
            labels += [drop(name) for name in columns.names() if name.lower() != column.lower()]
        else:
            labels.append(drop("*", pattern=True, exact=False))
        return labels

    def update_columns(self, columns: ColumnState, labels: Sequence[ColumnLabel]) -> None:
        slot = columns.find(self.column)
        name = slot.name if slot is not None and slot.pattern is None else self.column
        columns.apply(labels[:1], self.index)
        columns.replace([name], self.index)

    def describe(self) -> str:
        return (f"Split value in column '{self.column}' into multiple records using delimiter "
                f"'{self.delimiter}'")


class SplitToRows(Directive):
    """Splits a column on a regex into one copy of the row per part (rows without the column are dropped).

    Example: `split-to-rows :body '\\n'`
    """

    name = "split-to-rows"
    signature = (Arg("column", C), Arg("regex", T))
    column: str
    regex: str
    categories = ("row",)
    row_effect = RowEffect.MULTIPLY

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Split column '{self.column}' into multiple rows using expressions '{self.regex}'"


def _unique(names: Sequence[str]) -> list[str]:
    """Trimmed names, each once (compared case-insensitively, as column lookup is)."""
    seen: set[str] = set()
    unique: list[str] = []
    for name in names:
        trimmed = name.strip()
        if trimmed.lower() not in seen:
            seen.add(trimmed.lower())
            unique.append(trimmed)
    return unique
