"""The buffered access log of `wrangler serve` (server.accesslog) on a real aiohttp server on loopback.

A line per request in Common Log Format plus the seconds taken, with the request target as sent (query and
percent-encoding kept), the peer of each connection, the status and bytes sent; written without an
explicit flush once the batch's delay has passed, and everything left written by ``flush``.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re

import aiohttp
import pytest
from aiohttp import web

from server.accesslog import ACCESS_LOGGER, AccessLog

LINE = re.compile(r'(\S+) - - \[(\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} \+0000)\] "(\w+) (\S+) HTTP/1\.1" (\d{3}) (\d+) '
                  r"(\d+\.\d{6})")


async def _serve(log: AccessLog) -> tuple[web.AppRunner, str]:
    async def answer(request: web.Request) -> web.Response:
        if request.match_info["name"] == "missing":
            raise web.HTTPNotFound()
        return web.Response(body=b"x" * len(request.match_info["name"]))

    app = web.Application()
    app.router.add_get("/items/{name}", answer)
    runner = web.AppRunner(app, access_log=logging.getLogger(ACCESS_LOGGER), access_log_class=log.logger_class())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}"


async def test_one_line_per_request_as_sent(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)  # the access log follows the logger's level
    stream = io.StringIO()
    log = AccessLog(stream)
    runner, base = await _serve(log)
    try:
        async with aiohttp.ClientSession() as session:
            for path in ("/items/abc?x=1&y=%20z", "/items/%C3%A9t%C3%A9", "/items/missing"):
                async with session.get(base + path) as response:
                    await response.read()
        assert stream.getvalue() == ""  # nothing written yet: the batch waits
        log.flush()
    finally:
        await runner.cleanup()
    lines = stream.getvalue().splitlines()
    parsed = [LINE.fullmatch(line) for line in lines]
    assert all(parsed), lines
    fields = [match.groups() for match in parsed if match]
    assert [(f[2], f[3], f[4]) for f in fields] == [("GET", "/items/abc?x=1&y=%20z", "200"),
                                                    ("GET", "/items/%C3%A9t%C3%A9", "200"),
                                                    ("GET", "/items/missing", "404")]
    sizes = [int(f[5]) for f in fields]  # bytes sent, headers included (aiohttp's %b): 3-byte bodies both
    assert sizes[0] == sizes[1] > 3
    assert {f[0] for f in fields} == {"127.0.0.1"}


async def test_a_batch_is_written_without_an_explicit_flush(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    stream = io.StringIO()
    log = AccessLog(stream)
    runner, base = await _serve(log)
    try:
        async with aiohttp.ClientSession() as session, session.get(base + "/items/a") as response:
            await response.read()
        for _ in range(200):  # the write is due FLUSH_SECONDS after the line; a loaded machine may be late
            if stream.getvalue():
                break
            await asyncio.sleep(0.05)
        assert LINE.fullmatch(stream.getvalue().rstrip("\n"))
        assert not log.entries
    finally:
        await runner.cleanup()


def test_lines_of_a_batch_in_order() -> None:
    from aiohttp.http import HttpVersion11

    from server.accesslog import format_lines

    new_year = 1767225600.0  # 2026-01-01T00:00:00Z
    text = format_lines([("10.0.0.1", new_year + 0.9, "POST", "/a?b=c", HttpVersion11, 201, 12, 0.5),
                         ("::1", new_year + 1.2, "GET", "/", HttpVersion11, 304, 0, 0.0000004)])
    assert text == ('10.0.0.1 - - [01/Jan/2026:00:00:00 +0000] "POST /a?b=c HTTP/1.1" 201 12 0.500000\n'
                    '::1 - - [01/Jan/2026:00:00:01 +0000] "GET / HTTP/1.1" 304 0 0.000000\n')
