"""`datetime:` functions of Wrangler's DateAndTime beyond the core ones in `functions.py`, and `date:isDate/isTime`.

Each follows the Java method of `io.cdap.functions.DateAndTime` (named in its doc): `LocalDate` is a Spark
DATE, `LocalDateTime` a TIMESTAMP_NTZ (the session zone is UTC, as Wrangler's `LocalDateTime.now()` on a
UTC host), `LocalTime` nanoseconds since midnight. Null arguments that Java replaces by 0 are replaced by 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import Column
from pyspark.sql import functions as F

from directives.spark.expr.functions import (
    _date,
    _datetime,
    _int,
    _literal_text,
    _local_datetime,
    _long,
    _number_arg,
    _s,
    _text,
    _time,
    fn,
)
from directives.spark.expr.values import NANOS, Compiling, Value

if TYPE_CHECKING:
    from grammar.expression import Expr

_DAY = 86_400 * NANOS


def _zero(c: Compiling, value: Value, kind: str = "long") -> Column:
    """`x == null ? 0 : x` as Java's DateAndTime writes it for offsets."""
    return F.coalesce(_number_arg(c, value, kind), F.lit(0).cast("bigint" if kind == "long" else kind))


def weekday_code(text: Column) -> Column:
    """DateAndTime.getDayOfWeek: MON/MONDAY … SUN/SUNDAY (any case); anything else, 'SATURDAY' included
    (Wrangler spells it SATUDAY), is Sunday. The result is the day name Spark's next_day takes."""
    upper = F.upper(text)
    result: Column = F.lit("SUN")
    for code, names in (("MON", ("MON", "MONDAY")), ("TUE", ("TUE", "TUESDAY")), ("WED", ("WED", "WEDNESDAY")),
                        ("THU", ("THU", "THURSDAY")), ("FRI", ("FRI", "FRIDAY")), ("SAT", ("SAT", "SATUDAY"))):
        result = F.when(upper.isin(*names), F.lit(code)).otherwise(result)
    return result


def next_weekday(date: Column, day: Column) -> Column:
    """TemporalAdjusters.next: the first such weekday strictly after the date."""
    return F.call_function("next_day", date, day)


def previous_weekday(date: Column, day: Column) -> Column:
    """TemporalAdjusters.previous: the last such weekday strictly before the date."""
    return F.call_function("next_day", F.date_sub(date, 8), day)


def _time_of(nanos: Column) -> Value:
    """LocalTime arithmetic wraps around midnight."""
    return Value(F.pmod(nanos, F.lit(_DAY)), "time")


def _now_nanos_of_day() -> Column:
    return F.pmod(F.unix_micros(F.current_timestamp()), F.lit(86_400_000_000)) * 1000


@fn("datetime", "CurrentTime", 0, doc="DateAndTime.CurrentTime: LocalTime.now() (UTC)")
def _current_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(_now_nanos_of_day(), "time")


@fn("datetime", "CurrentTimeMS", 0, doc="DateAndTime.CurrentTimeMS: milliseconds of the current second")
def _current_time_ms(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.pmod(F.unix_millis(F.current_timestamp()), F.lit(1000)))


