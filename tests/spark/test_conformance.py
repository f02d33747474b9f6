"""Wrangler's own unit tests, replayed on our Spark engine (every `execute` case of the conformance file).

Each case runs through `directives.run_rows` like Wrangler's TestingRig runs it (each directive line
rewritten by `MigrateToV2` first) and every key of its `expect` is checked, with Java's equality rules
(`2` is not `2L`, a BigDecimal's scale counts, date-times compare by their Java `toString()`).

Cases we deliberately do not pass are listed with the reason in `docs/conformance.md`; they are
strict xfails, so a case that starts passing forces the list to shrink. Every other case must pass.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import struct
import zoneinfo
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from tests.paths import CONFORMANCE, ROOT

pytestmark = pytest.mark.spark

DOC = ROOT / "docs" / "conformance.md"
_TABLE_ROW = re.compile(r"^\|\s*`?([A-Za-z0-9_]+\.[A-Za-z0-9_]+(?:#\d+)?)`?\s*\|\s*(.+?)\s*\|\s*$")


def execute_cases() -> list[dict[str, Any]]:
    cases = [json.loads(line) for line in CONFORMANCE.read_text().splitlines() if line.strip()]
    return [case for case in cases if case["kind"] == "execute"]


def documented_differences() -> dict[str, str]:
    """Case id -> reason, from the table in docs/conformance.md (rows look like `| Case.id | reason |`)."""
    found: dict[str, str] = {}
    for line in DOC.read_text().splitlines():
        match = _TABLE_ROW.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


CASES = execute_cases()
DIFFERENCES = documented_differences()


def _params() -> Iterator[Any]:
    for case in CASES:
        marks = []
        if case["id"] in DIFFERENCES:
            marks.append(pytest.mark.xfail(strict=True, reason=f"docs/conformance.md: {DIFFERENCES[case['id']]}"))
        yield pytest.param(case, id=case["id"], marks=marks)


# -- input: JSON rows + Java types -> Python values + pinned Spark types ----------------------------------------------
def _instant(text: str) -> dt.datetime:
    """Java ISO text (up to nanoseconds, optional offset and [zone]) as a Python datetime (microseconds)."""
    zone = None
    if text.endswith("]"):
        text, zone = text[:-1].split("[", 1)
    match = re.match(r"^(.*T\d\d:\d\d(?::\d\d)?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$", text)
    if match is None:
        raise ValueError(f"not a Java date-time: {text!r}")
    base, fraction, offset = match.groups()
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    value = dt.datetime.fromisoformat(base).replace(microsecond=micros)
    if offset is not None:
        value = value.replace(tzinfo=dt.UTC if offset == "Z" else dt.datetime.strptime(offset, "%z").tzinfo)
    if zone is not None and zone not in ("UTC", "Z"):
        value = value.astimezone(zoneinfo.ZoneInfo(zone))
    return value


def java_input(value: Any, java: str) -> Any:
    if value is None:
        return None
    if java in ("Long", "Short", "Integer"):
        return int(value)
    if java in ("Float", "Double"):
        return float(value)
    if java == "BigDecimal":
        return decimal.Decimal(str(value))
    if java == "byte[]":
        return bytes(b & 0xFF for b in value)
    if java == "LocalDate":
        return dt.date.fromisoformat(value)
    if java in ("LocalDateTime", "ZonedDateTime"):
        return _instant(value)
    if java == "LocalTime":
        return dt.time.fromisoformat(value)
    if java == "String":
        return str(value)
    return value  # JsonArray, List<String>, JsonObject, Row: JSON already has the shape


def input_rows(case: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from pyspark.sql import types as T

    pinned_types = {"Long": T.LongType(), "Short": T.ShortType(), "Integer": T.IntegerType(),
                    "Float": T.FloatType(), "Double": T.DoubleType(), "byte[]": T.BinaryType()}
    rows = [dict(row) for row in case["input"]]
    declared: dict[str, dict[int, str]] = {}
    for entry in case.get("input_types", []):
        row, name, java = rows[entry["row"]], entry["col"], entry["java"]
        row[name] = java_input(row.get(name), java)
        declared.setdefault(name, {})[entry["row"]] = java
    types: dict[str, Any] = {}
    for name, by_row in declared.items():
        # A Spark column has one type: pin it only when every value of the column is declared the same type
        # (a column mixing Integer and String rows is left to inference, which makes it a string column).
        present = {i for i, row in enumerate(rows) if row.get(name) is not None}
        kinds = set(by_row.values())
        if len(kinds) == 1 and present <= set(by_row) and (java := kinds.pop()) in pinned_types:
            types[name] = pinned_types[java]
    return rows, types


def recipe_text(case: Mapping[str, Any]) -> str:
    """TestingRig migrates every directive line to v2 before parsing; dropped lines (comments) vanish."""
    from grammar.migrate import migrate_line

    lines = [migrate_line(line, number) for number, line in enumerate(case["directives"], start=1)]
    return "\n".join(line for line in lines if line is not None)


# -- output: Java's view of our values ---------------------------------------------------------------------------------
def java_time_text(hour: int, minute: int, second: int, micros: int) -> str:
    text = f"{hour:02d}:{minute:02d}"
    if second or micros:
        text += f":{second:02d}"
    if micros:
        text += f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"
    return text


def java_text(value: Any) -> Any:
    """`toString()` of the Java object a Python value stands for (date-times, decimals); others unchanged."""
    if isinstance(value, dt.datetime):
        local = value.date().isoformat() + "T" + java_time_text(value.hour, value.minute, value.second,
                                                                value.microsecond)
        if value.tzinfo is None:
            return local
        offset = value.utcoffset() or dt.timedelta(0)
        if offset == dt.timedelta(0):
            suffix = "Z"
        else:
            minutes = int(offset.total_seconds() // 60)
            suffix = f"{'+' if minutes >= 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
        zone = getattr(value.tzinfo, "key", None) or "UTC"
        return f"{local}{suffix}[{zone}]"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return java_time_text(value.hour, value.minute, value.second, value.microsecond)
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


def _float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def same_value(actual: Any, expected: Any, java: str | None = None, approx: float | None = None) -> bool:
    """Java `assertEquals(expected, actual)` on our value: types matter, date-times compare as text."""
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(actual, bytes) and isinstance(expected, list):
        return [b - 256 if b > 127 else b for b in actual] == expected
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, (int, float)):
        if not isinstance(actual, (int, float)) or isinstance(actual, decimal.Decimal):
            return False
        if isinstance(expected, int) and isinstance(actual, float) and approx is None:
            return False  # Integer.equals(Double) is false
        if approx is not None:
            return abs(actual - expected) <= approx
        if java == "Float":
            return _float32(float(actual)) == _float32(float(expected))
        return actual == expected
    if isinstance(expected, str):
        if isinstance(actual, (int, float)):
            return False
        return java_text(actual) == expected
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            same_value(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, dict):
        return isinstance(actual, dict) and list(actual) == list(expected) and all(
            same_value(actual[k], expected[k]) for k in expected)
    return bool(actual == expected)


def spark_to_java(data_type: Any) -> set[str]:
    """The Java types a Spark column type answers to in Wrangler's tests."""
    from pyspark.sql import types as T

    simple = [(T.IntegerType, {"Integer"}), (T.LongType, {"Long"}), (T.ShortType, {"Short"}),
              (T.ByteType, {"Byte"}), (T.FloatType, {"Float"}), (T.DoubleType, {"Double"}),
              (T.DecimalType, {"BigDecimal"}), (T.StringType, {"String"}), (T.BooleanType, {"Boolean"}),
              (T.BinaryType, {"byte[]"}), (T.DateType, {"LocalDate"}), (T.TimestampNTZType, {"LocalDateTime"}),
              (T.TimestampType, {"ZonedDateTime"}), (T.ArrayType, {"JsonArray", "JsonElement", "List"}),
              (T.StructType, {"Row", "JsonObject", "JsonElement"}), (T.MapType, {"JsonObject", "JsonElement"})]
    if hasattr(T, "TimeType"):
        simple.append((T.TimeType, {"LocalTime"}))
    for spark_type, names in simple:
        if isinstance(data_type, spark_type):
            return names
    return set()


