"""Reading a run's input and writing its outputs with Spark's own readers and writers.

Wrangler sees strings, so CSV columns are not type-inferred and a text file is one row per line in
`body`; CSV holds only scalars, so nested values are written as JSON text and binary as base64. The
`wrangler run` command line calls these, so the server package never touches pyspark itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.file_formats import INPUT_FORMATS, OUTPUT_FORMATS
from directives.spark.frame import col
from directives.spark.runner import RunResult, from_safe_row, safe_select


def read_table(spark: SparkSession, path: str, fmt: str, header: bool = True) -> DataFrame:
    if fmt not in INPUT_FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; expected one of {', '.join(INPUT_FORMATS)}")
    reader = spark.read
    if fmt == "csv":
        return (reader.option("header", str(header).lower()).option("inferSchema", "false")
                .option("escape", '"').csv(path))  # RFC 4180: a quote inside quotes is doubled
    if fmt == "json":
        return reader.json(path)
    if fmt == "parquet":
        return reader.parquet(path)
    return reader.text(path).withColumnRenamed("value", "body")


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
    writer = (flatten_for_csv(df) if fmt == "csv" else df).write.mode("overwrite" if overwrite else "errorifexists")
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
