"""Errors a handler raises to answer with a JSON error body (rendered by ``server.middlewares``).

They carry the HTTP status, a stable ``type`` and, when one request parameter is at fault, its
name, so every 4xx says exactly what to fix. ``ParameterError`` deliberately does not subclass
``ValueError``: raised inside a pydantic validator it escapes pydantic unchanged, with its
parameter name intact.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status = 500
    type = "internal"

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


class BadRequestError(ApiError):
    status = 400
    type = "bad_request"


class ParameterError(BadRequestError):
    """One named request parameter (path, query or body field) is invalid."""

    def __init__(self, parameter: str, message: str, *, errors: list[dict[str, Any]] | None = None):
        super().__init__(message, parameter=parameter, errors=errors)


class NotFoundError(ApiError):
    status = 404
    type = "not_found"


class ConflictError(ApiError):
    status = 409
    type = "conflict"


class UnauthorizedError(ApiError):
    status = 401
    type = "unauthorized"


class ForbiddenError(ApiError):
    status = 403
    type = "forbidden"


class UnsupportedMediaTypeError(ApiError):
    """A JSON route got a body that does not say it is JSON (text/plain, XML, a form, no Content-Type)."""

    status = 415
    type = "unsupported_media_type"


class UnprocessableError(ApiError):
    """Well-formed, but the server will not finish the work (a recipe that takes too long to analyse)."""

    status = 422
    type = "unprocessable"


class UnavailableError(ApiError):
    """The server cannot take the request now; ``retry_after`` seconds is a good time to try again."""

    status = 503
    type = "unavailable"

    def __init__(self, message: str, *, retry_after: int = 1, parameter: str | None = None) -> None:
        super().__init__(message, parameter=parameter)
        self.retry_after = retry_after
