"""Garbage in, no abort: every recipe of Wrangler's own tests, run on hostile values, must finish.

Each `execute` case of the conformance file (the recipe as Wrangler's TestingRig runs it) runs twice, each
time on one batch of rows built from the case's own input:

* **text** — every column as text: each hostile string (empty, blanks, garbage, numbers too large for any
  type, NaN, impossible dates, broken JSON/XML/CSV, control characters, emoji …) once in every column at the
  same time, and once in each column alone with the case's first row in the others; long values (ten
  thousand characters, plain, quoted, in an XML comment) in every column at once;
* **typed** — every column keeps the type it has in the case (an int stays an int): each column in turn
  holds the extremes of its type (largest and smallest integers, NaN and infinities, the first and last
  representable dates, empty and odd binary, empty and null-holding lists …), plus a row of nulls.

A run *aborts* when it raises anything but what the recipe is allowed to raise: `RecipeExecutionError` (a
`fail` directive fired on purpose) or a `RecipeError` the recipe also raises on the case's own input (a
directive we cannot run, or one Wrangler itself rejects before any row). Everything a value can do wrong
must become an error row; the counts must reconcile. One run per batch keeps the whole test to a few minutes.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from tests.spark.test_conformance import execute_cases, input_rows, recipe_text

pytestmark = pytest.mark.spark

#: Hostile text, each a real-world way for a value to be wrong.
HOSTILE_TEXT: list[str] = [
    "", " ", "\t\n\r", "garbage", "null", "NULL", "None", "NaN", "-NaN", "Infinity", "-Infinity", "1e309",
    "-1e-400", "9" * 40, "-9223372036854775809", "18446744073709551616", "2147483648", "-0", "+1", "0x1F", "1 000",
    "1,5", "1.2.3", "٣", "Ⅻ", "½", "true", "TRUE", "yes", "0000-00-00", "2023-02-30", "2023-13-01", "9999-12-31",
    "10000-01-01", "-4713-11-24", "0001-01-01T00:00:00Z", "12/31/9999", "31/12/1999", "24:61:61",
    "9999-99-99T99:99:99", "1970-01-01T00:00:00+25:00", "{", '{"a":', '{"a": 1', "[1, 2", "[]", "{}", '"',
    "<a><b></a>", "<?xml version='1.0'?><a>", "<!DOCTYPE x [<!ENTITY e 'e'>]><x>&e;</x>", 'a,b,"c', '"unclosed,quote',
    ",,,", "a\x00b", "\x00", "\x7f\x1b[31m", "\ufffd", "\ufeff", "\u202eevil", "e\u0301", "\U0001F600",
    "\U0001F468\u200d\U0001F469\u200d\U0001F467", "ß", "İ", "ﬃ", "%s%n%x", "${jndi:ldap://x}", "\\", "\\\\n", "'",
    "''", "$1", "(", "[", ".*", "*", "?", ":", "::", "a:b:c", "=", "=A", "AB=", "A", "ZZZ", "====", "0g", "%zz",
    "http://", "mailto:", "@", "a@", "@b", "user@@host", "1" * 400,
]
#: Long values, in every column at once only: a row-multiplying directive (`parse-as-fixed-length`) copies a row
#: once per record in it, so these rows are the heavy ones. Ten thousand characters are enough for a regex that
#: recurses per character to overflow Java's stack.
LONG_TEXT: list[str] = ["x" * 10_000, '"' + "x" * 10_000 + '"', "<!--" + "x" * 10_000 + "-->",
                        '"' + 'a""' * 3_000 + '"', "a " * 5_000, "9" * 10_000]


def _text(value: Any) -> str | None:
    """A value as the text a CSV cell would hold (JSON for lists and records)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, default=str)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for row in rows:
        names += [name for name in row if name not in names]
    return names


