"""Parse the ``start``/``end`` query values of the lineage API into epoch **seconds**.

Accepted forms (CDAP's time syntax):

* epoch seconds: ``1700000000``;
* ``now``, optionally followed by signed offsets: ``now-1h``, ``now-7d``, ``now-1d+4h``, ``now+30m``.
  Units: ``s`` seconds, ``m`` minutes, ``h`` hours, ``d`` days, ``w`` weeks.

Seconds are the unit of the whole lineage package (run start times are seconds too), so a value
never needs converting between layers. Values of 10^11 and above are rejected as "looks like
milliseconds" rather than silently read as a date thousands of years ahead.
"""

from __future__ import annotations

import re
import time

from lineage.errors import TimeParseError

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
MAX_EPOCH_SECONDS = 10**11

_NOW = re.compile(r"now((?:[+-]\d+[smhdw])*)")
_OFFSET = re.compile(r"([+-])(\d+)([smhdw])")


def parse_time(value: str | int, *, now: int | None = None) -> int:
    """One time value -> epoch seconds. ``now`` pins the clock (tests, or one clock for start and end)."""
    if isinstance(value, bool):
        raise TimeParseError(f"invalid time {value!r}: expected epoch seconds or 'now[-N<unit>]'")
    if isinstance(value, int):
        return _check_range(value, value)
    text = value.strip().lower()
    if text.isdigit():
        return _check_range(int(text), value)
    match = _NOW.fullmatch(text)
    if match is None:
        raise TimeParseError(
            f"invalid time {value!r}: expected epoch seconds or 'now' with offsets such as 'now-1h', 'now-7d'"
        )
    result = int(time.time()) if now is None else now
    for sign, amount, unit in _OFFSET.findall(match.group(1)):
        delta = int(amount) * UNIT_SECONDS[unit]
        result += delta if sign == "+" else -delta
    return _check_range(result, value)


def parse_time_range(start: str | int, end: str | int, *, now: int | None = None) -> tuple[int, int]:
    """``[start, end)`` in epoch seconds, both relative to the same ``now``; requires start <= end."""
    pinned = int(time.time()) if now is None else now
    lo = parse_time(start, now=pinned)
    hi = parse_time(end, now=pinned)
    if lo > hi:
        raise TimeParseError(f"start ({start!r} = {lo}) is after end ({end!r} = {hi})")
    return lo, hi


def _check_range(seconds: int, original: str | int) -> int:
    if seconds < 0:
        raise TimeParseError(f"time {original!r} is before the epoch ({seconds} s)")
    if seconds >= MAX_EPOCH_SECONDS:
        raise TimeParseError(f"time {original!r} looks like milliseconds; the lineage API takes epoch seconds")
    return seconds
