"""Opaque pagination cursors.

A cursor is url-safe base64 of ``{"q": <query fingerprint>, "p": <position>}``. The fingerprint
covers every parameter except ``limit`` and the cursor itself, so a cursor replayed against a
different query (another dataset, another time range) is rejected instead of silently skipping
rows. Positions are keyset positions (``[inv_start, run_pk]`` or a field name) where the order
allows, and offsets into a list computed per request otherwise.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any, NamedTuple, TypedDict

from lineage.errors import InvalidCursorError, QueryError
from lineage.visibility import Visibility, restricted

DEFAULT_LIMIT = 100
MAX_LIMIT = 10_000


class PageOptions(TypedDict, total=False):
    """The page a store listing answers, the keyword arguments every listing takes: at most ``limit`` items
    (`DEFAULT_LIMIT` when absent) after ``cursor`` (a page's ``next_cursor``; absent or None: the first page)."""

    limit: int
    cursor: str | None


class ViewPageOptions(PageOptions, total=False):
    """A page as a view sees it: only the runs ``visible`` sees count (absent or None: every run)."""

    visible: Visibility | None


def page_options(options: PageOptions) -> tuple[int, str | None]:
    """The ``limit`` (checked) and ``cursor`` of a listing's page options."""
    return check_limit(options.get("limit", DEFAULT_LIMIT)), options.get("cursor")


class PageStart(NamedTuple):
    """What a listing works out before it reads: how many items, the view (None when it filters nothing: the
    unfiltered fast path), the query its cursors belong to (the view included) and the position the cursor carries
    (None: the first page)."""

    limit: int
    visible: Visibility | None
    query: dict[str, Any]
    position: Any


def start_page(options: ViewPageOptions, query: dict[str, Any]) -> PageStart:
    """The start of a page of the listing ``query`` names (``{"q": name, …its arguments}``) as a view sees it."""
    limit, cursor = page_options(options)
    visible = restricted(options.get("visible"))
    query = with_view(query, visible)
    return PageStart(limit, visible, query, decode_cursor(cursor, query))


def fingerprint(query: Mapping[str, Any]) -> str:
    text = json.dumps(query, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def with_view(query: dict[str, Any], visible: Visibility | None) -> dict[str, Any]:
    """A cursor continues only the query that made it, and a restricted view is another query."""
    if visible is not None:
        query["view"] = visible.key
    return query


def encode_cursor(query: Mapping[str, Any], position: Any) -> str:
    raw = json.dumps({"q": fingerprint(query), "p": position}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")


def decode_cursor(cursor: str | None, query: Mapping[str, Any]) -> Any:
    """The position stored in ``cursor``, or None for the first page."""
    if cursor is None or cursor == "":
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        body = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError) as exc:
        raise InvalidCursorError("malformed cursor") from exc
    if not isinstance(body, dict) or "p" not in body or "q" not in body:
        raise InvalidCursorError("malformed cursor")
    if body["q"] != fingerprint(query):
        raise InvalidCursorError("cursor belongs to a different query")
    return body["p"]


def check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise QueryError(f"limit must be an integer between 1 and {MAX_LIMIT}, got {limit!r}")
    return limit


def keyset_position(position: Any) -> tuple[int, int] | None:
    """Validate a ``[inv_start, run_pk]`` position decoded from a cursor."""
    if position is None:
        return None
    if (
        isinstance(position, list)
        and len(position) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in position)
    ):
        return position[0], position[1]
    raise InvalidCursorError("malformed cursor position")


def name_position(position: Any) -> str | None:
    """Validate the name a listing ordered by name stopped after, decoded from a cursor."""
    if position is None or isinstance(position, str):
        return position
    raise InvalidCursorError("malformed cursor position")


def offset_position(position: Any) -> int:
    if position is None:
        return 0
    if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
        return position
    raise InvalidCursorError("malformed cursor position")
