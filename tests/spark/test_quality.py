"""fail, filter-row, send-to-error and send-to-error-and-continue on real Spark."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from directives.spark.expr.compiler import ExpressionError
from directives.spark.runtime.runner import RecipeExecutionError, rows_to_dataframe, run, run_rows

pytestmark = pytest.mark.spark

ROWS = [{"id": 1, "amount": 10, "note": "ok"}, {"id": 2, "amount": -5, "note": None},
        {"id": 3, "amount": 0, "note": "zero"}]


def ids(rows: list[dict[str, object]]) -> list[object]:
    return [row["id"] if "id" in row else row["row"]["id"] for row in rows]  # type: ignore[index]


def test_filter_row_removes_rows_where_the_condition_is_true(spark: SparkSession) -> None:
    result = run_rows("filter-row exp:{amount < 0}", ROWS, spark=spark)
    assert ids(result.rows) == [1, 3]
    counts = result.counts
    assert (counts.rows_out, counts.filtered_rows, counts.error_rows) == (2, 1, 0) and counts.reconciled


def test_filter_row_false_removes_rows_where_it_is_false_and_null_counts_as_false(spark: SparkSession) -> None:
    assert ids(run_rows("filter-row exp:{amount < 0} false", ROWS, spark=spark).rows) == [2]
    # `note == 'ok'` is false for the null note: with type false that row is removed too
    assert ids(run_rows("filter-row-if-false note == 'ok'", ROWS, spark=spark).rows) == [1]
    assert ids(run_rows("filter-rows-on condition-true note =~ 'z.*'", ROWS, spark=spark).rows) == [1, 2]


def test_send_to_error_keeps_the_original_row_and_the_message(spark: SparkSession) -> None:
    result = run_rows("rename :note :comment\nsend-to-error exp:{amount <= 0} 'not positive'", ROWS, spark=spark)
    assert ids(result.rows) == [1]
    assert ids(result.errors) == [2, 3]
    assert result.errors[0]["row"] == ROWS[1]  # the input row, before the rename
    assert {e["message"] for e in result.errors} == {"not positive (ecode: 1, directive: send-to-error)"}
    assert {(e["directive_index"], e["line"]) for e in result.errors} == {(2, 2)}
    assert result.counts.reconciled


def test_send_to_error_default_message_is_the_condition(spark: SparkSession) -> None:
    result = run_rows("send-to-error amount < 0", ROWS, spark=spark)
    assert [e["message"] for e in result.errors] == ["amount < 0 (ecode: 1, directive: send-to-error)"]


def test_first_rejecting_directive_wins(spark: SparkSession) -> None:
    recipe = ("send-to-error-and-continue exp:{amount < 0} 'negative'\n"
              "send-to-error-and-continue exp:{amount <= 0} 'not positive'\n"
              "send-to-error exp:{dq_failure >= 1}\n"
              "set-column :checks exp:{dq_total}")
    result = run_rows(recipe, ROWS, spark=spark)
    assert ids(result.rows) == [1]
    assert result.rows[0]["checks"] == 2
    assert sorted((e["row"]["id"], e["message"].split(" (")[0]) for e in result.errors) == [
        (2, "negative"), (3, "not positive")]


def test_a_condition_that_cannot_be_evaluated_is_a_row_error(spark: SparkSession) -> None:
    rows = [{"id": 1, "v": "12"}, {"id": 2, "v": "twelve"}]
    result = run_rows("filter-row exp:{v * 2 > 100}", rows, spark=spark)
    assert ids(result.rows) == [1]
    assert ids(result.errors) == [2] and "not a number" in result.errors[0]["message"]


def test_fail_aborts_the_run_naming_directive_and_line(spark: SparkSession) -> None:
    with pytest.raises(RecipeExecutionError) as caught:
        run_rows("drop :note\nfail exp:{amount < 0}", ROWS, spark=spark)
    assert caught.value.line == 2 and "amount < 0" in caught.value.message
    result = run(rows_to_dataframe(spark, ROWS), "fail exp:{amount < 0}")
    with pytest.raises(RecipeExecutionError):
        result.check_aborted()


def test_fail_that_never_fires_changes_nothing(spark: SparkSession) -> None:
    result = run_rows("fail exp:{amount > 1000}", ROWS, spark=spark)
    assert result.rows == ROWS
    run(rows_to_dataframe(spark, ROWS), "fail exp:{amount > 1000}").check_aborted()


def test_rows_rejected_earlier_do_not_trigger_fail(spark: SparkSession) -> None:
    result = run_rows("filter-row exp:{amount < 0}\nfail exp:{note == null}", ROWS, spark=spark)
    assert ids(result.rows) == [1, 3]


def test_transient_variables_are_visible_to_conditions(spark: SparkSession) -> None:
    recipe = "increment-variable seen 1 exp:{true}\nfilter-row exp:{seen > 2}"
    result = run_rows(recipe, ROWS, spark=spark)
    assert ids(result.rows) == [1, 2]
    with pytest.raises(RecipeExecutionError):
        run_rows("increment-variable negatives 1 exp:{amount < 0}\nfail exp:{negatives >= 1}", ROWS, spark=spark)


def test_unknown_function_in_a_condition_fails_at_compile_time(spark: SparkSession) -> None:
    with pytest.raises(ExpressionError) as caught:
        run(rows_to_dataframe(spark, ROWS), "filter-row exp:{string:isBlonk(note)}")
    assert (caught.value.line, caught.value.column) == (1, 17)
    assert "string:isBlank" in str(caught.value)
