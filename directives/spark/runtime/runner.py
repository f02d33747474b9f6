"""Running a recipe on Spark: `run(df, recipe)` for pipelines, `run_rows(text, rows)` for embedding and tests.

The whole recipe becomes one lazy plan; counts come from the row counters of the output's own filters
(`filter_counts`), so they cost no extra pass when the output is written, and they reconcile:
``rows_in + rows_added == rows_out + error_rows + filtered_rows``. Over Spark Connect there is no status store to
read those counters from, so the write itself carries an observation of the counts instead (still no extra pass);
the same recipe gives the same rows and counts in local mode, on a cluster and over Connect (docs/clusters.md).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from pyspark.sql import Column, DataFrame, Observation, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

import directives as _directives
from directives.base import Directive, RowEffect
from directives.recipe import Recipe
from directives.spark.compile.transient import ORDER
from directives.spark.compilers import PENDING_RESULT, compiler_for, is_composable
from directives.spark.internals import FENCE_PREFIX, compiling, counted, filter_counts, last_execution_id
from directives.spark.runtime.frame import (
    DROP,
    ERROR,
    ROW,
    STATUS,
    VARIABLE_PREFIX,
    WIDTH_GUESS_FAILED,
    Compiler,
    Frame,
    RunContext,
    compile_on,
    quote,
    user_column_names,
)
from directives.spark.runtime.session import get_session, is_remote_session
from directives.spark.runtime.shipping import ship_code
from grammar.errors import RecipeError, raise_collected

T_ = TypeVar("T_")


class RecipeExecutionError(RecipeError):
    """The run was aborted by the data (the `fail` directive), naming the directive and line."""

    rule = "execution"


@dataclass(frozen=True)
class RunCounts:
    """Row counts of one run. Every input row ends in exactly one place, and row-multiplying
    directives (explode-like, listed by index in ``multiplying``) account for the rest."""

    rows_in: int
    rows_out: int
    error_rows: int
    filtered_rows: int
    rows_added: int
    multiplying: tuple[int, ...] = ()
    #: Header lines a `parse-as-csv … true` consumed: taken out of the rows, but not filtered by anyone.
    header_rows: int = 0
    #: Where the numbers came from: "filters" (the write's own filter counters), "observation" (an observation the
    #: write carried: Spark Connect), "aggregate" (a pass of its own) or "rows" (`run_rows` collected every row).
    #: Not part of equality: the same run counted two ways is the same counts.
    counted_by: str = field(default="aggregate", compare=False)

    @property
    def reconciled(self) -> bool:
        return (self.rows_in + self.rows_added
                == self.rows_out + self.error_rows + self.filtered_rows + self.header_rows)

    def to_dict(self) -> dict[str, Any]:
        return {"rows_in": self.rows_in, "rows_out": self.rows_out, "error_rows": self.error_rows,
                "filtered_rows": self.filtered_rows, "header_rows": self.header_rows, "rows_added": self.rows_added,
                "row_multiplying_directives": list(self.multiplying), "reconciled": self.reconciled}


@dataclass
class RunResult:
    """Lazy outputs of a run: ``df`` (the output rows) and ``errors`` (one row per failed input row,
    with the original row, directive index, directive text, line and message) are DataFrames.

    `counts()` reuses the pass that `write` made when there was one (the row counters of the output's filters, and of
    a filter on the input when a directive may multiply rows; over Spark Connect, observations of both); otherwise
    it runs one aggregate. It never trusts counters filled by an arbitrary action,
    because a `show()` or `limit()` would have scanned only part of the data.
    """

    recipe: Recipe
    df: DataFrame
    frame: Frame
    context: RunContext
    _input: Any
    _fence: str
    _source: DataFrame
    _counts: RunCounts | None = field(default=None, repr=False)
    #: The newest SQL execution before `write` ran its action (-1: none), or None when `write` did not run.
    _written_after: int | None = field(default=None, repr=False)
    _errors: DataFrame | None = field(default=None, repr=False)
    #: Over Spark Connect: the observation of the final rows that the last `write` carried.
    _output_observation: Any = field(default=None, repr=False)
    #: The same run compiled again with learned widths (`run`'s ``widths_in_write``).
    _again: Callable[[Mapping[int, int]], RunResult] | None = field(default=None, repr=False)
    #: Widths a `write` learned after its pass found a record wider than the guess, by directive index (it ran again).
    learned_in_write: dict[int, int] = field(default_factory=dict)
    #: The counted filter of the input rows (`counted`), when a directive may multiply rows (not over Spark Connect).
    _input_fence: str | None = field(default=None, repr=False)

    @property
    def errors(self) -> DataFrame:
        """The error rows, built on first use (an analysed DataFrame costs milliseconds, and most callers that
        only write the output never ask)."""
        if self._errors is None:
            with compiling(), wrangler_semantics(self.df.sparkSession):
                self._errors = self.frame.errors(f"{self._fence}_errors")  # its own name: not a counted filter
        return self._errors

    def write(self, action: Callable[[DataFrame], T_]) -> T_:
        """Run ``action`` on ``df`` (a full write or collect), first checking for `fail`, so counts are free after.

        Over Spark Connect, ``action`` gets ``df`` with an observation of the counts in its plan (same rows, same
        columns): the server sends observed values back with the action's result, where a status store in this
        process would not exist. When the pass stopped at a record wider than a width the run guessed (`run`'s
        ``widths_in_write``), the run is compiled again with the width learned and ``action`` runs again."""
        self.check_aborted()
        try:
            return self._write_once(action)
        except Exception as error:
            learned = self._learned_after(error)
            if learned is None or self._again is None:
                raise
            learned_before = self.learned_in_write
            self.__dict__.update(self._again(learned).__dict__)
            self.learned_in_write = {**learned_before, **learned}
            return self.write(action)

    def _write_once(self, action: Callable[[DataFrame], T_]) -> T_:
        spark = self.df.sparkSession
        if is_remote_session(spark):
            observation = _observation(spark, f"wrangler_output_{uuid.uuid4().hex[:12]}")
            observed = self.frame.output(self._fence, lambda rows: rows.observe(observation, *_final_metrics()))
            value = action(observed)
            self._output_observation = observation
            self._written_after = -1
            return value
        before = last_execution_id(spark)
        value = action(self.df)
        self._output_observation = None
        self._written_after = before
        return value

    def _learned_after(self, error: Exception) -> dict[int, int] | None:
        """When ``error`` is a pass stopped by a record wider than a guessed width (`WIDTH_GUESS_FAILED`), the widths
        learned exactly, to compile again with; else None. Only the first wrong one, in recipe order: a later
        directive's records are read through the earlier one's check, which would stop that job too."""
        if self._again is None or WIDTH_GUESS_FAILED not in str(error):
            return None
        for check in sorted(self.context.width_checks, key=lambda check: check.index):
            if check.learn is not None:
                width = check.learn()
                if width != check.guessed:
                    return {check.index: width}
        return None

    def fed(self, written: RunResult) -> None:
        """This run's output was the input of ``written``, whose output has just been written: its counted filters ran
        inside that write, once per row, so its counts are read from there too (an aggregate pass when they cannot
        be: over Spark Connect, or when the write's plan does not show them)."""
        if self._counts is None and written._output_observation is None and written._written_after is not None:
            self._written_after = written._written_after

    def counts(self) -> RunCounts:
        if self._counts is None:
            observed = self._observed_counts() if self._written_after is not None else None
            self._counts = observed or self._aggregate_counts()
        return self._counts

    def check_aborted(self) -> None:
        """Raise `RecipeExecutionError` when a `fail` directive fired (one pass, only if the recipe has `fail`)."""
        if not any(d.row_effect is RowEffect.ABORT for d in self.recipe.directives):
            return
        hit = self.frame.df.filter(F.col(f"{ERROR}.abort")).select(F.col(ERROR)).limit(1).collect()
        if hit:
            raise _abort_error(hit[0][0])

    def _observed_counts(self) -> RunCounts | None:
        if self._input is None and self._input_fence is None and self.context.multiplying:
            return None  # a directive multiplied rows that its declaration did not say could: count afresh
        if self._output_observation is not None:
            return self._connect_counts()
        assert self._written_after is not None
        also = (self._input_fence,) if self._input_fence is not None else ()
        passed = filter_counts(self.df.sparkSession, self._fence, self._written_after, also=also)
        if passed is None:
            return None
        inputs = [rows for description, rows in passed.items() if any(f"{name}#" in description for name in also)]
        by_filter = _three_filters({description: rows for description, rows in passed.items()
                                    if not any(f"{name}#" in description for name in also)})
        if by_filter is None or len(inputs) != len(also):  # the write's plan does not show them as expected
            return None
        final = {"rows": by_filter["all"], "errors": by_filter["kept"] - by_filter["out"],
                 "dropped": by_filter["all"] - by_filter["kept"]}
        rows_in = inputs[0] if inputs else final["rows"]
        return _counts_from(rows_in, final, self.context.multiplying, "filters", len(self.context.header_rows))

    def _connect_counts(self) -> RunCounts | None:
        """The counts the last write's observation received (Spark Connect), or None when it received none."""
        try:
            final = self._output_observation.get
            start = self._input.get if self._input is not None else None
        except Exception:  # the write failed, or its plan never reported the observation
            return None
        if not final or (self._input is not None and not start):
            return None
        rows_in = int(start["rows"]) if start else int(final["rows"])
        return _counts_from(rows_in, final, self.context.multiplying, "observation",
                            len(self.context.header_rows))

    def _aggregate_counts(self) -> RunCounts:
        row = self.frame.df.agg(*_final_metrics()).collect()[0].asDict()
        return _counts_from(self._source.count(), row, self.context.multiplying, "aggregate",
                            len(self.context.header_rows))


def _final_metrics() -> list[Any]:
    return [
        F.count(F.lit(1)).alias("rows"),
        F.count(F.col(ERROR)).alias("errors"),
        F.count(F.col(DROP)).alias("dropped"),
    ]


def _three_filters(passed: Mapping[str, int] | None) -> dict[str, int] | None:
    """Rows through each of `Frame.output`'s three filters, or None when the plan does not show them.

    Spark leaves a filter out of the plan when its condition always holds: a recipe that filters no row has
    `__wr_drop` null in every row, one that fails none `__wr_error`, and the filter testing it goes. Its count is
    then the one before it. (Filters are never merged: each tests the fence's partition id, which is not
    deterministic, and Spark combines only deterministic ones.)"""
    if passed is None:
        return None
    kinds = [_filter_kind(description) for description in passed]
    if len(set(kinds)) != len(kinds) or "all" not in kinds:
        return None
    by_filter = dict(zip(kinds, passed.values(), strict=True))
    by_filter.setdefault("kept", by_filter["all"])
    by_filter.setdefault("out", by_filter["kept"])
    return by_filter


def _filter_kind(description: str) -> str:
    """Which of `Frame.output`'s three filters a plan node's description is (conditions name the hidden columns;
    a pending frame's output tests the sign of `STATUS` as well, and Spark may have folded away a mark that is null
    in every row)."""
    if f"isnull({DROP}#" in description or re.search(rf"{STATUS}#\d+ < 0\b", description):
        return "kept"
    if f"isnull({ERROR}#" in description or re.search(rf"{STATUS}#\d+ > 0\b", description):
        return "out"
    return "all"


def _counts_from(rows_in: int, final: Mapping[str, Any], multiplying: Sequence[int] = (),
                 counted_by: str = "aggregate", header_rows: int = 0) -> RunCounts:
    total, errors, dropped = int(final["rows"]), int(final["errors"]), int(final["dropped"])
    out = total - errors - dropped
    return RunCounts(rows_in, out, errors, dropped - header_rows, total - rows_in, tuple(multiplying),
                     header_rows=header_rows, counted_by=counted_by)


def _observation(spark: SparkSession, name: str) -> Any:
    """An `Observation` of the session's kind (PySpark picks classic or Connect by a process-wide flag, which a
    process holding both kinds of session would get wrong)."""
    if is_remote_session(spark):
        from pyspark.sql.connect.observation import Observation as ConnectObservation

        return ConnectObservation(name)
    return Observation(name)


def _abort_error(error: Row) -> RecipeExecutionError:
    return RecipeExecutionError(
        f"Run aborted by directive {error['directive_index']} ('{error['directive']}') "
        f"on line {error['line']}: {error['message']}",
        line=error["line"],
        column=1,
        directive="fail",
    )


@contextmanager
def _analysing(spark: SparkSession) -> Iterator[None]:
    """How a recipe's projections are analysed, during the compile and whenever a pending frame is built later."""
    with compiling(), wrangler_semantics(spark):
        yield


#: Spark 4 turns ANSI mode on by default: a cast of 'x' to int, an overflow or an impossible date then throws
#: and fails the whole job, where Wrangler sends the row to the error output (or yields null).
_ANSI = "spark.sql.ansi.enabled"
#: Spark 4 records, for every Column the compile makes, the JVM stack of the call that made it (to name that call in
#: a Spark error): a stack walk per Column, ~10 % of a recipe's build. Its errors would point into our compilers,
#: never at the recipe (a row's failure is reported as the directive's own error), so the compile goes without.
_DATAFRAME_CONTEXT = "spark.sql.dataFrameQueryContext.enabled"


@contextmanager
def wrangler_semantics(spark: SparkSession) -> Iterator[None]:
    """Compile with ANSI mode off (and without DataFrame call-site capture, `_DATAFRAME_CONTEXT`), then put the
    session's settings back. Spark fixes each expression's mode when it is analysed, which `select` does at once, so
    the recipe's plan keeps lenient casts and arithmetic whatever the session says when it runs; the compilers turn
    what would have thrown into error rows. (Another thread's query on the same session while a recipe compiles sees
    the settings off too.)"""
    with _set_off(spark, _ANSI), _set_off(spark, _DATAFRAME_CONTEXT):
        yield


@contextmanager
def _set_off(spark: SparkSession, key: str) -> Iterator[None]:
    """The boolean session setting ``key`` false while the body runs, then as it was (unset when it was unset)."""
    before = spark.conf.get(key, None)
    if before is not None and before.strip().lower() == "false":
        yield
        return
    spark.conf.set(key, "false")
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


def run(df: DataFrame, recipe: str | Recipe, *, declared_widths: Mapping[int, int] | None = None,
        output_schema: Any = None, strict_schema: bool = True, precondition: str | None = None,
        widths_in_write: bool = False) -> RunResult:
    """Compile a recipe onto a DataFrame (lazily). ``recipe`` is text or a parsed `Recipe`.

    Pure DataFrame in, DataFrames out, so it composes: ``df.transform(lambda d: run(d, recipe).df)``.
    Fence and observation names are unique per call, so several runs may share one plan.
    ``output_schema`` (DDL text, `StructType` or Avro record) is the result's declared schema
    (`directives.spark.runtime.output_schema`); ``precondition`` a JEXL condition that skips a row before the
    recipe when true, as a Wrangler pipeline stage's (`directives.spark.runtime.precondition`).
    ``widths_in_write``: a `parse-as-csv` width the recipe names (every field, `body_1` … `body_n`) is checked by
    the pass that `RunResult.write` runs, not by a pass of its own before it (only the first records are read
    first): that pass stops at a record wider than the guess and `write` compiles again with the width learned and
    runs its action again. For callers that write through `write` (`wrangler run --output`); a caller that runs
    its own action on ``df`` would get that stop as a Spark error, so it is off by default.
    """
    parsed = recipe if isinstance(recipe, Recipe) else _directives.parse(recipe, schema=user_column_names(df))
    # Values Wrangler accepts when it compiles a recipe but that no run can use (a `cut -c` range of '-c')
    raise_collected(d.unrunnable for d in parsed.directives if d.unrunnable is not None)
    tag = uuid.uuid4().hex[:12]
    # Without a row-multiplying directive every input row is still in the final plan (errors and filtered rows
    # are marked, not removed), so the final count is the input count and the input needs no counter. With one,
    # the input rows go through a counted filter (`counted`: its counter is read from the write's own query), or,
    # over Spark Connect, where this process has no status store, an observation.
    input_observation, input_fence = None, None
    source = df
    fence_name = f"{FENCE_PREFIX}{tag}"
    if any(d.row_effect is RowEffect.MULTIPLY for d in parsed.directives):
        if is_remote_session(df.sparkSession):
            input_observation = _observation(df.sparkSession, f"wrangler_input_{tag}")
            source = df.observe(input_observation, F.count(F.lit(1)).alias("rows"))
        else:
            input_fence = f"{fence_name}_input"
            source = counted(df, input_fence)
    widths = dict(declared_widths or {})
    if output_schema is not None:  # the declared columns fix data-dependent widths: no discovery pass
        from directives.spark.runtime.output_schema import declared_widths as widths_of

        widths = {**widths_of(parsed, output_schema), **widths}
    context = RunContext(spark=df.sparkSession, declared_widths=widths, recipe=parsed.directives,
                         widths_in_write=widths_in_write)
    # A Python UDF directive's workers must import our modules wherever they run. Shipped before compiling: a UDF
    # takes the session's list of Python files when it is created, so a file added afterwards would not reach it.
    ship_code(df.sparkSession)
    with compiling(), wrangler_semantics(df.sparkSession):
        try:
            frame = _compiled(source, parsed, context, df, precondition, output_schema, strict_schema)
            output = frame.output(fence_name)
        except Exception:
            learned = _relearned(context, quiet=True)  # a width guessed wrong can fail a later directive
            if learned is None:
                raise
        else:
            learned = _relearned(context)
    again = partial(_run_again, df, parsed, declared_widths, output_schema, strict_schema, precondition,
                    widths_in_write)
    if learned is not None:
        return again(learned)
    return RunResult(parsed, output, frame, context, input_observation, fence_name, df, _again=again,
                     _input_fence=input_fence)


def _run_again(df: DataFrame, parsed: Recipe, declared_widths: Mapping[int, int] | None, output_schema: Any,
               strict_schema: bool, precondition: str | None, widths_in_write: bool, learned: Mapping[int, int]
               ) -> RunResult:
    """The same run compiled again with the widths it learned (its guesses were wrong)."""
    return run(df, parsed, declared_widths={**(declared_widths or {}), **learned}, output_schema=output_schema,
               strict_schema=strict_schema, precondition=precondition, widths_in_write=widths_in_write)


def _compiled(source: DataFrame, parsed: Recipe, context: RunContext, df: DataFrame, precondition: str | None,
              output_schema: Any, strict_schema: bool) -> Frame:
    """Every directive compiled onto the source, in order (and the precondition before, the schema after)."""
    frame = Frame.start(source, partial(_analysing, df.sparkSession))
    if precondition is not None:
        from directives.spark.runtime.precondition import apply_precondition

        frame = apply_precondition(frame, precondition, context, user_column_names(df))
    for directive in parsed.directives:
        compiler = compiler_for(directive)
        frame = compile_on(frame, partial(_compile_one, compiler, directive, context), context,
                           is_composable(directive), type(directive) in PENDING_RESULT)
        context.columns_after[directive.index] = list(frame.columns)
    if output_schema is not None:
        from directives.spark.runtime.output_schema import conform

        frame = compile_on(frame, partial(conform, schema=output_schema, index=len(parsed.directives) + 1,
                                          strict=strict_schema), context, True)
    return frame


def _relearned(context: RunContext, quiet: bool = False) -> dict[int, int] | None:
    """Waits for the jobs learning the widths the compile guessed (`WidthCheck`): the first guessed wrong, as a
    declared width to compile again with, or None when every guess was right. ``quiet``: a job that failed counts as
    no answer (None), for a compile that failed anyway and whose own error says more."""
    for check in sorted(context.width_checks, key=lambda check: check.index):
        try:
            learned = check.learned.result()
        except Exception:
            if quiet:
                return None
            raise
        if learned != check.guessed:
            return {check.index: learned}
    return None


def _compile_one(compiler: Compiler, directive: Directive, context: RunContext, frame: Frame) -> Frame:
    return compiler(directive, frame, context)


# -- run_rows: Wrangler's TestingRig for Python rows -------------------------------------------------------------------
@dataclass(frozen=True)
class RowsResult:
    rows: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    counts: RunCounts
    columns: list[str]
    #: Spark types of the output columns, for callers that check types (the conformance harness).
    schema: T.StructType | None = None
    #: Each transient variable's value after the last input row that set it (Wrangler's TransientStore at the end
    #: of a run), by lower-cased name. Defined because rows keep their input order.
    transient: dict[str, Any] = field(default_factory=dict)


def run_rows(recipe_text: str | Recipe, rows: Sequence[Mapping[str, Any]], spark: SparkSession | None = None,
             *, types: Mapping[str, T.DataType] | None = None, **kwargs: Any) -> RowsResult:
    """Run a recipe on Python rows (key order = column order) and collect plain Python results in one action.

    ``types`` pins the Spark type of input columns whose Python values cannot say it (a Java Long or Short).
    An error record is ``{"row": original row, "directive_index", "directive", "line", "message"}``.
    """
    session = spark or get_session()
    df = rows_to_dataframe(session, rows, types=types)
    result = run(df, recipe_text, **kwargs)
    schema = result.frame.df.schema
    collected = safe_select(result.frame.df).collect()
    out_rows: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    dropped = 0
    for raw in collected:
        row = from_safe_row(raw, schema)
        error = row[ERROR]
        if error is not None:
            if error["abort"]:
                raise _abort_error(error)
            original = row[ROW]
            if list(original) == ["__empty"]:
                original = {}
            errors.append({"row": original, "directive_index": error["directive_index"],
                           "directive": error["directive"], "line": error["line"], "message": error["message"]})
        elif row[DROP] is not None:
            dropped += 1
        else:
            out_rows.append({name: row[name] for name in result.frame.columns})
    headers = len(result.context.header_rows)
    counts = RunCounts(len(rows), len(out_rows), len(errors), dropped - headers, len(collected) - len(rows),
                       tuple(result.context.multiplying), headers, "rows")
    output_schema = T.StructType([schema[name] for name in result.frame.columns])
    transient = _last_transient_values(collected, schema)
    return RowsResult(out_rows, errors, counts, list(result.frame.columns), output_schema, transient)


def _last_transient_values(collected: Sequence[Row], schema: T.StructType) -> dict[str, Any]:
    """The last non-null value of each hidden variable column, in input order (the order column)."""
    variables = [f for f in schema.fields if f.name.startswith(VARIABLE_PREFIX) and f.name != ORDER]
    if not variables or ORDER not in schema.names:
        return {}
    order = schema.names.index(ORDER)
    ordered = sorted(collected, key=lambda raw: raw[order])
    values: dict[str, Any] = {}
    for variable in variables:
        index = schema.names.index(variable.name)
        last = next((raw[index] for raw in reversed(ordered) if raw[index] is not None), None)
        values[variable.name[len(VARIABLE_PREFIX):]] = _from_safe(last, variable.dataType)
    return values


# -- collecting safely: dates and timestamps travel as text ----------------------------------------------------------
_TIMESTAMPS = (T.TimestampType, T.TimestampNTZType)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH = dt.datetime(1970, 1, 1)
#: Epoch microseconds of the first and last instants Python's datetime can hold (years 1 to 9999).
_MIN_MICROS = (dt.datetime.min - _EPOCH) // dt.timedelta(microseconds=1)
_MAX_MICROS = (dt.datetime.max - _EPOCH) // dt.timedelta(microseconds=1)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _needs_safe(data_type: T.DataType) -> bool:
    if isinstance(data_type, (*_TIMESTAMPS, T.DateType)):
        return True
    if isinstance(data_type, T.StructType):
        return any(_needs_safe(f.dataType) for f in data_type.fields)
    if isinstance(data_type, T.ArrayType):
        return _needs_safe(data_type.elementType)
    if isinstance(data_type, T.MapType):
        return _needs_safe(data_type.valueType)
    return False


def _micros_or_text(micros: Column, value: Column) -> Column:
    """Epoch microseconds as text when Python can hold the instant, else Spark's own text of the value."""
    return F.when(micros.between(_MIN_MICROS, _MAX_MICROS), micros.cast("string")).otherwise(value.cast("string"))


def _safe_expr(value: Column, data_type: T.DataType) -> Column:
    """PySpark turns dates and timestamps into Python objects itself, through the local clock (which shifts NTZ
    values and fails for year 1) and with no way out for years Python has no date for (before 1, after 9999:
    `ValueError` while collecting, so one such value lost the whole result). So they travel as text — epoch
    microseconds for timestamps, ISO text for dates — and `_from_safe` rebuilds what Python can hold; the
    rest stays text."""
    if isinstance(data_type, T.TimestampType):
        return _micros_or_text(F.unix_micros(value), value)
    if isinstance(data_type, T.TimestampNTZType):
        micros = F.timestamp_diff("MICROSECOND", F.expr("TIMESTAMP_NTZ'1970-01-01 00:00:00'"), value)
        return _micros_or_text(micros, value)
    if isinstance(data_type, T.DateType):
        return value.cast("string")
    if isinstance(data_type, T.StructType):
        fields = [_safe_expr(value.getField(f.name), f.dataType).alias(f.name) if _needs_safe(f.dataType)
                  else value.getField(f.name).alias(f.name) for f in data_type.fields]
        return F.when(value.isNull(), F.lit(None)).otherwise(F.struct(*fields))
    if isinstance(data_type, T.ArrayType):
        return F.transform(value, lambda item: _safe_expr(item, data_type.elementType))
    if isinstance(data_type, T.MapType):
        return F.transform_values(value, lambda _key, item: _safe_expr(item, data_type.valueType))
    return value


def _safe_column(spark_field: T.StructField) -> Column:
    value = F.col(quote(spark_field.name))
    if _needs_safe(spark_field.dataType):
        value = _safe_expr(value, spark_field.dataType)
    return value.alias(spark_field.name)


def safe_select(df: DataFrame) -> DataFrame:
    """``df`` with dates and timestamps as text, so collecting it never fails (`from_safe_row` reads it back)."""
    return df.select(*(_safe_column(f) for f in df.schema.fields))


def from_safe_row(raw: Row, schema: T.StructType) -> dict[str, Any]:
    """A row of `safe_select(df)` as plain Python values, by the original ``df.schema``."""
    return {f.name: _from_safe(raw[i], f.dataType) for i, f in enumerate(schema.fields)}


def _from_safe(value: Any, data_type: T.DataType) -> Any:
    """Plain Python values: dicts for structs, bytes for binary, dates and datetimes rebuilt from their text
    (a value Python cannot hold stays Spark's text of it)."""
    if value is None:
        return None
    if isinstance(data_type, T.TimestampType):
        return _from_micros(value, _EPOCH_UTC)
    if isinstance(data_type, T.TimestampNTZType):
        return _from_micros(value, _EPOCH)
    if isinstance(data_type, T.DateType):
        return _date_or_text(value)
    if isinstance(data_type, T.StructType):
        return {f.name: _from_safe(value[i], f.dataType) for i, f in enumerate(data_type.fields)}
    if isinstance(data_type, T.ArrayType):
        return [_from_safe(item, data_type.elementType) for item in value]
    if isinstance(data_type, T.MapType):
        return {key: _from_safe(item, data_type.valueType) for key, item in value.items()}
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def _date_or_text(text: str) -> dt.date | str:
    try:
        return dt.date.fromisoformat(text) if _ISO_DATE.fullmatch(text) else text
    except ValueError:  # year 0, which Spark prints as 0000
        return text


def _from_micros(text: str, epoch: dt.datetime) -> dt.datetime | str:
    try:
        return epoch + dt.timedelta(microseconds=int(text))
    except (ValueError, OverflowError):  # Spark's text of an instant outside years 1 to 9999
        return text


# -- Python rows to a DataFrame ---------------------------------------------------------------------------------------
def rows_to_dataframe(spark: SparkSession, rows: Sequence[Mapping[str, Any]],
                      types: Mapping[str, T.DataType] | None = None) -> DataFrame:
    """A DataFrame from Python rows; each column gets the narrowest type all its values fit (mixed → string).

    Naive datetimes are `timestamp_ntz` (Java LocalDateTime), aware ones `timestamp` (ZonedDateTime);
    decimals get the precision and scale their values need (Decimal("10000.0") keeps scale 1).
    ``types`` overrides the inferred type of named columns.
    """
    names: list[str] = []
    seen: set[str] = set()
    for row in rows:
        for name in row:
            if name not in seen:
                seen.add(name)
                names.append(name)
    pinned = dict(types or {})
    fields = [T.StructField(name, pinned.get(name) or _infer([row.get(name) for row in rows]), True)
              for name in names]
    if not names:
        return spark.createDataFrame([() for _ in rows], T.StructType([]))
    schema = T.StructType(fields)
    data = [tuple(_coerce(row.get(f.name), f.dataType) for f in fields) for row in rows]
    return spark.createDataFrame(data, schema, verifySchema=False)


def _decimal_type(values: Sequence[decimal.Decimal]) -> T.DecimalType:
    scale = 0
    integral = 1
    for value in values:
        _sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):  # NaN or infinity: no decimal type holds it
            continue
        scale = max(scale, -exponent)
        integral = max(integral, len(digits) + exponent)
    scale = min(scale, 38)
    return T.DecimalType(min(integral + scale, 38), scale)


