"""The row family on real Spark: explode lists and split values into rows, filter rows, keep counts reconciled."""

from __future__ import annotations

from typing import Any

import pytest

import directives
from directives.spark.runtime.runner import RowsResult

pytestmark = pytest.mark.spark


def run(text: str, rows: list[dict[str, Any]], spark: Any) -> RowsResult:
    result = directives.run_rows(text, rows, spark=spark)
    assert result.counts.reconciled
    return result


# -- flatten ---------------------------------------------------------------------------------------------------------
def test_flatten_explodes_to_the_longest_list_and_repeats_other_columns(spark) -> None:
    rows = [{"id": 1, "a": [1, 2, 3], "b": ["x", "y"]}, {"id": 2, "a": [4], "b": ["z"]}]
    result = run("flatten :a,:b", rows, spark)
    assert result.columns == ["id", "a", "b"]
    assert result.rows == [
        {"id": 1, "a": 1, "b": "x"},
        {"id": 1, "a": 2, "b": "y"},
        {"id": 1, "a": 3, "b": None},
        {"id": 2, "a": 4, "b": "z"},
    ]
    assert (result.counts.rows_in, result.counts.rows_out, result.counts.rows_added) == (2, 4, 2)


def test_flatten_null_and_empty_lists_give_one_row_and_missing_columns_are_added(spark) -> None:
    rows = [{"id": 1, "a": None}, {"id": 2, "a": []}, {"id": 3, "a": ["p", "q"]}]
    result = run("flatten :A,:extra", rows, spark)
    assert result.columns == ["id", "a", "extra"]
    assert result.rows == [
        {"id": 1, "a": None, "extra": None},
        {"id": 2, "a": None, "extra": None},
        {"id": 3, "a": "p", "extra": None},
        {"id": 3, "a": "q", "extra": None},
    ]


def test_flatten_scalar_columns_repeat_alongside_lists(spark) -> None:
    result = run("flatten :name,:tags", [{"name": "ada", "tags": ["m", "c"]}], spark)
    assert result.rows == [{"name": "ada", "tags": "m"}, {"name": "ada", "tags": "c"}]


def test_flatten_without_any_listed_column_drops_the_rows_as_wrangler(spark) -> None:
    result = run("flatten :nope", [{"a": 1}, {"a": 2}], spark)
    assert result.rows == []
    assert result.counts.filtered_rows == 2


def test_rows_that_failed_earlier_are_not_multiplied(spark) -> None:
    rows = [{"n": "x", "a": [1, 2, 3]}, {"n": "1", "a": [4, 5]}]
    result = run("set-type :n int\nflatten :a", rows, spark)
    assert result.rows == [{"n": 1, "a": 4}, {"n": 1, "a": 5}]
    assert len(result.errors) == 1 and result.errors[0]["row"] == {"n": "x", "a": [1, 2, 3]}
    assert (result.counts.rows_in, result.counts.rows_added, result.counts.error_rows) == (2, 1, 1)


# -- split-to-rows ---------------------------------------------------------------------------------------------------
def test_split_to_rows_uses_java_split_semantics(spark) -> None:
    rows = [{"body": "a,b,,c,,", "k": 1}, {"body": "", "k": 2}, {"body": ",,", "k": 3}]
    result = run("split-to-rows :body ','", rows, spark)
    assert result.rows == [
        {"body": "a", "k": 1}, {"body": "b", "k": 1}, {"body": "", "k": 1}, {"body": "c", "k": 1},
        {"body": "", "k": 2},
    ]
    assert result.counts.filtered_rows == 1  # only delimiters: Java's split gives no part


def test_split_to_rows_regex_and_null_values(spark) -> None:
    rows = [{"body": "one  two\tthree"}, {"body": None}]
    result = run("split-to-rows :body '\\s+'", rows, spark)
    assert [row["body"] for row in result.rows] == ["one", "two", "three"]
    assert len(result.errors) == 1 and "null value" in result.errors[0]["message"]
    assert result.errors[0]["row"] == {"body": None}


def test_split_to_rows_missing_column_drops_rows_and_wrong_type_is_an_error(spark) -> None:
    assert run("split-to-rows :nope ','", [{"a": "x"}], spark).counts.filtered_rows == 1
    result = run("split-to-rows :a ','", [{"a": 5}], spark)
    assert result.rows == [] and "invalid type" in result.errors[0]["message"]


