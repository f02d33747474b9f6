"""Every error is JSON - aiohttp's own protocol-level ones included, without tracebacks in the log - and a
JSON route refuses a body that is not JSON with a 415 (issue 21, bug 7)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from server.routes import all_specs
from tests.server.conftest import NS, RUNS, ClientFactory, seed_body

CRLF = b"\r\n"
MALFORMED: dict[str, bytes] = {
    "request line over 8190 bytes": b"GET /v3/namespaces/ns/datasets/" + b"d" * 9000
                                    + b"/fields HTTP/1.1\r\nHost: x\r\n\r\n",
    "header over 8190 bytes": b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
    "too many headers": b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                        + b"".join(b"X-H%d: v\r\n" % i for i in range(200)) + CRLF,
    "invalid method": b"G(T / HTTP/1.1\r\nHost: x\r\n\r\n",
    "TLS on the HTTP port": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40,
    "space in a header name": b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
    "unknown HTTP version": b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n",
    "broken chunk size": b"POST /v3/lineage/recipe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "Content-Length and chunked": b"POST /v3/lineage/recipe HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                                  b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "Content-Length not a number": b"POST /v3/lineage/recipe HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
}


async def _raw(client: TestClient, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` as it is on a new connection; the status, headers and body of the answer."""
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    try:
        writer.write(data)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body


@pytest.mark.parametrize("name", sorted(MALFORMED))
async def test_protocol_errors_are_json_and_log_no_traceback(
    make_client: ClientFactory, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    client = await make_client()
    with caplog.at_level(logging.DEBUG):
        status, headers, body = await _raw(client, MALFORMED[name])
        await asyncio.sleep(0.05)  # let the protocol handler finish logging
    assert status == 400
    assert headers["content-type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["type"] == "bad_request" and error["message"]
    assert not [record for record in caplog.records if record.exc_info], [r.getMessage() for r in caplog.records]
    assert any("refused a malformed request" in record.getMessage() for record in caplog.records)
    if name.endswith("over 8190 bytes"):
        assert "longer than 8190 bytes" in error["message"]
    assert (await client.get("/healthz")).status == 200  # and the server goes on


NOT_JSON: dict[str, dict[str, Any]] = {
    "text/plain": {"data": "{}", "headers": {"Content-Type": "text/plain"}},
    "XML": {"data": "<run/>", "headers": {"Content-Type": "application/xml"}},
    "form": {"data": {"recipe": "rename :a :b"}},
    "multipart": {"data": b"--b\r\n\r\n{}\r\n--b--", "headers": {"Content-Type": "multipart/form-data; boundary=b"}},
    "no content type": {"data": b"{}", "skip_auto_headers": ["Content-Type"]},
    "JSON in Latin-1": {"data": b"{}", "headers": {"Content-Type": "application/json; charset=latin-1"}},
}


def _json_routes() -> list[tuple[str, str]]:
    routes = [(spec.method, spec.path.replace("{ns}", NS)) for spec in all_specs() if spec.body is not None]
    # recording a run, a recipe's lineage and its findings (the web view's playground): a new JSON route belongs here
    assert len(routes) == 3
    return routes


@pytest.mark.parametrize("kind", sorted(NOT_JSON))
async def test_a_body_that_is_not_json_is_a_415(make_client: ClientFactory, kind: str) -> None:
    client = await make_client()
    for method, path in _json_routes():
        body = seed_body("sneaky") if path == RUNS else {"recipe": "rename :a :b"}
        options = dict(NOT_JSON[kind])
        if isinstance(options["data"], bytes) and options["data"] == b"{}":
            options["data"] = json.dumps(body).encode()  # a valid JSON body, only labelled wrong
        response = await client.request(method, path, **options)
        error = (await response.json())["error"]
        assert response.status == 415, (kind, path, error)
        assert error["type"] == "unsupported_media_type" and "JSON" in error["message"]
    missing = await client.get(f"{RUNS}/sneaky")
    assert missing.status == 404  # the 415 stored nothing


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "Application/JSON; charset=UTF-8", "application/vnd.wrangler+json"])
async def test_json_media_types_are_accepted(make_client: ClientFactory, content_type: str) -> None:
    client = await make_client()
    response = await client.post(RUNS, data=json.dumps(seed_body()), headers={"Content-Type": content_type})
    assert response.status == 201, await response.text()


async def test_a_415_needs_a_token_first(make_client: ClientFactory, tmp_path: Any) -> None:
    """Who may not call the route learns nothing about what it accepts."""
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({NS: ["token-0123456789abcdef"]}))
    client = await make_client(auth=auth)
    response = await client.post(RUNS, data="{}", headers={"Content-Type": "text/plain"})
    assert response.status == 401


async def test_unknown_routes_and_methods_are_json(make_client: ClientFactory) -> None:
    client = await make_client()
    for method, path, status in (("GET", "/nope", 404), ("DELETE", RUNS, 405), ("PUT", "/healthz", 405)):
        response = await client.request(method, path)
        assert response.status == status and response.content_type == "application/json"
        assert (await response.json())["error"]["type"] in ("not_found", "method_not_allowed")
