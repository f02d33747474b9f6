"""Request guards and the one place exceptions become JSON error bodies.

``api_middleware`` turns every failure into ``{"error": {"type", "message", "parameter"?,
"errors"?}}`` with the right status: our ``ApiError``s, aiohttp's HTTP exceptions (404, 405,
413 ...), and the lineage package's errors. Anything else is a bug: logged with its traceback,
answered as a bare 500 that reveals nothing.

Before any handler it refuses over-long query strings (414) and declared-too-large bodies (413)
before a byte of body is read, then checks the bearer token against the route's namespace
(401 / 403) - for every route but the public ones.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from grammar.errors import RecipeError
from lineage.errors import (
    InvalidCursorError,
    LineageValidationError,
    QueryError,
    RunConflictError,
    RunNotFoundError,
    TimeParseError,
)
from server.errors import ApiError, BadRequestError, ConflictError, NotFoundError, ParameterError, UnauthorizedError
from server.keys import AUTHORIZER, ROUTE_SPECS, SETTINGS

log = logging.getLogger(__name__)

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


@web.middleware
async def api_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The guards, then the handler; every failure of either becomes a JSON error body.

    One middleware rather than two: each layer costs a coroutine per request, and cached GETs
    are answered in a few tens of microseconds.
    """
    try:
        _guard(request)
        return await handler(request)
    except ApiError as error:
        headers = None
        if isinstance(error, UnauthorizedError):
            challenge = _BEARER_CHALLENGE if "needs" in error.message else f'{_BEARER_CHALLENGE}, error="invalid_token"'
            headers = {"WWW-Authenticate": challenge}
        return _json_error(error.status, error.body(), headers)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        kind = _HTTP_TYPES.get(error.status, "http_error")
        headers = {key: value for key, value in error.headers.items() if key.lower() == "allow"}
        message = error.reason if error.status != 413 else "the request body is too large"
        return _json_error(error.status, {"error": {"type": kind, "message": message}}, headers or None)
    except RecipeError as error:
        items = [item.to_dict() for item in error.errors]
        return _json_error(400, {"error": {"type": "bad_request", "message": error.message, "parameter": "recipe",
                                           "errors": items}})
    except (QueryError, LineageValidationError, RunConflictError, RunNotFoundError) as error:
        mapped = _from_lineage(error)
        return _json_error(mapped.status, mapped.body())
    except Exception:
        log.exception("unhandled error in %s %s", request.method, request.path)
        return _json_error(500, {"error": {"type": "internal", "message": "internal server error"}})


def _guard(request: web.Request) -> None:
    """Before any handler: over-long query strings (414), declared-too-large bodies (413), tokens (401/403)."""
    settings = request.app[SETTINGS]
    if len(request.query_string) > settings.max_query_bytes:
        raise web.HTTPRequestURITooLong()
    length = request.content_length
    if length is not None and length > settings.max_body_bytes:
        raise web.HTTPRequestEntityTooLarge(max_size=settings.max_body_bytes, actual_size=length)
    authorizer = request.app[AUTHORIZER]
    if authorizer is not None:
        spec = request.app[ROUTE_SPECS].get(request.match_info.route.name or "")
        if spec is not None and not spec.public:
            namespace = request.match_info.get("ns") if spec.namespaced else None
            authorizer.check(request.headers.get("Authorization"), namespace)
