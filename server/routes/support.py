"""What every handler does the same way: read a JSON body, answer JSON, answer through the cache."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from server.errors import ParameterError
from server.keys import CACHE
from server.nearcache import CachedBody, Scope
from server.params import validation_to_parameter_error

JSON = "application/json"
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

    lookup = await request.app[CACHE].get_or_compute(kind, params, scope, render)
    headers = {"X-Cache": lookup.status, "X-Cache-Layer": lookup.layer}
    if lookup.value.next_cursor:
        headers["X-Next-Cursor"] = lookup.value.next_cursor
    return web.Response(body=lookup.value.body, content_type=JSON, headers=headers)
