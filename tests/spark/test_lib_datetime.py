"""`datetime:` and `date:` functions on real Spark, expected values read from Wrangler's DateAndTime and Dates.

Each case names the Java method whose code gives the expected value.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pyspark.sql import SparkSession

from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark

D = dt.date


def values(spark: SparkSession, expressions: dict[str, str], row: dict[str, Any] | None = None) -> dict[str, Any]:
    recipe = "\n".join(f"set-column :{name} exp:{{{text}}}" for name, text in expressions.items())
    result = run_rows(recipe, [row or {"x": 1}], spark=spark)
    assert not result.errors, result.errors
    return {name: result.rows[0][name] for name in expressions}


def test_weekday_adjusters(spark: SparkSession) -> None:
    got = values(spark, {
        # NextWeekdayFromDate: source.with(TemporalAdjusters.next(getDayOfWeek(text))), strictly after
        "next": "datetime:NextWeekdayFromDate(datetime:GetDate('2008-08-18'), 'thursday')",
        "next_short": "datetime:NextWeekdayFromDate(datetime:GetDate('2008-08-18'), 'THU')",
        "same_day": "datetime:NextWeekdayFromDate(datetime:GetDate('2008-08-18'), 'monday')",
        # getDayOfWeek spells Saturday 'SATUDAY': 'saturday' falls to the default, Sunday
        "saturday": "datetime:NextWeekdayFromDate(datetime:GetDate('2008-08-18'), 'saturday')",
        "sat": "datetime:NextWeekdayFromDate(datetime:GetDate('2008-08-18'), 'sat')",
        # PreviousWeekdayFromDate: TemporalAdjusters.previous, strictly before
        "previous": "datetime:PreviousWeekdayFromDate(datetime:GetDate('2008-08-18'), 'mon')",
        # NthWeekdayFromDate: |n| times next/previous; n = 0 keeps the date
        "nth": "datetime:NthWeekdayFromDate(datetime:GetDate('2009-08-18'), 'Thursday', 1)",
        "nth_back": "datetime:NthWeekdayFromDate(datetime:GetDate('2009-08-18'), 'Thu', -2)",
        "nth_zero": "datetime:NthWeekdayFromDate(datetime:GetDate('2009-08-18'), 'Thu', 0)",
        # WeekdayFromDate(date) is WeekdayFromDate(date, "Sunday"): 7 - SUNDAY(7) + 1, whatever the date
        "weekday": "datetime:WeekdayFromDate(datetime:GetDate('2009-08-18'))",
        "weekday_monday": "datetime:WeekdayFromDate(datetime:GetDate('2009-08-18'), 'Monday')",
    })
    assert got == {"next": D(2008, 8, 21), "next_short": D(2008, 8, 21), "same_day": D(2008, 8, 25),
                   "saturday": D(2008, 8, 24), "sat": D(2008, 8, 23), "previous": D(2008, 8, 11),
                   "nth": D(2009, 8, 20), "nth_back": D(2009, 8, 6), "nth_zero": D(2009, 8, 18),
                   "weekday": 1, "weekday_monday": 7}


def test_date_components_lengths_and_weeks(spark: SparkSession) -> None:
    got = values(spark, {
        "made": "datetime:DateFromComponents(2024, 2, 29)",  # LocalDate.of
        # DateOffsetByComponents: plusYears, then plusMonths, then plusDays (2021-02-28 → 03-28 → 03-29)
        "offset": "datetime:DateOffsetByComponents(datetime:GetDate('2020-02-29'), 1, 1, 1)",
        "feb": "datetime:DaysInMonth(datetime:GetDate('2023-02-10'))",  # Month.maxLength(): 29
        "leap": "datetime:DaysInYear(datetime:GetDate('2024-07-01'))",  # Year.length()
        "common": "datetime:DaysInYear(datetime:GetDate('2023-07-01'))",
        # YearweekFromDate: WeekFields.of(MONDAY, 7).weekOfWeekBasedYear()
        "week_before_first_monday": "datetime:YearweekFromDate(datetime:GetDate('2021-01-03'))",
        "first_week": "datetime:YearweekFromDate(datetime:GetDate('2021-01-04'))",
        "since": "datetime:DateFromDaysSince(10, datetime:GetDate('2020-01-01'))",  # baseline.plusDays
    })
    assert got == {"made": D(2024, 2, 29), "offset": D(2021, 3, 29), "feb": 29, "leap": 366, "common": 365,
                   "week_before_first_monday": 52, "first_week": 1, "since": D(2020, 1, 11)}


def test_impossible_date_components_fail_the_row(spark: SparkSession) -> None:
    result = run_rows("set-column :d exp:{datetime:DateFromComponents(2023, 2, 29)}", [{"x": 1}], spark=spark)
    assert result.rows == [] and len(result.errors) == 1  # LocalDate.of throws DateTimeException


def test_times_and_datetimes(spark: SparkSession) -> None:
    got = values(spark, {
        "midnight": "datetime:TimeFromMidnightSeconds(3661)",  # LocalTime.of(0,0,0).plusSeconds
        "wrap": "datetime:TimeOffsetByComponents(datetime:GetTime('23:30:00'), 1, 0, 5)",  # plusHours wraps
        "millis": "datetime:MilliSecondsFromTime(datetime:GetTime('10:00:00.123456'))",  # nano / 1000 / 1000
        "micros": "datetime:MicroSecondsFromTime(datetime:GetTime('10:00:00.123456'))",
        # SecondsSinceFromDateTime(source, destination) = Duration.between(destination, source).getSeconds()
        "since": "datetime:SecondsSinceFromDateTime(datetime:GetDateTime('2020-01-01 00:01:00'), "
                 "datetime:GetDateTime('2020-01-01 00:00:00'))",
        "with_time": "datetime:DateTimeFromTime(datetime:GetTime('10:11:12'), "
                     "datetime:GetDateTime('2020-05-06 01:02:03'))",
        "combined": "datetime:GetDateTime(datetime:GetDate('2020-05-06'), datetime:GetTime('10:11:12'))",
        "plus_seconds": "datetime:DateTimeFromSecondsSince(61, datetime:GetDateTime('2020-05-06 00:00:00'))",
        "epoch": "datetime:EpochFromTimestamp(datetime:GetDateTime('1970-01-02 00:00:00'))",
    })
    assert got == {"midnight": dt.time(1, 1, 1), "wrap": dt.time(0, 30, 5), "millis": 123, "micros": 123456,
                   "since": 60,
                   "with_time": dt.datetime(2020, 5, 6, 10, 11, 12), "combined": dt.datetime(2020, 5, 6, 10, 11, 12),
                   "plus_seconds": dt.datetime(2020, 5, 6, 0, 1, 1), "epoch": 86400}


def test_current_time_functions_are_consistent(spark: SparkSession) -> None:
    got = values(spark, {"ms": "datetime:CurrentTimeMS()", "epoch": "datetime:EpochSeconds()",
                         "epoch_ms": "datetime:CurrentTimestampMS()", "nano": "datetime:CurrentTimestampNano()",
                         "timedate": "datetime:TimeDate()", "time": "datetime:CurrentTime()"})
    assert 0 <= got["ms"] < 1000 and 0 <= got["nano"] < 1_000_000_000
    assert abs(got["epoch_ms"] // 1000 - got["epoch"]) <= 1
    dt.datetime.strptime(got["timedate"], "%H:%M:%S %d %b %Y")  # "HH:mm:ss dd MMM yyyy"
    assert isinstance(got["time"], dt.time | str)


def test_type_inference_dates_and_times(spark: SparkSession) -> None:
    rows = [{"v": "2020-01-31"}, {"v": "01/31/2020"}, {"v": "hello"}, {"v": "12"}, {"v": None}, {"v": "10:30"}]
    result = run_rows("set-column :d exp:{date:isDate(v)}\nset-column :t exp:{date:isTime(v)}", rows, spark=spark)
    assert [(r["d"], r["t"]) for r in result.rows] == [
        (True, False), (True, False), (False, False), (False, False), (False, False), (False, True)]