def text_batch(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = _columns(rows)
    base = {name: _text(rows[0].get(name)) for name in names}
    batch = [dict.fromkeys(names, value) for value in HOSTILE_TEXT + LONG_TEXT]
    batch += [{**base, name: value} for name in names for value in HOSTILE_TEXT]
    return [*batch, dict.fromkeys(names)]


def hostile_values(data_type: Any) -> list[Any]:
    """Extreme values that a Spark column of ``data_type`` can hold."""
    from pyspark.sql import types as T

    if isinstance(data_type, T.StringType):
        return HOSTILE_TEXT
    if isinstance(data_type, T.ByteType):
        return [0, 127, -128]
    if isinstance(data_type, T.ShortType):
        return [0, 32767, -32768]
    if isinstance(data_type, T.IntegerType):
        return [0, -1, 2**31 - 1, -(2**31)]
    if isinstance(data_type, T.LongType):
        return [0, -1, 2**63 - 1, -(2**63)]
    if isinstance(data_type, (T.DoubleType, T.FloatType)):
        return [math.nan, math.inf, -math.inf, 1.7976931348623157e308, -0.0, 5e-324]
    if isinstance(data_type, T.DecimalType):
        integral, scale = data_type.precision - data_type.scale, data_type.scale
        largest = decimal.Decimal("9" * integral + ("." + "9" * scale if scale else "") if integral else "0." +
                                  "9" * scale)
        return [decimal.Decimal(0), largest, -largest]
    if isinstance(data_type, T.BooleanType):
        return [True, False]
    if isinstance(data_type, T.BinaryType):
        return [b"", b"\x00", b"\xff\xfe\xfd", bytes(range(256))]
    if isinstance(data_type, T.DateType):
        return [dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1582, 10, 10), dt.date(1970, 1, 1)]
    if isinstance(data_type, T.TimestampNTZType):
        return [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999)]
    if isinstance(data_type, T.TimestampType):
        return [dt.datetime(1, 1, 1, tzinfo=dt.UTC), dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.UTC)]
    if hasattr(T, "TimeType") and isinstance(data_type, T.TimeType):
        return [dt.time(0, 0), dt.time(23, 59, 59, 999999)]
    if isinstance(data_type, T.ArrayType):
        return [[], [None], hostile_values(data_type.elementType)[:8]]
    if isinstance(data_type, T.StructType):
        return [dict.fromkeys(data_type.names),
                {f.name: (hostile_values(f.dataType) or [None])[-1] for f in data_type.fields}]
    return []


def typed_batch(rows: list[dict[str, Any]], schema: Any) -> list[dict[str, Any]]:
    base = dict(rows[0])
    batch = [{**base, f.name: value} for f in schema.fields for value in hostile_values(f.dataType)]
    return [*batch, dict.fromkeys(schema.names)]


# -- running ----------------------------------------------------------------------------------------------------------
CASES = [case for case in execute_cases() if case["input"] and _columns(case["input"])]
_RUNS: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    aborted = sorted(key for key, outcome in _RUNS.items() if outcome.startswith("ABORT"))
    line = f"garbage-in: {len(_RUNS)} runs of {len(CASES)} recipes on hostile values, {len(aborted)} aborted"
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    (reporter.write_line if reporter is not None else print)(line)


def outcome(recipe: str, rows: list[dict[str, Any]], types: Mapping[str, Any], spark: Any,
            own_input: tuple[list[dict[str, Any]], Mapping[str, Any]]) -> str:
    """'ran', 'fail directive', 'recipe error (also on its own input)', or 'ABORT: …'."""
    import directives
    from directives.spark.runtime.runner import RecipeExecutionError
    from grammar.errors import RecipeError

    try:
        result = directives.run_rows(recipe, rows, spark=spark, types=types)
    except RecipeExecutionError:
        return "fail directive"
    except RecipeError as error:
        try:
            directives.run_rows(recipe, own_input[0], spark=spark, types=own_input[1])
        except RecipeError:
            return "recipe error (also on its own input)"
        return f"ABORT: a RecipeError only the hostile values cause: {error}"
    except Exception as error:
        first = next((line for line in str(error).splitlines() if "Exception" in line or "Error" in line),
                     str(error)[:300])
        return f"ABORT: {type(error).__name__}: {first[:500]}"
    if not result.counts.reconciled or result.counts.rows_in != len(rows):
        return f"ABORT: counts do not reconcile: {result.counts}"
    return "ran"


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_no_hostile_value_aborts_a_run(case: dict[str, Any], spark: Any) -> None:
    from directives.spark.runtime.runner import rows_to_dataframe

    rows, types = input_rows(case)
    recipe = recipe_text(case)
    schema = rows_to_dataframe(spark, rows, types=types).schema
    batches = {
        "text": (text_batch(rows), {}),
        "typed": (typed_batch(rows, schema), {f.name: f.dataType for f in schema.fields}),
    }
    problems = []
    for name, (batch, batch_types) in batches.items():
        result = outcome(recipe, batch, batch_types, spark, (rows, types))
        _RUNS[f"{case['id']} {name}"] = result
        if result.startswith("ABORT"):
            problems.append(f"{name} batch ({len(batch)} rows): {result}")
    assert not problems, "\n".join(problems)


