"""The date, datetime and currency directives, branch by branch, as Wrangler's `execute()` defines them.

Each test names the Java class (io.cdap.directives.*) and the branch. Expected instants of lenient
`SimpleDateFormat` parsing were checked against Java 17's `SimpleDateFormat` with Wrangler's set-up
(a UTC pure-Gregorian calendar, lenient as constructed).
"""

from __future__ import annotations

import datetime as dt

import pytest

import directives
from grammar.errors import RecipeError

pytestmark = pytest.mark.spark
UTC = dt.UTC


def utc(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


def parse_simple(spark: object, pattern: str, values: list[str | None]) -> list[dt.datetime | str | None]:
    """Each value parsed by `parse-as-simple-date`, or 'error' for an error row, in input order."""
    quoted = f'"{pattern}"' if "'" in pattern else f"'{pattern}'"
    rows = [{"i": i, "d": v} for i, v in enumerate(values)]
    result = directives.run_rows(f"parse-as-simple-date :d {quoted}", rows, spark=spark)
    out: dict[int, dt.datetime | str | None] = {row["i"]: row["d"] for row in result.rows}
    out.update({error["row"]["i"]: "error" for error in result.errors})
    return [out[i] for i in range(len(values))]


# -- parser.ParseSimpleDate: a lenient SimpleDateFormat in UTC ---------------------------------------------------------
def test_simple_date_rolls_out_of_range_fields_over(spark: object) -> None:
    """ParseSimpleDate.execute → SimpleDateFormat.parse, lenient: month 13, day 30 of February, day 0, hour 25."""
    got = parse_simple(spark, "MM/dd/yyyy", ["13/01/2016", "02/30/2016", "00/00/2016", "12/32/2016"])
    assert got == [utc(2017, 1, 1), utc(2016, 3, 1), utc(2015, 11, 30), utc(2017, 1, 1)]
    assert parse_simple(spark, "yyyy-MM-dd HH:mm:ss", ["2016-01-02 25:61:61", "2015-02-29 00:00:00"]) == \
        [utc(2016, 1, 3, 2, 2, 1), utc(2015, 3, 1)]


def test_simple_date_reads_any_number_of_digits_and_a_minus_sign(spark: object) -> None:
    """Numeric fields not followed by another number take every digit; `-1` is a number (month -1 = November)."""
    got = parse_simple(spark, "yyyy-MM-dd", ["2016-1-2", "2016--1-02", "2016-1a-02", "+2016-01-02"])
    assert got == [utc(2016, 1, 2), utc(2015, 11, 2), "error", "error"]
    assert parse_simple(spark, "MM/dd/yyyy", ["1/2/2016", "1/2/16"]) == [utc(2016, 1, 2), utc(16, 1, 2)]


def test_simple_date_abutting_numbers_obey_the_letter_count(spark: object) -> None:
    """SimpleDateFormat.shouldObeyCount: a number directly followed by another reads its letter count of digits;
    the last one takes the rest."""
    assert parse_simple(spark, "yyyyMMdd", ["20160102", "2016012"]) == [utc(2016, 1, 2), utc(2016, 1, 2)]
    assert parse_simple(spark, "yyyyMMddHHmmss", ["20160102030405"]) == [utc(2016, 1, 2, 3, 4, 5)]


def test_simple_date_skips_blanks_before_fields_and_ignores_trailing_text(spark: object) -> None:
    """subParse skips spaces and tabs before a field (not before literal text); parse(String) stops after the last
    field."""
    got = parse_simple(spark, "MM/dd/yyyy", [" 01/02/2016", "01/02/2016 extra", "01/\t02/2016", "01 /02/2016"])
    assert got == [utc(2016, 1, 2), utc(2016, 1, 2), utc(2016, 1, 2), "error"]
    assert parse_simple(spark, "yyyy-MM-dd", ["2016-01-02T10:00", "2016-01"]) == [utc(2016, 1, 2), "error"]


def test_simple_date_two_digit_years_only_when_written_with_two_digits(spark: object) -> None:
    """`yy` with exactly two digits falls in the century window; '016' and '6' are read as written."""
    this_year = dt.date.today().year
    inside = (this_year - 10) % 100
    got = parse_simple(spark, "yy-MM-dd", [f"{inside:02d}-01-01", "016-01-01", "6-01-01"])
    assert got == [utc(this_year - 10, 1, 1), utc(16, 1, 1), utc(6, 1, 1)]


def test_simple_date_text_fields(spark: object) -> None:
    """Month names match case-insensitively, long or short, whatever the letter count; a day name is read but not
    checked against the date; am/pm in any case; `h` 12 is 0 and `k` 24 is 0; an hour of day wins over am/pm."""
    assert parse_simple(spark, "MMM d, yyyy", ["jan 5, 2016", "JANUARY 5, 2016", "Sept 5, 2016"]) == \
        [utc(2016, 1, 5), utc(2016, 1, 5), "error"]
    assert parse_simple(spark, "EEE, MMM d, ''yy", ["Mon, Dec 10, '16"]) == [utc(2016, 12, 10)]
    assert parse_simple(spark, "h:mm a", ["12:05 am", "13:05 PM", "5:00 pm"]) == \
        [utc(1970, 1, 1, 0, 5), utc(1970, 1, 2, 1, 5), utc(1970, 1, 1, 17)]
    assert parse_simple(spark, "kk:mm", ["24:00"]) == [utc(1970, 1, 1)]
    assert parse_simple(spark, "HH:mm", ["24:00"]) == [utc(1970, 1, 2)]
    assert parse_simple(spark, "HH:mm a", ["01:05 PM"]) == [utc(1970, 1, 1, 1, 5)]


def test_simple_date_milliseconds_count_as_a_number(spark: object) -> None:
    """SimpleDateFormat's `S` is a count of milliseconds: '.5' is 5 ms, not half a second."""
    got = parse_simple(spark, "yyyy-MM-dd HH:mm:ss.SSS", ["2016-01-02 10:00:00.5", "2016-01-02 10:00:00.1500"])
    assert got == [utc(2016, 1, 2, 10, 0, 0, 5000), utc(2016, 1, 2, 10, 0, 1, 500000)]


def test_simple_date_failures_nulls_and_types(spark: object) -> None:
    """ParseException → ErrorRowException code 1 'Failed to parse …'; null skipped; a ZonedDateTime is left as it
    is; another type → code 2 'is of invalid type'; a missing column is skipped."""
    result = directives.run_rows("parse-as-simple-date :d 'MM/dd/yyyy'", [{"d": ""}, {"d": None}], spark=spark)
    assert result.rows == [{"d": None}]
    assert [e["message"] for e in result.errors] == \
        ["Failed to parse '' with pattern 'MM/dd/yyyy' (ecode: 1, directive: parse-as-simple-date)"]
    stamped = directives.run_rows("parse-as-simple-date :d 'yyyy'", [{"d": utc(2020, 1, 1)}], spark=spark)
    assert stamped.rows == [{"d": utc(2020, 1, 1)}] and stamped.errors == []
    flag = directives.run_rows("parse-as-simple-date :d 'yyyy'", [{"d": True}], spark=spark)
    assert [e["message"] for e in flag.errors] == ["Column 'd' is of invalid type 'Boolean'. It should be of type "
                                                   "'String'. (ecode: 2, directive: parse-as-simple-date)"]
    absent = directives.run_rows("parse-as-simple-date :nope 'yyyy'", [{"d": "x"}], spark=spark)
    assert absent.rows == [{"d": "x"}]


def test_simple_date_beyond_spark_range_is_an_error_row(spark: object) -> None:
    """Documented difference (dates.md): Java reads year 10000; a Spark timestamp ends at 9999."""
    assert parse_simple(spark, "yyyy-MM-dd", ["10000-01-01", "9999-12-31"]) == ["error", utc(9999, 12, 31)]


# -- parser.ParseDateTime: LocalDateTime.parse -------------------------------------------------------------------------
def test_parse_as_datetime_branches(spark: object) -> None:
    """Null and LocalDateTime values are skipped; a missing column is skipped; DateTimeParseException → code 2
    'Value … for column … is not in expected format …'."""
    rows = [{"d": "2016-01-02 03:04"}, {"d": "2016-1-2 03:04"}, {"d": None}]
    result = directives.run_rows("parse-as-datetime :d 'yyyy-MM-dd HH:mm'\nparse-as-datetime :nope 'yyyy'",
                                 rows, spark=spark)
    assert result.rows == [{"d": dt.datetime(2016, 1, 2, 3, 4)}, {"d": None}]
    assert [e["message"] for e in result.errors] == ["Value 2016-1-2 03:04 for column d is not in expected format "
                                                     "yyyy-MM-dd HH:mm (ecode: 2, directive: parse-as-datetime)"]
    wall = dt.datetime(2020, 5, 6, 7, 8)
    kept = directives.run_rows("parse-as-datetime :d 'yyyy'", [{"d": wall}], spark=spark)
    assert kept.rows == [{"d": wall}] and kept.errors == []


def test_parse_as_datetime_rejects_a_bad_pattern_at_compile_time() -> None:
    """initialize: DateTimeFormatter.ofPattern throws IllegalArgumentException → DirectiveParseException."""
    with pytest.raises(RecipeError, match="reserved character '#'"):
        directives.parse("parse-as-datetime :d 'yyyy-MM-dd #'")


# -- parser.ParseTimestamp ---------------------------------------------------------------------------------------------
def test_parse_timestamp_branches(spark: object) -> None:
    """A ZonedDateTime is left as it is; text that is not a long → 'Invalid value …'; a bad unit is a
    DirectiveParseException."""
    kept = directives.run_rows("parse-timestamp :t", [{"t": utc(2000, 1, 1)}], spark=spark)
    assert kept.rows == [{"t": utc(2000, 1, 1)}]
    result = directives.run_rows("parse-timestamp :t 'SECONDS'", [{"t": "1.5"}, {"t": "-1"}], spark=spark)
    assert result.rows == [{"t": utc(1969, 12, 31, 23, 59, 59)}]
    assert [e["message"] for e in result.errors] == [
        "Invalid value for column 't'. Must be of type 'Long' or 'String' representing long. (ecode: 2, directive: "
        "parse-timestamp)"]
    with pytest.raises(RecipeError, match="Time unit 'HOURS' is not supported"):
        directives.parse("parse-timestamp :t 'HOURS'")


# -- date.DiffDate -----------------------------------------------------------------------------------------------------
def test_diff_date_now_and_missing_columns(spark: object) -> None:
    """getDate: 'now' (any case) is the directive's current instant, not a column; a missing column throws
    'Column … does not exist.'; a non-ZonedDateTime value gives null."""
    rows = [{"a": utc(2000, 1, 1), "s": "x"}]
    result = directives.run_rows("diff-date :NOW :a :age\ndiff-date :a :s :bad", rows, spark=spark)
    (row,) = result.rows
    assert row["age"] > (dt.datetime(2020, 1, 1, tzinfo=UTC) - utc(2000, 1, 1)).total_seconds() * 1000
    assert row["bad"] is None
    missing = directives.run_rows("diff-date :a :nope :x", rows, spark=spark)
    assert missing.rows == [] and [e["message"] for e in missing.errors] == ["Column 'nope' does not exist."]


# -- date.FormatDate, datetime.* ---------------------------------------------------------------------------------------
def test_format_date_null_is_kept_and_other_types_fail(spark: object) -> None:
    """FormatDate: null passes through; a value neither LocalDate nor ZonedDateTime → 'has invalid type'."""
    result = directives.run_rows("format-date :d 'yyyy'", [{"d": utc(2016, 5, 1)}, {"d": None}], spark=spark)
    assert result.rows == [{"d": "2016"}, {"d": None}]
    text = directives.run_rows("format-date :d 'yyyy'", [{"d": "2016"}], spark=spark)
    assert [e["message"] for e in text.errors] == \
        ["Column 'd' has invalid type 'String'. Apply 'parse-as-date' directive first."]


def test_datetime_directives_skip_missing_columns_and_matching_types(spark: object) -> None:
    """FormatDateTime / DateTimeToTimeStamp / TimestampToDateTime: a missing column and a null are skipped;
    TimestampToDateTime leaves a LocalDateTime as it is."""
    wall = dt.datetime(2020, 1, 2, 3, 4)
    recipe = "format-datetime :nope 'yyyy'\ndatetime-to-timestamp :nope\ntimestamp-to-datetime :nope\n" \
             "timestamp-to-datetime :w"
    result = directives.run_rows(recipe, [{"w": wall}, {"w": None}], spark=spark)
    assert result.rows == [{"w": wall}, {"w": None}] and result.errors == []


def test_datetime_directives_wrong_types(spark: object) -> None:
    """Value … for column … expected to be datetime / timestamp but found <class>, code 2."""
    result = directives.run_rows("format-datetime :a 'yyyy'", [{"a": 5}], spark=spark)
    assert [e["message"] for e in result.errors] == \
        ["Value 5 for column a expected to be datetime but found Integer (ecode: 2, directive: format-datetime)"]
    stamp = directives.run_rows("timestamp-to-datetime :a", [{"a": dt.date(2020, 1, 2)}], spark=spark)
    assert [e["message"] for e in stamp.errors] == ["Value 2020-01-02 for column a expected to be timestamp but "
                                                    "found LocalDate (ecode: 2, directive: timestamp-to-datetime)"]


def test_datetime_zone_arguments_are_checked_at_compile_time() -> None:
    """CurrentDateTime / DateTimeToTimeStamp.initialize: ZoneId.of fails → 'Zone … is invalid.'"""
    for recipe in ("current-datetime :c 'Mars/Olympus'", "datetime-to-timestamp :c 'Nowhere/Zone'"):
        with pytest.raises(RecipeError, match="is not a time zone"):
            directives.parse(recipe)


# -- parser.ParseDate (Natty) ------------------------------------------------------------------------------------------
def test_parse_as_date_types(spark: object) -> None:
    """ParseDate: a ZonedDateTime is left alone (no new column); a non-string is an error row, code 1."""
    kept = directives.run_rows("parse-as-date :d", [{"d": utc(2020, 1, 1)}], spark=spark)
    assert kept.rows == [{"d": utc(2020, 1, 1)}]
    wrong = directives.run_rows("parse-as-date :d", [{"d": 17}, {"d": None}], spark=spark)
    assert [e["message"] for e in wrong.errors] == \
        ["Column 'd' is of invalid type 'Integer'. It should be of type 'String'. (ecode: 1, directive: parse-as-date)"]
    single = directives.run_rows("parse-as-date :d", [{"d": "1/2/2016"}], spark=spark)
    assert single.rows[0]["d_1"] == utc(2016, 1, 2)


# -- currency.* --------------------------------------------------------------------------------------------------------
def test_parse_as_currency_message_and_skips(spark: object) -> None:
    """ParseAsCurrency: a non-string and a blank string are skipped; ParseException → its message, code 1."""
    result = directives.run_rows("parse-as-currency :p :v", [{"p": "$1,234.50"}, {"p": "abc"}, {"p": "  "}],
                                 spark=spark)
    assert [row["v"] for row in result.rows] == [1234.5, None]
    assert [e["message"] for e in result.errors] == \
        ['Unparseable number: "abc" (ecode: 1, directive: parse-as-currency)']
