"""Where the lineage store lives when nobody says: the one default shared by every command.

A store location is a SQLite file path or a PostgreSQL URL (``postgresql://user@host/db``).
``$WRANGLER_STORE`` wins; otherwise ``$XDG_DATA_HOME/wrangler-lineage/lineage.sqlite`` (by default
``~/.local/share/wrangler-lineage/lineage.sqlite``), so `wrangler run`, `wrangler history` and
`wrangler serve` read and write the same store without flags.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STORE_ENV = "WRANGLER_STORE"
STORE_FILE = Path("wrangler-lineage") / "lineage.sqlite"
URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str | os.PathLike[str]) -> bool:
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """The SQLite store path from the environment, or the per-user data directory (not created here)."""
    env = os.environ if environ is None else environ
    explicit = env.get(STORE_ENV, "").strip()
    if explicit and not is_url(explicit):
        return Path(explicit).expanduser()
    data_home = env.get("XDG_DATA_HOME", "").strip()
    base = Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share"
    return base / STORE_FILE


def store_location(given: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None) -> str | Path:
    """``given`` (a ``--store`` value), else ``$WRANGLER_STORE``, else the per-user file: a URL stays a string."""
    if given is not None and str(given).strip():
        text = os.fspath(given)
        return text if is_url(text) else Path(text).expanduser()
    env = os.environ if environ is None else environ
    explicit = env.get(STORE_ENV, "").strip()
    if is_url(explicit):
        return explicit
    return default_path(env)


def describe(location: str | Path) -> str:
    """The location for messages: a URL without its password."""
    if isinstance(location, str) and is_url(location):
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(location)
        if parts.password is not None:
            host = parts.netloc.rsplit("@", 1)[-1]
            return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
    return str(location)
