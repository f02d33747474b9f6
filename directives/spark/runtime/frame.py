"""A DataFrame as a recipe sees it: user columns in order, plus hidden bookkeeping.

Wrangler runs each row through every directive and moves a failing row to the error
collector. On Spark we keep every row in one lazy plan and mark it instead:

* ``__wr_row``   — the input row as a struct, so an error record can show the original row;
* ``__wr_error`` — null, or the first failure: directive index, directive text, message;
* ``__wr_drop``  — null, or the index of the directive that filtered the row out.

A reader of line-based files (`files.read_table`) adds ``__wr_input_error``: null, or why a line could not be
made a row (and the line). Such rows start out errored, as if a directive 0 had failed them, so they are
counted as rows in and come out in the error output with the line.

A directive only acts on *active* rows (neither errored nor dropped); at the end the output
is the active rows and the error output is the errored ones, so nothing is silently lost
and the counts reconcile. Each directive compiles to exactly one projection (`Step.build`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from directives.spark.internals import column, fence
from grammar.errors import ColumnNotFoundError

if TYPE_CHECKING:
    from directives.base import Directive

ROW = "__wr_row"
ERROR = "__wr_error"
DROP = "__wr_drop"
HIDDEN = (ROW, ERROR, DROP)
#: Copy number (0, 1 …) of a row that `Frame.repeat` multiplied; only the next step sees it (`build` drops it).
COPY = "__wr_copy"
#: Prefix of hidden per-row columns that hold transient variables (`set-variable`); every step carries them along.
VARIABLE_PREFIX = "__wr_var_"
#: `input_line` is set only for rows a reader could not parse: the line as read.
ERROR_TYPE = ("struct<directive_index:int,directive:string,line:int,message:string,abort:boolean,"
              "input_line:string>")
#: Hidden column of a DataFrame read from a line-based file: null, or what was wrong with the line.
INPUT_ERROR = "__wr_input_error"
#: `source` says what read the line (format and file), `reason` what is wrong with it, `line` is the line.
INPUT_ERROR_TYPE = "struct<source:string,reason:string,line:string>"


def quote(name: str) -> str:
    """Backtick-quote a column name: Wrangler names may hold '-', ':' or '.' (which Spark reads as a struct path)."""
    return "`" + name.replace("`", "``") + "`"


def col(name: str) -> Column:
    return column(quote(name))


@dataclass
class RunContext:
    """What a compiler may need beyond the frame: the session, variables, declared output schemas."""

    spark: object
    #: Expressions of transient variables set so far (`set-variable`), by lower-cased name.
    variables: dict[str, Column] = field(default_factory=dict)
    #: Lower-cased names a `set-variable` assigns: Wrangler runs each row through the whole recipe, so the store
    #: is set afresh on every row and a later `increment-variable` adds only that row's own increment.
    set_each_row: set[str] = field(default_factory=set)
    #: Column counts declared by the caller for data-dependent directives, by directive index.
    declared_widths: dict[int, int] = field(default_factory=dict)
    #: Directives that used a Python UDF, for the run report.
    udf_directives: list[str] = field(default_factory=list)
    #: Directives that multiply rows, for the run report.
    multiplying: list[int] = field(default_factory=list)
    #: Directives whose `parse-as-csv … true` took a header line out of the rows (one line each), for the counts.
    header_rows: list[int] = field(default_factory=list)
    #: The user columns after each directive, by directive index: a finished run's lineage names the members of
    #: data-dependent families (`body_<n>`) from them (`directives.parse(observed=…)`).
    columns_after: dict[int, list[str]] = field(default_factory=dict)


class Frame:
    """Immutable view of the recipe's data at one point: a DataFrame and the user column order.

    A frame made by steps that only rename, drop or reorder columns (`Step.build`) is *deferred*: it
    keeps the DataFrame those steps started from and which of its columns each user column is, and
    builds its own `select` only when something needs `df`. A run of such directives (the renames
    after a `parse-as-csv`, say) then costs one analysed projection instead of one per directive,
    and none at all when the output reads the columns directly.
    """

    def __init__(self, df: DataFrame, columns: Sequence[str]) -> None:
        self._df: DataFrame | None = df
        self.columns = list(columns)
        #: For a deferred frame: the DataFrame the pure steps started from, and each user column's source in it.
        self._base: DataFrame | None = None
        self._sources: dict[str, str] = {}

    @classmethod
    def deferred(cls, base: DataFrame, columns: Sequence[str], sources: dict[str, str]) -> Frame:
        frame = cls(base, columns)
        frame._df, frame._base, frame._sources = None, base, dict(sources)
        return frame

    @property
    def _pending(self) -> bool:
        """Deferred and not built yet: `_base` holds the rows and `_sources` names each user column in it."""
        return self._base is not None and self._df is None

    @property
    def _rows(self) -> DataFrame:
        """The rows as they are, without building a pending projection (its base when pending, else `df`)."""
        if self._pending:
            assert self._base is not None
            return self._base
        return self.df

    @property
    def df(self) -> DataFrame:
        if self._df is None:
            assert self._base is not None
            self._df = self._base.select(*self._user_projection(), *self._bookkeeping(self._base))
        return self._df

    def _user_projection(self) -> list[Column]:
        if self._base is None:
            return [col(c) for c in self.columns]
        return [col(self._sources[c]) if self._sources[c] == c else col(self._sources[c]).alias(c)
                for c in self.columns]

    @staticmethod
    def _bookkeeping(df: DataFrame) -> list[Column]:
        """The hidden columns every step carries along: the original row, error, drop mark and variables."""
        return [column(ROW), column(ERROR), column(DROP),
                *(col(name) for name in df.columns if name.startswith(VARIABLE_PREFIX))]

    def source_of(self, name: str) -> tuple[DataFrame, str]:
        """Where a user column's values are without building the deferred projection: a DataFrame and a column."""
        return (self._rows, self._sources[name]) if self._pending else (self.df, name)

    @classmethod
    def start(cls, df: DataFrame) -> Frame:
        user = user_column_names(df)
        row = F.struct(*(col(c) for c in user)) if user else F.struct(F.lit(None).alias("__empty"))
        carried = [col(c) for c in df.columns if c.startswith(VARIABLE_PREFIX)]  # hidden columns a caller tagged
        marked = df.select(
            *(col(c) for c in user),
            row.alias(ROW),
            _input_error(df).alias(ERROR),
            F.lit(None).cast("int").alias(DROP),
            *carried,
        )
        return cls(marked, user)

    # -- columns -----------------------------------------------------------------------------------------------------
    def find(self, name: str) -> str | None:
        """The actual name of a column, looked up case-insensitively (first match), as Wrangler does."""
        if name in self.columns:
            return name
        lowered = name.lower()
        for existing in self.columns:
            if existing.lower() == lowered:
                return existing
        return None

    def has(self, name: str) -> bool:
        return self.find(name) is not None

    def col(self, name: str) -> Column:
        actual = self.find(name)
        if actual is None:
            raise ColumnNotFoundError(
                f"Column '{name}' does not exist.", hint=f"Columns at this point: {', '.join(self.columns)}."
            )
        return col(actual)

    def col_or_null(self, name: str) -> Column:
        """The column, or a null literal when it is missing (Wrangler reads a missing column as null)."""
        actual = self.find(name)
        return col(actual) if actual is not None else F.lit(None)

    def type_of(self, name: str) -> str:
        actual = self.find(name)
        if actual is None:
            return "null"
        df, source = self.source_of(actual)
        return df.schema[source].dataType.simpleString()

    @property
    def active(self) -> Column:
        return column(ERROR).isNull() & column(DROP).isNull()

    def step(self, directive: Directive) -> Step:
        return Step(self, directive)

    # -- whole-frame changes (for directives that change row counts) ---------------------------------------------------
    def with_df(self, df: DataFrame, columns: Sequence[str] | None = None) -> Frame:
        return Frame(df, self.columns if columns is None else columns)

    def repeat(self, count: Column) -> Frame:
        """Turn each active row into ``count`` copies numbered 0… in the hidden column `COPY` (for explode-like
        directives); inactive rows and counts below one stay a single row. Values are then set per copy by one step.
        """
        copies = F.when(self.active, F.greatest(F.coalesce(count, F.lit(1)), F.lit(1))).otherwise(F.lit(1))
        return Frame(self.df.select("*", F.explode(F.sequence(F.lit(0), copies - 1)).alias(COPY)), self.columns)

    @property
    def rows(self) -> DataFrame:
        """Every row with the hidden columns: what both outputs read (cache this to write both in one pass)."""
        return self._rows

    def output(self, fence_name: str, observe: Callable[[DataFrame], DataFrame] | None = None) -> DataFrame:
        """The active rows, through three fenced filters whose row counters give the run's counts
        (`filter_counts`): every row, then rows not dropped, then rows without an error. ``observe`` wraps the
        fenced rows before the filters (Spark Connect counts with an observation there)."""
        fenced, holds = fence(self._rows, fence_name)
        if observe is not None:
            fenced = observe(fenced)
        return (fenced.filter(holds)
                .filter(column(DROP).isNull() & holds)
                .filter(column(ERROR).isNull() & holds)
                .select(*self._user_projection()))

    def errors(self, fence_name: str) -> DataFrame:
        """The errored rows; fenced like the output, so Spark does not inline every error expression into the
        filter."""
        fenced, holds = fence(self._rows, fence_name)
        return fenced.filter(column(ERROR).isNotNull() & holds).select(
            column(ROW).alias("row"),
            F.col(f"{ERROR}.directive_index").alias("directive_index"),
            F.col(f"{ERROR}.directive").alias("directive"),
            F.col(f"{ERROR}.line").alias("line"),
            F.col(f"{ERROR}.message").alias("message"),
            F.col(f"{ERROR}.input_line").alias("input_line"),
        )


