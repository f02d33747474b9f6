"""Lenient `SimpleDateFormat.parse` (what `parse-as-simple-date` runs in Wrangler) as Spark expressions.

Wrangler's `SimpleDateFormat` is lenient: a field takes any number of digits (`1/2/2016` with
`MM/dd/yyyy`), out-of-range values roll over (month 13 is January of the next year, `02/30` is
1 March, hour 25 is 1 am the next day), a minus sign is read (`--1` is month -1), spaces and tabs
before a field are skipped, and text after the last field is ignored. Spark's own parser is strict
on all of these, so for the patterns whose fields are numbers, month names, day names and AM/PM
the value is matched with one regular expression (one group per field) and the instant is computed
from the fields with rolling arithmetic. Patterns with other letters (zones, eras, week fields, day
of year) keep Spark's strict parser (`docs/differences/dates.md`).

Rules read from the JDK's `SimpleDateFormat.parse`/`subParse`: a numeric field followed directly
by another numeric field reads at most its letter count of digits ("obeys the count", `yyyyMMdd`);
a `yy`/`y` year written with exactly two digits falls in the 100 years from 80 years ago, other
year texts are read as written; `k` 24 and `h` 12 are 0; an hour of day (`H`, `k`) wins over AM/PM;
month and day names match case-insensitively, full or short; a day name is read but not checked.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F

from directives.spark.compile.datepatterns import Dialect, tokenize

#: SimpleDateFormat letters read as numbers (month only with one or two letters).
_NUMERIC = frozenset("yMLdHkKhmsS")
_SUPPORTED = _NUMERIC | frozenset("Ea")
#: Field values with more digits than this are error rows: Java reads them into an `int` and wraps.
_MAX_DIGITS = 9
_MONTHS = [name.lower() for name in calendar.month_name[1:]]
_MONTH_ABBR = [name.lower() for name in calendar.month_abbr[1:]]
_DAYS = [name.lower() for name in (*calendar.day_name, *calendar.day_abbr)]
#: Spark's timestamp range in milliseconds since the epoch (0001-01-01 … 9999-12-31T23:59:59.999).
_MIN_MILLIS, _MAX_MILLIS = -62135596800000, 253402300799999


@dataclass(frozen=True)
class LenientPattern:
    """The regex of a pattern (group ``i + 1`` holds ``fields[i]``) and the field letters it captures."""

    regex: str
    fields: tuple[tuple[str, int], ...]


def lenient_pattern(pattern: str) -> LenientPattern | None:
    """The lenient matcher of a SimpleDateFormat pattern, or None when it uses letters this reader lacks."""
    tokens = tokenize(pattern, Dialect.SIMPLE)
    if any(t.letter is not None and t.letter not in _SUPPORTED for t in tokens):
        return None
    letters = [t.letter for t in tokens if t.letter is not None]
    if len(set(letters)) != len(letters):
        return None  # a field given twice: the later one wins in Java; rare enough to leave to Spark
    parts: list[str] = ["^"]
    fields: list[tuple[str, int]] = []
    for index, token in enumerate(tokens):
        if token.letter is None:
            parts.append("".join(_literal_char(c) for c in token.text))
            continue
        letter, count = token.letter, token.count
        numeric = letter in _NUMERIC and not (letter in "ML" and count >= 3)
        parts.append("[ \\t]*")  # subParse skips spaces and tabs before every field
        if numeric:
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            obeys = following is not None and following.letter in _NUMERIC and \
                not (following.letter in "ML" and following.count >= 3)
            parts.append(f"(-?[0-9]{{1,{count}}})" if obeys else "(-?[0-9]+)")
        elif letter in "ML":
            names = sorted({*_MONTHS, *_MONTH_ABBR}, key=len, reverse=True)
            parts.append("((?i:" + "|".join(names) + "))")
        elif letter == "E":
            parts.append("(?i:" + "|".join(sorted(_DAYS, key=len, reverse=True)) + ")")
            continue
        else:  # a
            parts.append("((?i:am|pm))")
        fields.append(("M" if letter == "L" else letter, count))
    return LenientPattern("".join(parts), tuple(fields))


def _literal_char(char: str) -> str:
    """One literal pattern character as Java regex (matched exactly, as Java 8-17's SimpleDateFormat does)."""
    return char if char.isalnum() else "\\" + char


def parse_lenient(text: Column, plan: LenientPattern) -> Column:
    """The UTC instant (timestamp) SimpleDateFormat reads from ``text``; null when it reads none."""
    matched = text.rlike(plan.regex)

    def group(i: int) -> Column:
        return F.regexp_extract(text, plan.regex, i + 1)

    def number(i: int) -> Column:
        raw = group(i)
        return F.when(F.length(F.regexp_replace(raw, "-", "")) <= _MAX_DIGITS, raw.cast("bigint"))

    value: dict[str, Column] = {}
    valid = matched
    for i, (letter, count) in enumerate(plan.fields):
        if letter == "M" and count >= 3:
            name = F.lower(group(i))
            month = F.lit(None).cast("bigint")
            for m in range(12, 0, -1):
                month = F.when(name.isin(_MONTHS[m - 1], _MONTH_ABBR[m - 1]), F.lit(m)).otherwise(month)
            value["M"] = month.cast("bigint")
        elif letter == "a":
            value["a"] = F.when(F.lower(group(i)) == "pm", F.lit(12)).otherwise(F.lit(0))
        else:
            parsed = number(i)
            valid = valid & parsed.isNotNull()
            if letter == "y" and count <= 2:
                parsed = F.when(group(i).rlike("^[0-9]{2}$"), _two_digit_year(parsed)).otherwise(parsed)
            value[letter] = parsed
    year = value.get("y", F.lit(1970))
    month0 = value.get("M", F.lit(1)) - 1
    day = value.get("d", F.lit(1))
    if "H" in value or "k" in value:
        hour = value["H"] if "H" in value else F.when(value["k"] == 24, 0).otherwise(value["k"])
    else:
        twelve = value["K"] if "K" in value else \
            F.when(value["h"] == 12, 0).otherwise(value["h"]) if "h" in value else F.lit(0)
        hour = twelve + value.get("a", F.lit(0))
    whole_year = year + F.floor(month0 / 12)
    first = F.when(whole_year.between(1, 9999),
                   F.make_date(whole_year.cast("int"), (F.pmod(month0, F.lit(12)) + 1).cast("int"), F.lit(1)))
    millis = ((F.unix_date(first).cast("decimal(38,0)") + day - 1) * 86_400_000 + hour * 3_600_000
              + value.get("m", F.lit(0)) * 60_000 + value.get("s", F.lit(0)) * 1_000 + value.get("S", F.lit(0)))
    in_range = millis.between(_MIN_MILLIS, _MAX_MILLIS)
    return F.when(valid & in_range, F.timestamp_millis(millis.cast("bigint")))


def _two_digit_year(yy: Column) -> Column:
    """SimpleDateFormat's century window: 80 years before this year to 19 after (by year, not by day)."""
    start = F.year(F.current_date()) - 80
    century = F.floor(start / 100) * 100
    return century + yy + F.when(yy < F.pmod(start, F.lit(100)), F.lit(100)).otherwise(F.lit(0))
