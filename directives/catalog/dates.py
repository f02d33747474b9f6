"""Directives for currencies, dates and datetimes: parsing, formatting and converting date values.

Wrangler keeps three kinds of date value — `ZonedDateTime` (an instant with a zone), `LocalDateTime`
(a wall-clock reading) and `LocalDate` — and each directive accepts only some of them. Labels here
are simple (nearly every directive rewrites its column in place); the work is in `validate`, which
rejects at parse time what Java would reject when the directive is initialised: unknown zones,
malformed patterns, unknown time units and locales.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from collections.abc import Sequence
from typing import ClassVar

from directives.base import Arg, ArgKind, Directive, OneColumn
from directives.catalog.column_ops import SourceToDestination, add_or_modify
from directives.column_state import ColumnState
from directives.labels import ColumnLabel, add, modify, read, rename

C, T, N = ArgKind.COLUMN, ArgKind.TEXT, ArgKind.NUMBER

_OFFSET = re.compile(r"(?:(?:UTC|GMT|UT)?[+-]\d{1,2}(?::?\d{2}(?::?\d{2})?)?|Z)")


def is_zone_id(zone: str) -> bool:
    """Whether Java's `ZoneId.of` accepts the text: a tz database region, `Z`, or an offset like `+05:30`."""
    if not zone or zone != zone.strip():
        return False
    if zone in ("UTC", "GMT", "UT", "Z") or _OFFSET.fullmatch(zone):
        return True
    return zone in _zone_names()


@functools.cache
def _zone_names() -> frozenset[str]:
    """Every region of the tz database this machine has (the `tzdata` package's and the system's).

    Membership in the list, not `ZoneInfo(name)`: that opens the file the name points at, so a name that is a
    folder of the database (`'US'`, `'America'`) raised `IsADirectoryError`, and others may raise `OSError`.
    """
    return frozenset(zoneinfo.available_timezones())


class _ZoneArg(Directive):
    """Shared check of an optional `timezone` argument (Java `ZoneId.of`, default UTC)."""

    zone_arg: ClassVar[str] = "timezone"

    @property
    def zone(self) -> str:
        return str(self.bound(self.zone_arg) or "UTC")

    #: Whether Wrangler reads the zone with `TimeZone.getTimeZone`, which falls back to GMT for any name it
    #: does not know, instead of `ZoneId.of`, which rejects it.
    unknown_zone_is_gmt: ClassVar[bool] = False

    def validate(self) -> None:
        if self.has(self.zone_arg) and not is_zone_id(str(self.bound(self.zone_arg))):
            message = f"'{self.bound(self.zone_arg)}' is not a time zone."
            hint = "Use a region such as 'Europe/Paris', 'UTC', or an offset such as '+05:30'."
            if not self.unknown_zone_is_gmt:
                raise self.fail(self.zone_arg, message, hint)
            self.warn(self.zone_arg, message + " Wrangler accepts it and reads the dates in GMT.", hint)

    @property
    def zone_or_gmt(self) -> str:
        """The zone the directive really uses: GMT where Wrangler falls back to it."""
        zone = self.zone
        return zone if not self.unknown_zone_is_gmt or is_zone_id(zone) else "GMT"


def check_pattern(directive: Directive, arg_name: str, dialect: str, *, parsing: bool) -> None:
    """Reject a date pattern Java itself would reject (Spark-only limits are checked when compiling)."""
    from directives.spark.compile.datepatterns import DatePatternError, Dialect, to_spark

    try:
        to_spark(str(directive.bound(arg_name)), Dialect(dialect), parsing=parsing)
    except DatePatternError as error:
        if error.java_invalid:
            raise directive.fail(arg_name, error.message, error.hint or None) from None


# -- currency ---------------------------------------------------------------------------------------------------------
_LOCALE = re.compile(r"[A-Za-z]{2,3}(?:[_-][A-Za-z]{2}|[_-]\d{3})?")


class _Currency(SourceToDestination):
    signature = (Arg("source", C), Arg("destination", C), Arg("locale", T, optional=True))
    categories = ("currency",)

    @property
    def locale(self) -> str:
        return str(self.bound("locale") or "en_US")

    def validate(self) -> None:
        if self.bound("locale") is not None and not _LOCALE.fullmatch(str(self.bound("locale"))):
            raise self.fail("locale", f"'{self.bound('locale')}' is not a locale.",
                            "Write a language and a country, such as 'en_US' or 'de_DE'.")


