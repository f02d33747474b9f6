"""set-variable and increment-variable on real Spark, from SetTransientVariable / IncrementTransientVariable.

Wrangler evaluates the condition per row with an ELContext holding the row's columns and then every
transient variable (so a variable shadows a column of the same name), and keeps the result in its
GLOBAL TransientStore. Our per-row model of that store is described in docs/differences/expressions.md.
"""

from __future__ import annotations

from typing import Any

import pytest

import directives

pytestmark = pytest.mark.spark


def _seen(spark: Any, recipe: str, rows: list[dict[str, Any]]) -> list[Any]:
    result = directives.run_rows(recipe + "\nset-column :out v", rows, spark=spark)
    assert result.errors == []
    return [row["out"] for row in result.rows]


def test_increment_variable_does_not_exist_before_its_first_increment(spark) -> None:
    # DefaultTransientStore.increment creates the Long on the first true condition; before it, `v` is the row's
    # (absent) column: null
    rows = [{"a": "y"}, {"a": "x"}, {"a": "y"}]
    assert _seen(spark, "increment-variable v 1 a == 'x'", rows) == [None, 1, 1]
    assert _seen(spark, "increment-variable v 1 a == 'q'", rows) == [None, None, None]


def test_increment_variable_by_zero_still_creates_the_variable(spark) -> None:
    assert _seen(spark, "increment-variable v 0 true", [{"a": 1}]) == [0]


def test_increment_variable_reads_text_conditions_with_parse_boolean(spark) -> None:
    # ELResult.getBoolean: a String result is Boolean.parseBoolean (only "true", any case)
    rows = [{"a": "true"}, {"a": "false"}, {"a": "yes"}, {"a": "TRUE"}]
    assert _seen(spark, "increment-variable v 1 a", rows) == [1, 1, 1, 2]


def test_increment_variable_truncates_the_amount_to_a_long(spark) -> None:
    # ((Numeric) value).longValue(): 2.9 counts as 2
    assert _seen(spark, "increment-variable v 2.9 true", [{"a": 1}, {"a": 2}]) == [2, 4]


def test_set_variable_shadows_a_column_of_the_same_name(spark) -> None:
    # ELContext: row values first, then the transient store's variables over them
    assert _seen(spark, "set-variable v 10", [{"v": 1}]) == [10]


def test_set_variable_is_the_value_of_its_own_row(spark) -> None:
    assert _seen(spark, "set-variable v a * 2", [{"a": 1}, {"a": 3}]) == [2, 6]


def test_increment_after_set_variable_counts_only_its_own_row(spark) -> None:
    # RecipePipelineExecutor runs one row through every directive: set-variable stores 5 again on each row,
    # and the increment adds to that Long (a stored null counts as 0)
    rows = [{"a": 1}, {"a": 2}, {"a": 3}]
    assert _seen(spark, "set-variable v 5\nincrement-variable v 1 a > 1", rows) == [5, 6, 6]
    assert _seen(spark, "set-variable v null\nincrement-variable v 2 a > 1", rows) == [None, 2, 2]


def test_increments_without_set_variable_accumulate_over_rows(spark) -> None:
    # the GLOBAL store outlives the row: two increments of one variable add up across rows
    rows = [{"a": 1}, {"a": 2}, {"a": 3}]
    assert _seen(spark, "increment-variable v 1 a > 1\nincrement-variable v 10 a == 1", rows) == [10, 11, 12]
