"""Directives that reshape the column list: rename, drop, keep, swap, copy, merge, headers, case."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from directives.base import Arg, ArgKind, Directive
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, EdgeKind, add, drop, modify, read, rename, swap
from directives.sed import SedError, parse_sed

C, CL, T, N, B, ID = ArgKind.COLUMN, ArgKind.COLUMN_LIST, ArgKind.TEXT, ArgKind.NUMBER, ArgKind.BOOL, ArgKind.IDENTIFIER


def add_or_modify(
    state: ColumnState, column: str, sources: tuple[str, ...], *, kind: EdgeKind = EdgeKind.TRANSFORMATION,
    masking: bool = False,
) -> ColumnLabel:
    """Wrangler's `addOrSet`: MODIFY when the column is already there, ADD otherwise."""
    if state.exists(column):
        return modify(column, sources, kind=kind, masking=masking)
    return add(column, sources, kind=kind, masking=masking)


class SourceToDestination(Directive):
    """Base of the declarations that write a value derived from ``source`` into ``destination`` (addOrSet).

    Writing back onto the source (names compare case-insensitively, as Wrangler's lookups do) is an
    in-place MODIFY; otherwise the source is read and the destination added or modified.
    """

    source: str
    destination: str

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        source = self.source
        if source.lower() == self.destination.lower():
            return [modify(source)]
        return [read(source), add_or_modify(columns, self.destination, (source,))]


