"""Currency, date and datetime directives on real Spark: values, types, error rows, and Wrangler's own cases."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from directives.spark.compile.dates import natural_date
from directives.spark.compilers import PYTHON_UDFS
from directives.spark.runtime.runner import run, run_rows
from grammar.errors import DirectiveArgumentError

pytestmark = pytest.mark.spark
UTC = dt.UTC


def utc(*args: int) -> dt.datetime:
    """A timestamp as `run_rows` collects it: an aware UTC datetime (naive ones are timestamp_ntz)."""
    return dt.datetime(*args, tzinfo=UTC)


# -- parse-as-simple-date ----------------------------------------------------------------------------------------------
def test_simple_date_patterns_parse_into_utc_timestamps(spark: SparkSession) -> None:
    rows = [{"a": "12/10/2016", "b": "12-10-2016 at 06:45:11 PST", "c": "Sat, Dec 10, '16", "d": "06:45 PM"}]
    recipe = "\n".join([
        "parse-as-simple-date :a 'MM/dd/yyyy'",
        "parse-as-simple-date :b \"MM-dd-yyyy 'at' HH:mm:ss z\"",
        "parse-as-simple-date :c \"EEE, MMM d, ''yy\"",
        "parse-as-simple-date :d 'h:mm a'",
    ])
    result = run_rows(recipe, rows, spark=spark)
    assert result.errors == []
    assert result.rows == [{"a": utc(2016, 12, 10), "b": utc(2016, 12, 10, 14, 45, 11), "c": utc(2016, 12, 10),
                            "d": utc(1970, 1, 1, 18, 45)}]


def test_two_digit_years_follow_simple_date_formats_century_window(spark: SparkSession) -> None:
    this_year = dt.date.today().year
    late = (this_year + 30) % 100  # 30 years ahead: SimpleDateFormat puts it 70 years back
    early = (this_year + 5) % 100
    rows = [{"d": f"01/02/{late:02d}"}, {"d": f"01/02/{early:02d}"}, {"d": "01/02/2095"}]
    result = run_rows("parse-as-simple-date :d 'MM/dd/yy'", rows, spark=spark)
    years = [row["d"].year for row in result.rows]
    assert years == [this_year + 30 - 100, this_year + 5, 2095]  # more than two digits: read as written


def test_unparseable_dates_go_to_the_error_output_with_the_row(spark: SparkSession) -> None:
    rows = [{"id": 1, "d": "2001.07.04"}, {"id": 2, "d": "2001-07-04"}, {"id": 3, "d": None}]
    result = run_rows("parse-as-simple-date :d 'yyyy.MM.dd'", rows, spark=spark)
    assert [row["id"] for row in result.rows] == [1, 3]
    assert result.rows[1]["d"] is None
    (error,) = result.errors
    assert error["row"] == {"id": 2, "d": "2001-07-04"}
    assert error["message"] == \
        "Failed to parse '2001-07-04' with pattern 'yyyy.MM.dd' (ecode: 1, directive: parse-as-simple-date)"
    assert result.counts.reconciled


def test_simple_date_takes_strings_only(spark: SparkSession) -> None:
    result = run_rows("parse-as-simple-date :d 'yyyy'", [{"d": 2016}, {"d": None}], spark=spark)
    assert len(result.rows) == 1 and len(result.errors) == 1
    assert "Column 'd' is of invalid type 'Integer'. It should be of type 'String'." in result.errors[0]["message"]


def test_a_missing_column_is_left_alone(spark: SparkSession) -> None:
    result = run_rows("parse-as-simple-date :nope 'yyyy'\nparse-timestamp :nope", [{"a": "x"}], spark=spark)
    assert result.rows == [{"a": "x"}]


def test_patterns_spark_cannot_express_fail_before_running(spark: SparkSession) -> None:
    with pytest.raises(DirectiveArgumentError, match="milliseconds") as caught:
        run_rows("drop :x\nparse-as-simple-date :d 'ss.S'", [{"d": "1"}], spark=spark)
    assert (caught.value.line, caught.value.column) == (2, 25)
    with pytest.raises(DirectiveArgumentError, match="week-based"):
        run_rows("format-date :d 'YYYY-ww'", [{"d": dt.date(2020, 1, 1)}], spark=spark)


def test_results_do_not_depend_on_the_session_time_zone(spark: SparkSession) -> None:
    recipe = "\n".join([
        "parse-as-simple-date :a 'yyyy-MM-dd HH:mm'",
        "copy :a :b",
        "timestamp-to-datetime :b",
        "format-date :a 'yyyy-MM-dd HH:mm'",
        "datetime-to-timestamp :b 'Asia/Tokyo'",
    ])
    rows = [{"a": "2020-06-01 12:30"}]
    before = run_rows(recipe, rows, spark=spark).rows
    previous = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        after = run_rows(recipe, rows, spark=spark).rows
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous or "UTC")
    assert before == after == [{"a": "2020-06-01 12:30", "b": utc(2020, 6, 1, 3, 30)}]


# -- parse-as-datetime / format-datetime -------------------------------------------------------------------------------
def test_datetimes_parse_to_wall_clock_values_and_format_back(spark: SparkSession) -> None:
    rows = [{"d": "12/10/2016 07:45"}, {"d": "Tue 02/01/1990 12:01"}, {"d": "13/45/2016 07:45"}]
    recipe = "parse-as-datetime :d 'MM/dd/yyyy HH:mm'\ncopy :d :t\nformat-datetime :t \"yyyy-MM-dd'T'HH:mm\""
    result = run(spark.createDataFrame(rows), recipe)
    assert dict(result.df.dtypes) == {"d": "timestamp_ntz", "t": "string"}
    collected = run_rows(recipe, rows, spark=spark)
    assert collected.rows == [{"d": dt.datetime(2016, 12, 10, 7, 45), "t": "2016-12-10T07:45"}]
    assert [error["row"]["d"] for error in collected.errors] == ["Tue 02/01/1990 12:01", "13/45/2016 07:45"]


def test_day_names_are_skipped_when_parsing(spark: SparkSession) -> None:
    rows = [{"d": "Saturday, 10 Dec 2016 06:45"}]
    result = run_rows("parse-as-datetime :d 'EEEE, d MMM yyyy HH:mm'", rows, spark=spark)
    assert result.rows == [{"d": dt.datetime(2016, 12, 10, 6, 45)}]


def test_format_datetime_rejects_other_types_row_by_row(spark: SparkSession) -> None:
    result = run_rows("format-datetime :d 'MM/dd/yyyy'", [{"d": "12/10/2016"}, {"d": None}], spark=spark)
    assert result.rows == [{"d": None}]
    assert "Value 12/10/2016 for column d expected to be datetime but found String" in result.errors[0]["message"]


def test_format_datetime_cannot_print_a_zone(spark: SparkSession) -> None:
    with pytest.raises(DirectiveArgumentError, match="time zone"):
        run_rows("format-datetime :d 'yyyy z'", [{"d": dt.datetime(2020, 1, 1)}], spark=spark)


# -- format-date -------------------------------------------------------------------------------------------------------
def test_format_date_prints_timestamps_in_utc_and_dates(spark: SparkSession) -> None:
    rows = [{"ts": utc(2016, 12, 10, 6, 45, 11), "day": dt.date(2016, 12, 10)}]
    recipe = "format-date :ts \"EEE, d MMM yyyy HH:mm:ss VV\"\nformat-date :day 'dd.MM.uuuu'"
    assert run_rows(recipe, rows, spark=spark).rows == [{"ts": "Sat, 10 Dec 2016 06:45:11 UTC", "day": "10.12.2016"}]


def test_format_date_errors(spark: SparkSession) -> None:
    missing = run_rows("format-date :nope 'yyyy'", [{"a": 1}, {"a": 2}], spark=spark)
    assert missing.rows == [] and len(missing.errors) == 2
    assert missing.errors[0]["message"] == "Column 'nope' does not exist."
    wrong = run_rows("format-date :a 'yyyy'", [{"a": 1}], spark=spark)
    assert "Column 'a' has invalid type 'Integer'. Apply 'parse-as-date' directive first." in wrong.errors[0]["message"]
    with pytest.raises(DirectiveArgumentError, match="time of day"):
        run_rows("format-date :d 'HH:mm'", [{"d": dt.date(2020, 1, 1)}], spark=spark)


# -- parse-timestamp ---------------------------------------------------------------------------------------------------
def test_epoch_numbers_in_each_unit(spark: SparkSession) -> None:
    rows = [{"ms": 1536332271894, "s": "1536332271", "us": "1536332271894123", "neg": "-1000"}]
    recipe = "parse-timestamp :ms\nparse-timestamp :s 'SECONDS'\nparse-timestamp :us 'microseconds'\n" \
             "parse-timestamp :neg 'seconds'"
    result = run_rows(recipe, rows, spark=spark)
    assert result.rows == [{"ms": utc(2018, 9, 7, 14, 57, 51, 894000), "s": utc(2018, 9, 7, 14, 57, 51),
                            "us": utc(2018, 9, 7, 14, 57, 51, 894123), "neg": utc(1969, 12, 31, 23, 43, 20)}]


def test_bad_epochs_are_error_rows(spark: SparkSession) -> None:
    rows = [{"e": "12abc"}, {"e": "99999999999999999"}, {"e": " 12"}, {"e": None}, {"e": "0"}]
    result = run_rows("parse-timestamp :e 'seconds'", rows, spark=spark)
    assert result.rows == [{"e": None}, {"e": utc(1970, 1, 1)}]
    assert [error["row"]["e"] for error in result.errors] == ["12abc", "99999999999999999", " 12"]
    assert "is outside Spark's timestamp range" in result.errors[1]["message"]
    assert "Invalid value for column 'e'. Must be of type 'Long' or 'String' representing long." \
        in result.errors[0]["message"]
    doubles = run_rows("parse-timestamp :e", [{"e": 1.5}], spark=spark)
    assert "Invalid type 'Double' of column 'e'. Must be of type 'Long' or 'String'." in doubles.errors[0]["message"]


# -- diff-date, current-datetime, zones --------------------------------------------------------------------------------
def test_diff_date_in_milliseconds(spark: SparkSession) -> None:
    rows = [{"a": "2020-01-02 00:00:01.5", "b": "2020-01-01 00:00:00"}, {"a": "2020-01-01 00:00:00", "b": None}]
    df = spark.createDataFrame(rows).select(F.to_timestamp("a").alias("a"), F.to_timestamp("b").alias("b"),
                                            F.lit("x").alias("s"))
    result = run(df, "diff-date :a :b :ms\ndiff-date :a :s :bad")
    values = [(row["ms"], row["bad"]) for row in result.df.collect()]
    assert values == [(86_401_500, None), (None, None)]
    assert dict(result.df.dtypes)["ms"] == "bigint"


def test_current_datetime_is_the_wall_clock_in_the_zone(spark: SparkSession) -> None:
    zone = zoneinfo.ZoneInfo("Asia/Kolkata")
    before = dt.datetime.now(zone).replace(tzinfo=None, microsecond=0)
    result = run_rows("current-datetime :now 'Asia/Kolkata'\ncurrent-datetime :utc", [{"a": 1}], spark=spark)
    after = dt.datetime.now(zone).replace(tzinfo=None) + dt.timedelta(seconds=1)
    (row,) = result.rows
    assert before <= row["now"] <= after
    assert row["now"] - row["utc"] == dt.timedelta(hours=5, minutes=30) or \
        abs(row["now"] - row["utc"] - dt.timedelta(hours=5, minutes=30)) < dt.timedelta(seconds=1)


def test_datetime_to_timestamp_reads_the_wall_clock_in_the_zone(spark: SparkSession) -> None:
    wall = dt.datetime(2000, 8, 22, 20, 36, 45, 1)  # naive: a timestamp_ntz column
    result = run_rows("datetime-to-timestamp :a\ndatetime-to-timestamp :b 'Australia/Sydney'\n"
                      "datetime-to-timestamp :c '-07:00'", [{"a": wall, "b": wall, "c": wall}], spark=spark)
    (row,) = result.rows
    assert (row["a"], row["b"], row["c"]) == (utc(2000, 8, 22, 20, 36, 45, 1), utc(2000, 8, 22, 10, 36, 45, 1),
                                              utc(2000, 8, 23, 3, 36, 45, 1))
    strings = run_rows("datetime-to-timestamp :a\ntimestamp-to-datetime :b", [{"a": "x", "b": "y"}], spark=spark)
    assert [error["message"] for error in strings.errors] == \
        ["Value x for column a expected to be datetime but found String (ecode: 2, directive: datetime-to-timestamp)"]


# -- currency ----------------------------------------------------------------------------------------------------------
def test_format_as_currency_for_common_locales(spark: SparkSession) -> None:
    rows = [{"v": 1234678.67}, {"v": -0.5}, {"v": None}]
    recipe = "format-as-currency :v :us\nformat-as-currency :v :de 'de_DE'\nformat-as-currency :v :jp 'ja-jp'\n" \
             "format-as-currency :v :fr 'fr_FR'"
    result = run_rows(recipe, rows, spark=spark)
    assert [(row["us"], row["de"], row["jp"], row["fr"]) for row in result.rows] == [
        ("$1,234,678.67", "1.234.678,67\u00a0€", "\uffe51,234,679", "1\u202f234\u202f678,67\u00a0€"),
        ("-$0.50", "-0,50\u00a0€", "-\uffe50", "-0,50\u00a0€"),
        (None, None, None, None),
    ]


def test_format_as_currency_skips_non_numbers_and_rejects_unknown_locales(spark: SparkSession) -> None:
    assert run_rows("format-as-currency :v :out", [{"v": "12"}], spark=spark).rows == [{"v": "12", "out": None}]
    with pytest.raises(DirectiveArgumentError, match="not supported on Spark") as caught:
        run_rows("format-as-currency :v :out 'xx_YY'", [{"v": 1.0}], spark=spark)
    assert caught.value.hint and "en_US" in caught.value.hint


def test_parse_as_currency_round_trips_and_rejects_other_text(spark: SparkSession) -> None:
    rows = [{"t": "$1,234.56"}, {"t": "-$0.99"}, {"t": "$12"}, {"t": "1.56"}, {"t": "  "}, {"t": "$1.2.3"}]
    result = run_rows("parse-as-currency :t :v", rows, spark=spark)
    assert [(row["t"], row["v"]) for row in result.rows] == [("$1,234.56", 1234.56), ("-$0.99", -0.99),
                                                             ("$12", 12.0), ("  ", None)]
    assert [error["row"]["t"] for error in result.errors] == ["1.56", "$1.2.3"]
    assert 'Unparseable number: "' in result.errors[0]["message"]
    german = run_rows("parse-as-currency :t :v 'de_DE'", [{"t": "1.234,56 €"}, {"t": "1.234,56\u00a0€"}],
                      spark=spark)
    assert [row["v"] for row in german.rows] == [1234.56, 1234.56]


# -- parse-as-date -----------------------------------------------------------------------------------------------------
def test_natural_language_dates() -> None:
    now = dt.datetime(2020, 3, 4, 15, 30, tzinfo=UTC)
    eastern = "US/Eastern"
    assert natural_date("now", eastern, now) == now
    assert natural_date("Tomorrow", "UTC", now) == now + dt.timedelta(days=1)
    assert natural_date("september 7th 2016", eastern, now) == dt.datetime(2016, 9, 7, 4, tzinfo=UTC)
    assert natural_date("12/10/2016 06:45 AM", eastern, now) == dt.datetime(2016, 12, 10, 11, 45, tzinfo=UTC)
    assert natural_date("1485800109", "UTC", now) is None
    assert natural_date("no date here at all", "UTC", now) is None
    assert natural_date(None, "UTC", now) is None


def test_parse_as_date_adds_the_first_date_as_col_1(spark: SparkSession) -> None:
    rows = [{"d": "september 7th 2016"}, {"d": "nonsense"}]
    result = run_rows("parse-as-date :d 'UTC'", rows, spark=spark)
    assert result.columns == ["d", "d_1"]
    assert [row["d_1"] for row in result.rows] == [utc(2016, 9, 7), None]
    assert "parse-as-date" in PYTHON_UDFS


def test_offsets_and_compact_patterns(spark: SparkSession) -> None:
    rows = [{"z": "2020-01-01T10:00:00-08:00", "c": "200101", "w": "2020-01-01 10:00 PST"},
            {"z": "2020-01-01T10:00:00Z", "c": "991231", "w": "2020-01-01 10:00 UTC"}]
    recipe = "parse-as-simple-date :z \"yyyy-MM-dd'T'HH:mm:ssXXX\"\nparse-as-simple-date :c 'yyMMdd'\n" \
             "parse-as-datetime :w 'yyyy-MM-dd HH:mm z'"
    result = run_rows(recipe, rows, spark=spark)
    assert [(row["z"], row["c"], row["w"]) for row in result.rows] == [
        (utc(2020, 1, 1, 18), utc(2020, 1, 1), dt.datetime(2020, 1, 1, 10)),  # a datetime ignores the zone
        (utc(2020, 1, 1, 10), utc(1999, 12, 31), dt.datetime(2020, 1, 1, 10)),
    ]
