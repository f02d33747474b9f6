"""Regression tests for conformance failures fixed in the compilers (one small recipe per cause).

Each test pins the *cause* a Wrangler conformance case exposed, on a recipe small enough to read:
the full cases stay in `tests/spark/test_conformance.py`.
"""

from __future__ import annotations

import json

import pytest

import directives
from directives.catalog.column_ops import unique_headers
from directives.spark.runtime.runner import run_rows


# -- set-headers onto duplicate names (FixedLengthParserTest.testFixedLengthComprehensive) -----------------------------
@pytest.mark.parametrize(("names", "rest", "expected"), [
    (["x", "y", "x"], [], ["x", "y", "x_2"]),
    (["x", "X", "x"], [], ["x", "X_2", "x_3"]),          # case-insensitive, like column lookups
    (["x", "x", "x_2"], [], ["x", "x_3", "x_2"]),        # a suffix never takes a name given later
    (["c"], ["b", "c"], ["c", "b", "c_2"]),              # an untouched column of the new name moves aside
    (["a", "b"], ["c"], ["a", "b", "c"]),
])
def test_unique_headers_keeps_the_first_and_suffixes_later_duplicates(names, rest, expected) -> None:
    assert unique_headers(names, rest) == expected


def test_set_headers_lineage_names_the_same_columns_as_the_run() -> None:
    recipe = directives.parse("set-headers :x,:y,:x", ["a", "b", "c"])
    assert recipe.final_columns.display() == ["x", "y", "x_2"]
    recipe = directives.parse("set-headers :c", ["a", "b", "c"])
    assert recipe.final_columns.display() == ["c", "b", "c_2"]


@pytest.mark.spark
def test_set_headers_with_a_name_twice_keeps_every_value_reachable(spark) -> None:
    result = run_rows("set-headers :x,:y,:X\ndrop :y", [{"a": "1", "b": "2", "c": "3"}], spark=spark)
    assert result.columns == ["x", "X_2"]
    assert result.rows == [{"x": "1", "X_2": "3"}]


@pytest.mark.spark
def test_set_headers_onto_an_untouched_column_name(spark) -> None:
    result = run_rows("set-headers :c\nrename :c_2 :old_c", [{"a": "1", "b": "2", "c": "3"}], spark=spark)
    assert result.columns == ["c", "b", "old_c"]
    assert result.rows == [{"c": "1", "b": "2", "old_c": "3"}]


@pytest.mark.spark
def test_fixed_length_then_set_headers_with_a_repeated_name(spark) -> None:
    recipe = "parse-as-fixed-length :body 1,2,1\ndrop :body\nset-headers :A,:Z,:Z"
    result = run_rows(recipe, [{"body": "abbc"}, {"body": "xyyz"}], spark=spark)
    assert not result.errors
    assert result.columns == ["A", "Z", "Z_2"]
    assert [row["Z_2"] for row in result.rows] == ["c", "z"]


# -- write-as-json-object nested by write-as-json-map (WriteAsJsonObjectTest.testCreatingJSONObject) -------------------
@pytest.mark.spark
def test_json_object_is_nested_not_quoted_by_json_map(spark) -> None:
    recipe = "write-as-json-object :coordinates :lat,:lon\nkeep :coordinates\nwrite-as-json-map :location"
    result = run_rows(recipe, [{"lat": -122.43345423, "lon": 37.234424223, "name": "x"}], spark=spark)
    text = result.rows[0]["location"]
    assert json.loads(text) == {"coordinates": {"lat": -122.43345423, "lon": 37.234424223}}
    assert text == '{"coordinates":{"lat":-122.43345423,"lon":37.234424223}}'  # Gson's spelling: no spaces
