"""Every error this API answers, and how each one looks as JSON.

A handler raises an ``ApiError`` subclass (it carries the HTTP status, a stable ``type`` and, when
one request parameter is at fault, its name, so every 4xx says exactly what to fix); the error
middleware (``server.middlewares``) turns it - or aiohttp's own HTTP errors, or the lineage
package's errors - into ``{"error": {"type", "message", "parameter"?, "errors"?}}`` through
``error_response``. ``ParameterError`` deliberately does not subclass ``ValueError``: raised inside
a pydantic validator it escapes pydantic unchanged, with its parameter name intact.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from grammar.errors import RecipeError
from lineage.errors import (
    InvalidCursorError,
    LineageValidationError,
    QueryError,
    RunConflictError,
    RunNotFoundError,
    TimeParseError,
)

log = logging.getLogger(__name__)


class ApiError(Exception):
    """Base of every error a handler raises; a subclass names its status and type in its header line."""

    status = 500
    type = "internal"

    def __init_subclass__(cls, *, status: int | None = None, type: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if type is not None:
            cls.type = type

    def __init__(self, message: str, *, parameter: str | None = None, errors: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.message = message
        self.parameter = parameter
        self.errors = errors

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.parameter is not None:
            error["parameter"] = self.parameter
        if self.errors is not None:
            error["errors"] = self.errors
        return {"error": error}

    def headers(self) -> dict[str, str] | None:
        """Headers the status asks for (``WWW-Authenticate``, ``Retry-After``)."""
        return None


class BadRequestError(ApiError, status=400, type="bad_request"): ...


class ParameterError(BadRequestError):
    """One named request parameter (path, query or body field) is invalid."""

    def __init__(self, parameter: str, message: str, *, errors: list[dict[str, Any]] | None = None):
        super().__init__(message, parameter=parameter, errors=errors)


class NotFoundError(ApiError, status=404, type="not_found"): ...


class ConflictError(ApiError, status=409, type="conflict"): ...


class UnauthorizedError(ApiError, status=401, type="unauthorized"):
    """No valid bearer token; the challenge says whether one was missing or wrong."""

    def headers(self) -> dict[str, str]:
        challenge = _BEARER_CHALLENGE if "needs" in self.message else f'{_BEARER_CHALLENGE}, error="invalid_token"'
        return {"WWW-Authenticate": challenge}


class ForbiddenError(ApiError, status=403, type="forbidden"): ...


class UnsupportedMediaTypeError(ApiError, status=415, type="unsupported_media_type"):
    """A JSON route got a body that does not say it is JSON (text/plain, XML, a form, no Content-Type)."""


class UnprocessableError(ApiError, status=422, type="unprocessable"):
    """Well-formed, but the server will not finish the work (a recipe that takes too long to analyse)."""


class UnavailableError(ApiError, status=503, type="unavailable"):
    """The server cannot take the request now; ``retry_after`` seconds is a good time to try again."""

    def __init__(self, message: str, *, retry_after: int = 1, parameter: str | None = None) -> None:
        super().__init__(message, parameter=parameter)
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


_BEARER_CHALLENGE = 'Bearer realm="wrangler-lineage"'
_HTTP_TYPES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "payload_too_large", 414: "uri_too_long",
               415: "unsupported_media_type"}


def _as_api_error(error: Exception) -> ApiError | None:
    """Our own errors, the recipe parser's and the lineage package's as ``ApiError``; None for a bug."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, RecipeError):
        return ParameterError("recipe", error.message, errors=[item.to_dict() for item in error.errors])
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
    return None


def http_error_response(error: web.HTTPException) -> web.Response:
    """An aiohttp HTTP error (4xx/5xx) as a JSON body; ``Allow`` survives (405)."""
    kind = _HTTP_TYPES.get(error.status, "http_error")
    headers = {key: value for key, value in error.headers.items() if key.lower() == "allow"}
    message = error.reason if error.status != 413 else "the request body is too large"
    return web.json_response({"error": {"type": kind, "message": message}}, status=error.status,
                             headers=headers or None)


def error_response(request: web.Request, error: Exception) -> web.Response:
    """Any other exception as a JSON error body; the unexpected one is a bug: logged, and a bare 500."""
    api_error = _as_api_error(error)
    if api_error is None:
        log.error("unhandled error in %s %s", request.method, request.path, exc_info=error)
        api_error = ApiError("internal server error")
    return web.json_response(api_error.body(), status=api_error.status, headers=api_error.headers())
