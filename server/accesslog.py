"""The access log of `wrangler serve`: one line per request, formatted and written in batches.

aiohttp's default access logger goes through ``logging`` for every request - a log record, a
formatter, a lock and a ``write`` + ``flush`` system call each time - which took the cached GET from
0.78x to 0.34x of a hello-world's server CPU (issue 22). This one keeps the work done while a request
is answered to one ``list.append`` of a tuple of what the line needs (fields aiohttp already parsed;
the peer's address read once per connection); the text is built for a whole batch at once when it is
written. The line is Common Log Format plus the time taken,

    127.0.0.1 - - [25/Nov/2026:16:32:04 +0000] "GET /healthz HTTP/1.1" 200 79 0.000412

with the request target as the client sent it and times in UTC (the timestamp text is built once per
second of the batch, when it is written). A batch is written with one ``write`` when ``FLUSH_SECONDS``
have passed since its first line, when ``MAX_LINES`` are waiting, and when the server stops. So a line
can reach the stream up to half a second after its request; nothing is lost on a clean stop (a killed
process loses that half second).

It is on by default (``--no-access-log`` turns it off) and follows ``--log-level``: at WARNING or
above there is no access log, as with aiohttp's own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from time import time as wall_clock
from typing import TextIO

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.http import HttpVersion

FLUSH_SECONDS = 0.5
MAX_LINES = 1000
ACCESS_LOGGER = "aiohttp.access"
"""The logger whose level decides whether requests are logged (aiohttp's name for it)."""
LINE = '%s - - [%s] "%s %s HTTP/%d.%d" %d %d %.6f\n'

Entry = tuple[str, float, str, str, HttpVersion, int, int, float]
"""What one line needs, in the order of ``format_lines``: peer, wall-clock time, method, target, version,
status, bytes sent (headers included, as aiohttp's own ``%b``), seconds taken."""


class _Stamps:
    """``[25/Nov/2026:16:32:04 +0000]`` text of a wall-clock time, built once per second."""

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def __call__(self, when: float) -> str:
        second = int(when)
        if second != self._second:
            self._second = second
            self._text = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(second))
        return self._text


def format_lines(entries: list[Entry], stamp: Callable[[float], str] | None = None) -> str:
    stamp = stamp or _Stamps()
    return "".join([LINE % (remote, stamp(when), method, target, version[0], version[1], status, size, elapsed)
                    for remote, when, method, target, version, status, size, elapsed in entries])


class AccessLog:
    """The shared buffer of one server; aiohttp builds one logger per connection (``logger_class``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.entries: list[Entry] = []
        self._stamps = _Stamps()

    def batch(self) -> list[Entry]:
        """The list a new line goes to: a full batch is written first, and a new batch is written
        ``FLUSH_SECONDS`` after its first line."""
        entries = self.entries
        if len(entries) >= MAX_LINES:
            self.flush()
            entries = self.entries
        if not entries:
            asyncio.get_running_loop().call_later(FLUSH_SECONDS, self.flush)
        return entries

    def flush(self) -> None:
        if self.entries:
            entries, self.entries = self.entries, []
            self.stream.write(format_lines(entries, self._stamps))
            self.stream.flush()

    def logger_class(self) -> type[AbstractAccessLogger]:
        """The class to give ``web.run_app(access_log_class=...)``: every instance writes to this buffer."""
        shared = self

        class BufferedAccessLogger(AbstractAccessLogger):
            __slots__ = ("remote",)

            def __init__(self, logger: logging.Logger, log_format: str) -> None:
                super().__init__(logger, log_format)
                self.remote: str | None = None  # one connection's peer: read from its first request

            @property
            def enabled(self) -> bool:
                return self.logger.isEnabledFor(logging.INFO)

            def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
                remote = self.remote
                if remote is None:
                    remote = self.remote = request.remote or "-"
                shared.batch().append((remote, wall_clock(), request.method, request.raw_path, request.version,
                                       response.status, response.body_length, time))

        return BufferedAccessLogger
