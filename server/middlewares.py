"""Request guards and the one place exceptions become JSON error bodies - without aiohttp middlewares.

Every failure becomes ``{"error": {"type", "message", "parameter"?, "errors"?}}`` with the right
status: our ``ApiError``s, aiohttp's HTTP exceptions (404, 405, 413 ...), and the lineage
package's errors. Anything else is a bug: logged with its traceback, answered as a bare 500 that
reveals nothing. Before any handler, over-long query strings (414) and declared-too-large bodies
(413) are refused before a byte of body is read, then the bearer token is checked against the
route's namespace (401 / 403; to record a run the token must be allowed to write it) - for every route but the
public ones - and its ``Grant`` is left on the request for the handler; a route that takes a JSON
body refuses any other (415) before reading it. Errors aiohttp answers itself, before any route
(a malformed request line, headers too large), are JSON too: see ``server.protocol``.

Why no middleware: an application with any middleware sends every request through two more
coroutines (aiohttp adds its own ``_fix_request_current_app`` layer) and a handler-chain lookup,
which cost about a tenth of a cached GET. So ``guarded`` wraps each route's handler once, when
the routes are registered, with what it needs resolved in advance (limits, authorizer, whether
the route is public or namespaced); requests that match no route reach ``unrouted``, a catch-all
route registered last, which answers 404 or 405 the way aiohttp's router would - as JSON.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import hdrs, web

from grammar.errors import RecipeError
from lineage.errors import (
    InvalidCursorError,
    LineageValidationError,
    QueryError,
    RunConflictError,
    RunNotFoundError,
    TimeParseError,
)
from server.auth import Authorizer
from server.errors import (
    ApiError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    ParameterError,
    UnauthorizedError,
    UnavailableError,
    UnsupportedMediaTypeError,
)
from server.keys import GRANT
from server.settings import Settings

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
FastPath = Callable[[web.Request], web.StreamResponse | None]
"""Answers a request without awaiting anything, or returns None to let the handler run."""

_HTTP_TYPES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
}
_BEARER_CHALLENGE = 'Bearer realm="wrangler-lineage"'
UNROUTED = "unrouted"
"""Name of the catch-all route (``add_unrouted``)."""


def _json_error(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(body, status=status, headers=headers)


def _from_lineage(error: Exception) -> ApiError:
    if isinstance(error, InvalidCursorError):
        return ParameterError("cursor", error.message)
    if isinstance(error, TimeParseError):
        return ParameterError("start", error.message)
    if isinstance(error, LineageValidationError):
        return ParameterError("operations", error.message, errors=[p.to_dict() for p in error.problems])
    if isinstance(error, QueryError):
        return BadRequestError(error.message)
    if isinstance(error, RunConflictError):
        return ConflictError(error.message, parameter="run.id")
    if isinstance(error, RunNotFoundError):
        return NotFoundError(error.message, parameter="run")
    raise error


def http_error_response(error: web.HTTPException) -> web.Response:
    """An aiohttp HTTP error (4xx/5xx) as a JSON body; ``Allow`` survives (405)."""
    kind = _HTTP_TYPES.get(error.status, "http_error")
    headers = {key: value for key, value in error.headers.items() if key.lower() == "allow"}
    message = error.reason if error.status != 413 else "the request body is too large"
    return _json_error(error.status, {"error": {"type": kind, "message": message}}, headers or None)


def error_response(request: web.Request, error: Exception) -> web.Response:
    """Any other exception from a guard or a handler as a JSON error body (500 for the unexpected)."""
    if isinstance(error, ApiError):
        headers = None
        if isinstance(error, UnauthorizedError):
            challenge = _BEARER_CHALLENGE if "needs" in error.message else f'{_BEARER_CHALLENGE}, error="invalid_token"'
            headers = {"WWW-Authenticate": challenge}
        elif isinstance(error, UnavailableError):
            headers = {"Retry-After": str(error.retry_after)}
        return _json_error(error.status, error.body(), headers)
    if isinstance(error, RecipeError):
        items = [item.to_dict() for item in error.errors]
        return _json_error(400, {"error": {"type": "bad_request", "message": error.message, "parameter": "recipe",
                                           "errors": items}})
    if isinstance(error, (QueryError, LineageValidationError, RunConflictError, RunNotFoundError)):
        mapped = _from_lineage(error)
        return _json_error(mapped.status, mapped.body())
    log.error("unhandled error in %s %s", request.method, request.path, exc_info=error)
    return _json_error(500, {"error": {"type": "internal", "message": "internal server error"}})


_JSON_TYPES = ("application/json",)
_UTF8 = ("utf-8", "utf8")


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


def guarded(handler: Handler, *, settings: Settings, authorizer: Authorizer | None, public: bool,
            namespaced: bool, writes: bool = False, json_body: bool = False, fast: FastPath | None = None) -> Handler:
    """``handler`` behind the guards and the error rendering; ``fast`` may answer first, after the guards.

    Runs for every request of the route, so everything decidable now is decided now.
    """
    max_query = settings.max_query_bytes
    max_body = settings.max_body_bytes
    check = authorizer.check if authorizer is not None and not public else None

    async def guarded_handler(request: web.Request) -> web.StreamResponse:
        try:
            # the raw path holds the query string: only a long one needs the query string cut out
            if len(request.raw_path) > max_query and len(request.query_string) > max_query:
                raise web.HTTPRequestURITooLong()
            length = request.content_length
            if length is not None and length > max_body:
                raise web.HTTPRequestEntityTooLarge(max_size=max_body, actual_size=length)
            if check is not None:
                request[GRANT] = check(request.headers.get("Authorization"),
                                       request.match_info.get("ns") if namespaced else None, write=writes)
            if json_body:
                check_json_body(request)
            if fast is not None:
                response = fast(request)
                if response is not None:
                    return response
            return await handler(request)
        except web.HTTPException as error:
            if error.status < 400:
                raise
            return http_error_response(error)
        except Exception as error:
            return error_response(request, error)

    guarded_handler.__doc__ = handler.__doc__
    return guarded_handler


async def unrouted(request: web.Request) -> web.StreamResponse:
    """No route took the request: 405 (with ``Allow``) if another method would have, else 404."""
    own = request.match_info.route.resource
    allowed: set[str] = set()
    for resource in request.app.router.resources():
        if resource is not own:
            _, methods = await resource.resolve(request)
            allowed |= methods
    if allowed:
        raise web.HTTPMethodNotAllowed(request.method, allowed)
    raise web.HTTPNotFound()


def add_unrouted(app: web.Application, settings: Settings) -> None:
    """Register the catch-all last: aiohttp tries it only after every other route refused the path."""
    handler = guarded(unrouted, settings=settings, authorizer=None, public=True, namespaced=False)
    app.router.add_route("*", "/{path:.*}", handler, name=UNROUTED)
