"""Writer-family directives on real Spark: one row serialised into one column as CSV or JSON.

The JSON map is compared with Gson (the library Wrangler uses, present in Spark's JVM); the CSV
rules are Commons CSV's minimal quoting, checked case by case.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark


def _one(spark, recipe: str, row: dict[str, Any]) -> dict[str, Any]:
    result = run_rows(recipe, [row], spark=spark)
    assert not result.errors
    return result.rows[0]


# -- write-as-csv ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("row", "expected"), [
    ({"a": "x", "b": 1, "c": True, "d": 2.5}, "x,1,true,2.5"),
    ({"a": "x,y", "b": 'say "hi"'}, '"x,y","say ""hi"""'),
    ({"a": "line\nbreak", "b": "cr\rhere"}, '"line\nbreak","cr\rhere"'),
    ({"a": None, "b": None}, ","),
    ({"a": "", "b": ""}, '"",'),                # an empty first field is quoted, a later one is not
    ({"a": "#tag", "b": "!bang"}, '"#tag","!bang"'),  # a value starting with a char up to '#' is quoted
    ({"a": "ok", "b": "trailing "}, 'ok,"trailing "'),  # so is one ending with a space or control char
    ({"a": "é first", "b": "é later"}, '"é first",é later'),  # non-ASCII starts are quoted in the first field
    ({"a": "x"}, "x"),
])
def test_write_as_csv_quotes_like_commons_csv(spark, row: dict[str, Any], expected: str) -> None:
    result = _one(spark, "write-as-csv :out", row)
    assert result["out"] == expected
    assert list(result)[-1] == "out"


def test_write_as_csv_includes_the_old_target_value_and_replaces_it(spark) -> None:
    result = run_rows("write-as-csv :out", [{"a": "1", "out": "old"}], spark=spark)
    assert result.columns == ["a", "out"]
    assert result.rows == [{"a": "1", "out": "1,old"}]


def test_write_as_csv_sees_columns_added_earlier_in_the_recipe(spark) -> None:
    row = _one(spark, "copy :a :b\nwrite-as-csv :out\ndrop :a", {"a": "v"})
    assert row == {"b": "v", "out": "v,v"}


# -- write-as-json-map -----------------------------------------------------------------------------------------------
def test_write_as_json_map_matches_gson(spark) -> None:
    jvm = spark._jvm
    rows = [{"name": "Ada", "age": 36, "score": 9.5, "ok": True, "note": 'quote " and \\ ü'},
            {"name": None, "age": None, "score": None, "ok": None, "note": None}]
    result = run_rows("write-as-json-map :json", rows, spark=spark)
    for row in result.rows:
        java_map = jvm.java.util.LinkedHashMap()
        for key in ("name", "age", "score", "ok", "note"):
            java_map.put(key, row[key])
        expected = jvm.com.google.gson.Gson().toJson(java_map)
        assert json.loads(row["json"]) == json.loads(expected)
        assert list(json.loads(row["json"])) == list(json.loads(expected))  # same key order (column order)


def test_write_as_json_map_replaces_an_existing_column_in_place(spark) -> None:
    result = run_rows("write-as-json-map :J", [{"j": "old", "a": 1}], spark=spark)
    assert result.columns == ["j", "a"]
    assert json.loads(result.rows[0]["j"]) == {"j": "old", "a": 1}


# -- write-as-json-object --------------------------------------------------------------------------------------------
def test_write_as_json_object_keeps_numbers_and_strings_only(spark) -> None:
    rows = [{"lat": 1.5, "lon": 2, "name": "x", "flag": True}, {"lat": None, "lon": 3, "name": None, "flag": False}]
    result = run_rows("write-as-json-object :loc :lat,:LON,:name,:flag,:missing", rows, spark=spark)
    assert result.columns == ["lat", "lon", "name", "flag", "loc"]
    assert [r["loc"] for r in result.rows] == [{"lat": 1.5, "LON": 2, "name": "x"},
                                                {"lat": None, "LON": 3, "name": None}]


def test_write_as_json_object_is_an_object_not_text(spark) -> None:
    """Wrangler stores a JsonObject: the column is a struct, and a JSON map of the row nests it (and drops nulls)."""
    rows = [{"lat": None, "lon": 3}]
    result = run_rows("write-as-json-object :loc :lat,:lon\nwrite-as-json-map :j", rows, spark=spark)
    assert result.schema["loc"].dataType.fieldNames() == ["lat", "lon"]
    assert json.loads(result.rows[0]["j"]) == {"lon": 3, "loc": {"lon": 3}}


def test_write_as_json_object_into_a_listed_column(spark) -> None:
    row = _one(spark, "write-as-json-object :a :a,:b", {"a": "x", "b": 1})
    assert row["a"] == {"a": "x", "b": 1}


def test_write_as_json_object_with_nothing_to_write_is_an_empty_object(spark) -> None:
    result = run_rows("write-as-json-object :o :f,:g\nwrite-as-json-map :j", [{"f": True}], spark=spark)
    assert result.rows[0]["o"] == {}
    assert json.loads(result.rows[0]["j"]) == {"f": True, "o": {}}
