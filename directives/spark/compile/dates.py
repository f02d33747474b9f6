"""Spark compilers of the currency, date and datetime directives.

Wrangler's three date types map onto Spark's: `ZonedDateTime` → `timestamp` (an instant; the zone
itself is not kept, see docs/differences/dates.md), `LocalDateTime` → `timestamp_ntz` (a wall-clock
reading), `LocalDate` → `date`. Each directive checks its column's Spark type once, when the recipe
is compiled, where Wrangler checks each value's Java class; rows whose value cannot be converted go
to the error output with a message, as Wrangler's ErrorRowException does.

The conversions never depend on the session time zone: wall clocks are read and written through
`convert_timezone` / `from_utc_timestamp` with explicit zones, so a caller's non-UTC session gives
the same results as the UTC one `SPARK_CONF` sets.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.base import Directive
from directives.catalog.dates import (
    CurrentDateTime,
    DateTimeToTimestamp,
    DiffDate,
    FormatAsCurrency,
    FormatDate,
    FormatDateTime,
    ParseAsCurrency,
    ParseAsDate,
    ParseAsDateTime,
    ParseAsSimpleDate,
    ParseTimestamp,
    TimestampToDateTime,
)
from directives.spark.compile import datamodel as _datamodel  # noqa: F401  (registers data-model-map-column)
from directives.spark.compile.common import error_row_message, existing_column, java_type
from directives.spark.compile.datecurrency import LOCALES, currency_format
from directives.spark.compile.datepatterns import DAY_NAME_REGEX, DatePatternError, Dialect, SparkPattern, to_spark
from directives.spark.compile.lenientdate import lenient_pattern, parse_lenient
from directives.spark.compilers import Finished, compiles, python_udf
from directives.spark.runtime.frame import Frame, RunContext, col

TIMESTAMP, DATETIME, DATE = "timestamp", "timestamp_ntz", "date"
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double")
_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
#: Spark timestamps span 0001-01-01 … 9999-12-31 (microseconds since the epoch).
_MIN_MICROS, _MAX_MICROS = -62135596800000000, 253402300799999999
_UNIT_MICROS = {"SECONDS": 1_000_000, "MILLISECONDS": 1_000, "MICROSECONDS": 1}


# -- helpers -----------------------------------------------------------------------------------------------------------
def session_zone(ctx: RunContext) -> str:
    spark = ctx.spark
    conf = getattr(spark, "conf", None)
    return str(conf.get("spark.sql.session.timeZone")) if conf is not None else "UTC"


def utc_wall_clock(instant: Column, ctx: RunContext) -> Column:
    """The UTC wall-clock reading (timestamp_ntz) of an instant, whatever the session zone."""
    return F.convert_timezone(F.lit(session_zone(ctx)), F.lit("UTC"), instant.cast(DATETIME))


def instant_at(wall_clock: Column, zone: str, ctx: RunContext) -> Column:
    """The instant (timestamp) at which the wall clock in ``zone`` reads ``wall_clock`` (timestamp_ntz)."""
    in_session = F.convert_timezone(F.lit(zone), F.lit(session_zone(ctx)), wall_clock)
    return in_session.cast(TIMESTAMP)


def pattern_for(d: Directive, arg: str, dialect: Dialect, *, parsing: bool) -> SparkPattern:
    """The Spark pattern of a directive's Java pattern argument, or an error pointing at the argument."""
    try:
        return to_spark(str(d.bound(arg)), dialect, parsing=parsing)
    except DatePatternError as error:
        raise d.fail(arg, error.message, error.hint or None) from None


def parse_text(text: Column, pattern: SparkPattern, *, wall_clock: bool) -> Column:
    """Parse text with a translated pattern into timestamp_ntz (``wall_clock``) or timestamp."""
    if pattern.strips_day_names:
        text = F.trim(F.regexp_replace(text, DAY_NAME_REGEX, ""))
    # to_timestamp_ntz takes its format as a Column, to_timestamp as a string
    parsed = F.to_timestamp_ntz(text, F.lit(pattern.pattern)) if wall_clock else F.to_timestamp(text, pattern.pattern)
    if pattern.two_digit_year and pattern.literal_year_pattern is not None:
        # SimpleDateFormat reads a 4-digit `yy` year as written, and puts 2-digit ones within 80 years
        # before and 20 after today (Spark: 2000–2099)
        century_late = F.year(parsed) >= F.year(F.current_date()) + 20
        windowed = F.when(century_late, parsed - F.expr("INTERVAL 100 YEARS")).otherwise(parsed)
        literal = F.to_timestamp_ntz(text, F.lit(pattern.literal_year_pattern)) if wall_clock \
            else F.to_timestamp(text, pattern.literal_year_pattern)
        parsed = F.coalesce(literal, windowed)
    return parsed


