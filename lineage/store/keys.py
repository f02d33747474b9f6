"""Inverted start times: the sort key that makes "newest runs in [start, end)" one index range scan.

Rows are keyed ``(..., inv_start, run)`` with ``inv_start = INVERT_BASE - start`` (seconds), so an
ascending index scan returns the newest run first and ``LIMIT n`` stops after the n newest, whatever
the number of older runs. SQLite can scan an index backwards too; the inverted key keeps the layout
of seed 000 and makes every "newest first" query the same shape.
"""

from __future__ import annotations

from lineage.errors import QueryError

INVERT_BASE = 2**62


def invert(start: int) -> int:
    return INVERT_BASE - start


def uninvert(inv_start: int) -> int:
    return INVERT_BASE - inv_start


def inverted_bounds(start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` in seconds -> ``(lo, hi)`` such that rows match ``lo < inv_start <= hi``."""
    check_range(start, end)
    return INVERT_BASE - end, INVERT_BASE - start


def check_range(start: int, end: int) -> None:
    if isinstance(start, bool) or isinstance(end, bool) or not isinstance(start, int) or not isinstance(end, int):
        raise QueryError(f"start and end must be integer epoch seconds, got {start!r} and {end!r}")
    if start < 0 or end < 0:
        raise QueryError(f"start and end must not be negative (got {start}, {end})")
    if start > end:
        raise QueryError(f"start ({start}) is after end ({end})")
