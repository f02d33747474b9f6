"""The expression compiler on real Spark: JEXL semantics, functions and compile-time errors.

Wrangler's own cases for expression directives run in `test_conformance.py` with the other families.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from directives.spark.compile.transient import transient_values
from directives.spark.expr.compiler import ExpressionError
from directives.spark.expr.functions import FUNCTIONS, METHODS, NAMESPACES, supported_table
from directives.spark.runtime.runner import rows_to_dataframe, run, run_rows
from tests.paths import ROOT

pytestmark = pytest.mark.spark



def one(recipe: str, rows: list[dict[str, Any]], spark: SparkSession, column: str = "e") -> list[Any]:
    result = run_rows(recipe, rows, spark=spark)
    assert not result.errors, result.errors
    return [row[column] for row in result.rows]


# -- arithmetic and operators --------------------------------------------------------------------------------------
def test_integer_arithmetic_stays_integer_and_division_truncates(spark: SparkSession) -> None:
    rows = [{"a": 7, "b": 2}, {"a": -7, "b": 2}]
    result = run_rows("set-column :q exp:{a / b}\nset-column :r exp:{a % b}\nset-column :s exp:{a * b - 1}",
                      rows, spark=spark)
    assert [(r["q"], r["r"], r["s"]) for r in result.rows] == [(int(7 / 2), 7 - 2 * int(7 / 2), 13),
                                                               (int(-7 / 2), -7 - 2 * int(-7 / 2), -15)]
    assert dict(zip(result.columns, [None] * 5, strict=False))  # columns exist
    df = run(rows_to_dataframe(spark, rows), "set-column :q exp:{a / b}").df
    assert isinstance(df.schema["q"].dataType, T.IntegerType)


def test_text_plus_anything_concatenates_and_text_times_number_is_a_double(spark: SparkSession) -> None:
    rows = [{"s": "11.79", "n": 3}]
    result = run_rows("set-column :c exp:{s + n}\nset-column :d exp:{n + s}\nset-column :m exp:{s * 40 * 4}",
                      rows, spark=spark)
    (row,) = result.rows
    assert (row["c"], row["d"]) == ("11.793", "311.79")
    assert row["m"] == 11.79 * 40 * 4  # JEXL: Double arithmetic, exactly as Java computes it


def test_null_operand_of_arithmetic_sends_the_row_to_errors(spark: SparkSession) -> None:
    rows = [{"a": 1, "b": None}, {"a": 2, "b": 5}]
    result = run_rows("set-column :c exp:{a + b}", rows, spark=spark)
    assert [r["c"] for r in result.rows] == [7]
    assert [e["row"] for e in result.errors] == [{"a": 1, "b": None}]
    assert "null operand" in result.errors[0]["message"]
    assert result.counts.reconciled


def test_failures_in_a_branch_not_taken_do_not_count(spark: SparkSession) -> None:
    rows = [{"a": 1, "b": None}, {"a": 0, "b": 5}]
    got = one("set-column :e exp:{a == 1 ? 'none' : b + 1}", rows, spark)
    assert got == ["none", "6"]  # unified as text: JEXL's per-row types become one Spark type
    assert one("set-column :e exp:{b != null && b + 1 > 3}", rows, spark) == [False, True]


def test_division_by_zero_and_text_that_is_not_a_number_are_row_errors(spark: SparkSession) -> None:
    result = run_rows("set-column :c exp:{a / b}", [{"a": 1, "b": 0}, {"a": 4, "b": 2}], spark=spark)
    assert [r["c"] for r in result.rows] == [2]
    assert "division by zero" in result.errors[0]["message"]
    result = run_rows("set-column :c exp:{a * 2}", [{"a": "x1"}, {"a": "3"}], spark=spark)
    assert [r["c"] for r in result.rows] == [6.0]
    assert "not a number" in result.errors[0]["message"]


def test_integer_overflow_is_an_error_not_a_wrapped_value(spark: SparkSession) -> None:
    result = run_rows("set-column :c exp:{a * a}", [{"a": 2**20}, {"a": 3}], spark=spark)
    assert [r["c"] for r in result.rows] == [9]
    assert "overflow" in result.errors[0]["message"]


def test_equality_and_comparison_follow_jexl(spark: SparkSession) -> None:
    rows = [{"c": "1", "d": "2.0", "n": None}, {"c": "2", "d": "3.0", "n": "x"}]
    assert one("set-column :e exp:{c == 1}", rows, spark) == [True, False]
    assert one("set-column :e exp:{d == 3.0}", rows, spark) == [False, True]
    assert one("set-column :e exp:{n == null}", rows, spark) == [True, False]
    assert one("set-column :e exp:{n < 5}", [{"n": None}], spark) == [False]  # null compares false
    assert one("set-column :e exp:{c < 'b'}", rows, spark) == ["1" < "b", "2" < "b"]
    assert one("set-column :e exp:{d > c}", rows, spark) == [2.0 > 1, 3.0 > 2]


def test_logic_ternary_elvis_and_truthiness(spark: SparkSession) -> None:
    rows = [{"s": "", "n": 0, "t": "false"}, {"s": "x", "n": 2, "t": "yes"}]
    assert one("set-column :e exp:{!s}", rows, spark) == [True, False]
    assert one("set-column :e exp:{n ? 'y' : 'n'}", rows, spark) == ["n", "y"]
    assert one("set-column :e exp:{t ?: 'default'}", rows, spark) == ["default", "yes"]
    assert one("set-column :e exp:{s || n}", rows, spark) == [False, True]
    assert one("set-column :e exp:{not (n gt 1) and true}", rows, spark) == [True, False]


def test_regex_match_is_a_full_match_and_lists_are_membership(spark: SparkSession) -> None:
    rows = [{"a": "Washington"}, {"a": "Window"}, {"a": None}]
    assert one("set-column :e exp:{a =~ 'Was.*'}", rows, spark) == [True, False, False]
    assert one("set-column :e exp:{a =~ 'Wash'}", rows, spark) == [False, False, False]
    assert one("set-column :e exp:{a !~ 'Win.*'}", rows, spark) == [True, False, True]
    assert one("set-column :e exp:{a =~ ['Window', 'Door']}", rows, spark) == [False, True, False]
    assert one("set-column :e exp:{a =^ 'Wa'}", rows, spark) == [True, False, False]
    assert one("set-column :e exp:{a =$ 'dow'}", rows, spark) == [False, True, False]


def test_empty_and_size(spark: SparkSession) -> None:
    rows = [{"a": "", "l": ["x", "y"]}, {"a": "abc", "l": []}]
    assert one("set-column :e exp:{empty(a)}", rows, spark) == [True, False]
    assert one("set-column :e exp:{size(a) + size l}", rows, spark) == [0 + 2, 3 + 0]
    assert one("set-column :e exp:{empty missing}", rows, spark) == [True, True]


def test_scripts_with_var_if_and_assignment(spark: SparkSession) -> None:
    rows = [{"w": "11.79"}, {"w": "2"}]
    assert one("set-column :e exp:{var x; x = math:ceil(toFloat(w)); x + 1}", rows, spark) == [
        math.ceil(11.79) + 1.0, math.ceil(2.0) + 1.0]
    assert one("set-column :e exp:{var y = 1; if (w == '2') { y += 10 } else { y = 5 }; y}", rows, spark) == [5, 11]


# -- names ----------------------------------------------------------------------------------------------------------
def test_column_references_are_case_insensitive_and_missing_columns_read_null(spark: SparkSession) -> None:
    rows = [{"Price": 2, "qty": 3}]
    assert one("set-column :e exp:{price * QTY}", rows, spark) == [6]
    assert one("set-column :e exp:{nothing == null}", rows, spark) == [True]


def test_dotted_names_reach_into_records_and_columns_with_dots(spark: SparkSession) -> None:
    rows = [{"rec": {"Inner": {"x": 4}, "y": "a"}, "a.b": "dotted"}]
    assert one("set-column :e exp:{rec.inner.x + 1}", rows, spark) == [5]
    assert one("set-column :e exp:{a.b}", rows, spark) == ["dotted"]
    assert one("set-column :e exp:{rec['y']}", rows, spark) == ["a"]


def test_this_and_ctx(spark: SparkSession) -> None:
    rows = [{"a": "x", "b": None, "c": None}, {"a": "x", "b": "y", "c": "z"}]
    assert one("set-column :e exp:{this.width()}", rows, spark) == [1, 3]
    assert one("set-column :e exp:{this.getValue('A')}", rows, spark) == ["x", "x"]
    nano = one("set-column :e exp:{ctx.nano}", rows[:1], spark)[0]
    assert isinstance(nano, int) and nano > 0


# -- functions and methods ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("expression", "value", "expected"),
    [
        ("a.trim()", "  Ab c ", "Ab c"),
        ("a.toUpperCase()", "Ab", "AB"),
        ("a.toLowerCase()", "Ab", "ab"),
        ("a.length()", "Abc", 3),
        ("a.substring(1, 3)", "Abcd", "Abcd"[1:3]),
        ("a.substring(2)", "Abcd", "Abcd"[2:]),
        ("a.contains('bc')", "Abcd", True),
        ("a.startsWith('Ab')", "Abcd", True),
        ("a.endsWith('x')", "Abcd", False),
        ("a.indexOf('c')", "Abcd", "Abcd".index("c")),
        ("a.replace('b', 'B')", "abab", "aBaB"),
        ("a.replaceAll('[0-9]+', '#')", "a1b22", "a#b#"),
        ("a.matches('[a-z]+')", "abc", True),
        ("a.charAt(1)", "abc", "b"),
        ("a.equalsIgnoreCase('ABC')", "abc", True),
        ("string:trim(a)", " x ", "x"),
        ("string:upperCase(a)", "x", "X"),
        ("string:reverse(a)", "root@jolite.io", "root@jolite.io"[::-1]),
        ("string:left(a, 2)", "abcdef", "ab"),
        ("string:right(a, 2)", "abcdef", "ef"),
        ("string:substring(a, -3)", "abcdef", "abcdef"[-3:]),
        ("string:substring(a, 1, 3)", "abcdef", "abcdef"[1:3]),
        ("string:substringBefore(a, '-')", "x-y-z", "x"),
        ("string:substringAfterLast(a, '-')", "x-y-z", "z"),
        ("string:substringBeforeLast(a, '-')", "x-y-z", "x-y"),
        ("string:substringAfter(a, '--')", "x--y--z", "y--z"),
        ("string:lastIndexOf(a, 'an')", "banana", "banana".rindex("an")),
        ("a.lastIndexOf('a')", "banana", "banana".rindex("a")),
        ("string:leftPad(a, 5, '0')", "42", "00042"),
        ("string:isEmpty(a)", "", True),
        ("string:isNumeric(a)", "123", True),
        ("string:capitalize(a)", "hello", "Hello"),
        ("string:countMatches(a, 'a')", "banana", 3),
        ("string:replace(a, 'an', '_')", "banana", "banana".replace("an", "_")),
        ("strings:padStart(a, 3, '0')", "7", "007"),
        ("padAtEnd(a, 5, '0')", "4.", "4.000"),
        ("concat(a, '!')", "hi", "hi!"),
        ("concat(a, ', ', 'x')", "hi", "hi, x"),
        ("format('%s-%s', a, a)", "q", "q-q"),
        ("unquote(a)", "'quoted'", "quoted"),
        ("repeat(a, 3)", "ab", "ababab"),
        ("toInteger(a) + 1", "41", 42),
        ("toDouble(a) / 2", "3", 1.5),
        ("math:abs(-toInteger(a))", "5", 5),
        ("math:pow(toDouble(a), 2)", "3", 9.0),
        ("math:sqrt(toDouble(a))", "16", 4.0),
        ("math:round(toDouble(a))", "2.5", 3),
        ("math:floor(toDouble(a))", "2.7", 2.0),
        ("math:max(toInteger(a), 10)", "3", 10),
        ("math:log10(toDouble(a))", "1000", 3.0),
        ("logical:BitAnd(toLong(a), 6)", "12", 12 & 6),
        ("logical:BitExpand(toLong(a))", "5", bin(5)[2:]),
        ("json:IsValid(a)", '{"k": [1, 2]}', True),
        ("json:IsValid(a)", "{bad", False),
        ("json:ArrayLength(a)", "[1, 2, 3]", 3),
        ("date:YEAR(a)", "2009-08-18 10:00:00", 2009),
        ("date:DAY_OF_WEEK(a)", "2009-08-18 10:00:00", dt.date(2009, 8, 18).isoweekday()),
        ("date:UNIXTIMESTAMP_SECONDS(a)", "1970-01-02 00:00:00", 86400),
        ("datetime:YeardayFromDate(a)", "2008-08-18", dt.date(2008, 8, 18).timetuple().tm_yday),
    ],
)
def test_functions_and_methods(spark: SparkSession, expression: str, value: str, expected: Any) -> None:
    assert one(f"set-column :e exp:{{{expression}}}", [{"a": value}], spark) == [expected]


def test_bytes_namespace(spark: SparkSession) -> None:
    rows = [{"n": (99).to_bytes(4, "big"), "neg": (-2).to_bytes(4, "big", signed=True), "t": b"root"}]
    result = run_rows("set-column :a exp:{bytes:toInt(n)}\nset-column :b exp:{bytes:toInt(neg)}\n"
                      "set-column :c exp:{bytes:toString(t)}", rows, spark=spark)
    (row,) = result.rows
    assert (row["a"], row["b"], row["c"]) == (99, -2, "root")


def test_json_parse_and_select(spark: SparkSession) -> None:
    rows = [{"j": '{"a": {"b": 5}}'}, {"j": "{nope"}]
    result = run_rows("set-column :e exp:{json:IsValid(j) ? json:Stringify(json:Select(j, '$.a')) : 'bad'}",
                      rows, spark=spark)
    assert [json.loads(r["e"]) if r["e"] != "bad" else r["e"] for r in result.rows] == [{"b": 5}, "bad"]
    # JsonFunctions.Parse catches JsonSyntaxException and returns JsonNull; the deprecated json:parse throws
    result = run_rows("set-column :e exp:{json:Stringify(json:Parse(j))}", rows, spark=spark)
    assert [r["e"] for r in result.rows] == ['{"a":{"b":5}}', "null"]
    result = run_rows("set-column :e exp:{json:parse(j)}", rows, spark=spark)
    assert len(result.rows) == 1 and "not valid JSON" in result.errors[0]["message"]


def test_every_listed_namespace_is_documented() -> None:
    text = (ROOT / "docs" / "expressions.md").read_text(encoding="utf-8")
    for call, _arity, _doc in supported_table():
        assert f"`{call}`" in text, call
    for namespace in NAMESPACES:
        assert f"`{namespace}:`" in text, namespace


# -- compile-time errors --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("recipe", "fragment", "line", "column"),
    [
        ("set-column :e exp:{string:revers(a)}", "string:revers", 1, 20),
        ("drop :x\nset-column :e exp:{1 + nope(a)}", "nope", 2, 24),
        ("set-column :e exp:{geo:InFance(a, b, c)}", "geo:InFance", 1, 20),
        ("set-column :e exp:{arrays:equals(a, b, c, x, a)}", "arrays:equals", 1, 20),
        ("set-column :e exp:{a.frobnicate()}", "frobnicate", 1, 20),
        ("filter-row exp:{math:abs(a, b)}", "math:abs", 1, 17),
    ],
)
def test_unknown_functions_fail_before_anything_runs(spark: SparkSession, recipe: str, fragment: str, line: int,
                                                     column: int) -> None:
    df = rows_to_dataframe(spark, [{"a": "1", "b": 2, "c": 3, "x": 0}])
    with pytest.raises(ExpressionError) as caught:
        run(df, recipe)
    error = caught.value
    assert fragment in error.message
    assert (error.line, error.column) == (line, column)


def test_suggestions_for_misspelt_functions(spark: SparkSession) -> None:
    df = rows_to_dataframe(spark, [{"a": "1"}])
    with pytest.raises(ExpressionError, match="string:reverse"):
        run(df, "set-column :e exp:{string:revers(a)}")
    assert ("string", "reverse") in FUNCTIONS and "trim" in METHODS


# -- transient variables --------------------------------------------------------------------------------------------
def test_set_variable_is_a_per_row_value_later_expressions_read(spark: SparkSession) -> None:
    rows = [{"price": 2, "qty": 3}, {"price": 5, "qty": 1}]
    result = run_rows("set-variable total exp:{price * qty}\ndrop :qty\nset-column :t exp:{total + 1}", rows,
                      spark=spark)
    assert result.columns == ["price", "t"]
    assert [r["t"] for r in result.rows] == [2 * 3 + 1, 5 * 1 + 1]


def test_set_variable_reading_itself_fills_forward(spark: SparkSession) -> None:
    rows = [{"fwd": 0, "A": 2}, {"fwd": 1, "A": 7}, {"fwd": 0, "A": 4}, {"fwd": 1, "A": 9}]
    result = run(rows_to_dataframe(spark, rows), "set-variable test fwd == 0 ? A : test\nset-column :seen exp:{test}")
    assert [r["seen"] for r in result.df.collect()] == [2, 2, 4, 4]
    assert transient_values(result.frame.df) == {"test": 4}


def test_increment_variable_is_a_running_count(spark: SparkSession) -> None:
    rows = [{"a": 1}, {"a": -2}, {"a": -3}, {"a": 4}]
    recipe = "increment-variable neg 2 exp:{a < 0}\nset-column :n exp:{neg}\nincrement-variable neg 1 exp:{a > 3}"
    result = run(rows_to_dataframe(spark, rows), recipe)
    # the first row comes before any increment: the store has no `neg` yet, so it reads as null
    assert [r["n"] for r in result.df.collect()] == [None, 2, 4, 4]
    assert transient_values(result.frame.df) == {"neg": 2 * 2 + 1}


def test_rows_already_rejected_do_not_count(spark: SparkSession) -> None:
    rows = [{"a": -1}, {"a": -2}, {"a": 5}]
    recipe = "send-to-error exp:{a == -1}\nincrement-variable neg 1 exp:{a < 0}\nset-column :n exp:{neg}"
    result = run_rows(recipe, rows, spark=spark)
    assert [r["n"] for r in result.rows] == [1, 1]