def text_of(value: Column) -> Column:
    return F.coalesce(value.cast("string"), F.lit("null"))


def _missing(frame: Frame, d: Directive, name: str) -> Frame:
    """Every active row fails: the column the directive needs is not there."""
    return frame.step(d).fail_when(F.lit(True), f"Column '{name}' does not exist.").build()


def _wrong_type(frame: Frame, d: Directive, name: str, message: Column | str) -> Frame:
    """Rows with a non-null value of a type the directive does not take go to the error output."""
    return frame.step(d).fail_when(col(name).isNotNull(), message).build()


def _found_instead(d: Directive, frame: Frame, name: str, wanted: str) -> Column:
    """The java.time directives' ErrorRowException text: "Value 5 for column c expected to be datetime but found
    Integer"."""
    found = f" for column {d.bound('column')} expected to be {wanted} but found {java_type(frame, name)}"
    return F.concat(F.lit("Value "), text_of(col(name)), F.lit(error_row_message(d.name, found, 2)))


def _column_of_type(frame: Frame, d: Directive, spark_type: str, wanted: str, *, passes: str = "") -> str:
    """The directive's column when it holds ``spark_type``; else the compiler is `Finished`: the frame unchanged
    when the column is absent or holds ``passes`` (a type the Java directive leaves as it is), its non-null rows
    failed when it holds another type."""
    name = frame.find(d.bound("column"))
    if name is None or frame.type_of(name) == passes:
        raise Finished(frame)
    if frame.type_of(name) != spark_type:
        raise Finished(_wrong_type(frame, d, name, _found_instead(d, frame, name, wanted)))
    return name


# -- currency ---------------------------------------------------------------------------------------------------------
def _locale_format(d: Directive):
    fmt = currency_format(str(d.bound("locale") or "en_US"))
    if fmt is None:
        raise d.fail("locale", f"Currency locale '{d.bound('locale')}' is not supported on Spark.",
                     f"Supported locales: {', '.join(LOCALES)}.")
    return fmt


@compiles(FormatAsCurrency)
def format_as_currency(d: FormatAsCurrency, frame: Frame, ctx: RunContext) -> Frame:
    fmt = _locale_format(d)
    source, destination = frame.find(d.source), d.destination
    if source is None or not (frame.type_of(source) in _NUMERIC or frame.type_of(source).startswith("decimal")):
        # Wrangler formats Double values only and skips the rest; the destination is still created (null)
        return frame.step(d).set(destination, F.lit(None).cast("string")).build()
    return frame.step(d).set(destination, fmt.format(col(source))).build()


@compiles(ParseAsCurrency)
def parse_as_currency(d: ParseAsCurrency, frame: Frame, ctx: RunContext) -> Frame:
    fmt = _locale_format(d)
    source, destination = frame.find(d.source), d.destination
    if source is None or frame.type_of(source) != "string":
        return frame.step(d).set(destination, F.lit(None).cast("double")).build()
    text = col(source)
    blank = text.isNull() | (F.trim(text) == "")
    value = fmt.parse(text)
    # ParseAsCurrency: the ParseException's own message, `Unparseable number: "abc"`
    message = F.concat(F.lit('Unparseable number: "'), text, F.lit(error_row_message(d.name, '"', 1)))
    return (frame.step(d)
            .set(destination, F.when(blank, F.lit(None).cast("double")).otherwise(value))
            .fail_when(~blank & value.isNull(), message)
            .build())




# -- date -------------------------------------------------------------------------------------------------------------
@compiles(DiffDate)
def diff_date(d: DiffDate, frame: Frame, ctx: RunContext) -> Frame:
    """DiffDate: milliseconds between two timestamps; `now` (any case) is the current instant, not a column; a
    missing column fails the row; a null or non-timestamp value gives null."""
    operands: list[Column] = []
    for wanted in (d.column1, d.column2):
        if str(wanted).lower() == "now":
            operands.append(F.unix_millis(F.current_timestamp()))
            continue
        name = frame.find(wanted)
        if name is None:
            return _missing(frame, d, wanted)
        operands.append(F.unix_millis(col(name)) if frame.type_of(name) == TIMESTAMP else F.lit(None).cast("bigint"))
    return frame.step(d).set(d.destination, operands[0] - operands[1]).build()


