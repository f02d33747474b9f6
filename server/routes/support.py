"""What every handler does the same way: read a JSON body, answer JSON, answer through the cache."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from server.cache import HIT
from server.errors import ParameterError
from server.keys import CACHE
from server.nearcache import CachedBody, Scope
from server.params import validation_to_parameter_error

JSON = "application/json"
ALIAS: web.RequestKey[str] = web.RequestKey("cache_alias", str)
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
        return CachedBody(dump(model, exclude_none=exclude_none), cursor)

    lookup = await request.app[CACHE].get_or_compute(kind, params, scope, render, alias=request.get(ALIAS))
    return cached_response(lookup.value, lookup.status, lookup.layer)


def cached_response(value: CachedBody, status: str, layer: str) -> web.Response:
    headers = {"X-Cache": status, "X-Cache-Layer": layer}
    if value.next_cursor:
        headers["X-Next-Cursor"] = value.next_cursor
    return web.Response(body=value.body, content_type=JSON, headers=headers)


def request_alias(request: web.Request) -> str | None:
    """The raw text of a cacheable request, or None when the same text may mean a different answer.

    Relative times (``now-1h``) resolve against the clock, so such requests always take the slow path.
    """
    if "now" in request.query_string.lower():
        return None
    return f"{request.match_info.route.name}\n{request.raw_path}"


def with_fast_path(handler: Handler) -> Handler:
    """Wrap a cached route: a request answered before is served from the near-cache unparsed.

    Runs after the guard middleware, so authentication and size limits still apply to every request.
    """

    async def fast(request: web.Request) -> web.StreamResponse:
        alias = request_alias(request)
        if alias is not None:
            value = request.app[CACHE].fast_get(alias)
            if value is not None:
                return cached_response(value, HIT, "near")
            request[ALIAS] = alias
        return await handler(request)

    fast.__doc__ = handler.__doc__
    return fast
