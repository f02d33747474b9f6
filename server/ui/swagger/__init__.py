"""``/docs``: Swagger UI over the server's own ``/openapi.json``, from the ``swagger-ui-py`` package.

Why a package and not a CDN: the view must work offline and behind firewalls, and a pinned Python
dependency is how a pip-installed server ships third-party files without committing a copy of them.
Only the four files the page needs are served, read once into memory; the page and its start-up
script are ours (the Content-Security-Policy forbids inline scripts). Swagger UI writes inline
``style`` attributes, so this page alone allows inline styles; scripts stay ``'self'`` only.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from aiohttp import hdrs, web

HERE = Path(__file__).parent
DOCS_PATH = "/docs"
ASSET_PREFIX = "/docs/swagger/"
#: The files of the package the page loads, and nothing else of it.
PACKAGE_FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")
OUR_FILES = ("index.html", "start.js")
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".png": "image/png"}
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


class SwaggerUiMissing(RuntimeError):
    """The ``swagger-ui-py`` dependency is not installed (``pip install swagger-ui-py``)."""


def package_dir() -> Path:
    try:
        import swagger_ui
    except ImportError as error:  # pragma: no cover - a broken install
        raise SwaggerUiMissing("/docs needs the swagger-ui-py package: pip install swagger-ui-py") from error
    return Path(swagger_ui.__file__).parent / "static"


@functools.lru_cache(maxsize=1)
def load_files() -> dict[str, tuple[bytes, str, str]]:
    """Name → (body, content type, ETag) for the page, its script and the package's files."""
    found: dict[str, tuple[bytes, str, str]] = {}
    sources = [(name, package_dir() / name) for name in PACKAGE_FILES] + [(name, HERE / name) for name in OUR_FILES]
    for name, path in sources:
        body = path.read_bytes()
        found[name] = (body, _TYPES[path.suffix], hashlib.sha256(body).hexdigest()[:20])
    return found


def _answer(request: web.Request, name: str) -> web.Response:
    body, content_type, tag = load_files()[name]
    etag = f'"{tag}"'
    headers = {**HEADERS, hdrs.ETAG: etag}
    if request.headers.get(hdrs.IF_NONE_MATCH) == etag:
        return web.Response(status=304, headers=headers)
    charset = "utf-8" if content_type.startswith("text/") else None
    return web.Response(body=body, content_type=content_type, charset=charset, headers=headers)


def setup_swagger(app: web.Application) -> None:
    """Register ``/docs`` and its files: like the web view's, outside the API's route table, so no token."""
    load_files()  # fail at start-up, not on the first visit, when the package is missing

    async def page(request: web.Request) -> web.Response:
        return _answer(request, "index.html")

    async def asset(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in load_files() or name == "index.html":
            raise web.HTTPNotFound()
        return _answer(request, name)

    app.router.add_get(DOCS_PATH, page)
    app.router.add_get(ASSET_PREFIX + "{name}", asset)
