"""`directives.run(df, recipe, output_schema=…)`: declared columns and types, and no discovery pass for widths."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import types as T

from directives.spark.internals.filter_counts import last_execution_id
from directives.spark.runtime.output_schema import OutputSchemaError
from directives.spark.runtime.runner import run

pytestmark = pytest.mark.spark

RECIPE = "parse-as-csv :body ',' false\nrename :body_1 :id\ndrop :body\n"


def lines(spark, *values: str):
    return spark.createDataFrame([(v,) for v in values], "body string")


def test_a_declared_schema_fixes_the_width_so_building_runs_no_spark_job(spark) -> None:
    df = lines(spark, "1,ada,10", "2,bob,oops,extra")
    before = last_execution_id(spark)
    result = run(df, RECIPE, output_schema="id INT, body_2 STRING, body_3 DOUBLE")
    assert last_execution_id(spark) == before  # no aggregate pass to learn how many columns the CSV has
    assert result.df.schema == T.StructType([T.StructField("id", T.IntegerType()),
                                             T.StructField("body_2", T.StringType()),
                                             T.StructField("body_3", T.DoubleType())])
    rows = [row.asDict() for row in result.df.collect()]
    assert rows == [{"id": 1, "body_2": "ada", "body_3": 10.0}]
    errors = result.errors.collect()
    assert [e["message"] for e in errors] == [
        "output schema: the value 'oops' of column body_3 is not a valid double"]
    counts = result.counts()
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.reconciled) == (2, 1, 1, True)


def test_without_a_schema_the_width_is_learnt_from_the_data(spark) -> None:
    df = lines(spark, "1,ada,10")
    before = last_execution_id(spark)
    result = run(df, RECIPE)
    assert last_execution_id(spark) > before  # the discovery pass the schema saves
    assert result.df.columns == ["id", "body_2", "body_3"]


def test_avro_struct_and_mismatches(spark) -> None:
    df = lines(spark, "1,ada")
    avro = {"type": "record", "name": "o", "fields": [{"name": "ID", "type": "long"},
                                                     {"name": "body_2", "type": ["string", "null"]}]}
    result = run(df, RECIPE, output_schema=json.dumps(avro))
    assert [tuple(r) for r in result.df.collect()] == [(1, "ada")]
    assert result.df.columns == ["ID", "body_2"]  # the declared name, found case-insensitively
    with pytest.raises(OutputSchemaError, match="does not make: age"):
        run(df, RECIPE, output_schema="id INT, age INT")
    lenient = run(df, RECIPE, output_schema="id INT, age INT", strict_schema=False)
    assert [tuple(r) for r in lenient.df.collect()] == [(1, None)]
    with pytest.raises(OutputSchemaError, match="not a Spark DDL schema"):
        run(df, RECIPE, output_schema="id INT,,")


def test_a_precondition_skips_rows_before_the_recipe(spark) -> None:
    result = run(lines(spark, "#skip", "1,ada"), RECIPE, precondition="body =^ '#'")
    assert [r["id"] for r in result.df.collect()] == ["1"]
    counts = result.counts()
    assert (counts.rows_in, counts.rows_out, counts.filtered_rows) == (2, 1, 1)
