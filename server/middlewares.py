"""The API's aiohttp middleware: ``api_middleware`` refuses a request before its handler runs, answers a
request seen before from the near-cache, and makes every failure JSON - one layer, not three.

Every aiohttp middleware is a coroutine layer around every request (aiohttp adds one more of its own,
``_fix_request_current_app``, once an application has any), and the cached field-lineage GET is held to
0.7x of a hello-world's requests per second (issues 18 and 22): so the three jobs below share one layer,
in this order, with what each route needs resolved once, when the application is built (``RouteFacts``).

1. **Guards.** Over-long query strings (414) and declared-too-large bodies (413) are refused before a
   byte of body is read; then, for every route the route table declares, the bearer token is checked
   against the route's namespace (401 / 403; to record a run the token must be allowed to write it)
   unless the route is public, and its ``Grant`` is left on the request for the handler (``FULL_ACCESS``
   without ``--auth``); a route that takes a JSON body refuses any other (415) before reading it.
   Routes outside the table (the web view's files, the router's 404/405) need no token.
2. **Near-cache hits.** A cached GET whose exact text (for the same view) was answered before is answered
   with the bytes the near-cache holds (``server.routes.support.near_answer``): no parsing, no key,
   under the near-cache's rules (``server.cache.LineageCache.near_hit``). Anything else goes to the
   route's handler.
3. **Errors.** Everything raised - by the guards, the handler, the router (its 404 and 405) - is answered
   as ``{"error": {"type", "message", "parameter"?, "errors"?}}`` with the right status: our
   ``ApiError``s, aiohttp's HTTP exceptions and the lineage package's errors (``server.errors``).
   Anything else is a bug: logged with its traceback, answered as a bare 500 that reveals nothing.
   Errors aiohttp answers itself, before any application code (a malformed request line, headers too
   large), are JSON too: see ``server.protocol``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiohttp import hdrs, web

from server.auth import FULL_ACCESS, Authorizer
from server.errors import UnsupportedMediaTypeError, error_response, http_error_response
from server.keys import CACHE, GRANT
from server.routes.support import near_answer
from server.settings import Settings

if TYPE_CHECKING:
    from server.routes.spec import RouteSpec

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Middleware = Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]

_JSON_TYPES = ("application/json",)
_UTF8 = ("utf-8", "utf8")


@dataclass(frozen=True, slots=True)
class RouteFacts:
    """What the middleware asks of one route of the table, resolved when the application is built."""

    check_token: bool
    """Not public, on a server with ``--auth``."""
    namespaced: bool
    writes: bool
    json_body: bool
    near_cached: bool
    """A cached GET: a request seen before is answered from the near-cache."""

    @classmethod
    def of(cls, spec: RouteSpec, *, auth: bool) -> RouteFacts:
        return cls(check_token=auth and not spec.public, namespaced=spec.namespaced, writes=spec.writes,
                   json_body=spec.body is not None, near_cached=spec.cached and spec.method == "GET")


def check_json_body(request: web.Request) -> None:
    """415 unless the body says it is JSON: ``application/json`` or ``application/<anything>+json``, in UTF-8.

    A body of another type would only fail later as malformed JSON (or, worse, parse by accident), and a
    browser form or ``text/plain`` POST must never reach a route that records lineage.
    """
    if hdrs.CONTENT_TYPE not in request.headers:
        raise UnsupportedMediaTypeError("this route takes a JSON body: send 'Content-Type: application/json'")
    media_type = request.content_type
    if media_type not in _JSON_TYPES and not (media_type.startswith("application/") and media_type.endswith("+json")):
        raise UnsupportedMediaTypeError(f"this route takes a JSON body (Content-Type: application/json), "
                                        f"not {media_type or 'an empty media type'}")
    charset = request.charset
    if charset is not None and charset.lower() not in _UTF8:
        raise UnsupportedMediaTypeError(f"JSON bodies are UTF-8; charset {charset!r} is not accepted")


def api_middleware(settings: Settings, authorizer: Authorizer | None, specs: Mapping[str, RouteSpec]) -> Middleware:
    """The middleware of one application: limits, authorizer and route facts resolved now."""
    max_query = settings.max_query_bytes
    max_body = settings.max_body_bytes
    by_name = {name: RouteFacts.of(spec, auth=authorizer is not None) for name, spec in specs.items()}
    by_handler = {spec.handler: by_name[name] for name, spec in specs.items()}
    if len(by_handler) != len(by_name):
        raise ValueError("every route of the table needs a handler of its own")

    def guard(request: web.Request, facts: RouteFacts | None) -> None:
        # the raw path holds the query string: only a long one needs the query string cut out
        if len(request.raw_path) > max_query and len(request.query_string) > max_query:
            raise web.HTTPRequestURITooLong()
        length = request.content_length
        if length is not None and length > max_body:
            raise web.HTTPRequestEntityTooLarge(max_size=max_body, actual_size=length)
        if facts is None:
            return
        if facts.check_token:
            assert authorizer is not None
            request[GRANT] = authorizer.check(request.headers.get(hdrs.AUTHORIZATION),
                                              request.match_info.get("ns") if facts.namespaced else None,
                                              write=facts.writes)
        else:
            request[GRANT] = FULL_ACCESS
        if facts.json_body:
            check_json_body(request)

    @web.middleware
    async def api(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            # aiohttp hands the innermost middleware the route's own handler: found in one lookup; the name
            # is the fallback (a route outside the table, the router's 404/405: None)
            facts = by_handler.get(handler) or by_name.get(request.match_info.route.name)  # type: ignore[arg-type]
            guard(request, facts)
            if facts is not None and facts.near_cached:
                hit = near_answer(request, request.app[CACHE])
                if hit is not None:
                    return hit
            return await handler(request)
        except web.HTTPException as error:
            if error.status < 400:
                raise
            return http_error_response(error)
        except Exception as error:
            return error_response(request, error)

    return api
