"""What every handler does the same way: read a JSON body, answer JSON, see the store as the token may,
answer through the cache."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiohttp import hdrs, web
from multidict import CIMultiDict
from pydantic import BaseModel, ValidationError

from lineage.store.results import Page
from server.auth import FULL_ACCESS, Grant
from server.cache import HIT, dataset_scope
from server.errors import ParameterError
from server.keys import CACHE, GRANT, STORE
from server.nearcache import CachedBody, Scope
from server.params import (
    PageQuery,
    Query,
    RangeQuery,
    anchor_cursor,
    parse_query,
    path_name,
    validation_to_parameter_error,
)
from server.visible_store import VisibleStore

JSON = "application/json"
CUT_HEADER = "X-Lineage-Cut"
"""Sent (``true``) when the answer left out runs, datasets or fields the token may not read."""
_VISIBLE_STORE = web.RequestKey("visible_store", VisibleStore)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
M = TypeVar("M", bound=BaseModel)
Q = TypeVar("Q", bound=Query)
Computed = BaseModel | tuple[BaseModel, str | None]
"""A response model, or a response model and the next-page cursor to send as ``X-Next-Cursor``."""


def dump(model: BaseModel, *, exclude_none: bool = False) -> bytes:
    return model.model_dump_json(by_alias=True, exclude_none=exclude_none).encode("utf-8")


def json_response(model: BaseModel, *, status: int = 200, exclude_none: bool = False,
                  headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=dump(model, exclude_none=exclude_none), status=status, content_type=JSON,
                        headers=headers)


def grant_of(request: web.Request) -> Grant:
    """What the request's token may do (everything on a server without ``--auth``)."""
    return request.get(GRANT, FULL_ACCESS)


def visible_store(request: web.Request) -> VisibleStore:
    """The store as this request's token may see it; ``cached_json`` reads back whether it cut anything."""
    store = VisibleStore(request.app[STORE], grant_of(request).view)
    request[_VISIBLE_STORE] = store
    return store


def read_request(request: web.Request, query: type[Q], *names: str) -> tuple[tuple[str, ...], Q, VisibleStore]:
    """What a read route starts with: the path segments ``names`` (checked in that order), the parsed query,
    and the store as the request's token may see it."""
    return tuple(path_name(request, name) for name in names), parse_query(request, query), visible_store(request)


async def read_body(request: web.Request, model: type[M]) -> M:
    """Parse the request body as ``model``; a problem is a 400 naming the body field."""
    raw = await request.read()
    if not raw:
        raise ParameterError("body", "the request needs a JSON body")
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        raise validation_to_parameter_error(error, default="body") from None


def page_answer(model: type[M], page: Page[Any], q: RangeQuery, items: str = "items",
                **members: Any) -> tuple[M, str | None]:
    """A page of a store answer as the route's response model (time range, items under ``items``, cursor and
    ``cut``, plus ``members``), and the cursor to send as ``X-Next-Cursor``."""
    body = model(start=q.start, end=q.end, next_cursor=page.next_cursor, cut=page.cut, **{items: page.items},
                 **members)
    return body, page.next_cursor


async def cached_page(request: web.Request, q: PageQuery, model: type[BaseModel], listing: Callable[..., Page[Any]], *,
                      kind: str, scope: Scope, names: list[str], items: str = "items", options: tuple[str, ...] = (),
                      **members: Any) -> web.Response:
    """``cached_json`` for a route that answers one page of a store listing: the page is
    ``listing(*names, q.start, q.end, limit=q.limit, cursor=q.cursor, **options)`` (every store listing takes the
    path's names, then the range and the page; ``options`` names the query's other parameters it takes), the key the
    path's ``names`` and the query, the answer ``model`` built by ``page_answer``."""
    def fetch() -> Page[Any]:
        return listing(*names, q.start, q.end, limit=q.limit, cursor=q.cursor,
                       **{option: getattr(q, option) for option in options})

    return await cached_json(request, kind=kind, scope=scope, params=[*names, q.cache_params()],
                             compute=lambda: page_answer(model, fetch(), q, items, **members))


