"""The lineage web view: a handful of static files served by `wrangler serve` itself.

Plain ES modules, CSS and SVG with no build step and nothing fetched from elsewhere, so the view
works offline and needs no Node. Every page path (``/``, ``/ui/...``, ``/docs/reference``) answers the same
shell, ``index.html``; its script reads the path and query string and draws the screen from the
JSON API, so every screen is a deep link and the browser's back and forward work.

Served apart from the API on purpose: these routes are registered outside the route table (no
OpenAPI entry, no token, no cache, not behind the namespaced route memo), so they add nothing to
the work of a lineage request. The files are read once into memory with a content hash as ETag.
"""

from __future__ import annotations

import functools
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from aiohttp import hdrs, web

from server.ui.swagger import setup_swagger

STATIC_DIR = Path(__file__).parent / "static"
SHELL = "index.html"
ASSET_PREFIX = "/static/"
PAGE_PATHS = ("/", "/ui", "/ui/{path:.*}", "/docs/reference")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml",
          ".png": "image/png", ".json": "application/json", ".txt": "text/plain"}


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str
    etag: str


@functools.lru_cache(maxsize=1)
def load_assets(directory: Path = STATIC_DIR) -> dict[str, Asset]:
    """Every file under ``directory`` by its path relative to it (``js/app.js``)."""
    assets: dict[str, Asset] = {}
    for path in sorted(directory.rglob("*")):
        if not path.is_file():
            continue
        body = path.read_bytes()
        content_type = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        etag = hashlib.sha256(body).hexdigest()[:20]
        assets[path.relative_to(directory).as_posix()] = Asset(body, content_type, etag)
    return assets


def _answer(request: web.Request, asset: Asset) -> web.Response:
    etag = f'"{asset.etag}"'
    headers = {**SECURITY_HEADERS, hdrs.ETAG: etag}
    if request.headers.get(hdrs.IF_NONE_MATCH) == etag:
        return web.Response(status=304, headers=headers)
    charset = "utf-8" if asset.content_type.startswith("text/") or asset.content_type.endswith("json") else None
    return web.Response(body=asset.body, content_type=asset.content_type, charset=charset, headers=headers)


def setup_ui(app: web.Application) -> None:
    """Register the pages and the files (outside the route table: the guards ask no token for them)."""
    assets = load_assets()
    shell = assets[SHELL]

    async def page(request: web.Request) -> web.Response:
        """Any screen of the web view: the shell, which draws the screen the path names."""
        return _answer(request, shell)

    async def asset(request: web.Request) -> web.Response:
        found = assets.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound()
        return _answer(request, found)

    for path in PAGE_PATHS:
        app.router.add_get(path, page)
    setup_swagger(app)
    app.router.add_get(ASSET_PREFIX + "{name:.+}", asset)
