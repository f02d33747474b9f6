"""set-type's Java-compatible conversions on real Spark: rounding modes, byte encodings, date-time text."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

import directives

pytestmark = pytest.mark.spark

D = decimal.Decimal


@pytest.mark.parametrize(
    ("mode", "values", "expected"),
    [
        ("HALF_UP", ["2.5", "-2.5", "2.4"], ["3", "-3", "2"]),
        ("HALF_DOWN", ["2.5", "-2.5", "2.6"], ["2", "-2", "3"]),
        ("HALF_EVEN", ["2.5", "3.5", "-2.5"], ["2", "4", "-2"]),
        ("UP", ["2.1", "-2.1"], ["3", "-3"]),
        ("DOWN", ["2.9", "-2.9"], ["2", "-2"]),
        ("CEILING", ["2.1", "-2.9"], ["3", "-2"]),
        ("FLOOR", ["2.9", "-2.1"], ["2", "-3"]),
    ],
)
def test_decimal_rounding_modes_match_java(spark: object, mode: str, values: list[str], expected: list[str]) -> None:
    result = directives.run_rows(f"set-type :v decimal 0 '{mode}'", [{"v": v} for v in values], spark=spark)
    assert [row["v"] for row in result.rows] == [D(e) for e in expected]


def test_unnecessary_rounding_sends_the_row_to_errors(spark: object) -> None:
    result = directives.run_rows("set-type :v decimal 1 'UNNECESSARY'", [{"v": "1.25"}, {"v": "1.5"}], spark=spark)
    assert [row["v"] for row in result.rows] == [D("1.5")]
    assert [error["row"]["v"] for error in result.errors] == ["1.25"]
    assert result.errors[0]["message"] == ("Cannot set scale as '1' and precision 'null' for value '1.25' "
                                           "when rounding-mode is 'UNNECESSARY'")


def test_precision_rounds_to_significant_digits(spark: object) -> None:
    # ColumnConverter.setDecimalScaleAndPrecision with scale and precision: precision - scale must cover the digits
    # before the point (98.76 has two, 3 - 2 leaves one: the row fails), then setScale(scale) and round(precision)
    result = directives.run_rows("set-type :v decimal 2 'HALF_UP' prop:{precision=3}",
                                 [{"v": "1.2345"}, {"v": "98.76"}], spark=spark)
    assert [row["v"] for row in result.rows] == [D("1.23")]
    assert [error["message"] for error in result.errors] == [
        "Cannot set scale as '2' and precision as '3' for value '98.76' whengiven precision - scale is less than "
        "number of digits before decimal point "]


def test_integers_round_trip_through_java_bytes(spark: object) -> None:
    recipe = "set-type :v bytes\nset-type :v int"
    values = [0, 1, -1, 10000, -10000, 2**31 - 1, -(2**31)]
    result = directives.run_rows(recipe, [{"v": v} for v in values], spark=spark)
    assert [row["v"] for row in result.rows] == values


def test_negative_int_bytes_are_twos_complement(spark: object) -> None:
    result = directives.run_rows("set-type :v bytes", [{"v": -2}], spark=spark)
    assert result.rows[0]["v"] == bytes([0xFF, 0xFF, 0xFF, 0xFE])


def test_timestamp_ntz_prints_like_local_date_time(spark: object) -> None:
    rows = [{"t": dt.datetime(2024, 1, 1, 10, 0)}, {"t": dt.datetime(2024, 1, 1, 10, 0, 5, 120000)},
            {"t": dt.datetime(2024, 1, 1, 10, 0, 5, 123456)}]
    from pyspark.sql import types as T

    from directives.spark.runtime.runner import run

    df = spark.createDataFrame([(r["t"],) for r in rows], T.StructType([T.StructField("t", T.TimestampNTZType())]))
    out = [r["t"] for r in run(df, "set-type :t string").df.collect()]
    assert out == ["2024-01-01T10:00", "2024-01-01T10:00:05.120", "2024-01-01T10:00:05.123456"]


def test_text_to_double_follows_java_parse_double_on_special_words(spark: object) -> None:
    """`Double.parseDouble` reads NaN/Infinity only spelt so (after trimming every char up to the space), and gives
    an infinity for a number past the range; Spark's cast also reads inf/nan in any case, which Wrangler rejects.
    The words are checked only where the cast gave NaN or an infinity, which must not change any result."""
    inf = float("inf")
    accepted = {"NaN": None, " NaN ": None, "\tNaN\n": None, "Infinity": inf, "+Infinity": inf,
                "-Infinity": -inf, "1e999": inf, "-1e999": -inf, " 2.5 ": 2.5, "1d": 1.0, "0x1p3": 8.0, "7": 7.0}
    rejected = ["inf", "nan", "INF", "infinity", "-inf", "+infinity", "\tnan", " NAN ", "Infinityx", "abc"]
    rows = [{"v": v} for v in [*accepted, *rejected]]
    result = directives.run_rows("set-type :v double", rows, spark=spark)
    got = [row["v"] for row in result.rows]
    assert len(got) == len(accepted)
    for value, expected in zip(got, accepted.values(), strict=True):
        if expected is None:
            assert value != value  # NaN
        else:
            assert value == expected
    assert [error["row"]["v"] for error in result.errors] == rejected
    assert {error["message"] for error in result.errors} == {"Column 'v' cannot be converted to a 'double'."}