async def dataset_page(request: web.Request, query: type[PageQuery], model: type[BaseModel], listing: str, *,
                       kind: str, items: str = "items", options: tuple[str, ...] = ()) -> web.Response:
    """``cached_page`` for a route listing one dataset's items (the path's ``ns`` and ``ds``): ``listing`` names the
    `VisibleStore` method; the dataset's writes refresh the answer, which names the namespace and the dataset."""
    (ns, ds), q, store = read_request(request, query, "ns", "ds")
    return await cached_page(request, q, model, getattr(store, listing), kind=kind, scope=dataset_scope(ns, ds),
                             names=[ns, ds], items=items, options=options, namespace=ns, dataset=ds)


async def cached_json(request: web.Request, *, kind: str, scope: Scope, params: object,
                      compute: Callable[[], Computed], exclude_none: bool = False) -> web.Response:
    """Answer from the cache, computing with ``compute`` (in a worker thread) on a miss.

    What a token may see is part of the answer, so a restricted view is part of the key too: an
    answer cut for one token is never served to another, nor the whole answer to a cut one.
    """
    view = grant_of(request).view
    key_params = params if view.everything else [params, view.key]

    def render() -> CachedBody:
        result = compute()
        model, cursor = result if isinstance(result, tuple) else (result, None)
        anchored = anchor_cursor(request, cursor)
        if anchored != cursor and "next_cursor" in type(model).model_fields:
            model = model.model_copy(update={"next_cursor": anchored})
        seen = request.get(_VISIBLE_STORE)
        cut = bool(getattr(model, "cut", False)) or (seen is not None and seen.cut)
        return CachedBody(dump(model, exclude_none=exclude_none), anchored, cut=cut)

    lookup = await request.app[CACHE].get_or_compute(kind, key_params, scope, render, alias=request_alias(request))
    return cached_response(lookup.value, lookup.status, lookup.layer)


def cached_response(value: CachedBody, status: str, layer: str) -> web.Response:
    headers = {"X-Cache": status, "X-Cache-Layer": layer}
    if value.next_cursor:
        headers["X-Next-Cursor"] = value.next_cursor
    if value.cut:
        headers[CUT_HEADER] = "true"
    return web.Response(body=value.body, content_type=JSON, headers=headers)


def _alias(request: web.Request) -> str:
    """The raw path (with query), prefixed by the token's view when it does not see everything."""
    grant = request.get(GRANT)
    if grant is None or grant.view.everything:
        return request.raw_path
    return f"{grant.view.key}\n{request.raw_path}"


def request_alias(request: web.Request) -> str | None:
    """The raw text (path and query) of a request whose answer was just validated and computed, or None
    when the same text may mean a different answer later.

    The raw path alone names the answer: one path resolves to one GET route, for one view (a token
    that may not read every namespace gets its own aliases). Relative times (``now-1h``) resolve
    against the clock, so such requests never get an alias and always take the slow path.
    """
    if "now" in request.query_string.lower():
        return None
    return _alias(request)


def hit_response(value: CachedBody) -> web.Response:
    """A near-cache hit: the body as cached, with headers built the first time this body was served."""
    headers = value.prepared
    if not isinstance(headers, CIMultiDict):
        headers = CIMultiDict({hdrs.CONTENT_TYPE: JSON, hdrs.CONTENT_LENGTH: str(len(value.body)),
                               "X-Cache": HIT, "X-Cache-Layer": "near"})
        if value.next_cursor:
            headers["X-Next-Cursor"] = value.next_cursor
        if value.cut:
            headers[CUT_HEADER] = "true"
        object.__setattr__(value, "prepared", headers)  # a memo on a frozen value; see CachedBody.prepared
    return web.Response(body=value.body, headers=headers)  # aiohttp copies the headers


def near_cached(handler: Handler) -> Handler:
    """``handler`` of a cached route, answered from the near-cache when the same request text was answered
    before: no parsing, no key, the body as it was stored. The guards ran already (``server.middlewares``),
    and an alias is registered only after that very text was validated and answered (``request_alias``)."""

    async def answer_near_hit(request: web.Request) -> web.StreamResponse:
        value = request.app[CACHE].near_hit(_alias(request))
        return hit_response(value) if value is not None else await handler(request)

    answer_near_hit.__doc__ = handler.__doc__
    return answer_near_hit
