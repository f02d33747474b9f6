"""The API's two aiohttp middlewares: ``errors`` makes every failure JSON, ``guards`` refuses a request
before its handler runs.

``errors`` (outermost) answers ``{"error": {"type", "message", "parameter"?, "errors"?}}`` with the
right status for our ``ApiError``s, aiohttp's HTTP exceptions (the router's 404 and 405 included)
and the lineage package's errors (``server.errors``). Anything else is a bug: logged with its
traceback, answered as a bare 500 that reveals nothing. Errors aiohttp answers itself, before any
application code (a malformed request line, headers too large), are JSON too: see ``server.protocol``.

``guards`` refuses over-long query strings (414) and declared-too-large bodies (413) before a byte
of body is read; then, for every route the route table declares, checks the bearer token against
the route's namespace (401 / 403; to record a run the token must be allowed to write it) unless the
route is public, and leaves its ``Grant`` on the request for the handler; a route that takes a JSON
body refuses any other (415) before reading it. Routes outside the table (the web view's files, the
router's 404/405) need no token.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from aiohttp import hdrs, web

from server.auth import Authorizer
from server.errors import UnsupportedMediaTypeError, error_response, http_error_response
from server.keys import GRANT
from server.settings import Settings

if TYPE_CHECKING:
    from server.routes.spec import RouteSpec

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Middleware = Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]

_JSON_TYPES = ("application/json",)
_UTF8 = ("utf-8", "utf8")


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        return http_error_response(error)
    except Exception as error:
        return error_response(request, error)


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


def guards(settings: Settings, authorizer: Authorizer | None, specs: Mapping[str, RouteSpec]) -> Middleware:
    """The guard middleware for one application: limits, authorizer and route table resolved now."""
    max_query = settings.max_query_bytes
    max_body = settings.max_body_bytes

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        # the raw path holds the query string: only a long one needs the query string cut out
        if len(request.raw_path) > max_query and len(request.query_string) > max_query:
            raise web.HTTPRequestURITooLong()
        length = request.content_length
        if length is not None and length > max_body:
            raise web.HTTPRequestEntityTooLarge(max_size=max_body, actual_size=length)
        spec = specs.get(request.match_info.route.name or "")
        if spec is not None:
            if authorizer is not None and not spec.public:
                request[GRANT] = authorizer.check(request.headers.get("Authorization"),
                                                  request.match_info.get("ns") if spec.namespaced else None,
                                                  write=spec.writes)
            if spec.body is not None:
                check_json_body(request)
        return await handler(request)

    return guard