# -- set-record-delim ------------------------------------------------------------------------------------------------
def test_set_record_delim_keeps_only_the_column_and_at_most_limit_rows(spark) -> None:
    rows = [{"id": 7, "body": "r1|r2|r3|r4"}, {"id": 8, "body": "s1"}]
    result = run("set-record-delim :body '\\|' 3", rows, spark)
    assert result.columns == ["body"]
    assert result.rows == [{"body": "r1"}, {"body": "r2"}, {"body": "r3"}, {"body": "s1"}]


def test_set_record_delim_without_limit_and_with_null_values(spark) -> None:
    rows = [{"body": "a\nb\nc\n"}, {"body": None}]
    result = run("set-record-delim :body '\\n'", rows, spark)
    assert [row["body"] for row in result.rows] == ["a", "b", "c"]
    assert result.counts.filtered_rows == 1 and result.errors == []


# -- filter-empty-or-null ----------------------------------------------------------------------------------------------
def test_filter_empty_or_null_keeps_each_row_once(spark) -> None:
    rows = [{"a": None, "b": None}, {"a": "", "b": None}, {"a": None, "b": "x"}, {"a": "y", "b": "z"}]
    result = run("filter-empty-or-null :a,:b,:missing", rows, spark)
    assert result.rows == rows[1:]  # once each, even with a missing listed column (Wrangler duplicates them)
    assert (result.counts.filtered_rows, result.counts.rows_added) == (1, 0)


def test_filter_empty_or_null_with_only_missing_columns_drops_everything(spark) -> None:
    result = run("filter-empty-or-null :nope", [{"a": "1"}, {"a": "2"}], spark)
    assert result.rows == [] and result.counts.filtered_rows == 2


# -- filter-by-regex -------------------------------------------------------------------------------------------------
def test_filter_by_regex_full_match(spark) -> None:
    rows = [{"e": "root@x.io"}, {"e": "xroot@x.io\n"}, {"e": "windy@x.io"}, {"e": "ROOT@x.io"}]
    matched = run("filter-by-regex if-matched :e 'root.*'", rows, spark)
    assert [row["e"] for row in matched.rows] == ["xroot@x.io\n", "windy@x.io", "ROOT@x.io"]
    not_matched = run("filter-by-regex if-not-matched :e 'root.*'", rows, spark)
    assert [row["e"] for row in not_matched.rows] == ["root@x.io"]


def test_filter_by_regex_on_numbers_and_nulls(spark) -> None:
    rows = [{"f": 22.4}, {"f": 22.5}, {"f": None}]
    result = run("filter-by-regex if-not-matched :F '.*22.4.*'", rows, spark)
    assert result.rows == [{"f": 22.4}]
    assert len(result.errors) == 1 and "null value" in result.errors[0]["message"]
    assert (result.counts.filtered_rows, result.counts.error_rows) == (1, 1)


def test_filter_by_regex_disabled_or_missing_column_keeps_rows(spark) -> None:
    rows = [{"a": "x"}, {"a": None}]
    assert run("filter-by-regex if-matched :a 'null'", rows, spark).rows == rows
    assert run("filter-by-regex if-matched :a ''", rows, spark).rows == rows
    assert run("filter-by-regex if-matched :zz '.*'", rows, spark).rows == rows


def test_filter_by_regex_on_records_keeps_rows_and_other_types_are_errors(spark) -> None:
    assert run("filter-by-regex if-matched :r '.*'", [{"r": {"k": "v"}}], spark).rows == [{"r": {"k": "v"}}]
    result = run("filter-by-regex if-matched :b '.*'", [{"b": True}], spark)
    assert result.rows == [] and "invalid type" in result.errors[0]["message"]


def test_v1_filter_forms_run_like_v2(spark) -> None:
    rows = [{"e": "a@x.io"}, {"e": "b@y.io"}]
    v1 = run("filter-row-if-matched e .*@x\\.io", rows, spark)
    v2 = run("filter-rows-on regex-match e .*@x\\.io", rows, spark)
    assert v1.rows == v2.rows == [{"e": "b@y.io"}]


def test_run_reports_the_multiplying_directives(spark) -> None:
    from directives.spark.runtime.runner import rows_to_dataframe

    df = rows_to_dataframe(spark, [{"a": "1,2", "b": [1, 2]}])
    result = directives.run(df, "split-to-rows :a ','\nrename :a :x\nflatten :b")
    assert result.context.multiplying == [1, 3]
    assert result.df.count() == 4
    counts = result.counts()
    assert (counts.rows_in, counts.rows_out, counts.rows_added) == (1, 4, 3)
