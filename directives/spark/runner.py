"""Running a recipe on Spark: `run(df, recipe)` for pipelines, `run_rows(text, rows)` for embedding and tests.

The whole recipe becomes one lazy plan; counts come from Spark `Observation`s on that plan,
so they cost no extra pass when the output is written, and they reconcile:
``rows_in + rows_added == rows_out + error_rows + filtered_rows``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, Observation, Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

import directives as _directives
from directives.recipe import Recipe
from directives.spark.compilers import compiler_for
from directives.spark.frame import DROP, ERROR, ROW, Frame, RunContext
from directives.spark.session import get_session
from grammar.errors import RecipeError


class RecipeExecutionError(RecipeError):
    """The run was aborted by the data (the `fail` directive), naming the directive and line."""

    rule = "execution"


@dataclass(frozen=True)
class RunCounts:
    rows_in: int
    rows_out: int
    error_rows: int
    filtered_rows: int
    rows_added: int

    @property
    def reconciled(self) -> bool:
        return self.rows_in + self.rows_added == self.rows_out + self.error_rows + self.filtered_rows

    def to_dict(self) -> dict[str, int | bool]:
        return {"rows_in": self.rows_in, "rows_out": self.rows_out, "error_rows": self.error_rows,
                "filtered_rows": self.filtered_rows, "rows_added": self.rows_added, "reconciled": self.reconciled}


@dataclass
class RunResult:
    """Lazy outputs of a run. ``df`` and ``errors`` are DataFrames; `counts()` needs an action or reuses one."""

    recipe: Recipe
    df: DataFrame
    errors: DataFrame
    frame: Frame
    context: RunContext
    _input: Observation
    _final: Observation
    _source: DataFrame
    _counts: RunCounts | None = field(default=None, repr=False)

    def counts(self) -> RunCounts:
        if self._counts is None:
            self._counts = self._observed_counts() or self._aggregate_counts()
        return self._counts

    def check_aborted(self) -> None:
        """Raise `RecipeExecutionError` when a `fail` directive fired (one pass, only if the recipe has `fail`)."""
        if not any(d.name == "fail" for d in self.recipe.directives):
            return
        hit = self.frame.df.filter(F.col(f"{ERROR}.abort")).select(F.col(ERROR)).limit(1).collect()
        if hit:
            raise _abort_error(hit[0][0])

    def _observed_counts(self) -> RunCounts | None:
        try:
            start, final = self._input.get, self._final.get
        except Exception:  # an Observation raises until an action has run on its plan
            return None
        if not start or not final:
            return None
        return _counts_from(int(start["rows"]), final)

    def _aggregate_counts(self) -> RunCounts:
        row = self.frame.df.agg(*_final_metrics()).collect()[0].asDict()
        return _counts_from(self._source.count(), row)


def _final_metrics() -> list[Any]:
    return [
        F.count(F.lit(1)).alias("rows"),
        F.count(F.col(ERROR)).alias("errors"),
        F.count(F.col(DROP)).alias("dropped"),
    ]


def _counts_from(rows_in: int, final: Mapping[str, Any]) -> RunCounts:
    total, errors, dropped = int(final["rows"]), int(final["errors"]), int(final["dropped"])
    out = total - errors - dropped
    return RunCounts(rows_in, out, errors, dropped, total - rows_in)


def _abort_error(error: Row) -> RecipeExecutionError:
    return RecipeExecutionError(
        f"Run aborted by directive {error['directive_index']} ('{error['directive']}'): {error['message']}",
        line=error["line"],
        column=1,
        directive="fail",
    )


def run(df: DataFrame, recipe: str | Recipe, *, declared_widths: Mapping[int, int] | None = None) -> RunResult:
    """Compile a recipe onto a DataFrame (lazily). ``recipe`` is text or a parsed `Recipe`."""
    parsed = recipe if isinstance(recipe, Recipe) else _directives.parse(recipe, schema=list(df.columns))
    input_observation = Observation("wrangler_input")
    source = df.observe(input_observation, F.count(F.lit(1)).alias("rows"))
    frame = Frame.start(source)
    context = RunContext(spark=df.sparkSession, declared_widths=dict(declared_widths or {}))
    for directive in parsed.directives:
        frame = compiler_for(directive)(directive, frame, context)
    final_observation = Observation("wrangler_final")
    observed = frame.df.observe(final_observation, *_final_metrics())
    final = frame.with_df(observed)
    return RunResult(parsed, final.output(), final.errors(), final, context, input_observation, final_observation, df)


# -- run_rows: Wrangler's TestingRig for Python rows -------------------------------------------------------------------
@dataclass(frozen=True)
class RowsResult:
    rows: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    counts: RunCounts
    columns: list[str]


def run_rows(recipe_text: str | Recipe, rows: Sequence[Mapping[str, Any]], spark: SparkSession | None = None,
             **kwargs: Any) -> RowsResult:
    """Run a recipe on Python rows (key order = column order) and collect plain Python results in one action."""
    session = spark or get_session()
    df = rows_to_dataframe(session, rows)
    result = run(df, recipe_text, **kwargs)
    collected = result.frame.df.collect()
    out_rows: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    dropped = 0
    for row in collected:
        error = row[ERROR]
        if error is not None:
            if error["abort"]:
                raise _abort_error(error)
            errors.append({"row": to_python(row[ROW]), "directive_index": error["directive_index"],
                           "directive": error["directive"], "line": error["line"], "message": error["message"]})
        elif row[DROP] is not None:
            dropped += 1
        else:
            out_rows.append({name: to_python(row[name]) for name in result.frame.columns})
    counts = RunCounts(len(rows), len(out_rows), len(errors), dropped, len(collected) - len(rows))
    return RowsResult(out_rows, errors, counts, list(result.frame.columns))


def to_python(value: Any) -> Any:
    if isinstance(value, Row):
        return {key: to_python(item) for key, item in value.asDict().items()}
    if isinstance(value, list):
        return [to_python(item) for item in value]
    if isinstance(value, dict):
        return {key: to_python(item) for key, item in value.items()}
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def rows_to_dataframe(spark: SparkSession, rows: Sequence[Mapping[str, Any]]) -> DataFrame:
    """A DataFrame from Python rows; each column gets the narrowest type all its values fit (mixed → string)."""
    names: list[str] = []
    seen: set[str] = set()
    for row in rows:
        for name in row:
            if name not in seen:
                seen.add(name)
                names.append(name)
    fields = [T.StructField(name, _infer([row.get(name) for row in rows]), True) for name in names]
    schema = T.StructType(fields)
    data = [tuple(_coerce(row.get(f.name), f.dataType) for f in fields) for row in rows]
    if not names:
        return spark.createDataFrame([() for _ in rows], T.StructType([]))
    return spark.createDataFrame(data, schema)


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
        return T.DecimalType(38, 18)
    if all(isinstance(v, (bytes, bytearray)) for v in present):
        return T.BinaryType()
    if all(isinstance(v, dt.datetime) for v in present):
        return T.TimestampType()
    if all(isinstance(v, dt.date) for v in present):
        return T.DateType()
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
    if isinstance(data_type, T.DoubleType):
        return float(value)
    if isinstance(data_type, T.ArrayType):
        return [_coerce(item, data_type.elementType) for item in value]
    if isinstance(data_type, T.StructType):
        return tuple(_coerce(value.get(f.name), f.dataType) for f in data_type.fields)
    return value
