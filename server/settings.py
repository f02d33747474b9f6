"""Everything the server can be told, in one immutable value passed to ``create_app``.

A frozen dataclass rather than module-level configuration so that tests, the benchmark and
`wrangler serve` build apps with different settings side by side in one process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_PREFIX = re.compile(r"[A-Za-z0-9_.-]{1,32}")


@dataclass(frozen=True)
class Settings:
    store_path: Path | str
    """A SQLite file, or a ``postgresql://`` URL (``lineage.store.open_store``)."""
    host: str = "127.0.0.1"
    port: int = 8080
    redis_url: str | None = None
    """None: no shared cache; the in-process near-cache still serves repeated GETs."""
    auth_file: Path | None = None
    """None: no authentication (see ``server.auth`` for the file format)."""

    cache_prefix: str = "wl"
    cache_ttl_seconds: int = 3600
    """Redis values are keyed by the store's watermark, so the TTL only reclaims memory; it is not freshness."""
    near_cache_entries: int = 10_000
    near_cache_max_age: float = 10.0
    """Upper bound on how long a near-cache entry may outlive a lost invalidation message."""
    redis_timeout: float = 0.25
    """Per-command budget: a slower Redis is treated as down (fail open to the store)."""
    redis_retry_after: float = 1.0
    """After a Redis failure, requests skip Redis for this long instead of each paying the timeout."""
    invalidation_ping_interval: float = 1.0
    store_poll_interval: float = 0.5
    """How often the store is checked for runs recorded without going through this API."""

    store_probe: bool = True
    """Check ``PRAGMA data_version`` before each near-cache read (``server.storeprobe``): strict
    coherence with other processes writing the store, for a few microseconds per cached GET."""

    max_body_bytes: int = 1 << 20
    max_query_bytes: int = 4096
    access_log: bool = True

    recipe_workers: int = 2
    """Worker processes that analyse untrusted recipes (``server.recipe_pool``), started on the first one."""
    recipe_time_limit: float = 5.0
    """Seconds one recipe may take to analyse before its worker is killed and the request is a 422."""

    public_url: str | None = None
    """The address clients reach this server at (default ``http://host:port``): the ``_schemaURL`` of our
    OpenLineage facets points at the schemas this server publishes under it."""
    openlineage_namespace: str = "wrangler"
    """OpenLineage namespace of exported datasets recorded without a location (path, URI)."""

    @property
    def facet_base(self) -> str:
        """Where this server publishes its OpenLineage facet schemas (``/openlineage/facets/``)."""
        base = self.public_url or f"http://{self.host}:{self.port}"
        return f"{base.rstrip('/')}/openlineage/facets/"

    def __post_init__(self) -> None:
        if not _PREFIX.fullmatch(self.cache_prefix):
            raise ValueError(f"cache_prefix must match {_PREFIX.pattern}, got {self.cache_prefix!r}")
        if not 0 < self.port < 65536:
            raise ValueError(f"port must be between 1 and 65535, got {self.port}")
        positive = {
            "cache_ttl_seconds": self.cache_ttl_seconds,
            "near_cache_entries": self.near_cache_entries,
            "near_cache_max_age": self.near_cache_max_age,
            "redis_timeout": self.redis_timeout,
            "redis_retry_after": self.redis_retry_after,
            "invalidation_ping_interval": self.invalidation_ping_interval,
            "store_poll_interval": self.store_poll_interval,
            "max_body_bytes": self.max_body_bytes,
            "max_query_bytes": self.max_query_bytes,
            "recipe_workers": self.recipe_workers,
            "recipe_time_limit": self.recipe_time_limit,
        }
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value!r}")