def test_the_batches_hold_every_hostile_value_in_every_column() -> None:
    rows = [{"a": "1", "b": 2}]
    batch = text_batch(rows)
    assert len(batch) == len(HOSTILE_TEXT) * 3 + len(LONG_TEXT) + 1
    assert {row["a"] for row in batch} >= set(HOSTILE_TEXT) and {row["b"] for row in batch} >= set(HOSTILE_TEXT)
    assert [row for row in batch if row["a"] == "garbage" and row["b"] == "2"]


# -- the aborts these runs found, one regression test each -------------------------------------------------------------
def test_decode_base64_of_a_value_that_is_not_base64_is_not_an_abort(spark: Any) -> None:
    """`decode base64` on 'x' killed the job: IllegalArgumentException 'Last unit does not have enough valid
    bits' (Spark's unbase64). Commons Codec, which Wrangler uses, decodes it to nothing."""
    import directives

    values = ["x", "A", "Zm9vYg=", "====", "Zg==Zm9v", "Zm9v"]
    result = directives.run_rows("decode base64 :c", [{"c": v} for v in values], spark=spark)
    assert [row["c_decode_base64"] for row in result.rows] == ["", "", "foob", "", "f", "foo"]
    assert not result.errors and result.counts.reconciled


def test_bytes_to_string_of_bytes_that_are_not_utf8_gives_replacement_characters(spark: Any) -> None:
    """`bytes:toString` on b'\\xff\\xfe' killed the job ([MALFORMED_CHARACTER_CODING] from Spark's `decode`);
    Java's `new String(bytes, UTF_8)` puts U+FFFD in place of what is not UTF-8."""
    import directives

    jvm = spark._jvm
    values = [b"\xff\xfe", b"ok\xc3", b"\xe2\x82\xac", bytes(range(256))]
    result = directives.run_rows("set column t bytes:toString(b)", [{"b": v} for v in values], spark=spark)
    utf8 = jvm.java.nio.charset.StandardCharsets.UTF_8
    assert [row["t"] for row in result.rows] == [jvm.java.lang.String(bytearray(v), utf8) for v in values]


def test_parse_as_date_of_an_offset_python_cannot_hold_is_no_date_not_an_abort(spark: Any) -> None:
    """'1970-01-01T00:00:00+25:00' made the Python worker raise (offset must be under 24 hours), failing
    the job; so did a date that leaves years 1–9999 once moved to UTC."""
    import directives

    texts = ["1970-01-01T00:00:00+25:00", "0001-01-01 00:00 +05:00", "12/10/2016"]
    result = directives.run_rows("parse-as-date :d 'UTC'", [{"d": t} for t in texts], spark=spark)
    assert [row["d_1"] for row in result.rows] == [None, None, dt.datetime(2016, 12, 10, tzinfo=dt.UTC)]