def user_column_names(df: DataFrame) -> list[str]:
    """The columns a recipe sees: all but the hidden bookkeeping ones (a reader's `INPUT_ERROR` among them)."""
    return [c for c in df.columns if c not in HIDDEN and c != INPUT_ERROR and not c.startswith(VARIABLE_PREFIX)]


def _input_error(df: DataFrame) -> Column:
    """The starting error of each row: null, or the reader's verdict on its line as directive 0's failure."""
    nothing = F.lit(None).cast(ERROR_TYPE)
    if INPUT_ERROR not in df.columns:
        return nothing
    verdict = column(INPUT_ERROR)
    record = F.struct(
        F.lit(0).alias("directive_index"),
        verdict.getField("source").alias("directive"),
        F.lit(0).alias("line"),
        verdict.getField("reason").alias("message"),
        F.lit(False).alias("abort"),
        verdict.getField("line").alias("input_line"),
    ).cast(ERROR_TYPE)
    return F.when(verdict.isNotNull(), record).otherwise(nothing)


class Step:
    """Everything one directive does, gathered so it becomes a single `select`.

    Value expressions refer to the columns *before* the directive (one projection); errors and
    filters are recorded only for rows still active.
    """

    def __init__(self, frame: Frame, directive: Directive) -> None:
        self.frame = frame
        self.directive = directive
        self._values: dict[str, Column] = {}
        self._order = list(frame.columns)
        self._errors: list[tuple[Column, Column, bool]] = []
        self._drops: list[Column] = []
        #: Output columns that are an input column under a new name (a rename), by output name.
        self._renamed: dict[str, str] = {}

    def set(self, name: str, value: Column) -> Step:
        """Set a column (replacing it in place when it exists, case-insensitively; appended otherwise).

        Values of inactive rows do not matter (they never reach the output, and an error record
        shows the original row), so no guard is needed and a column may change type freely.
        """
        actual = self.frame.find(name) if name not in self._order else name
        if actual is not None and actual in self._order:
            target = actual
        else:
            target = name
            self._order.append(target)
        self._values[target] = value
        self._renamed.pop(target, None)
        return self

    def add(self, name: str, value: Column) -> Step:
        """Append a column even when one of that name exists (Wrangler's `add`); we replace instead of duplicating."""
        return self.set(name, value)

    def rename(self, old: str, new: str) -> Step:
        actual = self.frame.find(old)
        if actual is None or actual not in self._order:
            return self
        position = self._order.index(actual)
        self._order[position] = new
        computed = actual in self._values and actual not in self._renamed
        self._values[new] = self._values.pop(actual, None) if computed else col(actual)
        self._renamed.pop(new, None)
        if not computed:
            self._renamed[new] = self._renamed.pop(actual, actual)
        return self

    def drop(self, name: str) -> Step:
        actual = self.frame.find(name)
        if actual is not None and actual in self._order:
            self._order.remove(actual)
            self._values.pop(actual, None)
            self._renamed.pop(actual, None)
        return self

    def reorder(self, names: Iterable[str]) -> Step:
        self._order = list(names)
        return self

    def place(self, values: Mapping[str, Column]) -> Step:
        """Give output columns (already in the order, after `reorder`) these values, read before the directive:
        `swap` and `set-headers` move input columns to other names all at once, which a chain of renames cannot."""
        for name, value in values.items():
            self._values[name] = value
            self._renamed.pop(name, None)
        return self

    def fail_when(self, condition: Column, message: Column | str) -> Step:
        """Send active rows where ``condition`` is true to the error output with ``message``."""
        text = F.lit(message) if isinstance(message, str) else message
        self._errors.append((condition, text, False))
        return self

    def abort_when(self, condition: Column, message: Column | str) -> Step:
        """Mark rows where ``condition`` is true as aborting the whole run (the `fail` directive)."""
        text = F.lit(message) if isinstance(message, str) else message
        self._errors.append((condition, text, True))
        return self

    def filter_when(self, condition: Column) -> Step:
        """Filter out active rows where ``condition`` is true (they are counted, not errors)."""
        self._drops.append(condition)
        return self

    def _is_pure(self) -> bool:
        """Only renames, drops and reorders: no value computed, no row sent to errors or filtered."""
        if self._errors or self._drops:
            return False
        return all(name not in self._values or name in self._renamed for name in self._order)

    def _deferred(self) -> Frame:
        frame = self.frame
        deferred = frame._pending
        base = frame._rows
        sources = {}
        for name in self._order:
            source = self._renamed.get(name, name)
            sources[name] = frame._sources.get(source, source) if deferred else source
        return Frame.deferred(base, self._order, sources)

    def build(self) -> Frame:
        if self._is_pure():
            return self._deferred()
        call = self.directive.call
        error = column(ERROR)
        for condition, message, abort in reversed(self._errors):
            record = F.struct(
                F.lit(self.directive.index).alias("directive_index"),
                F.lit(call.text).alias("directive"),
                F.lit(call.span.line).alias("line"),
                message.cast("string").alias("message"),
                F.lit(abort).alias("abort"),
                F.lit(None).cast("string").alias("input_line"),
            ).cast(ERROR_TYPE)
            error = F.when(self.frame.active & F.coalesce(condition, F.lit(False)), record).otherwise(error)
        drop = column(DROP)
        if self._drops:
            any_drop = F.lit(False)
            for condition in self._drops:
                any_drop = any_drop | F.coalesce(condition, F.lit(False))
            drop = F.when(self.frame.active & any_drop, F.lit(self.directive.index)).otherwise(drop)
        projection = [self._values[name].alias(name) if name in self._values else col(name) for name in self._order]
        projection += [column(ROW), error.alias(ERROR), drop.alias(DROP)]
        projection += [col(name) for name in self.frame.df.columns if name.startswith(VARIABLE_PREFIX)]
        return Frame(self.frame.df.select(*projection), self._order)


Compiler = Callable[["Directive", Frame, RunContext], Frame]