class FormatAsCurrency(_Currency):
    """Formats numbers as money in a locale's currency (default en_US) into the destination column.

    Example: `format-as-currency :price :price_text 'en_US'`
    """

    name = "format-as-currency"

    def describe(self) -> str:
        return (f"Formatted column '{self.source}' to currency locale '{self.locale}' into "
                f"'{self.destination}'")


class ParseAsCurrency(_Currency):
    """Parses money text in a locale's currency (default en_US) into a double in the destination column.

    Example: `parse-as-currency :price_text :price 'en_US'`
    """

    name = "parse-as-currency"

    def describe(self) -> str:
        return (f"Parsed column '{self.source}' as locale currency '{self.locale}' into column "
                f"'{self.destination}'")


# -- data model --------------------------------------------------------------------------------------------------------
class DataModelMapColumn(Directive):
    """Converts a column to a data-model field's type and renames it to that field (model fetched over HTTP).

    Example: `data-model-map-column 'http://models.example/dm' 'OMOP_CDM' 1 'person' 'person_id' :id`
    """

    name = "data-model-map-column"
    signature = (
        Arg("data-model-url", T), Arg("data-model", T), Arg("revision", N), Arg("model", T), Arg("target-field", T),
        Arg("column", C),
    )
    data_model_url: str
    data_model: str
    revision: float
    model: str
    target_field: str
    column: str
    categories = ("data-quality",)

    def validate(self) -> None:
        if not str(self.target_field).strip():
            raise self.fail("target-field", "The target field is empty.", "Name the data-model field to map to.")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column, target = self.column, str(self.target_field)
        if column.lower() == target.lower():
            return [modify(column)]
        return [rename(column, target)]

    def describe(self) -> str:
        return f"Mapped column '{self.column}' to column name '{self.target_field}'"


