"""What every handler does the same way: read a JSON body, answer JSON, answer through the cache."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiohttp import hdrs, web
from multidict import CIMultiDict
from pydantic import BaseModel, ValidationError

from server.cache import HIT
from server.errors import ParameterError
from server.keys import CACHE
from server.nearcache import CachedBody, Scope
from server.params import anchor_cursor, validation_to_parameter_error

JSON = "application/json"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
M = TypeVar("M", bound=BaseModel)
Computed = BaseModel | tuple[BaseModel, str | None]
"""A response model, or a response model and the next-page cursor to send as ``X-Next-Cursor``."""


def dump(model: BaseModel, *, exclude_none: bool = False) -> bytes:
    return model.model_dump_json(by_alias=True, exclude_none=exclude_none).encode("utf-8")


def json_response(model: BaseModel, *, status: int = 200, exclude_none: bool = False,
                  headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=dump(model, exclude_none=exclude_none), status=status, content_type=JSON,
                        headers=headers)


async def read_body(request: web.Request, model: type[M]) -> M:
    """Parse the request body as ``model``; a problem is a 400 naming the body field."""
    raw = await request.read()
    if not raw:
        raise ParameterError("body", "the request needs a JSON body")
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        raise validation_to_parameter_error(error, default="body") from None


async def cached_json(request: web.Request, *, kind: str, scope: Scope, params: object,
                      compute: Callable[[], Computed], exclude_none: bool = False) -> web.Response:
    """Answer from the cache, computing with ``compute`` (in a worker thread) on a miss."""

    def render() -> CachedBody:
        result = compute()
        model, cursor = result if isinstance(result, tuple) else (result, None)
        anchored = anchor_cursor(request, cursor)
        if anchored != cursor and "next_cursor" in type(model).model_fields:
            model = model.model_copy(update={"next_cursor": anchored})
        return CachedBody(dump(model, exclude_none=exclude_none), anchored)

    lookup = await request.app[CACHE].get_or_compute(kind, params, scope, render, alias=request_alias(request))
    return cached_response(lookup.value, lookup.status, lookup.layer)


def cached_response(value: CachedBody, status: str, layer: str) -> web.Response:
    headers = {"X-Cache": status, "X-Cache-Layer": layer}
    if value.next_cursor:
        headers["X-Next-Cursor"] = value.next_cursor
    return web.Response(body=value.body, content_type=JSON, headers=headers)


def request_alias(request: web.Request) -> str | None:
    """The raw text (path and query) of a request whose answer was just validated and computed, or None
    when the same text may mean a different answer later.

    The raw path alone names the answer: one path resolves to one GET route. Relative times
    (``now-1h``) resolve against the clock, so such requests never get an alias and always take
    the slow path.
    """
    if "now" in request.query_string.lower():
        return None
    return request.raw_path


def hit_response(value: CachedBody) -> web.Response:
    """A near-cache hit: the body as cached, with headers built the first time this body was served."""
    headers = value.prepared
    if not isinstance(headers, CIMultiDict):
        headers = CIMultiDict({hdrs.CONTENT_TYPE: JSON, hdrs.CONTENT_LENGTH: str(len(value.body)),
                               "X-Cache": HIT, "X-Cache-Layer": "near"})
        if value.next_cursor:
            headers["X-Next-Cursor"] = value.next_cursor
        object.__setattr__(value, "prepared", headers)  # a memo on a frozen value; see CachedBody.prepared
    return web.Response(body=value.body, headers=headers)  # aiohttp copies the headers


def fast_hit(request: web.Request) -> web.Response | None:
    """A request answered before, served from the near-cache by its raw text, before any parsing.

    Runs in ``server.middlewares.guarded`` after the guards, so authentication and size limits
    still apply to every request; the raw text was registered as an alias (``request_alias``)
    only after that very text was validated and answered.
    """
    value = request.app[CACHE].fast_get(request.raw_path)
    return None if value is None else hit_response(value)