@compiles(FormatDate)
def format_date(d: FormatDate, frame: Frame, ctx: RunContext) -> Frame:
    pattern = pattern_for(d, "format", Dialect.JAVA_TIME, parsing=False)
    name = frame.find(d.column)
    if name is None:
        return _missing(frame, d, d.column)
    kind = frame.type_of(name)
    if kind == TIMESTAMP:
        value = F.date_format(utc_wall_clock(col(name), ctx), pattern.pattern)
    elif kind == DATE:
        if pattern.has_time:
            raise d.fail("format", f"Pattern '{d.format}' prints a time of day, which a date does not have.")
        value = F.date_format(col(name), pattern.pattern)
    else:
        message = f"Column '{name}' has invalid type '{java_type(frame, name)}'. Apply 'parse-as-date' directive first."
        return _wrong_type(frame, d, name, message)
    return frame.step(d).set(name, value).build()


# -- datetime ---------------------------------------------------------------------------------------------------------
def _zone(d: Directive) -> str:
    return str(d.bound("timezone") or "UTC")


@compiles(CurrentDateTime)
def current_datetime(d: CurrentDateTime, frame: Frame, ctx: RunContext) -> Frame:
    now = F.convert_timezone(None, F.lit(_zone(d)), F.localtimestamp())  # session wall clock → the zone's wall clock
    return frame.step(d).set(d.column, now).build()


@compiles(DateTimeToTimestamp)
def datetime_to_timestamp(d: DateTimeToTimestamp, frame: Frame, ctx: RunContext) -> Frame:
    name = _column_of_type(frame, d, DATETIME, "datetime")
    return frame.step(d).set(name, instant_at(col(name), _zone(d), ctx)).build()


@compiles(FormatDateTime)
def format_datetime(d: FormatDateTime, frame: Frame, ctx: RunContext) -> Frame:
    pattern = pattern_for(d, "format", Dialect.JAVA_TIME, parsing=False)
    if pattern.letters & set("VzOXxZ"):
        raise d.fail("format", f"Pattern '{d.format}' prints a time zone, which a datetime does not have.")
    name = _column_of_type(frame, d, DATETIME, "datetime")
    return frame.step(d).set(name, F.date_format(col(name), pattern.pattern)).build()


@compiles(TimestampToDateTime)
def timestamp_to_datetime(d: TimestampToDateTime, frame: Frame, ctx: RunContext) -> Frame:
    name = _column_of_type(frame, d, TIMESTAMP, "timestamp", passes=DATETIME)
    return frame.step(d).set(name, utc_wall_clock(col(name), ctx)).build()


# -- parsers ----------------------------------------------------------------------------------------------------------
def _parse_in_place(d: Directive, frame: Frame, name: str, parsed: Column, message: Column) -> Frame:
    """The column replaced by ``parsed``; a non-null value that does not parse is an error row with ``message``."""
    return frame.step(d).set(name, parsed).fail_when(col(name).isNotNull() & parsed.isNull(), message).build()


@compiles(ParseAsDateTime)
def parse_as_datetime(d: ParseAsDateTime, frame: Frame, ctx: RunContext) -> Frame:
    """ParseDateTime: `LocalDateTime.parse(value.toString())`; a datetime value is left as it is."""
    pattern = pattern_for(d, "format", Dialect.JAVA_TIME, parsing=True)
    name = frame.find(d.column)
    if name is None or frame.type_of(name) == DATETIME:
        return frame
    text = col(name).cast("string")
    expected = f" for column {d.column} is not in expected format {d.format}"
    message = F.concat(F.lit("Value "), text_of(col(name)), F.lit(error_row_message(d.name, expected, 2)))
    return _parse_in_place(d, frame, name, parse_text(text, pattern, wall_clock=True), message)


@compiles(ParseAsSimpleDate)
def parse_as_simple_date(d: ParseAsSimpleDate, frame: Frame, ctx: RunContext) -> Frame:
    """ParseSimpleDate: a lenient `SimpleDateFormat` in UTC (`lenientdate`); a timestamp value is left as it is,
    other non-strings are error rows."""
    pattern = pattern_for(d, "format", Dialect.SIMPLE, parsing=True)
    name = frame.find(d.column)
    if name is None or frame.type_of(name) == TIMESTAMP:
        return frame
    if frame.type_of(name) != "string":
        text = f"Column '{d.column}' is of invalid type '{java_type(frame, name)}'. It should be of type 'String'."
        return _wrong_type(frame, d, name, error_row_message(d.name, text, 2))
    value = col(name)
    lenient = lenient_pattern(str(d.format))
    if lenient is not None:
        parsed = parse_lenient(value, lenient)
    elif pattern.letters & set("zZX"):
        parsed = parse_text(value, pattern, wall_clock=False)
    else:  # no zone in the text: SimpleDateFormat reads it in UTC, whatever the session zone
        parsed = instant_at(parse_text(value, pattern, wall_clock=True), "UTC", ctx)
    message = F.concat(F.lit("Failed to parse '"), value,
                       F.lit(error_row_message(d.name, f"' with pattern '{d.format}'", 1)))
    return _parse_in_place(d, frame, name, parsed, message)