def test_long_quoted_values_do_not_overflow_the_regex_matchers_stack(spark: Any) -> None:
    """A quoted CSV field or quoted log field of a few thousand characters made Java's regex matcher recurse
    once per character (`(?:[^"]|"")*`) until StackOverflowError failed the job. The conformance inputs are
    short, so the garbage-in batches (hostile values unquoted) did not reach it."""
    import directives

    long = "a" * 20_000
    result = directives.run_rows("parse-as-csv :body ',' false", [{"body": f'"{long}",b'}], spark=spark)
    assert [(row["body_1"], row["body_2"]) for row in result.rows] == [(long, "b")]
    line = f'127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /{long} HTTP/1.0" 200 2326'
    logged = directives.run_rows('parse-as-log :body \'%h %l %u %t "%r" %>s %b\'', [{"body": line}], spark=spark)
    assert logged.rows[0]["http_uri_request_firstline_uri"] == f"/{long}" and not logged.errors


# -- every expression function on hostile values -----------------------------------------------------------------------
#: One column per kind of argument a recipe passes most: text, a long, a double.
ARGUMENT_COLUMNS = ("t", "n", "x")
#: Kinds that text and number functions are not written for: a boolean, bytes, a list. Passed where a function wants
#: text or a number, each must compile (JEXL-like conversion) or be refused with a RecipeError naming the function,
#: never reach Spark's analyser as an AnalysisException.
OTHER_KIND_COLUMNS = ("b", "y", "l")
_FUNCTION_VALUES = [*HOSTILE_TEXT[:60], None, "x" * 10_000]


def function_rows() -> list[dict[str, Any]]:
    """Hostile values of every kind, each column cycling through its own list so rows mix them."""
    longs = [0, -1, 1, 2**63 - 1, -(2**63), None, 2**31, 7]
    doubles = [math.nan, math.inf, -math.inf, 1e308, -0.0, None, 5e-324, 2.5]
    binaries = [b"", b"\x00", b"\xff\xfe", None, bytes(range(256)), b"abc"]
    lists = [[], [None], ["a", "", None], None, ["1", "2"], ["x" * 1000]]
    return [{"t": text, "n": longs[i % len(longs)], "x": doubles[i % len(doubles)], "b": [True, False, None][i % 3],
             "y": binaries[i % len(binaries)], "l": lists[i % len(lists)]}
            for i, text in enumerate(_FUNCTION_VALUES)]


def function_calls(namespace: str | None, columns: tuple[str, ...] = ARGUMENT_COLUMNS) -> list[str]:
    """`ns:fn(c, c, …)` for each function of the namespace, each count of arguments it takes (up to 4) and each
    argument column (all text, all long, all double — or the ``columns`` given — then text and longs)."""
    from directives.spark.expr.functions import FUNCTIONS

    calls = []
    for (space, name), function in sorted(FUNCTIONS.items(), key=lambda item: item[0][1]):
        if space != namespace or (space, name) in {(None, "empty"), (None, "size")}:
            continue
        prefix = f"{space}:{name}" if space else name
        for count in range(function.min_args, min(function.max_args, 4) + 1):
            if not function.accepts(count):
                continue
            argument_lists = [[column] * count for column in columns]
            if count > 1 and columns == ARGUMENT_COLUMNS:
                argument_lists.append(["t"] + ["n"] * (count - 1))
            calls += [f"{prefix}({', '.join(arguments)})" for arguments in argument_lists]
    return calls


#: Namespaces where a hostile value still ends the run (issue 16, docs/hardening.md): none any more — `arrays:`,
#: `bytes:`, `decimal:` and `json:` since their fixes, `string:` and `strings:` since theirs (regression tests below).
KNOWN_ABORTS: frozenset[str] = frozenset()
#: Namespaces the boolean/bytes/list test leaves out: `string:` and `strings:` are another change's (issue 16).
OTHER_KINDS_LEFT_OUT = frozenset({"string", "strings"})


def _namespaces() -> list[str | None]:
    from directives.spark.expr.functions import FUNCTIONS

    return sorted({space for space, _ in FUNCTIONS if space not in KNOWN_ABORTS}, key=lambda space: space or "")


