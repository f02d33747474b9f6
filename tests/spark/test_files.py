"""Spark's readers and writers as a run uses them: formats, refusing to overwrite, and writing the error rows
beside the output from one computation of the recipe."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from directives.spark.internals.filter_counts import last_execution_id
from directives.spark.runtime.files import read_table, user_columns, write_run, write_table
from directives.spark.runtime.runner import rows_to_dataframe, run

pytestmark = pytest.mark.spark

RECIPE = "set-type :n int\nfilter-row exp:{ k == 'skip' }"
ROWS = [{"k": "a", "n": "1"}, {"k": "b", "n": "x"}, {"k": "skip", "n": "2"}, {"k": "c", "n": "3"}]


def test_unknown_formats_are_refused_before_spark_is_asked(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown input format 'xml'"):
        read_table(spark, str(tmp_path), "xml")
    with pytest.raises(ValueError, match="unknown output format 'text'"):
        write_table(spark.range(1), str(tmp_path / "out"), "text")


def test_an_existing_output_is_kept_unless_overwrite_is_asked(spark: SparkSession, tmp_path: Path) -> None:
    target = str(tmp_path / "out")
    write_table(spark.createDataFrame([("first",)], "v string"), target, "json")
    with pytest.raises(Exception, match=r"(?i)already exists"):
        write_table(spark.createDataFrame([("second",)], "v string"), target, "json")
    assert [r.v for r in read_table(spark, target, "json").collect()] == ["first"]
    write_table(spark.createDataFrame([("second",)], "v string"), target, "json", overwrite=True)
    assert [r.v for r in read_table(spark, target, "json").collect()] == ["second"]


def test_csv_output_holds_nested_and_binary_values_as_text(spark: SparkSession, tmp_path: Path) -> None:
    df = spark.sql("SELECT 'x' AS k, array(1, 2) AS a, named_struct('p', 1) AS s, X'CAFE' AS b")
    write_table(df, str(tmp_path / "out"), "csv")
    row = user_columns(read_table(spark, str(tmp_path / "out"), "csv")).collect()[0]
    assert row.asDict() == {"k": "x", "a": "[1,2]", "s": '{"p":1}', "b": "yv4="}


def test_write_run_writes_output_and_errors_from_one_computation(spark: SparkSession, tmp_path: Path) -> None:
    result = run(rows_to_dataframe(spark, ROWS), RECIPE)
    out, errors = str(tmp_path / "out"), str(tmp_path / "errors")
    write_run(result, lambda df: write_table(df, out, "parquet"), lambda df: write_table(df, errors, "parquet"))
    before = last_execution_id(spark)
    counts = result.counts()
    assert last_execution_id(spark) == before  # the output write's own counters
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.filtered_rows) == (4, 2, 1, 1)
    assert sorted(r.k for r in spark.read.parquet(out).collect()) == ["a", "c"]
    assert spark.read.parquet(errors).count() == 1
    assert not result.frame.rows.storageLevel.useMemory  # the cache is released after the writes


def test_write_run_without_errors_caches_nothing(spark: SparkSession, tmp_path: Path) -> None:
    result = run(rows_to_dataframe(spark, ROWS), RECIPE)
    write_run(result, lambda df: write_table(df, str(tmp_path / "out"), "json"))
    assert not result.frame.rows.is_cached
    assert result.counts().rows_out == 2
