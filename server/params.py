"""Request parameters: one pydantic model per route's query string, plus path-segment checks.

Each query model is both the validator (unknown, repeated, malformed or out-of-range values
become a 400 naming the parameter) and the source of the route's OpenAPI ``parameters``.
Times arrive as epoch seconds or ``now[-N<unit>]`` text and leave as integers; ``start`` and
``end`` of one request are resolved against the same clock reading.
"""

from __future__ import annotations

import re
import time
from typing import Annotated, Any, Literal, TypeVar

from aiohttp import web
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    model_validator,
)

from lineage.errors import TimeParseError
from lineage.model import Direction
from lineage.timeparse import MAX_EPOCH_SECONDS, parse_time
from server.errors import ParameterError

MAX_NAME_CHARS = 256
MAX_LIMIT = 1000
DEFAULT_LIMIT = 100
MAX_CURSOR_CHARS = 1024
"""Well below the query-string limit (4096), so an over-long cursor is a 400 naming it, not a 414."""
END_OF_TIME = MAX_EPOCH_SECONDS - 1
"""Default ``end`` of the native routes: "all recorded time" (CDAP routes require both bounds)."""

TIME_PATTERN = r"^(\d{1,11}|now([+-]\d{1,9}[smhdw])*)$"
NAME_PATTERN = r"^[^\x00-\x1f\x7f]+$"
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")
NAME_SCHEMA: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS, "pattern": NAME_PATTERN}


def _time(value: Any, info: ValidationInfo) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str) or len(value) > 64:
        raise ValueError("expected epoch seconds or 'now' with offsets such as 'now-1h'")
    now = (info.context or {}).get("now")
    try:
        return parse_time(value, now=now)
    except TimeParseError as error:
        raise ValueError(error.message) from None


Time = Annotated[
    int,
    BeforeValidator(_time),
    WithJsonSchema({"type": "string", "pattern": TIME_PATTERN, "description": "epoch seconds, or now, now-1h, now-7d"}),
]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description="page size")]
Cursor = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_CURSOR_CHARS, pattern=r"^[A-Za-z0-9_-]+$"),
    Field(description="next_cursor of the previous page"),
]
Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_CHARS, pattern=NAME_PATTERN)]


