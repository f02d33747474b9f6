"""The access log of `wrangler serve`: one line per request, written in batches.

aiohttp's default access logger goes through ``logging`` for every request - a log record, a
formatter, a lock and a ``write`` + ``flush`` system call each time - which took the cached GET from
0.78x to 0.34x of a hello-world's server CPU (issue 22). This one keeps the line and the cost small:
Common Log Format plus the time taken,

    127.0.0.1 - - [25/Nov/2026:16:32:04 +0000] "GET /healthz HTTP/1.1" 200 79 0.000412

(times in UTC; the timestamp text is built once per second), appended to a list and written with
one ``write`` when ``FLUSH_SECONDS`` have passed since the first unwritten line, when
``MAX_LINES`` are waiting, and when the server stops. So a line can reach the stream up to half a
second after its request; nothing is lost on a clean stop (a killed process loses that half second).

It is on by default (``--no-access-log`` turns it off) and follows ``--log-level``: at WARNING or
above there is no access log, as with aiohttp's own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TextIO

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

FLUSH_SECONDS = 0.5
MAX_LINES = 1000
ACCESS_LOGGER = "aiohttp.access"
"""The logger whose level decides whether requests are logged (aiohttp's name for it)."""


class AccessLog:
    """The shared buffer of one server; aiohttp builds one logger per connection (``logger_class``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._lines: list[str] = []
        self._second = -1
        self._stamp = ""

    def add(self, request: web.BaseRequest, response: web.StreamResponse, elapsed: float) -> None:
        now = int(time.time())
        if now != self._second:
            self._second = now
            self._stamp = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now))
        version = request.version
        self._lines.append(f'{request.remote} - - [{self._stamp}] "{request.method} {request.path_qs} '
                           f'HTTP/{version.major}.{version.minor}" {response.status} {response.body_length} '
                           f"{elapsed:.6f}\n")
        if len(self._lines) == 1:
            asyncio.get_running_loop().call_later(FLUSH_SECONDS, self.flush)
        elif len(self._lines) >= MAX_LINES:
            self.flush()

    def flush(self) -> None:
        if self._lines:
            text, self._lines = "".join(self._lines), []
            self.stream.write(text)
            self.stream.flush()

    def logger_class(self) -> type[AbstractAccessLogger]:
        """The class to give ``web.run_app(access_log_class=...)``: every instance writes to this buffer."""
        shared = self

        class BufferedAccessLogger(AbstractAccessLogger):
            @property
            def enabled(self) -> bool:
                return self.logger.isEnabledFor(logging.INFO)

            def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
                shared.add(request, response, time)

        return BufferedAccessLogger