def _infer(values: Sequence[Any]) -> T.DataType:
    present = [v for v in values if v is not None]
    if not present:
        return T.StringType()
    if all(isinstance(v, bool) for v in present):
        return T.BooleanType()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return T.IntegerType() if all(-(2**31) <= v < 2**31 for v in present) else T.LongType()
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return T.DoubleType()
    if all(isinstance(v, decimal.Decimal) for v in present):
        return _decimal_type(present)
    if all(isinstance(v, (bytes, bytearray)) for v in present):
        return T.BinaryType()
    if all(isinstance(v, dt.datetime) for v in present):
        if all(v.tzinfo is None for v in present):
            return T.TimestampNTZType()
        return T.TimestampType()
    if all(isinstance(v, dt.date) for v in present):
        return T.DateType()
    if all(isinstance(v, dt.time) for v in present) and hasattr(T, "TimeType"):
        return T.TimeType()
    if all(isinstance(v, (list, tuple)) for v in present):
        return T.ArrayType(_infer([item for v in present for item in v]), True)
    if all(isinstance(v, Mapping) for v in present):
        keys: list[str] = []
        for v in present:
            keys += [k for k in v if k not in keys]
        return T.StructType([T.StructField(k, _infer([v.get(k) for v in present]), True) for k in keys])
    return T.StringType()


def _coerce(value: Any, data_type: T.DataType) -> Any:
    if value is None:
        return None
    if isinstance(data_type, T.StringType) and not isinstance(value, str):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (dict, list)):
            return json.dumps(value)
        return str(value)
    if isinstance(data_type, (T.DoubleType, T.FloatType)):
        return float(value)
    if isinstance(data_type, (T.IntegerType, T.LongType, T.ShortType, T.ByteType)) and not isinstance(value, bool):
        return int(value)
    if isinstance(data_type, T.DecimalType) and not isinstance(value, decimal.Decimal):
        return decimal.Decimal(str(value))
    if isinstance(data_type, T.TimestampType) and isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    if isinstance(data_type, T.TimestampNTZType) and isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    if isinstance(data_type, T.ArrayType):
        return [_coerce(item, data_type.elementType) for item in value]
    if isinstance(data_type, T.StructType):
        return tuple(_coerce(value.get(f.name), f.dataType) for f in data_type.fields)
    return value
