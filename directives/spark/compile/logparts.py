"""The values of parse-as-log's derived columns: each derivation step of `directives.logformat` as a Spark
expression on the text it derives from (logparser 3.0's dissectors, which Wrangler's ParseLog runs).

Every value is text, as Wrangler's `LogLine.setValue(String, String)` receives it. A step whose input
is null, empty or `-` gives null (the dissectors do nothing for those).
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

#: HttpFirstLineDissector: `GET /x HTTP/1.1`, or without the protocol when the server cut a long line.
_FIRSTLINE = r"^([a-zA-Z_-]+) (.*) (HTTP/[0-9]+\.[0-9]+)$"
_FIRSTLINE_CUT = r"^([a-zA-Z_-]+) (.*)$"
#: HttpUriDissector after its `?`/`&` repair: scheme://userinfo@host:port, path, query, fragment.
_URI = r"^(?:([a-zA-Z][a-zA-Z0-9+.-]*)://(?:([^@/?#&]*)@)?([^:/?#&]*)(?::([0-9]*))?)?([^?#&]*)([?&][^#]*)?(?:#(.*))?$"
#: `[%t]` as Apache writes it: 10/Oct/2000:13:55:36 -0700.
_STAMP = "dd/MMM/yyyy:HH:mm:ss Z"


def _present(value: Column) -> Column:
    return value.isNotNull() & (value != "") & (value != "-")


def _firstline(value: Column, group: int) -> Column:
    full = F.regexp_extract(value, _FIRSTLINE, group)
    cut = F.regexp_extract(value, _FIRSTLINE_CUT, group) if group < 3 else F.lit(None).cast("string")
    return F.when(_present(value) & value.rlike(_FIRSTLINE), full).when(_present(value) & value.rlike(_FIRSTLINE_CUT),
                                                                         cut)


def _uri(value: Column, group: int, *, absolute_only: bool) -> Column:
    part = F.regexp_extract(value, _URI, group)
    absolute = ~value.startswith("/")
    ok = value.isNotNull() & (value != "") & value.rlike(_URI) & (absolute if absolute_only else F.lit(True))
    return F.when(ok & (part != ""), part)


def _query(value: Column) -> Column:
    """getRawQuery after the repair that turns every `?` into `&` and the first `&` into `?&`; '' when none."""
    raw = F.regexp_extract(value, _URI, 6)
    repaired = F.concat(F.lit("&"), F.regexp_replace(F.substring(raw, 2, 1 << 30), r"\?", "&"))
    return F.when(value.isNotNull() & (value != "") & value.rlike(_URI),
                  F.when(raw == "", F.lit("")).otherwise(repaired))


def _path(value: Column) -> Column:
    return F.when(value.isNotNull() & (value != "") & value.rlike(_URI), F.regexp_extract(value, _URI, 5))


def _protocol(value: Column, index: int) -> Column:
    return F.when(_present(value) & value.contains("/"), F.split(value, "/", 2).getItem(index))


def _instant(value: Column) -> Column:
    return F.to_timestamp(value, _STAMP)


def _wall(value: Column) -> Column:
    """The time as written (the log's own offset)."""
    return F.to_timestamp_ntz(F.regexp_extract(value, r"^(\S+)", 1), F.lit(_STAMP.split(" ")[0]))


def _utc(value: Column) -> Column:
    """The UTC wall clock: the instant as the session zone's wall clock, converted from that zone to UTC."""
    return F.convert_timezone(None, F.lit("UTC"), _instant(value).cast("timestamp_ntz"))


def _time_part(part: str, clock: Callable[[Column], Column]) -> Callable[[Column], Column]:
    def compute(value: Column) -> Column:
        wall = clock(value)
        result = {
            "day": F.dayofmonth(wall), "monthname": F.date_format(wall, "MMMM"), "month": F.month(wall),
            "weekofweekyear": F.weekofyear(wall), "weekyear": F.year(F.date_add(F.to_date(wall), 3 - F.weekday(wall))),
            "year": F.year(wall), "hour": F.hour(wall), "minute": F.minute(wall), "second": F.second(wall),
            "millisecond": F.date_format(wall, "SSS").cast("int"), "date": F.date_format(wall, "yyyy-MM-dd"),
            "time": F.date_format(wall, "HH:mm:ss"), "epoch": F.unix_millis(_instant(value)),
        }[part]
        return F.when(_present(value), result.cast("string"))
    return compute


STEPS: dict[str, Callable[[Column], Column]] = {
    "method": lambda v: _firstline(v, 1),
    "uri": lambda v: _firstline(v, 2),
    "protocol_version": lambda v: _firstline(v, 3),
    "protocol_name": lambda v: _protocol(v, 0),
    "protocol_number": lambda v: _protocol(v, 1),
    "uri_scheme": lambda v: _uri(v, 1, absolute_only=True),
    "uri_userinfo": lambda v: _uri(v, 2, absolute_only=True),
    "uri_host": lambda v: _uri(v, 3, absolute_only=True),
    "uri_port": lambda v: _uri(v, 4, absolute_only=True),
    "uri_path": _path,
    "uri_query": _query,
    "uri_ref": lambda v: _uri(v, 7, absolute_only=False),
    "clf_number": lambda v: F.when(v == "-", F.lit("0")).otherwise(v),
}
STEPS.update({f"time_{part}": _time_part(part, _wall) for part in (
    "day", "monthname", "month", "weekofweekyear", "weekyear", "year", "hour", "minute", "second", "millisecond",
    "date", "time", "epoch")})
STEPS.update({f"time_{part}_utc": _time_part(part, _utc) for part in (
    "day", "monthname", "month", "weekofweekyear", "weekyear", "year", "hour", "minute", "second", "millisecond",
    "date", "time")})


def derive(value: Column, steps: tuple[str, ...]) -> Column:
    """The value after each derivation step in turn."""
    for step in steps:
        value = STEPS[step](value)
    return value
