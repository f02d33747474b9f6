"""Reading a run's input and writing its outputs with Spark's own readers and writers.

Wrangler sees strings, so CSV columns are not type-inferred and a text file is one row per line in
`body`; no line of a CSV, JSON or text file is dropped without a trace (`line_formats`). CSV holds only
scalars, so nested values are written as JSON text and binary as base64. The `wrangler run` command line
calls these, so the server package never touches pyspark itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.file_formats import INPUT_FORMATS, OUTPUT_FORMATS
from directives.spark.runtime import line_formats
from directives.spark.runtime.frame import INPUT_ERROR, col, user_column_names
from directives.spark.runtime.runner import RunResult, from_safe_row, safe_select


def read_table(spark: SparkSession, path: str, fmt: str, header: bool = True) -> DataFrame:
    """The input of a run. For the line formats (csv, json, text) every line is a row, and a line that cannot
    be one (not UTF-8, broken quoting, a wrong number of values, not a JSON object) is a row with null values
    and the hidden column `INPUT_ERROR` (reason and line), which `directives.run` sends to the error output:
    see `line_formats`."""
    if fmt not in INPUT_FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; expected one of {', '.join(INPUT_FORMATS)}")
    if fmt == "csv":
        return line_formats.read_csv(spark, path, header)
    if fmt == "json":
        return line_formats.read_json(spark, path)
    if fmt == "parquet":
        return spark.read.parquet(path)
    return line_formats.read_text(spark, path)


def user_columns(df: DataFrame) -> DataFrame:
    """``df`` without the hidden `INPUT_ERROR` column, for callers that read a table without running a recipe
    (lines the reader could not parse are then rows of nulls)."""
    return df.select(*(col(name) for name in user_column_names(df)))


def sample_rows(df: DataFrame, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` rows the reader could parse, as plain Python rows of the user columns (dates and
    timestamps Python cannot hold come as Spark's text)."""
    if INPUT_ERROR in df.columns:
        df = df.filter(col(INPUT_ERROR).isNull())
    table = user_columns(df).limit(limit)
    return [from_safe_row(row, table.schema) for row in safe_select(table).collect()]


def column_names(df: DataFrame) -> list[str]:
    """The columns of a table as a recipe sees them (for parsing a recipe against the input's schema)."""
    return user_column_names(df)


def flatten_for_csv(df: DataFrame) -> DataFrame:
    columns = []
    for column in df.schema.fields:
        value = col(column.name)
        if isinstance(column.dataType, (T.StructType, T.ArrayType, T.MapType)):
            value = F.to_json(value)
        elif isinstance(column.dataType, T.BinaryType):
            value = F.base64(value)
        columns.append(value.alias(column.name))
    return df.select(*columns)


def write_table(df: DataFrame, path: str, fmt: str, header: bool = True, overwrite: bool = False) -> None:
    """Refuses to replace an existing directory unless told to: a re-run must not silently eat yesterday's output."""
    if fmt not in OUTPUT_FORMATS:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(OUTPUT_FORMATS)}")
    writer = (flatten_for_csv(df) if fmt == "csv" else df).write.mode("overwrite" if overwrite else "error")
    if fmt == "csv":
        writer.option("header", str(header).lower()).option("escape", '"').csv(path)
    elif fmt == "json":
        writer.json(path)
    else:
        writer.parquet(path)


def write_run(result: RunResult, write_output: Callable[[DataFrame], Any],
              write_errors: Callable[[DataFrame], Any] | None = None) -> None:
    """The output write is the pass that yields the counts; when the error rows are written too, the computed
    rows are kept (memory, then disk) so the second write does not run the whole recipe again."""
    if write_errors is None:
        result.write(write_output)
        return
    rows = result.frame.rows.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        result.write(write_output)
        write_errors(result.errors)
    finally:
        rows.unpersist()


def iter_rows(df: DataFrame) -> Iterator[dict[str, Any]]:
    """Plain Python rows, fetched one partition at a time so a large output never sits whole in the driver.
    Dates and timestamps Python cannot hold (before year 1, after 9999) come as Spark's text, not a crash."""
    for row in safe_select(df).toLocalIterator():
        yield from_safe_row(row, df.schema)


def is_spark_error(error: BaseException) -> bool:
    """Failures raised by Spark or its Java bridge (unreadable input, an existing output, executor errors)."""
    return type(error).__module__.startswith(("pyspark", "py4j"))
