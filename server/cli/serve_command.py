"""`wrangler serve`: the lineage REST API (aiohttp), optionally cached in Redis and behind tokens.

aiohttp and redis are imported only when the command runs, so `wrangler check` stays fast; the
app itself comes from ``server.app.create_app``, the same factory the tests and the benchmark use.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lineage.errors import StoreUnavailableError
from lineage.store.paths import describe, store_location

EXIT_USAGE = 2


def register(commands: Any) -> None:
    serve = commands.add_parser("serve", help="serve the column-lineage REST API")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="port to listen on (default 8080)")
    serve.add_argument("--store", default=None, metavar="FILE|URL",
                       help="lineage store: a SQLite file or postgresql://user@host/db (default $WRANGLER_STORE or "
                            "a file in the per-user data directory)")
    serve.add_argument("--redis", default=None, metavar="URL",
                       help="Redis URL for the shared cache, e.g. redis://127.0.0.1:6379/0 (default: none)")
    serve.add_argument("--auth", type=Path, default=None, metavar="FILE",
                       help="JSON file of per-namespace bearer tokens {namespace: [token, ...]} (default: open)")
    serve.add_argument("--cache-prefix", default="wl", help="prefix of this server's Redis keys (default wl)")
    serve.add_argument("--max-body-bytes", type=int, default=1 << 20, help="largest accepted request body")
    serve.add_argument("--recipe-workers", type=int, default=2, metavar="N",
                       help="processes that analyse recipes sent to POST /v3/lineage/recipe (default 2)")
    serve.add_argument("--recipe-time-limit", type=float, default=5.0, metavar="SECONDS",
                       help="longest one recipe may take to analyse; slower ones are stopped with a 422 (default 5)")
    serve.add_argument("--no-store-probe", action="store_true",
                       help="skip the per-request check for commits by other processes (they are then noticed "
                            "through Redis messages and a 0.5 s store poll)")
    serve.add_argument("--no-access-log", action="store_true", help="no line per request on stderr")
    serve.add_argument("--public-url", default=None, metavar="URL",
                       help="address clients reach this server at (default http://HOST:PORT): OpenLineage facets "
                            "name the schemas it publishes under /openlineage/facets/")
    serve.add_argument("--openlineage-namespace", default="wrangler", metavar="NS",
                       help="OpenLineage namespace of exported datasets recorded without a path (default wrangler)")
    serve.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    serve.set_defaults(handler=serve_command)


def _redis_url(url: str | None) -> str | None:
    if url is None:
        return None
    if urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise ValueError(f"--redis must be a redis://, rediss:// or unix:// URL, got {url!r}")
    return url


def serve_command(args: argparse.Namespace) -> int:
    from aiohttp import web
    from aiohttp.web_log import AccessLogger

    from server.accesslog import ACCESS_LOGGER, AccessLog
    from server.app import create_app
    from server.auth import AuthFileError
    from server.settings import Settings

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings(
            store_path=store_location(args.store),
            host=args.host,
            port=args.port,
            redis_url=_redis_url(args.redis),
            auth_file=args.auth,
            cache_prefix=args.cache_prefix,
            max_body_bytes=args.max_body_bytes,
            recipe_workers=args.recipe_workers,
            recipe_time_limit=args.recipe_time_limit,
            access_log=not args.no_access_log,
            store_probe=not args.no_store_probe,
            public_url=args.public_url,
            openlineage_namespace=args.openlineage_namespace,
        )
        app = create_app(settings)
    except (ValueError, AuthFileError) as error:
        print(f"wrangler serve: {error}", file=sys.stderr)
        return EXIT_USAGE
    access = AccessLog(sys.stderr) if settings.access_log else None

    def announce(_: str) -> None:
        store = describe(settings.store_path)
        print(f"wrangler serve: listening on http://{settings.host}:{settings.port} (store {store}"
              f"{', redis ' + settings.redis_url if settings.redis_url else ''}"
              f"{', auth ' + str(settings.auth_file) if settings.auth_file else ''})", flush=True)

    try:
        web.run_app(app, host=settings.host, port=settings.port, print=announce, handle_signals=True,
                    access_log=logging.getLogger(ACCESS_LOGGER) if access is not None else None,
                    access_log_class=access.logger_class() if access is not None else AccessLogger)
    except StoreUnavailableError as error:
        print(f"wrangler serve: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"wrangler serve: cannot listen on {settings.host}:{settings.port}: {error.strerror}", file=sys.stderr)
        return 1
    finally:
        if access is not None:
            access.flush()
    return 0