def _compile(call: str, df: Any) -> str:
    """'ok' when the call compiles; 'refused' when a RecipeError rejects it (Wrangler-like: the recipe is rejected,
    naming it); otherwise the internal error that stopped the run before any row. One compilation per call: the
    `string:` namespace alone has over 500 calls, at a tenth of a second each."""
    from directives.spark.runtime.runner import run
    from grammar.errors import RecipeError

    try:
        run(df, f"set-column :out exp:{{ {call} }}")
    except RecipeError:
        return "refused"
    except Exception as error:  # any other exception is the finding
        return f"{call}: {type(error).__name__} when compiling: {str(error).splitlines()[0][:200]}"
    return "ok"


def _aborts(calls: list[str], rows: list[dict[str, Any]], types: Mapping[str, Any], spark: Any) -> str | None:
    """None when every call gave each row a value or an error row; else what went wrong."""
    import directives

    recipe = "\n".join(f"set-column :f{i} exp:{{ {call} }}" for i, call in enumerate(calls))
    try:
        result = directives.run_rows(recipe, rows, spark=spark, types=types)
    except Exception as error:  # any exception from the job is the finding
        return f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
    if not result.counts.reconciled or result.counts.rows_in != len(rows):
        return f"counts do not reconcile: {result.counts}"
    return None