@fn("datetime", "CurrentTimestamp", 0, doc="DateAndTime.CurrentTimestamp: ZonedDateTime.now() (a timestamp)")
def _current_timestamp(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return Value(F.current_timestamp(), "timestamp")


@fn("datetime", "EpochSeconds", 0, doc="DateAndTime.EpochSeconds: seconds since the epoch, now")
def _epoch_seconds(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.unix_seconds(F.current_timestamp()))


@fn("datetime", "CurrentTimestampMS", 0, doc="DateAndTime.CurrentTimestampMS: milliseconds since the epoch, now")
def _current_timestamp_ms(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.unix_millis(F.current_timestamp()))


@fn("datetime", "CurrentTimestampNano", 0, doc="DateAndTime.CurrentTimestampNano: Instant.getNano() of now")
def _current_timestamp_nano(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.pmod(F.unix_micros(F.current_timestamp()), F.lit(1_000_000)) * 1000)


@fn("datetime", "TimeDate", 0, doc="DateAndTime.TimeDate: now as 'HH:mm:ss dd MMM yyyy'")
def _time_date(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _text(F.date_format(F.current_timestamp(), "HH:mm:ss dd MMM yyyy"))


@fn("datetime", "DateFromComponents", 3, doc="DateAndTime.DateFromComponents: LocalDate.of(y, m, d); "
    "an impossible date fails the row")
def _date_from_components(c: Compiling, node: Expr, args: list[Value]) -> Value:
    y, m, d = (_number_arg(c, v, "int") for v in args)
    made = F.make_date(y, m, d)
    c.fail_when(y.isNotNull() & m.isNotNull() & d.isNotNull() & made.isNull(), "invalid date components")
    return Value(made, "date")


@fn("datetime", "DateOffsetByComponents", 4, doc="DateAndTime.DateOffsetByComponents: plus years, then months, "
    "then days")
def _date_offset_components(c: Compiling, node: Expr, args: list[Value]) -> Value:
    date = _date(c, args[0])
    years, months, days = (_zero(c, v, "int") for v in args[1:])
    return Value(F.date_add(F.add_months(F.add_months(date, years * 12), months), days), "date")


_MAX_LENGTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@fn("datetime", "DaysInMonth", 1, doc="DateAndTime.DaysInMonth: Month.maxLength() (February is always 29)")
def _days_in_month(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.element_at(F.array(*(F.lit(n) for n in _MAX_LENGTH)), F.month(_date(c, args[0]))))


@fn("datetime", "DaysInYear", 1, doc="DateAndTime.DaysInYear: 365 or 366")
def _days_in_year(c: Compiling, node: Expr, args: list[Value]) -> Value:
    year = F.year(_date(c, args[0]))
    return _int(F.dayofyear(F.make_date(year, F.lit(12), F.lit(31))))


@fn("datetime", "MicroSecondsFromTime", 1, doc="DateAndTime.MicroSecondsFromTime: nanoseconds field / 1000")
def _micros_from_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.floor((_time(c, args[0]) % NANOS) / 1000))


@fn("datetime", "MilliSecondsFromTime", 1, doc="DateAndTime.MilliSecondsFromTime: nanoseconds field / 1000000")
def _millis_from_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _int(F.floor((_time(c, args[0]) % NANOS) / 1_000_000))


def _weekday_from(previous: bool) -> object:
    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        date = _date(c, args[0])
        if args[1].kind == "null":
            return Value(date, "date")
        day = _s(args[1])
        moved = previous_weekday(date, weekday_code(day)) if previous else next_weekday(date, weekday_code(day))
        return Value(F.when(day.isNull(), date).otherwise(moved), "date")
    return apply


fn("datetime", "NextWeekdayFromDate", 2, doc="DateAndTime.NextWeekdayFromDate: the weekday strictly after")(
    _weekday_from(False))  # type: ignore[arg-type]
fn("datetime", "PreviousWeekdayFromDate", 2, doc="DateAndTime.PreviousWeekdayFromDate: the weekday strictly "
   "before")(_weekday_from(True))  # type: ignore[arg-type]


@fn("datetime", "SecondsSinceFromDateTime", 2, doc="DateAndTime.SecondsSinceFromDateTime(source, destination): "
    "seconds from destination to source")
def _seconds_since(c: Compiling, node: Expr, args: list[Value]) -> Value:
    source, destination = _datetime(c, args[0]), _datetime(c, args[1])
    return _long(F.floor((F.unix_micros(source) - F.unix_micros(destination)) / 1_000_000))


@fn("datetime", "TimeFromMidnightSeconds", 1, doc="DateAndTime.TimeFromMidnightSeconds (wraps at midnight)")
def _time_from_midnight(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _time_of(_zero(c, args[0]) * NANOS)


@fn("datetime", "TimeOffsetByComponents", 4, doc="DateAndTime.TimeOffsetByComponents: plus hours, minutes, "
    "seconds (wraps at midnight)")
def _time_offset(c: Compiling, node: Expr, args: list[Value]) -> Value:
    time = _time(c, args[0])
    h, m, s = (_zero(c, v) for v in args[1:])
    return _time_of(time + ((h * 60 + m) * 60 + s) * NANOS)


@fn("datetime", "DateTimeFromSecondsSince", 2, doc="DateAndTime.DateTimeFromSecondsSince(seconds, datetime)")
def _datetime_from_seconds(c: Compiling, node: Expr, args: list[Value]) -> Value:
    base = _datetime(c, args[1])
    return _local_datetime(F.timestamp_micros(F.unix_micros(base) + _zero(c, args[0]) * 1_000_000))


@fn("datetime", "DateTimeFromTime", 2, doc="DateAndTime.DateTimeFromTime(time, datetime): the datetime's date at "
    "the time")
def _datetime_from_time(c: Compiling, node: Expr, args: list[Value]) -> Value:
    base = _datetime(c, args[1])
    if args[0].kind == "null":
        return _local_datetime(base)
    time = _time(c, args[0])
    day_start = F.unix_micros(F.to_timestamp(F.to_date(base)))
    combined = F.timestamp_micros(day_start + F.floor(time / 1000).cast("bigint"))
    return _local_datetime(F.when(time.isNull(), base).otherwise(combined))


@fn("datetime", "EpochFromTimestamp", 1, doc="DateAndTime.EpochFromTimestamp: ZonedDateTime → epoch seconds")
def _epoch_from_timestamp(c: Compiling, node: Expr, args: list[Value]) -> Value:
    return _long(F.unix_seconds(_datetime(c, args[0]).cast("timestamp")))


@fn("datetime", "YearweekFromDate", 1, doc="DateAndTime.YearweekFromDate: week of the week-based year, weeks "
    "start on Monday, week 1 is the first full week")
def _yearweek(c: Compiling, node: Expr, args: list[Value]) -> Value:
    date = _date(c, args[0])

    def first_monday(year: Column) -> Column:
        return F.next_day(F.date_sub(F.make_date(year, F.lit(1), F.lit(1)), 1), "MON")

    this_year = first_monday(F.year(date))
    start = F.when(date >= this_year, this_year).otherwise(first_monday(F.year(date) - 1))
    return _int(F.floor(F.datediff(date, start) / 7) + 1)


_ISO_DAYS = {"MONDAY": 1, "TUESDAY": 2, "WEDNESDAY": 3, "THURSDAY": 4, "FRIDAY": 5, "SATURDAY": 6, "SUNDAY": 7}


@fn("datetime", "WeekdayFromDate", 1, 2, doc="DateAndTime.WeekdayFromDate(date[, startOfWeek]): 8 minus the ISO "
    "number of startOfWeek (default Sunday, so 1), whatever the date, as Wrangler computes it")
def _weekday_from_date(c: Compiling, node: Expr, args: list[Value]) -> Value:
    date = _date(c, args[0])
    if len(args) == 1:
        start: Column = F.lit(7)
    else:
        name = F.upper(_s(args[1]))
        start = F.lit(None).cast("int")
        for day, number in _ISO_DAYS.items():
            start = F.when(name == day, F.lit(number)).otherwise(start)
        c.fail_when(date.isNotNull() & name.isNotNull() & start.isNull(), "no such day of the week")
        start = F.when(name.isNull(), F.lit(7)).otherwise(start)
    return _int(F.when(date.isNotNull(), 8 - start))


@fn("datetime", "GetDateTime", 1, 2, doc="DateAndTime.GetDateTime(text) 'yyyy-MM-dd[ HH:mm:ss[.SSSSSS]]', or "
    "GetDateTime(date, time)")
def _get_datetime(c: Compiling, node: Expr, args: list[Value]) -> Value:
    if len(args) == 1:
        return _local_datetime(_datetime(c, args[0]))
    if args[0].kind == "null" or args[1].kind == "null":
        return Value(F.lit(None).cast("timestamp_ntz"), "timestamp")
    date, time = _date(c, args[0]), _time(c, args[1])
    day_start = F.unix_micros(F.to_timestamp(date))
    return _local_datetime(F.timestamp_micros(day_start + F.floor(time / 1000).cast("bigint")))


@fn("datetime", "DateFromDaysSince", 1, 2, doc="DateAndTime.DateFromDaysSince(days[, baseline]): baseline "
    "(default and null: today) plus days (null: 0)")
def _date_from_days_since(c: Compiling, node: Expr, args: list[Value]) -> Value:
    days = _zero(c, args[0], "int")
    base = F.current_date()
    if len(args) == 2 and args[1].kind != "null":
        base = F.coalesce(_date_or_null(c, args[1]), F.current_date())
    return Value(F.date_add(base, days), "date")


def _date_or_null(c: Compiling, value: Value) -> Column:
    if value.kind == "date":
        return value.col
    if value.kind == "timestamp":
        return F.to_date(value.col)
    parsed = F.try_to_date(_s(value))
    c.fail_when(value.col.isNotNull() & parsed.isNull(), "value is not a date (yyyy-MM-dd)")
    return parsed


@fn("datetime", "NthWeekdayFromDate", 3, doc="DateAndTime.NthWeekdayFromDate: the n-th weekday strictly after "
    "(n > 0) or before (n < 0); n = 0 or null keeps the date")
def _nth_weekday(c: Compiling, node: Expr, args: list[Value]) -> Value:
    date = _date(c, args[0])
    if args[1].kind == "null":
        return Value(date, "date")
    day_text = _s(args[1])
    day = weekday_code(day_text)
    n = F.coalesce(_number_arg(c, args[2], "int"), F.lit(0))
    result = (F.when(n > 0, F.date_add(next_weekday(date, day), (n - 1) * 7))
              .when(n < 0, F.date_sub(previous_weekday(date, day), (-n - 1) * 7))
              .otherwise(date))
    return Value(F.when(day_text.isNull(), date).otherwise(result), "date")


# -- date: isDate / isTime (TypeInference → DateTimePattern) --------------------------------------------------------
def _type_inference(kind: str) -> object:
    """DateTimePattern.isDate/isTime: length 6-64 (time: 4-24), at least 3 digits, and one of Wrangler's regexes
    found in the text (Matcher.find), all in one Java regex."""
    from directives.spark.expr import type_inference

    low, high = (6, 64) if kind == "date" else (4, 24)

    def apply(c: Compiling, node: Expr, args: list[Value]) -> Value:
        text = _s(args[0])
        patterns = type_inference.DATE if kind == "date" else type_inference.TIME
        combined = "|".join(f"(?:{pattern})" for pattern in patterns)
        hit = ((F.length(text) >= low) & (F.length(text) <= high) & text.rlike(r"\d\D*\d\D*\d")
               & text.rlike(combined))
        return Value(F.coalesce(hit, F.lit(False)), "bool")
    return apply


fn("date", "isDate", 1, doc="Dates.isDate: TypeInference.isDate, one of Wrangler's date regexes is found in the text")(
    _type_inference("date"))  # type: ignore[arg-type]
fn("date", "isTime", 1, doc="Dates.isTime: TypeInference.isTime, one of Wrangler's time regexes is found in the text")(
    _type_inference("time"))  # type: ignore[arg-type]


def literal_day(c: Compiling, node: Expr, value: Value) -> str:
    """A constant day name (used where Spark needs a literal)."""
    return _literal_text(c, node, value, "weekday name")