# -- date -------------------------------------------------------------------------------------------------------------
class DiffDate(Directive):
    """Writes the difference in milliseconds between two timestamp columns (first minus second) to a column.

    Example: `diff-date :ended :started :duration_ms`
    """

    name = "diff-date"
    signature = (Arg("column1", C), Arg("column2", C), Arg("destination", C))
    column1: str
    column2: str
    destination: str
    categories = ("date",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        first, second, destination = self.column1, self.column2, self.destination
        sources = (first, second)
        labels = [read(name) for name in dict.fromkeys(sources) if name.lower() != destination.lower()]
        if len(labels) < len(set(sources)):
            return [*labels, modify(destination, sources)]
        return [*labels, add_or_modify(columns, destination, sources)]

    def describe(self) -> str:
        return (f"Calculated difference between dates in column '{self.column1}' and "
                f"'{self.column2}' and store in '{self.destination}'")


class FormatDate(Directive):
    """Formats a timestamp or date column as text with a Java DateTimeFormatter pattern, in place.

    Example: `format-date :created 'yyyy-MM-dd HH:mm'`
    """

    name = "format-date"
    signature = (Arg("column", C), Arg("format", T))
    column: str
    format: str
    categories = ("date", "format")

    def validate(self) -> None:
        check_pattern(self, "format", "DateTimeFormatter", parsing=False)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Formatted date in column '{self.column}' using format '{self.format}'"


# -- datetime ---------------------------------------------------------------------------------------------------------
class CurrentDateTime(_ZoneArg):
    """Sets a column to the current date and time (wall clock) in a time zone (default UTC).

    Example: `current-datetime :loaded_at 'Europe/Paris'`
    """

    name = "current-datetime"
    signature = (Arg("column", C), Arg("timezone", T, optional=True))
    column: str
    timezone: str | None
    categories = ("datetime",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [add_or_modify(columns, self.column, ())]

    def describe(self) -> str:
        return f"Generated current datetime for column '{self.column}' with zone '{self.zone}'"


class DateTimeToTimestamp(_ZoneArg):
    """Turns a datetime (wall clock) column into a timestamp by reading it in a time zone (default UTC).

    Example: `datetime-to-timestamp :local_time 'America/New_York'`
    """

    name = "datetime-to-timestamp"
    signature = (Arg("column", C), Arg("timezone", T, optional=True))
    column: str
    timezone: str | None
    categories = ("datetime",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Datetime column '{self.column}' converted to timestamp with zone '{self.zone}'"


class FormatDateTime(Directive):
    """Formats a datetime (wall clock) column as text with a Java DateTimeFormatter pattern, in place.

    Example: `format-datetime :local_time 'MM/dd/yyyy HH:mm'`
    """

    name = "format-datetime"
    signature = (Arg("column", C), Arg("format", T))
    column: str
    format: str
    categories = ("format", "datetime")

    def validate(self) -> None:
        check_pattern(self, "format", "DateTimeFormatter", parsing=False)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Datetime column '{self.column}' converted to string with format '{self.format}'"


class TimestampToDateTime(OneColumn):
    """Turns a timestamp column into a datetime (wall clock) column.

    Example: `timestamp-to-datetime :event_time`
    """

    name = "timestamp-to-datetime"
    categories = ("datetime",)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Converted column '{self.column}' from timestamp to datetime"


# -- date parsers -----------------------------------------------------------------------------------------------------
class ParseAsDate(_ZoneArg):
    """Reads natural-language dates ('today', '12/10/2016 06:45 AM', 'september 7th 2016') into `<col>_1`….

    Example: `parse-as-date :when 'US/Eastern'`
    """

    name = "parse-as-date"
    signature = (Arg("column", C), Arg("timezone", T, optional=True))
    column: str
    timezone: str | None
    categories = ("parser", "date")
    unknown_zone_is_gmt = True

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        column = self.column
        return [read(column), add(f"{column}_<n>", (column,), pattern=True)]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as date with timezone '{self.zone}'"


class ParseAsDateTime(Directive):
    """Parses text into a datetime (wall clock) with a Java DateTimeFormatter pattern, in place.

    Example: `parse-as-datetime :created 'MM/dd/yyyy HH:mm'`
    """

    name = "parse-as-datetime"
    signature = (Arg("column", C), Arg("format", T))
    column: str
    format: str
    categories = ("parser", "datetime")

    def validate(self) -> None:
        check_pattern(self, "format", "DateTimeFormatter", parsing=True)
        from directives.spark.compile.datepatterns import Dialect, to_spark

        try:
            pattern = to_spark(str(self.format), Dialect.JAVA_TIME, parsing=True)
        except ValueError:
            return  # a Spark-only limit: reported when the recipe is compiled
        if not (pattern.has_date and pattern.has_time):  # ParseDateTime.initialize only compiles the pattern
            self.warn("format", f"Pattern '{self.format}' does not give both a date and a time of day, so no "
                      "value can be read as a datetime. Wrangler accepts it when it compiles the recipe.",
                      "Add the missing fields (yyyy, MM, dd, HH, mm), or use parse-as-simple-date.")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' in format '{self.format}' as datetime"


class ParseAsSimpleDate(Directive):
    """Parses text into a UTC timestamp with a Java SimpleDateFormat pattern, in place.

    Example: `parse-as-simple-date :created 'MM/dd/yyyy HH:mm'`
    """

    name = "parse-as-simple-date"
    signature = (Arg("column", C), Arg("format", T))
    column: str
    format: str
    categories = ("parser", "date")

    def validate(self) -> None:
        check_pattern(self, "format", "SimpleDateFormat", parsing=True)

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as date using user specified format '{self.format}'"


class ParseTimestamp(Directive):
    """Reads epoch numbers (seconds, milliseconds by default, or microseconds) into a UTC timestamp, in place.

    Example: `parse-timestamp :epoch 'seconds'`
    """

    name = "parse-timestamp"
    signature = (Arg("column", C), Arg("timeunit", T, optional=True))
    column: str
    timeunit: str | None
    categories = ("parser", "date")
    UNITS: ClassVar[tuple[str, ...]] = ("SECONDS", "MILLISECONDS", "MICROSECONDS")

    @property
    def unit(self) -> str:
        return str(self.timeunit or "MILLISECONDS").upper()

    def validate(self) -> None:
        if self.unit not in self.UNITS:
            raise self.fail("timeunit", f"Time unit '{self.timeunit}' is not supported.",
                            "Use one of: seconds, milliseconds, microseconds.")

    def labels(self, columns: ColumnState) -> Sequence[ColumnLabel]:
        return [modify(self.column)]

    def describe(self) -> str:
        return f"Parsed column '{self.column}' as a timestamp using time unit as '{self.unit}'"