class Rename(Directive):
    """Renames a column; renaming onto another existing column is an error.

    Example: `rename :body_1 :id`
    """

    name = "rename"
    signature = (Arg("source", C), Arg("target", C))
    source: str
    target: str
    categories = ("column",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        source = self.source
        if columns.exists(source) is False:  # nothing to rename: Wrangler leaves the row (and the target) alone
            return [read(source)]
        return [rename(source, self.target)]

    def describe(self) -> str:
        return f"Renamed column '{self.source}' to '{self.target}'"


class Drop(Directive):
    """Drops the listed columns; names that do not exist are ignored.

    Example: `drop :body,:useless`
    """

    name = "drop"
    signature = (Arg("column", CL),)
    column: tuple[str, ...]
    categories = ("column",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [drop(name.strip()) for name in self.column]

    def describe(self) -> str:
        return f"Dropped columns [{', '.join(self.column)}]"


class Keep(Directive):
    """Keeps only the listed columns (names compared case-sensitively, as Wrangler does).

    Example: `keep :id,:name`
    """

    name = "keep"
    signature = (Arg("column", CL),)
    column: tuple[str, ...]
    categories = ("column",)
    names_its_columns = False

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        kept = self.column
        labels: list[ColumnLabel] = [read(name, kind=EdgeKind.IDENTITY) for name in kept]
        if columns.exact:
            labels += [drop(name) for name in columns.names() if name not in kept]
        else:
            labels.append(drop("*", pattern=True, exact=False))
        return labels

    def update_columns(self, columns: ColumnState, labels: Sequence[ColumnLabel]) -> None:
        kept = self.column
        if columns.exact:
            columns.replace([name for name in columns.names() if name in set(kept)], self.index)
        else:
            columns.replace(list(kept), self.index)

    def describe(self) -> str:
        return f"Removed all columns except '{', '.join(self.column)}'"


class Swap(Directive):
    """Swaps the names of two columns; both must exist.

    Example: `swap :a :b`
    """

    name = "swap"
    signature = (Arg("left", C), Arg("right", C))
    left: str
    right: str
    categories = ("column",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        left, right = self.left, self.right
        return [swap(left, right), swap(right, left)]

    def update_columns(self, columns: ColumnState, labels: Sequence[ColumnLabel]) -> None:
        columns.apply(labels[:1], self.index)

    def describe(self) -> str:
        return f"Swapped columns '{self.left}' and '{self.right}'"


class Copy(Directive):
    """Copies a column's values into another column (an existing one only with force).

    Example: `copy :body_1 :name true`
    """

    name = "copy"
    signature = (Arg("source", C), Arg("destination", C), Arg("force", B, optional=True, default=False))
    source: str
    destination: str
    force: bool
    categories = ("column",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        source, destination = self.source, self.destination
        if source.lower() == destination.lower():
            return [read(source, kind=EdgeKind.IDENTITY)]
        return [read(source), add_or_modify(columns, destination, (source,), kind=EdgeKind.IDENTITY)]

    def describe(self) -> str:
        return f"Copied value from column '{self.source}' to '{self.destination}'"


class Merge(Directive):
    """Joins two columns with a separator into a new column (appended, even if the name exists).

    Example: `merge :first :last :full ' '`
    """

    name = "merge"
    signature = (Arg("column1", C), Arg("column2", C), Arg("destination", C), Arg("separator", T))
    column1: str
    column2: str
    destination: str
    separator: str
    categories = ("column",)
    appends_duplicates = True

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        first, second = self.column1, self.column2
        if columns.exists(first) is False or columns.exists(second) is False:
            return [read(first), read(second)]  # Wrangler merges only when both columns are there
        return [read(first), read(second), add(self.destination, (first, second))]

    def describe(self) -> str:
        return (f"Merged column '{self.column1}' and '{self.column2}' using delimiter "
                f"'{self.separator}' into column '{self.destination}'")


def unique_headers(names: Sequence[str], rest: Sequence[str] = ()) -> list[str]:
    """The names `set-headers` leaves: ``names`` for the renamed positions, then the untouched ``rest``, unique.

    Wrangler lets a row hold two columns of one name (`set columns a,b,a`, or a new name equal to an
    untouched column's); a by-name lookup then finds the first. A Spark column of an ambiguous name cannot
    be referenced at all, so the earlier position keeps the name (what Wrangler's lookups find) and each
    later one gets the first free `<name>_2`, `<name>_3` … (compared case-insensitively, like lookups).
    """
    wanted = [*names, *rest]
    taken = {name.lower() for name in wanted}
    seen: set[str] = set()
    result: list[str] = []
    for name in wanted:
        if name.lower() in seen:
            number = 2
            while f"{name}_{number}".lower() in taken or f"{name}_{number}".lower() in seen:
                number += 1
            name = f"{name}_{number}"
        seen.add(name.lower())
        result.append(name)
    return result


class SetHeaders(Directive):
    """Renames the first N columns by position (`set columns a,b,c` in v1).

    A name given twice (or equal to a column it does not rename) is made unique: the later position gets
    `<name>_2` (see `unique_headers`).

    Example: `set-headers :id,:name,:age`
    """

    name = "set-headers"
    signature = (Arg("column", CL),)
    column: tuple[str, ...]
    categories = ("column",)
    names_its_columns = False

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        names = unique_headers([name.strip() for name in self.column])
        current = columns.display()
        labels: list[ColumnLabel] = []
        if columns.known and columns.exact and all(slot.pattern is None for slot in columns.slots):
            count = min(len(names), len(current))
            final = unique_headers(names[:count], current[count:])
            return [rename(old, new) for old, new in zip(current, final, strict=True) if old != new]
        for position, new in enumerate(names):
            known = columns.known and position < len(current) and columns.slots[position].pattern is None
            if not all(slot.pattern is None for slot in columns.slots[:position]):
                known = False
            if known:
                old = current[position]
                if old != new:
                    labels.append(rename(old, new))
            elif columns.known and position >= len(current) and columns.exact:
                break  # extra names are ignored, as Wrangler does
            else:
                labels.append(rename(f"#{position + 1}", new, exact=False))
        return labels

    def update_columns(self, columns: ColumnState, labels: Sequence[ColumnLabel]) -> None:
        if columns.known:
            positional = [label for label in labels if label.column.startswith("#")]
            columns.apply([label for label in labels if not label.column.startswith("#")], self.index)
            # Positions inside a data-dependent pattern (`body_<n>`): the new names go where the pattern starts.
            first_pattern = next((slot for slot in columns.slots if slot.pattern is not None), None)
            for label in positional:
                assert label.to is not None
                columns.insert(label.to, before=first_pattern, index=self.index)
            return
        names = unique_headers([name.strip() for name in self.column])
        slots = columns.slots
        renamed = [slot.name for slot in slots[: len(names)] if slot.pattern is None]
        columns.replace([*names, *(slot.name for slot in slots[len(names):] if slot.pattern is None)], self.index)
        columns.known = False
        columns.gone |= {name.lower() for name in renamed if name.lower() not in {n.lower() for n in names}}

    def describe(self) -> str:
        return f"Set the new header as columns '{', '.join(self.column)}'"


class WholeSchemaRename(Directive):
    """Shared shape of directives that rename every column by a rule (case, cleansing, sed)."""

    names_its_columns = False
    categories = ("column",)

    def new_name(self, old: str) -> str:
        raise NotImplementedError

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        if columns.exact:
            return [rename(old, self.new_name(old)) for old in columns.names() if self.new_name(old) != old]
        return [rename("*", "*", exact=False, pattern=True)]

    def update_columns(self, columns: ColumnState, labels: Sequence[ColumnLabel]) -> None:
        columns.rename_all(self.new_name)


class ChangeColumnCase(WholeSchemaRename):
    """Renames every column to lower case, or upper case with `upper`/`uppercase`.

    Example: `change-column-case upper`
    """

    name = "change-column-case"
    signature = (Arg("case", ID, optional=True, default="lower"),)
    case: str

    def new_name(self, old: str) -> str:
        return old.upper() if str(self.case).lower() in ("upper", "uppercase") else old.lower()

    def describe(self) -> str:
        case = "upper" if str(self.case).lower() in ("upper", "uppercase") else "lower"
        return f"Changed all column names to {case} case"


class CleanseColumnNames(WholeSchemaRename):
    """Trims, lower-cases and replaces every character but [a-z0-9_] with '_' in every column name.

    Example: `cleanse-column-names`
    """

    name = "cleanse-column-names"
    _UNSAFE = re.compile(r"[^a-zA-Z0-9_]")

    def new_name(self, old: str) -> str:
        return self._UNSAFE.sub("_", old.strip().lower())

    def describe(self) -> str:
        return ("Sanitized all column names: trimmed sides, lower-cased, and replaced all but [A-Z][a-z][0-9]_ "
                "characters")


class ColumnsReplace(WholeSchemaRename):
    """Applies a sed substitution (`s/regex/replacement/flags`) to every column name.

    Example: `columns-replace 's/^data_//g'`
    """

    name = "columns-replace"
    signature = (Arg("sed-expression", T),)
    sed_expression: str

    def validate(self) -> None:
        try:
            self._sed = parse_sed(self.sed_expression)
        except SedError as error:
            self._sed = None
            self.warn("sed-expression", f"{error} Wrangler accepts the script when it compiles the recipe and "
                      "reads it only when a row runs.", "Write it as s/regex/replacement/[g]", runnable=False)

    def new_name(self, old: str) -> str:
        return old if self._sed is None else self._sed.apply(old)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        if self._sed is None:  # the script cannot be read, so which names change is unknown
            return [rename("*", "*", exact=False, pattern=True)]
        return super().labels(columns)

    def describe(self) -> str:
        return f"Reformatted all columns using expression '{self.sed_expression}'"


class SetType(Directive):
    """Converts a column's values to another type (int, long, short, float, double, decimal, bool, string, bytes).

    Example: `set-type :price decimal 2 'HALF_UP'`
    """

    name = "set-type"
    signature = (
        Arg("column", C),
        Arg("type", ID),
        Arg("scale", N, optional=True),
        Arg("rounding-mode", T, optional=True),
        Arg("precision", ArgKind.PROPERTIES, optional=True, label="prop:{precision=<precision>}"),
    )
    column: str
    type: str
    scale: float | None
    rounding_mode: str | None
    categories = ("column",)
    TYPES: ClassVar[dict[str, str]] = {
        "int": "int", "integer": "int", "i64": "int", "short": "short", "i32": "short", "long": "long",
        "float": "float", "double": "double", "decimal": "decimal", "bool": "boolean", "boolean": "boolean",
        "string": "string", "bytes": "bytes",
    }
    ROUNDING: ClassVar[tuple[str, ...]] = (
        "UP", "DOWN", "CEILING", "FLOOR", "HALF_UP", "HALF_DOWN", "HALF_EVEN", "UNNECESSARY",
    )

    def validate(self) -> None:
        # SetType.initialize checks only a decimal's scale, precision and rounding mode; the type name is
        # looked up when a row is converted.
        kind = str(self.type).lower()
        if kind not in self.TYPES:
            self.warn("type", f"Unknown type '{self.type}'. Wrangler accepts it when it compiles the recipe "
                      "and fails on it when a row is converted.", f"Use one of: {', '.join(self.TYPES)}.",
                      runnable=False)
        mode = self.rounding_mode
        if kind != "decimal":
            if mode is not None:
                self.warn("rounding-mode", f"A rounding mode applies to decimals only; Wrangler ignores '{mode}' "
                          f"for type '{self.type}'.")
            return
        if mode is not None and mode not in self.ROUNDING:
            raise self.fail("rounding-mode", f"Unknown rounding mode '{mode}' (Java's RoundingMode names are "
                            "upper case).", f"Use one of: {', '.join(self.ROUNDING)}.")
        if mode is not None and not self.scale is not None and not self.bound("precision") is not None:
            raise self.fail("rounding-mode", "A rounding mode needs a scale or a precision.")
        precision = self.precision
        if precision is not None and precision < 1:
            raise self.fail("precision", f"The precision must be at least 1, not {precision}.")

    @property
    def precision(self) -> int | None:
        """`prop:{precision=N}`, as Wrangler reads it."""
        props = self.bound("precision")
        value = props.get("precision") if isinstance(props, dict) else None
        return int(value) if isinstance(value, int | float) else None

    @property
    def target_type(self) -> str:
        return self.TYPES[str(self.type).lower()]

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Changed the column '{self.column}' to type '{self.type}'"


class SplitToColumns(Directive):
    """Splits a column on a regex into new columns `<col>_1 … <col>_n` (n depends on the data).

    Example: `split-to-columns :body ','`
    """

    name = "split-to-columns"
    signature = (Arg("column", C), Arg("regex", T))
    column: str
    regex: str
    categories = ("column",)
    appends_duplicates = True  # Wrangler `add`s <col>_1..n, so a second split duplicates them

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add(f"{column}_<n>", (column,), pattern=True)]

    def describe(self) -> str:
        return f"Split the column '{self.column}' with regex '{self.regex}'"


class CreateRecord(Directive):
    """Puts the listed columns into one nested record column.

    Example: `create-record :address :street,:city`
    """

    name = "create-record"
    signature = (Arg("target_column", C), Arg("columns", CL))
    target_column: str
    columns: tuple[str, ...]
    categories = ("column",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        sources = self.columns
        return [*(read(c) for c in sources), add_or_modify(columns, self.target_column, sources)]


class FlattenRecord(Directive):
    """Expands record columns into `<col>_<field>` columns (fields depend on the data).

    Example: `flatten-record :address`
    """

    name = "flatten-record"
    signature = (Arg("columns", CL),)
    columns: tuple[str, ...]
    categories = ("column",)
    wrangler_lineage = False

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        labels: list[ColumnLabel] = []
        for column in self.columns:
            labels += [read(column), add(f"{column}_<field>", (column,), pattern=True)]
        return labels