@compiles(ParseTimestamp)
def parse_timestamp(d: ParseTimestamp, frame: Frame, ctx: RunContext) -> Frame:
    """ParseTimestamp: epoch numbers as text (`Long.parseLong`) or integers; a timestamp is left as it is."""
    name = existing_column(frame, d.column)
    if frame.type_of(name) == TIMESTAMP:
        return frame
    kind = frame.type_of(name)
    value = col(name)
    if kind == "string":
        digits = value.rlike(r"^[+-]?[0-9]{1,18}$")
        number = F.when(digits, value.cast("bigint"))
    elif kind in _INTEGRAL:
        number = value.cast("bigint")
    else:
        text = f"Invalid type '{java_type(frame, name)}' of column '{d.column}'. Must be of type 'Long' or 'String'."
        return _wrong_type(frame, d, name, error_row_message(d.name, text, 2))
    unit = str(d.timeunit or "MILLISECONDS").upper()
    scale = _UNIT_MICROS[unit]
    in_range = number.between(_MIN_MICROS // scale, _MAX_MICROS // scale)
    parsed = F.when(in_range, F.timestamp_micros(number * F.lit(scale)))
    invalid = f"Invalid value for column '{d.column}'. Must be of type 'Long' or 'String' representing long."
    out_of_range = F.concat(F.lit(f"Column '{name}' value '"), text_of(value),
                            F.lit(f"' is outside Spark's timestamp range (years 0001-9999) in {unit.lower()}."))
    message = F.when(number.isNull(), F.lit(error_row_message(d.name, invalid, 2))).otherwise(out_of_range)
    return _parse_in_place(d, frame, name, parsed, message)


# -- parse-as-date: natural-language dates ----------------------------------------------------------------------------
python_udf(ParseAsDate,
           "natural-language dates ('today', 'september 7th 2016', '12/10/2016 06:45 AM') need a free-text date "
           "parser; Spark's parsers take one fixed pattern")

_RELATIVE = {"now": 0, "today": 0, "tomorrow": 1, "yesterday": -1}
_ORDINAL = re.compile(r"(?<=\d)(st|nd|rd|th)\b", re.IGNORECASE)


def natural_date(text: str | None, zone: str, now: dt.datetime | None = None) -> dt.datetime | None:
    """One date read from free text in ``zone`` (an aware UTC datetime), or None when there is none.

    'now'/'today'/'tomorrow'/'yesterday' are relative to ``now``; anything else goes to dateutil's
    parser (month names, ordinals, US month-first numeric dates, 12-hour clocks). Missing time of
    day means midnight.
    """
    from dateutil import parser as date_parser

    if text is None or not text.strip():
        return None
    tz = zoneinfo.ZoneInfo(zone) if zone not in ("Z",) else dt.UTC
    current = (now or dt.datetime.now(dt.UTC)).astimezone(tz)
    words = text.strip().lower()
    if words in _RELATIVE:
        return (current + dt.timedelta(days=_RELATIVE[words])).astimezone(dt.UTC)
    if words.isdigit():
        return None  # a bare number is not a date (Natty's readings of them are arbitrary)
    midnight = current.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    try:
        parsed = date_parser.parse(_ORDINAL.sub("", text), default=midnight, fuzzy=True)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=tz)
        # An offset of a day or more ('+25:00') or an instant past year 9999 in UTC raise here, inside the
        # Python worker, which used to fail the whole job: such text is no date.
        return parsed.astimezone(dt.UTC)
    except (ValueError, OverflowError):
        return None


@compiles(ParseAsDate)
def parse_as_date(d: ParseAsDate, frame: Frame, ctx: RunContext) -> Frame:
    name = existing_column(frame, d.column)
    zone = _zone(d)
    if zone.startswith(("+", "-", "UTC+", "UTC-", "GMT+", "GMT-")):
        raise d.fail("timezone", "parse-as-date on Spark takes a region time zone, not an offset.",
                     "Use a name such as 'America/New_York'.")

    if frame.type_of(name) == TIMESTAMP:
        return frame  # ParseDate leaves a ZonedDateTime as it is
    if frame.type_of(name) != "string":
        text = f"Column '{d.column}' is of invalid type '{java_type(frame, name)}'. It should be of type 'String'."
        return _wrong_type(frame, d, name, error_row_message(d.name, text, 1))
    reader = F.udf(lambda text: natural_date(text, zone), T.TimestampType())
    ctx.udf_directives.append(d.name)
    return frame.step(d).set(f"{name}_1", reader(col(name))).build()