def _direction(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


LineageDirection = Annotated[
    Literal["backward", "forward", "incoming", "outgoing"],
    BeforeValidator(_direction),
    Field(description="backward (incoming) walks to sources, forward (outgoing) to consumers"),
]
CdapDirection = Annotated[Literal["incoming", "outgoing", "both"], BeforeValidator(_direction)]


class Query(BaseModel):
    """Base of every query model: frozen, and unknown parameters are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=False)

    def cache_params(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class RangeQuery(Query):
    start: Time = 0
    end: Time = END_OF_TIME

    @model_validator(mode="after")
    def _ordered(self) -> RangeQuery:
        if self.start > self.end:
            raise ParameterError("end", f"end ({self.end}) is before start ({self.start}); start is inclusive, "
                                        "end exclusive")
        return self


class RequiredRangeQuery(RangeQuery):
    """CDAP requires both bounds ("Start time is required.")."""

    start: Time
    end: Time


class PageQuery(RangeQuery):
    limit: Limit = DEFAULT_LIMIT
    cursor: Cursor | None = None


class FieldsQuery(PageQuery):
    prefix: Name | None = Field(None, description="case-insensitive field-name prefix")


class DatasetLineageQuery(PageQuery):
    direction: LineageDirection = "backward"
    level: int = Field(1, ge=1, le=20, description="how many dataset hops to follow")

    @property
    def lineage_direction(self) -> Direction:
        return Direction.parse(self.direction)


class FieldLineageQuery(PageQuery):
    direction: LineageDirection = "backward"
    max_runs: int = Field(20, ge=1, le=1000, alias="maxRuns", description="newest runs listed per operation set")

    @property
    def lineage_direction(self) -> Direction:
        return Direction.parse(self.direction)


class ColumnHistoryQuery(PageQuery):
    max_levels: int | None = Field(None, ge=1, le=1000, alias="maxLevels", description="tree depth to keep")


class PropertiesQuery(PageQuery):
    pass


CDAP_TIME_PATTERN = r"^([0-9]+|now([-+][0-9]+(ms|s|m|h|d))*)$"
CDAP_DIRECTION_PATTERN = "^(" + "|".join("".join(f"[{c.upper()}{c}]" for c in word)
                                         for word in ("incoming", "outgoing", "both")) + ")$"


def _cdap_time(description: str) -> Any:
    return Field(description=description, json_schema_extra={"pattern": CDAP_TIME_PATTERN})


class CdapQuery(Query):
    """The parameters of a CDAP route, for the API document only: they are read as CDAP reads them
    (``server.cdap``: first value of a repeated one, unknown ones ignored, CDAP's time syntax)."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=False)

    start: str = _cdap_time("inclusive: epoch seconds, now, now-1h, now-7d+12h (units ms s m h d)")
    end: str = _cdap_time("exclusive, as start")


class CdapFieldsQuery(CdapQuery):
    prefix: str | None = Field(None, description="case-insensitive prefix of the field names")
    include_current: str | None = Field(None, alias="includeCurrent",
                                        description="true (any case) lists {name, lineage} objects; anything else "
                                                    "is false, as Java's Boolean.valueOf reads it")


class CdapSummaryQuery(CdapQuery):
    direction: str = Field(description="incoming, outgoing or both (any case); required",
                           json_schema_extra={"pattern": CDAP_DIRECTION_PATTERN})


class CdapOperationsQuery(CdapQuery):
    direction: str = Field("both", description="incoming, outgoing or both (any case)",
                           json_schema_extra={"pattern": CDAP_DIRECTION_PATTERN})


class CdapAllFieldLineageQuery(CdapSummaryQuery):
    pass


class DataHubQuery(Query):
    platform: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,64}$")] = "wrangler"
    env: Annotated[str, StringConstraints(pattern=r"^[A-Z0-9_]{1,32}$")] = "PROD"


class EmptyQuery(Query):
    pass


Q = TypeVar("Q", bound=Query)


CLOCK = web.RequestKey("clock", int)
"""The epoch second this request's relative times (``now-1h``) were resolved against; set only when it has some."""
_ANCHORED_CURSOR = re.compile(r"^now(\d{1,11})-([A-Za-z0-9_-]+)$")
_TIME_PARAMETERS = ("start", "end")


def parse_query(request: web.Request, model: type[Q]) -> Q:
    """Validate the query string against ``model``; any problem is a 400 naming the parameter.

    A cursor made by `anchor_cursor` brings back the clock of the first page, so ``end=now`` keeps meaning
    the same second on every page (the store rejects a cursor whose query, times included, has changed).
    """
    query = request.query
    if len(query) != len(set(query.keys())):
        repeated = next(key for key in query if len(query.getall(key)) > 1)
        raise ParameterError(repeated, f"query parameter {repeated!r} is given more than once")
    values = dict(query)
    now = int(time.time())
    anchored = _ANCHORED_CURSOR.match(values.get("cursor", ""))
    if anchored is not None:
        now, values["cursor"] = int(anchored.group(1)), anchored.group(2)
    if any("now" in values.get(name, "").lower() for name in _TIME_PARAMETERS):
        request[CLOCK] = now
    try:
        return model.model_validate(values, context={"now": now})
    except ValidationError as error:
        raise validation_to_parameter_error(error, default="query") from None


def anchor_cursor(request: web.Request, cursor: str | None) -> str | None:
    """The next-page cursor, carrying this request's clock when its times are relative to now."""
    if cursor is None or CLOCK not in request:
        return cursor
    return f"now{request[CLOCK]}-{cursor}"


def validation_to_parameter_error(error: ValidationError, *, default: str) -> ParameterError:
    """The first pydantic error as a named-parameter 400; all of them are listed under ``errors``."""
    details = error.errors(include_url=False, include_context=False, include_input=False)
    first = details[0]
    location = ".".join(str(part) for part in first["loc"]) or default
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = f"unknown parameter {location!r}"
    elif first["type"] == "missing":
        message = f"{location} is required"
    else:
        message = f"{location}: {message}"
    return ParameterError(location, message, errors=[_plain(d) for d in details])


def _plain(detail: Any) -> dict[str, Any]:
    return {"loc": [str(part) for part in detail["loc"]], "type": detail["type"],
            "msg": detail["msg"].removeprefix("Value error, ")}


def path_name(request: web.Request, key: str) -> str:
    """A path segment naming a namespace, dataset, field, column or run: 1-256 characters, no control characters."""
    value = request.match_info[key]
    if not 0 < len(value) <= MAX_NAME_CHARS:
        raise ParameterError(key, f"{key} must be 1 to {MAX_NAME_CHARS} characters long")
    if CONTROL_CHARACTER.search(value):
        raise ParameterError(key, f"{key} must not contain control characters")
    return value
