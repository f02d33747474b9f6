"""JSON for the errors aiohttp answers before any route runs: a malformed request line or header, a
request line over 8,190 bytes, headers too large, a broken chunked body.

aiohttp answers these from its protocol handler (``RequestHandler.handle_error``) with a plain-text
body and logs each one with a traceback; it offers no hook for them (aio-libs/aiohttp#3287). So the
application's server builds protocol handlers of a subclass that answers
``{"error": {"type", "message"}}`` like every other error of this API, and logs one line without a
traceback: a malformed request is the client's mistake (or a scanner's), not a fault of the server.
Only a 500 - an exception no guard caught, a bug - is still logged with its traceback.

``answer_protocol_errors_as_json`` installs this on one application, whatever runs it (``wrangler
serve``, the test client, the benchmark).
"""

from __future__ import annotations

import asyncio
import json
import logging
from http import HTTPStatus
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest
from aiohttp.web_server import Server

log = logging.getLogger(__name__)

MESSAGE_CHARS = 300
"""Longest part of aiohttp's own description of the problem quoted back (it may quote the request)."""


def _classify(status: int, exc: BaseException | None, message: str | None) -> tuple[int, str, str]:
    """(status, type, message) of a protocol-level error."""
    if status >= 500:
        return status, "internal", "internal server error"
    detail = (message or (exc.message if isinstance(exc, HttpProcessingError) else "") or "").strip()
    detail = " ".join(detail.split())[:MESSAGE_CHARS]
    if isinstance(exc, LineTooLong):
        # aiohttp's parser raises the same error for the request line and for a header, and says not which
        limit = exc.args[1] if len(exc.args) > 1 else "the limit"
        return 400, "bad_request", (f"a line of the request (the request line or a header) is longer than {limit} "
                                    "bytes; shorten the URL or the header")
    return status, "bad_request", f"malformed HTTP request: {detail}" if detail else "malformed HTTP request"


class _JsonErrorRequestHandler(RequestHandler):
    __slots__ = ()  # the same layout as aiohttp's handler, so a handler it built can take this class

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        code, kind, text = _classify(status, exc, message)
        if code >= 500:
            self.log_exception("Error handling request from %s", request.remote, exc_info=exc)
        else:
            log.info("refused a malformed request from %s: %d %s", request.remote, code, text)
        if request.writer.output_size > 0:  # as aiohttp does: the answer has begun, only closing is left
            raise ConnectionError("Response is sent already, cannot send another response with the error message")
        body = json.dumps({"error": {"type": kind, "message": text}})
        response = web.Response(status=code, text=body, content_type="application/json",
                                reason=HTTPStatus(code).phrase)
        response.force_close()
        return response


class _JsonErrorServer(Server):
    def __call__(self) -> RequestHandler:
        handler = super().__call__()
        handler.__class__ = _JsonErrorRequestHandler
        return handler


def answer_protocol_errors_as_json(app: web.Application) -> None:
    """Make every server that runs ``app`` answer protocol-level errors as JSON (see the module docstring)."""
    make_handler = app._make_handler

    def make_json_error_server(*, loop: asyncio.AbstractEventLoop | None = None, **kwargs: Any) -> Server:
        server = make_handler(loop=loop, **kwargs)
        server.__class__ = _JsonErrorServer
        return server

    app._make_handler = make_json_error_server  # type: ignore[method-assign]
