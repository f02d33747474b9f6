"""fail, filter-row, send-to-error and send-to-error-and-continue: the branches of their Java `execute()` and
`initialize()` (io.cdap.directives.row.Fail, RecordConditionFilter, SendToError, SendToErrorAndContinue) that
tests/spark/test_quality.py does not already pin. An `ELException` while evaluating is a
DirectiveExecutionException: the row goes to the error output with the evaluation's message."""

from __future__ import annotations

import pytest

import directives
from grammar.errors import RecipeError

pytestmark = pytest.mark.spark


def messages(result: object) -> dict[object, str]:
    return {e["row"]["a"]: e["message"] for e in result.errors}  # type: ignore[attr-defined]


def test_filter_row_comparing_text_with_a_number(spark: object) -> None:
    """RecordConditionFilter: JEXL compares `'7' > 5` as numbers; text that is no number fails the row."""
    rows = [{"a": "abc"}, {"a": "7"}, {"a": "3"}]
    result = directives.run_rows("filter-row exp:{a > 5} true", rows, spark=spark)
    assert [r["a"] for r in result.rows] == ["3"]
    assert list(messages(result)) == ["abc"] and "not a number" in messages(result)["abc"]


def test_send_to_error_type_mismatch_is_an_evaluation_error_not_the_message(spark: object) -> None:
    """SendToError: an ELException is rethrown as DirectiveExecutionException, not as the directive's message."""
    rows = [{"a": "abc"}, {"a": "9"}, {"a": "1"}]
    result = directives.run_rows("send-to-error exp:{a > 5} 'too big'", rows, spark=spark)
    assert [r["a"] for r in result.rows] == ["1"]
    assert messages(result)["9"] == "too big (ecode: 1, directive: send-to-error)"
    assert "not a number" in messages(result)["abc"] and "too big" not in messages(result)["abc"]


def test_send_to_error_and_continue_type_mismatch(spark: object) -> None:
    """SendToErrorAndContinue: the same evaluation failure; rows that pass go on."""
    result = directives.run_rows("send-to-error-and-continue exp:{a > 5}", [{"a": "x"}, {"a": "2"}], spark=spark)
    assert [r["a"] for r in result.rows] == ["2"]
    assert "not a number" in messages(result)["x"]


def test_fail_evaluation_error_fails_the_row_without_aborting(spark: object) -> None:
    """Fail: an ELException is a DirectiveExecutionException about that row, not "Terminating processing"."""
    result = directives.run_rows("fail exp:{a > 5}", [{"a": "x"}, {"a": "2"}], spark=spark)
    assert [r["a"] for r in result.rows] == ["2"]
    assert "not a number" in messages(result)["x"]


@pytest.mark.parametrize(("recipe", "reason"), [
    ("fail exp:{}", "condition is empty"),  # Fail.initialize: "No condition has been specified"
    ("send-to-error exp:{a ==}", "Expected an operand"),  # SendToError.initialize: EL.compile fails
    ("filter-row exp:{a >} true", "Expected an operand"),  # RecordConditionFilter.initialize
    ("send-to-error-and-continue exp:{(a}", "Unclosed"),
])
def test_conditions_that_do_not_compile_fail_the_recipe(recipe: str, reason: str) -> None:
    with pytest.raises(RecipeError, match=reason):
        directives.parse(recipe)