def _first_abort(calls: list[str], rows: list[dict[str, Any]], types: Mapping[str, Any], spark: Any) -> str:
    """Halve an aborting list of calls down to one call that aborts on its own (a few runs, not one per call)."""
    while len(calls) > 1:
        half = calls[: len(calls) // 2]
        calls = half if _aborts(half, rows, types, spark) else calls[len(calls) // 2:]
    return f"{calls[0]}: {_aborts(calls, rows, types, spark)}"


def _namespace_problems(namespace: str | None, columns: tuple[str, ...], spark: Any) -> list[str]:
    """Every call of the namespace on ``columns``: what stopped one when compiling, then what aborted a run."""
    from pyspark.sql import types as T

    from directives.spark.runtime.runner import rows_to_dataframe

    rows = function_rows()
    types = {"t": T.StringType(), "n": T.LongType(), "x": T.DoubleType(), "b": T.BooleanType(),
             "y": T.BinaryType(), "l": T.ArrayType(T.StringType())}
    df = rows_to_dataframe(spark, rows[:1], types=types)
    compiled = {call: _compile(call, df) for call in function_calls(namespace, columns)}
    problems = [found for found in compiled.values() if found not in ("ok", "refused")]
    calls = [call for call, found in compiled.items() if found == "ok"]
    for start in range(0, len(calls), 60):
        chunk = calls[start:start + 60]
        if _aborts(chunk, rows, types, spark) is not None:
            problems.append(_first_abort(chunk, rows, types, spark))
    return problems


@pytest.mark.parametrize("namespace", _namespaces(), ids=lambda space: space or "global")
def test_no_function_aborts_a_run_on_hostile_values(namespace: str | None, spark: Any) -> None:
    """Each function of `directives/spark/expr/lib_*.py` fed null, empty, wrong-typed and huge values gives each
    row a value or an error row. Calls are run 60 to a recipe; a recipe that aborts is split to name the call."""
    problems = _namespace_problems(namespace, ARGUMENT_COLUMNS, spark)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("namespace", [space for space in _namespaces() if space not in OTHER_KINDS_LEFT_OUT],
                         ids=lambda space: space or "global")
def test_no_function_aborts_a_run_on_booleans_bytes_and_lists(namespace: str | None, spark: Any) -> None:
    """Each function given a boolean, bytes or a list in every argument compiles, or is refused with a RecipeError
    naming it (never Spark's AnalysisException when the recipe compiles), and a call that compiles gives each row
    a value or an error row."""
    problems = _namespace_problems(namespace, OTHER_KIND_COLUMNS, spark)
    assert not problems, "\n".join(problems)


def test_padding_or_repeating_past_the_longest_text_is_an_error_row(spark: Any) -> None:
    """`padAtEnd(t, n, c)` with n = 2^31 - 1 made Spark's rpad ask for a 2 GB array: OutOfMemoryError ended
    the JVM, and with it every later run. Such a row now fails alone; `repeat` likewise."""
    from pyspark.sql import types as T

    import directives

    rows = [{"t": "ab", "n": 2**31 - 1}, {"t": "ab", "n": 3}]
    recipe = "set-column :p exp:{ padAtEnd(t, n, '-') }\nset-column :r exp:{ repeat(t, n) }"
    result = directives.run_rows(recipe, rows, spark=spark, types={"n": T.LongType()})
    assert result.rows == [{"t": "ab", "n": 3, "p": "ab-", "r": "ababab"}]
    assert [error["message"] for error in result.errors] == [
        "Expression 'padAtEnd(t, n, '-')' failed: the result would be longer than 100000000 characters"]


def test_string_padding_centring_and_repeating_past_the_longest_text_is_an_error_row(spark: Any) -> None:
    """`string:leftPad`, `rightPad` and `center` with a width of 2^31 - 1 (a double such as 1e308 or infinity, cast to
    int) made Spark's lpad/rpad ask for a 2 GB array: OutOfMemoryError, and the JVM exited (every later test of the
    session then failed with ConnectionRefusedError). `string:repeat` past 2^31 bytes threw ArithmeticException
    (the job failed) and just under it ran out of memory too. Such a row now fails alone; a null text stays null,
    and a null or empty pad pads with spaces (commons-lang), a null separator repeats without one."""
    from pyspark.sql import types as T

    import directives

    functions = ["string:leftPad(t, a, p)", "string:rightPad(t, b, p)", "string:center(t, c, p)",
                 "string:repeat(t, d)", "string:repeat(t, p, e)"]
    recipe = "\n".join(f"set-column :f{i} exp:{{ {call} }}" for i, call in enumerate(functions))
    small = dict.fromkeys("abcde", 6)
    huge = 2**31 - 1
    rows = [{"t": "ab", "p": "", **small}, {"t": "ab", "p": None, **small}, {"t": None, "p": "-", **small, "a": huge},
            *({"t": "ab", "p": "-", **small, column: huge} for column in "abcde"),
            {"t": "x" * 1000, "p": None, **small, "d": 2_000_000}]  # 2,000,000,000 bytes: just under 2^31
    result = directives.run_rows(recipe, rows, spark=spark, types=dict.fromkeys("abcde", T.LongType()))
    assert [[row[f"f{i}"] for i in range(5)] for row in result.rows] == [
        ["    ab", "ab    ", "  ab  ", "ab" * 6, "ab" * 6],
        ["    ab", "ab    ", "  ab  ", "ab" * 6, "ab" * 6],
        [None, None, None, None, None]]
    too_long = "failed: the result would be longer than 100000000 characters"
    assert [error["message"] for error in result.errors] == [
        *(f"Expression '{call}' {too_long}" for call in functions), f"Expression '{functions[3]}' {too_long}"]
    assert result.counts.reconciled


def test_string_counts_near_2_31_do_not_ask_sequence_for_2_31_elements(spark: Any) -> None:
    """`string:ordinalIndexOf`, `lastOrdinalIndexOf` and `replace(text, search, replacement, max)` with a count of
    2^31 - 1 failed the job: [COLLECTION_SIZE_LIMIT_EXCEEDED] from Spark's `sequence`, one element per step. No text
    holds more occurrences than characters, so the steps now stop at its length + 1, and the values are Java's."""
    from pyspark.sql import types as T

    import directives

    recipe = ("set-column :o exp:{ string:ordinalIndexOf(t, 'a', n) }\n"
              "set-column :l exp:{ string:lastOrdinalIndexOf(t, 'a', n) }\n"
              "set-column :r exp:{ string:replace(t, 'a', 'b', n) }")
    rows = [{"t": "aaa", "n": 2**31 - 1}, {"t": "aaa", "n": 2}, {"t": "aaa", "n": 3}, {"t": None, "n": 2**31 - 1},
            {"t": "xa" * 5_000, "n": 2**31 - 1}]
    result = directives.run_rows(recipe, rows, spark=spark, types={"n": T.LongType()})
    assert [(row["o"], row["l"], row["r"]) for row in result.rows] == [
        (-1, -1, "bbb"), (1, 1, "bba"), (2, 0, "bbb"), (-1, -1, None), (-1, -1, "xb" * 5_000)]
    assert not result.errors


def test_string_join_with_indexes_outside_the_array_is_an_error_row(spark: Any) -> None:
    """`string:join(items, separator, start, end)` with a start of -1 failed the job (Spark's slice refuses a start
    of 0), and with end - start past 2^31 too (a negative length). Java computes end - start in int arithmetic: 0 or
    less joins nothing, else an index outside the array throws, which fails the row alone now. Found by running the
    calls with mixed argument columns (`t, n, x`), which the namespace sweep above does not."""
    from pyspark.sql import types as T

    import directives

    rows = [{"s": 0, "e": 2, "sep": "-"}, {"s": 2, "e": 1, "sep": "-"}, {"s": -1, "e": 2**31 - 1, "sep": "-"},
            {"s": 0, "e": 3, "sep": None}, {"s": -1, "e": 2, "sep": "-"}, {"s": 1, "e": 5, "sep": "-"}]
    result = directives.run_rows("set-column :j exp:{ string:join(['a', 'b', 'c'], sep, s, e) }", rows, spark=spark,
                                 types={"s": T.LongType(), "e": T.LongType()})
    assert [row["j"] for row in result.rows] == ["a-b", "", "", "abc"]
    assert [(error["row"]["s"], error["message"]) for error in result.errors] == [
        (s, "Expression 'string:join(['a', 'b', 'c'], sep, s, e)' failed: string:join start or end index outside "
            "the array") for s in (-1, 1)]


# -- issue 16: arguments of kinds a function cannot take; exponents and paddings past any row ------------------------
@pytest.mark.parametrize(("call", "label", "reason"), [
    # a conversion to a number refuses bytes and lists (no Spark cast, no Java overload takes them)
    ("toLong(y)", "toLong", "a bytes (byte[]) value where a number is wanted"),
    ("padAtEnd(t, l, '-')", "padAtEnd", "a list value where a number is wanted"),
    ("decimal:pow(x, y)", "decimal:pow", "a bytes (byte[]) value where a number is wanted"),
    ("string:abbreviate(t, l)", "string:abbreviate", "a list value where a number is wanted"),
    # Arrays.binarySearch/equals take arrays, JsonFunctions.parse(String, boolean) a boolean
    ("arrays:binarySearch(n, n)", "arrays:binarySearch", "a long value where a list (an array) is wanted"),
    ("arrays:equals(t, n)", "arrays:equals", "a text value where a list (an array) is wanted"),
    ("json:parse(t, t)", "json:parse", "a text value where a boolean (toLower) is wanted"),
    ("json:parse(t, n)", "json:parse", "a long value where a boolean (toLower) is wanted"),
    # what no conversion of ours refuses, Spark's type check of the call's result does, while compiling
    ("bytes:toBinaryFromHex(b)", "bytes:toBinaryFromHex", "Spark cannot resolve it"),
    ("bytes:toBoolean(l)", "bytes:toBoolean", "Spark cannot resolve it"),
])
def test_an_argument_of_a_kind_the_function_cannot_take_is_a_recipe_error_naming_it(
        call: str, label: str, reason: str, spark: Any) -> None:
    """Spark's AnalysisException (or a Py4JError) when the recipe compiled named a cast or a column, not the function;
    Wrangler's JEXL finds no method for such arguments and fails every row. Now the recipe is refused, naming the
    function, the kinds it was given and its usage."""
    from pyspark.sql import types as T

    import directives
    from directives.spark.expr.compiler import ExpressionError

    rows = [{"t": "a", "n": 1, "x": 1.5, "b": True, "y": b"\x01", "l": ["a"]}]
    types = {"n": T.LongType(), "x": T.DoubleType(), "y": T.BinaryType(), "l": T.ArrayType(T.StringType())}
    with pytest.raises(ExpressionError) as caught:
        directives.run_rows(f"set-column :out exp:{{ {call} }}", rows, spark=spark, types=types)
    assert caught.value.message.startswith(f"Function '{label}' cannot take (")
    assert reason in caught.value.message
    assert caught.value.hint is not None and caught.value.hint.startswith(f"Usage: {label}(…) — ")
    assert caught.value.line == 1


def test_an_operator_on_bytes_or_a_list_is_a_recipe_error_naming_the_expression(spark: Any) -> None:
    from pyspark.sql import types as T

    import directives
    from directives.spark.expr.compiler import ExpressionError

    with pytest.raises(ExpressionError, match=r"'l \* 2' uses a list value where a number is wanted"):
        directives.run_rows("set-column :out exp:{ l * 2 }", [{"l": ["1"]}], spark=spark,
                            types={"l": T.ArrayType(T.StringType())})


def test_the_calls_that_ended_the_run_now_give_values_or_error_rows(spark: Any) -> None:
    """`decimal:pow` with a huge exponent made `sequence` ask for 2^31 elements, `bytes:padHead` with one asked for
    2^31 zero bytes, `arrays:copyOf` for 2^31 elements (each ended the job); `bytes:toLong` compared with 2^63 as a
    literal py4j cannot pass (a Py4JError when compiling); `arrays:binarySearch(a, from, to, key)` with from = −1
    made Spark's slice throw."""
    from pyspark.sql import types as T

    import directives

    rows = [{"d": 2.5, "n": n, "y": y, "l": ["a", "b", "c"]} for n, y in [
        (2, b"\xff" * 8), (0, b"\x80" + b"\x00" * 7), (1, b"\x7f" + b"\xff" * 7 + b"\x01"), (2**31 - 1, b"\x00" * 8),
        (1_000_000_000, b"\x01" * 3), (-1, b"")]]
    types = {"d": T.DoubleType(), "n": T.LongType(), "y": T.BinaryType(), "l": T.ArrayType(T.StringType())}

    def outcomes(expression: str) -> dict[int, Any]:
        """Each row's value, or its error message, by its `n`."""
        result = directives.run_rows(f"set-column :out exp:{{ {expression} }}", rows, spark=spark, types=types)
        assert result.counts.reconciled and result.counts.rows_in == len(rows)
        failed = {error["row"]["n"]: error["message"].split(" failed: ")[-1] for error in result.errors}
        return {**{row["n"]: row["out"] for row in result.rows}, **failed}

    bad_exponent, too_long = "invalid exponent for decimal:pow", "the result would be longer than 100000000 bytes"
    powers = outcomes("decimal:pow(d, n)")
    assert {n: float(v) if n in (0, 1, 2) else v for n, v in powers.items()} == {
        2: 6.25, 0: 1.0, 1: 2.5, 2**31 - 1: bad_exponent, 1_000_000_000: bad_exponent, -1: bad_exponent}
    assert outcomes("bytes:toHexString(bytes:padHead(y, n))") == {
        2: "0000" + "ff" * 8, 0: "80" + "00" * 7, 1: "007f" + "ff" * 7 + "01", 2**31 - 1: too_long,
        1_000_000_000: too_long, -1: "negative array size"}
    assert outcomes("bytes:toLong(y)") == {2: -1, 0: -(2**63), 1: 2**63 - 1, 2**31 - 1: 0,
                                           1_000_000_000: "fewer than 8 bytes", -1: "fewer than 8 bytes"}
    too_many = "the result would be longer than 10000000 elements"
    assert outcomes("arrays:toString(arrays:copyOf(l, n))") == {
        2: "[a, b]", 0: "[]", 1: "[a]", 2**31 - 1: too_many, 1_000_000_000: too_many, -1: "negative array size"}
    assert outcomes("arrays:binarySearch(l, n, 3, 'c')") == {
        2: 2, 0: 2, 1: 2, 2**31 - 1: "array range out of bounds", 1_000_000_000: "array range out of bounds",
        -1: "array range out of bounds"}
