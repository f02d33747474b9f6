"""``start``/``end`` parsing: epoch seconds and ``now[+-N<unit>]...``."""

from __future__ import annotations

import time

import pytest

from lineage.errors import QueryError, TimeParseError
from lineage.timeparse import parse_time, parse_time_range

NOW = 1_700_000_000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("now-1h", NOW - 3600),
        ("now-7d", NOW - 7 * 86400),
        ("now-1d+4h", NOW - 86400 + 4 * 3600),
        ("now+30m", NOW + 1800),
        ("now-2w", NOW - 2 * 604800),
        ("now-15s", NOW - 15),
        (" NOW-1H ", NOW - 3600),
        ("1500000000", 1_500_000_000),
        ("0", 0),
        (1_234, 1_234),
    ],
)
def test_accepted_forms(text: str | int, expected: int) -> None:
    assert parse_time(text, now=NOW) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("yesterday", "expected epoch seconds"),
        ("now-1y", "expected epoch seconds"),
        ("now-h", "expected epoch seconds"),
        ("-5", "expected epoch seconds"),
        ("1.5", "expected epoch seconds"),
        ("", "expected epoch seconds"),
        ("1700000000000", "looks like milliseconds"),
        (-1, "before the epoch"),
        ("now-100000d", "before the epoch"),
    ],
)
def test_rejected_forms(text: str | int, message: str) -> None:
    with pytest.raises(TimeParseError, match=message):
        parse_time(text, now=NOW)


def test_bool_is_not_a_time() -> None:
    with pytest.raises(TimeParseError):
        parse_time(True)  # type: ignore[arg-type]


def test_without_a_pinned_clock_now_is_the_current_time() -> None:
    before = int(time.time())
    value = parse_time("now-1h")
    assert before - 3600 <= value <= int(time.time()) - 3600


def test_range_uses_one_clock_and_requires_start_before_end() -> None:
    assert parse_time_range("now-1d", "now", now=NOW) == (NOW - 86400, NOW)
    assert parse_time_range(5, 5, now=NOW) == (5, 5)
    with pytest.raises(TimeParseError, match="is after end") as info:
        parse_time_range("now", "now-1h", now=NOW)
    assert isinstance(info.value, QueryError) and isinstance(info.value, ValueError)
