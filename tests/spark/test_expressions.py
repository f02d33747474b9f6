"""The expression compiler on real Spark: JEXL semantics, functions, compile-time errors, and the conformance cases.

Conformance: every `execute` case of the shared suite whose directives are all expression
directives (set-column, set-variable, increment-variable, fail, filter-row, send-to-error*) or
column-family directives runs here and must hold.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

import directives
import directives.catalog.columns as columns_family
from directives import REGISTRY
from directives.spark.compile.transient import transient_values
from directives.spark.compilers import COMPILERS, load_all
from directives.spark.expr_compiler import ExpressionError
from directives.spark.expr_functions import FUNCTIONS, METHODS, NAMESPACES, supported_table
from directives.spark.frame import DROP, ERROR, ROW
from directives.spark.runner import rows_to_dataframe, run, run_rows, to_python
from grammar.errors import RecipeError
from tests.paths import CONFORMANCE, ROOT

pytestmark = pytest.mark.spark

EXPRESSION_DIRECTIVES = {"set-column", "set-variable", "increment-variable", "fail", "filter-row", "send-to-error",
                         "send-to-error-and-continue"}
COLUMN_DIRECTIVES = {name for name, cls in REGISTRY.items() if cls.__module__ == columns_family.__name__}


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
    result = run_rows("set-column :e exp:{json:Parse(j)}", rows, spark=spark)
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
        ("set-column :e exp:{geo:InFence(a, b, c)}", "geo:InFence", 1, 20),
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
    assert [r["n"] for r in result.df.collect()] == [0, 2, 4, 4]
    assert transient_values(result.frame.df) == {"neg": 2 * 2 + 1}


def test_rows_already_rejected_do_not_count(spark: SparkSession) -> None:
    rows = [{"a": -1}, {"a": -2}, {"a": 5}]
    recipe = "send-to-error exp:{a == -1}\nincrement-variable neg 1 exp:{a < 0}\nset-column :n exp:{neg}"
    result = run_rows(recipe, rows, spark=spark)
    assert [r["n"] for r in result.rows] == [1, 1]


# -- conformance ----------------------------------------------------------------------------------------------------
def _conformance_cases() -> list[dict[str, Any]]:
    """Cases using an expression directive, where every other directive has a Spark compiler (column family
    at least; parsers such as parse-as-csv as soon as they are compiled)."""
    load_all()
    allowed = EXPRESSION_DIRECTIVES | COLUMN_DIRECTIVES | set(COMPILERS)
    cases = []
    for line in CONFORMANCE.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        if case["kind"] != "execute":
            continue
        try:
            names = {d.name for d in directives.parse("\n".join(case["directives"])).directives}
        except (RecipeError, AssertionError):  # AssertionError: a parser bug on one v1 line, reported upstream
            continue
        if names & EXPRESSION_DIRECTIVES and names <= allowed:
            cases.append(case)
    return cases


CASES = _conformance_cases()
#: Cases we deliberately handle differently, with the reason (also in docs/differences/expressions.md).
KNOWN_DIFFERENCES = {
    "GlobalTest.testNullToZero": "a Spark column has one type: `NullToZero(b == 'value' ? a : b)` mixes a text "
                                 "branch, so the result is the text '0' where JEXL returns the Integer 0",
}
_SPARK_TYPES = {"Integer": T.IntegerType, "Long": T.LongType, "Double": T.DoubleType, "String": T.StringType,
                "Boolean": T.BooleanType, "LocalDate": T.DateType, "LocalDateTime": T.TimestampNTZType,
                "LocalTime": T.TimeType, "Short": T.ShortType, "Float": T.FloatType, "byte[]": T.BinaryType}
_CASTS = {"Long": "bigint", "Short": "smallint", "Float": "float", "Double": "double", "LocalDate": "date",
          "LocalDateTime": "timestamp_ntz"}


def _input(spark: SparkSession, case: dict[str, Any]) -> DataFrame:
    rows = [dict(row) for row in case["input"]]
    casts: dict[str, str] = {}
    for typed in case.get("input_types", []):
        value = rows[typed["row"]].get(typed["col"])
        if typed["java"] == "byte[]" and value is not None:
            rows[typed["row"]][typed["col"]] = bytes(b & 0xFF for b in value)
        elif typed["java"] in _CASTS:
            casts[typed["col"]] = _CASTS[typed["java"]]
    df = rows_to_dataframe(spark, rows)
    for name in df.columns:  # a Java null has no type: a column of nulls only is Spark's NULL type
        if rows and all(row.get(name) is None for row in rows) and name not in casts:
            df = df.withColumn(name, F.lit(None))
    for name, spark_type in casts.items():
        df = df.withColumn(name, df[name].cast(spark_type))
    return df


def _java_text(value: Any) -> Any:
    if isinstance(value, dt.time):
        return value.isoformat()
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _lookup(row: dict[str, Any], name: str) -> Any:
    for key, value in row.items():
        if key.lower() == name.lower():
            return value
    return None


@pytest.mark.parametrize("case", [
    pytest.param(case, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENCES[case["id"]], strict=True))
    if case["id"] in KNOWN_DIFFERENCES else case for case in CASES], ids=[case["id"] for case in CASES])
def test_conformance(spark: SparkSession, case: dict[str, Any]) -> None:
    expect = case["expect"]
    recipe = "\n".join(case["directives"])
    if expect.get("error") is True:
        with pytest.raises(RecipeError):
            result = run(_input(spark, case), recipe)
            result.frame.df.collect()
            result.check_aborted()
        return
    result = run(_input(spark, case), recipe)
    collected = result.frame.df.collect()
    result.check_aborted()
    names = result.frame.columns
    out = [{name: to_python(row[name]) for name in names} for row in collected
           if row[ERROR] is None and row[DROP] is None]
    errors = [row for row in collected if row[ERROR] is not None]
    schema = {f.name: f.dataType for f in result.frame.df.schema.fields}
    if "row_count" in expect:
        assert len(out) == expect["row_count"]
    if "errors_count" in expect:
        assert len(errors) == expect["errors_count"]
    if "rows" in expect:
        assert [{k: _java_text(v) for k, v in row.items()} for row in out] == expect["rows"]
    for item in expect.get("values", []):
        actual = _java_text(_lookup(out[item["row"]], item["col"]) if "col" in item
                            else list(out[item["row"]].values())[item["index"]])
        if "approx" in item:
            assert actual == pytest.approx(item["value"], abs=item["approx"])
        else:
            assert actual == item["value"], item
    for item in expect.get("types", []):
        if "transient" in item:
            continue
        name = item["col"] if "col" in item else names[item["index"]]
        actual = next(t for n, t in schema.items() if n.lower() == name.lower())
        assert isinstance(actual, _SPARK_TYPES[item["java"]]), (name, actual)
    for item in expect.get("error_messages", []):
        assert errors[item["error"]][ERROR]["message"] == item["message"]
    for item in expect.get("error_values", []):
        # Our error output shows the *input* row (the runner's design); Wrangler shows the row as it was at the
        # failing directive. Values of columns a later directive created (parse-as-csv's) cannot be compared.
        original = to_python(errors[item["error"]][ROW])
        if any(key.lower() == item["col"].lower() for key in original):
            assert _lookup(original, item["col"]) == item["value"]
    if "transient" in expect:
        assert transient_values(result.frame.df) == {k.lower(): v for k, v in expect["transient"].items()}


def test_the_conformance_selection_is_not_empty() -> None:
    ids = {case["id"] for case in CASES}
    assert "SetTransientVariableTest.testSettingOfVariable" in ids
    assert "SendToErrorTest.testSendToErrorWithMessage" in ids
    assert len(ids) >= 20
