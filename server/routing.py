"""Remembering which route a path resolved to, so a repeated request skips aiohttp's route search.

aiohttp resolves a request by walking the prefixes of its path and trying, in registration order,
the regular expression of each route indexed under a prefix. Every namespaced route shares the
prefix ``/v3/namespaces``, so a field-lineage GET costs three pattern matches, a dozen dictionary
lookups and three coroutines - after the network, the largest single cost of a cached request.

Once the routes are registered, a method and path always resolve the same way. ``RouteMemo`` is a
resource registered *ahead of* the routes of one prefix (so aiohttp tries it first): it answers a
method and path seen before from a bounded dict, and otherwise resolves through those same routes
itself, in their registration order - exactly what aiohttp would do next - and remembers the
result. A request no route matches is not remembered; aiohttp then goes on as without the memo.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from aiohttp import web
from yarl import URL

_NO_METHODS: set[str] = set()
"""Returned with a match, where aiohttp ignores the allowed methods; never mutated."""


class RouteMemo(web.AbstractResource):
    def __init__(self, prefix: str, *, max_entries: int) -> None:
        super().__init__(name=None)
        self._prefix = prefix
        self._max_entries = max_entries
        self._resources: tuple[web.AbstractResource, ...] = ()
        self._memo: dict[tuple[str, str], tuple[dict[str, str], web.AbstractRoute]] = {}

    def stand_in_front_of(self, resources: Sequence[web.AbstractResource]) -> None:
        """The routes this memo answers for: registered after it, under the same prefix, in this order."""
        for resource in resources:
            if resource.canonical.partition("{")[0].rpartition("/")[0] != self._prefix:
                raise ValueError(f"{resource.canonical} is not indexed under {self._prefix}")
        self._resources = tuple(resources)

    async def resolve(self, request: web.Request) -> tuple[web.UrlMappingMatchInfo | None, set[str]]:
        key = (request.method, request.rel_url.path_safe)
        known = self._memo.get(key)
        if known is not None:
            return web.UrlMappingMatchInfo(*known), _NO_METHODS  # copies the match dict
        for resource in self._resources:
            match_info, _ = await resource.resolve(request)
            if match_info is not None:
                if len(self._memo) >= self._max_entries:
                    self._memo.clear()
                self._memo[key] = (dict(match_info), match_info.route)
                return match_info, _NO_METHODS
        return None, _NO_METHODS

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[web.AbstractRoute]:
        return iter(())

    @property
    def canonical(self) -> str:
        return f"{self._prefix}/{{path}}"

    def url_for(self, **kwargs: str) -> URL:
        raise NotImplementedError("RouteMemo stands for other routes; build their URLs instead")

    def add_prefix(self, prefix: str) -> None:
        raise NotImplementedError("RouteMemo is not meant for sub-applications")

    def get_info(self) -> dict[str, str]:
        return {"prefix": self._prefix}

    def raw_match(self, path: str) -> bool:
        return False
