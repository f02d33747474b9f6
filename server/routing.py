"""Remembering which route a path resolved to, so a repeated request skips aiohttp's route search.

aiohttp resolves a request by walking the prefixes of its path - from the whole path up to ``/``, one
dictionary lookup each - and trying, in registration order, the regular expression of each route
indexed under a prefix. Every namespaced route shares the prefix ``/v3/namespaces``, so a field-lineage
GET costs half a dozen prefix lookups, three pattern matches and three coroutines - after the network,
one of the largest single costs of a cached request.

Once the routes are registered, a method and path always resolve the same way (the application has no
domain-matched sub-applications, the only resources that look at more than these two). ``MemoRouter``
is aiohttp's router with a bounded dict in front: a method and path seen before are answered from it;
any other request goes through aiohttp's own search, and its result is remembered when it names one of
the routes given to ``remember`` (the API's route table: a bounded set of patterns with names, unlike
the web view's catch-all pages). A request no route matches is never remembered.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from aiohttp import web


class MemoRouter(web.UrlDispatcher):
    def __init__(self, *, max_entries: int) -> None:
        super().__init__()
        self._max_entries = max_entries
        self._names: frozenset[str] = frozenset()
        self._memo: dict[tuple[str, str], tuple[dict[str, str], web.AbstractRoute]] = {}

    def remember(self, route_names: Iterable[str]) -> None:
        """Remember resolutions to these routes (by name) from now on."""
        self._names = frozenset(route_names)
        self._memo.clear()

    async def resolve(self, request: web.Request) -> web.UrlMappingMatchInfo:
        key = (request.method, request.rel_url.path_safe)
        known = self._memo.get(key)
        if known is not None:
            return web.UrlMappingMatchInfo(*known)  # a fresh match info (aiohttp adds the app to it), dict copied
        match_info = await super().resolve(request)
        if match_info.http_exception is None and match_info.route.name in self._names:
            if len(self._memo) >= self._max_entries:
                self._memo.clear()
            self._memo[key] = (dict(match_info), match_info.route)
        return match_info


def application(router: MemoRouter, **options: object) -> web.Application:
    """``web.Application(router=router, **options)``: aiohttp marks its ``router`` argument deprecated (it
    will build its own in a future major version) but still honours it in 3.x; the warning says nothing
    to whoever runs the server, so it is not shown."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="router argument is deprecated", category=DeprecationWarning)
        return web.Application(router=router, **options)  # type: ignore[arg-type]
