"""A real HTTP service on a free loopback port for the `invoke-http` tests (no mocks of the network).

`serve(handler)` runs a ThreadingHTTPServer with the test's handler class in a thread and stops it afterwards;
`JsonHandler.answer` sends a status with a JSON (or raw) body, so handlers only say what to answer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class JsonHandler(BaseHTTPRequestHandler):
    """A quiet handler with one helper to answer; subclasses implement do_POST."""

    def read_json(self) -> object:
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")

    def answer(self, status: int, payload: object = None, *, raw: bytes | None = None,
               headers: dict[str, str] | None = None) -> None:
        data = raw if raw is not None else (b"" if payload is None else json.dumps(payload).encode())
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if status != 204:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """The service's base URL (`http://127.0.0.1:<port>`) while it runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
