"""MemoRouter (server.routing): a remembered resolution is exactly the one aiohttp would have made.

A small app with overlapping patterns (registration order decides), two methods on one path,
percent-encoded segments and a route outside the remembered ones; every request is sent twice, so the
second one is answered by the memo when the first was remembered.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from server.routing import MemoRouter, application

PREFIX = "/v3/namespaces"


def _app(max_entries: int = 100) -> tuple[web.Application, MemoRouter]:
    def answer(label: str) -> Any:
        async def handler(request: web.Request) -> web.Response:
            return web.json_response({"route": label, "match": dict(request.match_info)})

        return handler

    memo = MemoRouter(max_entries=max_entries)
    app = application(memo)
    app.router.add_route("GET", PREFIX + "/{ns}/fields", answer("fields"), name="fields")
    app.router.add_route("GET", PREFIX + "/{ns}/{other}", answer("other"), name="other")
    app.router.add_route("POST", PREFIX + "/{ns}/fields", answer("post"), name="post")
    app.router.add_route("GET", "/pages/{path:.*}", answer("page"), name="page")
    memo.remember(["fields", "other", "post"])
    return app, memo


async def _twice(client: Any, method: str, path: str) -> tuple[int, Any]:
    answers = []
    for _ in range(2):
        response = await client.request(method, path)
        answers.append((response.status, await response.json() if response.status == 200 else None))
    assert answers[0] == answers[1], (method, path, answers)
    return answers[0]


async def test_repeated_requests_resolve_as_aiohttp_does(aiohttp_client: Any) -> None:
    app, memo = _app()
    client = await aiohttp_client(app)
    assert await _twice(client, "GET", f"{PREFIX}/a/fields") == (200, {"route": "fields", "match": {"ns": "a"}})
    assert await _twice(client, "GET", f"{PREFIX}/a/lineage") == (
        200, {"route": "other", "match": {"ns": "a", "other": "lineage"}})
    assert await _twice(client, "POST", f"{PREFIX}/a/fields") == (200, {"route": "post", "match": {"ns": "a"}})
    assert await _twice(client, "GET", f"{PREFIX}/a%20b/%C3%A9t%C3%A9") == (
        200, {"route": "other", "match": {"ns": "a b", "other": "été"}})
    assert len(memo._memo) == 4


async def test_unmatched_requests_are_not_remembered(aiohttp_client: Any) -> None:
    app, memo = _app()
    client = await aiohttp_client(app)
    assert (await _twice(client, "DELETE", f"{PREFIX}/a/fields"))[0] == 405
    assert (await _twice(client, "GET", f"{PREFIX}/a/b/c"))[0] == 404
    assert (await _twice(client, "GET", "/elsewhere"))[0] == 404
    assert not memo._memo


async def test_the_memo_is_bounded(aiohttp_client: Any) -> None:
    app, memo = _app(max_entries=2)
    client = await aiohttp_client(app)
    for name in ("a", "b", "c", "d", "e"):
        assert (await _twice(client, "GET", f"{PREFIX}/{name}/fields"))[0] == 200
        assert len(memo._memo) <= 2


async def test_routes_not_named_to_remember_resolve_but_are_not_remembered(aiohttp_client: Any) -> None:
    app, memo = _app()
    client = await aiohttp_client(app)
    assert await _twice(client, "GET", "/pages/a/b") == (200, {"route": "page", "match": {"path": "a/b"}})
    assert not memo._memo


def test_the_router_argument_warns_nobody() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        app = application(MemoRouter(max_entries=1))
    assert isinstance(app.router, MemoRouter)