class Check:
    """Collects every failed expectation of a case, so one run reports them all."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.columns: list[str] = list(result.columns)
        self.problems: list[str] = []

    def fail(self, message: str) -> None:
        self.problems.append(message)

    def find(self, name: str) -> str | None:
        lowered = name.lower()
        return next((c for c in self.columns if c.lower() == lowered), None)

    def row(self, index: int) -> dict[str, Any] | None:
        rows = self.result.rows
        if index >= len(rows):
            self.fail(f"row {index} does not exist ({len(rows)} output rows)")
            return None
        return rows[index]

    def value_at(self, entry: Mapping[str, Any]) -> tuple[bool, Any, str | None]:
        """(found, value, column name) for a `{row, col}` or `{row, index}` entry (missing col reads as null)."""
        row = self.row(entry["row"])
        if row is None:
            return False, None, None
        if "index" in entry:
            width = self.width(row)
            if entry["index"] >= width:
                self.fail(f"row {entry['row']} has no column {entry['index']} (width {width})")
                return False, None, None
            name = self.columns[entry["index"]]
            return True, row[name], name
        name = self.find(entry["col"])
        return True, (row[name] if name is not None else None), name

    def width(self, row: Mapping[str, Any], expected: int | None = None) -> int:
        """Spark rows share one schema; a Wrangler row narrower than its neighbours reads as trailing nulls."""
        values = [row[c] for c in self.columns]
        width = len(values)
        if expected is not None and expected < width and all(v is None for v in values[expected:]):
            return expected
        return width


#: The Python type a transient variable's value has for each Java type a case names.
PYTHON_TYPES_OF_JAVA: dict[str, type | tuple[type, ...]] = {
    "Integer": int, "Long": int, "Short": int, "Double": float, "Float": float, "String": str, "Boolean": bool,
}


def check_expectations(case: Mapping[str, Any], result: Any) -> list[str]:
    expect, check = case["expect"], Check(result)
    if "row_count" in expect and len(result.rows) != expect["row_count"]:
        check.fail(f"row_count {len(result.rows)} != {expect['row_count']}")
    if "errors_count" in expect and len(result.errors) != expect["errors_count"]:
        check.fail(f"errors_count {len(result.errors)} != {expect['errors_count']}: "
                   f"{[e['message'] for e in result.errors][:3]}")
    types = {(t["row"], str(t.get("col", "")).lower(), t.get("index")): t["java"]
             for t in expect.get("types", []) if "row" in t}
    for entry in expect.get("values", []):
        found, value, _ = check.value_at(entry)
        java = types.get((entry["row"], str(entry.get("col", "")).lower(), entry.get("index")))
        if found and not same_value(value, entry["value"], java, entry.get("approx")):
            where = entry.get("col", entry.get("index"))
            check.fail(f"value row {entry['row']} {where!r}: {value!r} != {entry['value']!r}")
    for entry in expect.get("types", []):
        if "transient" in entry:
            value = result.transient.get(entry["transient"].lower())
            if not isinstance(value, PYTHON_TYPES_OF_JAVA.get(entry["java"], object)):
                found_type = type(value).__name__
                check.fail(f"type of variable {entry['transient']!r}: {found_type} is not Java {entry['java']}")
            continue
        found, value, name = check.value_at(entry)
        if not found or name is None:
            check.fail(f"types: no column {entry.get('col', entry.get('index'))!r}")
            continue
        data_type = result.schema[name].dataType
        if entry["java"] not in spark_to_java(data_type):
            check.fail(f"type of {name!r}: {data_type.simpleString()} is not Java {entry['java']}")
    for position, expected_row in enumerate(expect.get("rows", [])):
        row = check.row(position)
        if row is not None and (list(row) != list(expected_row) or not same_value(row, expected_row)):
            check.fail(f"row {position}: {row!r} != {expected_row!r}")
    for position, expected_values in enumerate(expect.get("rows_positional", [])):
        row = check.row(position)
        if row is None:
            continue
        width = check.width(row, len(expected_values))
        values = [row[c] for c in check.columns[:width]]
        if not same_value(values, expected_values):
            check.fail(f"row {position} by position: {values!r} != {expected_values!r}")
    if "rows_positional" in expect and len(result.rows) != len(expect["rows_positional"]):
        check.fail(f"{len(result.rows)} rows, expected {len(expect['rows_positional'])}")
    for entry in expect.get("widths", []):
        row = check.row(entry["row"])
        if row is not None and check.width(row, entry["width"]) != entry["width"]:
            check.fail(f"width of row {entry['row']}: {check.width(row)} != {entry['width']}")
    if "columns" in expect and check.columns != expect["columns"]:
        check.fail(f"columns {check.columns} != {expect['columns']}")
    for entry in expect.get("column_at", []):
        if check.row(entry["row"]) is None:
            continue
        actual = check.columns[entry["index"]] if entry["index"] < len(check.columns) else None
        if actual != entry["name"]:
            check.fail(f"column {entry['index']}: {actual!r} != {entry['name']!r}")
    for entry in expect.get("has_columns", []):
        if check.row(entry["row"]) is not None and check.find(entry["col"]) is None:
            check.fail(f"no column {entry['col']!r} in {check.columns}")
    for entry in expect.get("not_null", []):
        found, value, _ = check.value_at(entry)
        if found and value is None:
            check.fail(f"{entry['col']!r} of row {entry['row']} is null")
    for entry in expect.get("error_values", []):
        errors = result.errors
        if entry["error"] >= len(errors):
            check.fail(f"no error record {entry['error']}")
            continue
        record = errors[entry["error"]]["row"]
        name = next((k for k in record if k.lower() == entry["col"].lower()), None)
        value = record[name] if name is not None else None
        if not same_value(value, entry["value"]):
            check.fail(f"error {entry['error']} {entry['col']!r}: {value!r} != {entry['value']!r}")
    for entry in expect.get("error_messages", []):
        errors = result.errors
        if entry["error"] >= len(errors) or errors[entry["error"]]["message"] != entry["message"]:
            got = errors[entry["error"]]["message"] if entry["error"] < len(errors) else None
            check.fail(f"error message {entry['error']}: {got!r} != {entry['message']!r}")
    for column, counts in expect.get("value_counts", {}).items():
        name = check.find(column)
        seen: dict[str, int] = {}
        for row in result.rows:
            key = java_text(row[name]) if name is not None else None
            seen[str(key)] = seen.get(str(key), 0) + 1
        if seen != {str(k): v for k, v in counts.items()}:
            check.fail(f"value counts of {column!r}: {seen} != {counts}")
    for name, wanted in expect.get("transient", {}).items():
        value = result.transient.get(name.lower())
        if not same_value(value, wanted):
            check.fail(f"variable {name!r} after the run: {value!r} != {wanted!r}")
    return check.problems


# -- the test ---------------------------------------------------------------------------------------------------------
_OUTCOMES: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def _report_pass_count(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    passed = sum(1 for outcome in _OUTCOMES.values() if outcome == "passed")
    line = f"conformance: {passed}/{len(CASES)} execute cases pass"
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
    else:
        print(line)


def _not_really_run(error: Exception) -> bool:
    """A declared directive we cannot run says nothing about the recipe: it must not pass an `error` case.

    An unknown directive does count: two of Wrangler's tests expect exactly that (`parse-datetime`,
    `set-header` are not Wrangler names).
    """
    from directives.spark.compilers import UnsupportedDirectiveError

    return any(isinstance(item, UnsupportedDirectiveError) for item in getattr(error, "errors", [error]))


@pytest.mark.parametrize("case", list(_params()))
def test_conformance(case: dict[str, Any], spark: Any) -> None:
    import directives
    from grammar.errors import RecipeError

    expect = case["expect"]
    rows, types = input_rows(case)
    try:
        result = directives.run_rows(recipe_text(case), rows, spark=spark, types=types)
    except RecipeError as error:
        if expect.get("error") is True and not _not_really_run(error):
            _OUTCOMES[case["id"]] = "passed"
            return
        raise
    assert expect.get("error") is not True, "the recipe should have failed"
    assert result.counts.reconciled, result.counts
    problems = check_expectations(case, result)
    assert not problems, "\n".join(problems)
    _OUTCOMES[case["id"]] = "passed"


def test_documented_cases_exist() -> None:
    """Every case docs/conformance.md names is a real execute case (typos would silently xfail nothing)."""
    ids = {case["id"] for case in CASES}
    assert DIFFERENCES, "docs/conformance.md lists no cases; the table format may have changed"
    assert sorted(set(DIFFERENCES) - ids) == []


def test_harness_compares_like_java() -> None:
    """The comparison rules themselves, on values whose Java equality is known."""
    assert same_value(2, 2) and not same_value(2.0, 2) and not same_value("2", 2)
    assert same_value(dt.datetime(2016, 12, 10, 7, 45), "2016-12-10T07:45")
    assert same_value(dt.datetime(1, 1, 1, tzinfo=dt.UTC), "0001-01-01T00:00Z[UTC]")
    assert same_value(dt.datetime(2024, 1, 1, 10, 0, 0, 123000, tzinfo=dt.UTC), "2024-01-01T10:00:00.123Z[UTC]")
    assert same_value(decimal.Decimal("10000.0"), "10000.0") and not same_value(decimal.Decimal("10000"), "10000.0")
    assert same_value(b"\xff\x01", [-1, 1])
    assert same_value(22.399999618530273, 22.4, java="Float") and not same_value(22.39, 22.4, java="Float")
    assert java_text(_instant("2000-08-22T20:36:45.000001234")) == "2000-08-22T20:36:45.000001"
    from pyspark.sql import types as T

    assert spark_to_java(T.IntegerType()) == {"Integer"} and "LocalDateTime" in spark_to_java(T.TimestampNTZType())
