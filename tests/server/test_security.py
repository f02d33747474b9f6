"""Security: per-namespace bearer tokens on every route, size limits, and hostile names that must
reach neither SQL text nor Redis keys (checked in the SQLite file and in the real Redis).
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp.test_utils import TestClient

from server.auth import AuthFileError, Authorizer
from server.keys import CACHE
from server.routes import all_specs
from server.routes.spec import RouteSpec
from tests.conftest import RedisProcess
from tests.server.conftest import ClientFactory, get_json, post_run, seed_body, simple_body, wait_until

TOKEN_A = "token-for-team-a-0123456789"
TOKEN_B = "token-for-team-b-0123456789"
ADMIN = "operator-token-abcdefghijkl"
VALUES = {"ns": "teamA", "ds": "EmployeeData", "field": "ID", "col": "ID", "run": "run1"}
QUERIES = {"cdap_fields": "start=0&end=now", "cdap_field_summary": "start=0&end=now&direction=both",
           "cdap_field_operations": "start=0&end=now", "cdap_all_field_lineage": "start=0&end=now"}


@pytest.fixture
def auth_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    hashed = "sha256:" + __import__("hashlib").sha256(TOKEN_B.encode()).hexdigest()
    path.write_text(json.dumps({"teamA": [TOKEN_A], "teamB": [hashed], "*": [ADMIN]}))
    return path


def _url(spec: RouteSpec) -> str:
    path = spec.path
    for key, value in VALUES.items():
        path = path.replace("{" + key + "}", value)
    query = QUERIES.get(spec.name)
    return f"{path}?{query}" if query else path


def _body(spec: RouteSpec) -> Any:
    if spec.name == "record_run":
        return seed_body("run2")
    if spec.name == "recipe_lineage":
        return {"recipe": "rename :a :b"}
    return None


async def _call(client: TestClient, spec: RouteSpec, token: str | None, *, raw: str | None = None) -> int:
    headers = {"Authorization": raw if raw is not None else f"Bearer {token}"} if (token or raw) else {}
    response = await client.request(spec.method, _url(spec), json=_body(spec), headers=headers)
    if response.status in (401, 403):
        error = (await response.json())["error"]
        assert error["type"] == ("unauthorized" if response.status == 401 else "forbidden")
        if response.status == 401:
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
    return response.status


async def test_auth_matrix_over_every_route(make_client: ClientFactory, auth_file: Path) -> None:
    client = await make_client(auth=auth_file)
    await post_run(client, seed_body("run1"), ns="teamA", headers={"Authorization": f"Bearer {TOKEN_A}"})
    specs = all_specs()
    assert len(specs) == 17
    for spec in specs:
        anonymous = await _call(client, spec, None)
        if spec.public:
            assert anonymous == 200, spec.name
            continue
        assert anonymous == 401, spec.name
        assert await _call(client, spec, None, raw=f"Basic {TOKEN_A}") == 401, spec.name
        assert await _call(client, spec, "not-a-known-token-at-all") == 401, spec.name
        owner, admin, other = [await _call(client, spec, t) for t in (TOKEN_A, ADMIN, TOKEN_B)]
        assert owner in (200, 201), (spec.name, owner)
        assert admin in (200, 201), (spec.name, admin)
        if spec.namespaced:
            assert other == 403, spec.name
        else:  # POST /v3/lineage/recipe reads no namespace: any valid token will do
            assert other == 200, spec.name


async def test_forbidden_namespace_never_reaches_the_handler(make_client: ClientFactory, auth_file: Path) -> None:
    client = await make_client(auth=auth_file)
    response = await client.post("/v3/namespaces/teamA/lineage/runs", json=seed_body("sneaky"),
                                 headers={"Authorization": f"Bearer {TOKEN_B}"})
    assert response.status == 403
    status, _, _ = await get_json(client, "/v3/namespaces/teamA/lineage/runs/sneaky",
                                  headers={"Authorization": f"Bearer {TOKEN_A}"})
    assert status == 404


@pytest.mark.parametrize(
    ("content", "fragment"),
    [("[]", "non-empty object"), ('{"ns": "short"}', "list of tokens"), ('{"ns": ["short"]}', "at least 16"),
     ('{"ns": ["sha256:abc"]}', "64 lowercase hex"), ("{", "not valid JSON")],
)
def test_bad_auth_files_are_refused_with_a_reason(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "auth.json"
    path.write_text(content)
    with pytest.raises(AuthFileError, match=fragment):
        Authorizer.from_file(path)


# --------------------------------------------------------------------------- size limits


async def test_request_size_limits(make_client: ClientFactory) -> None:
    client = await make_client(max_body_bytes=4096, max_query_bytes=256)
    big = seed_body()
    big["operations"][0]["description"] = "x" * 8000
    response = await client.post("/v3/namespaces/ns/lineage/runs", json=big)
    assert response.status == 413 and (await response.json())["error"]["type"] == "payload_too_large"

    async def chunks() -> Any:
        for _ in range(10):
            yield b"x" * 1000

    response = await client.post("/v3/lineage/recipe", data=chunks(), headers={"Content-Type": "application/json"})
    assert response.status == 413  # no Content-Length: stopped while reading

    status, _, body = await get_json(client, "/v3/namespaces/ns/datasets/d/fields?prefix=" + "p" * 300)
    assert status == 414 and body["error"]["type"] == "uri_too_long"
    status, _, body = await get_json(client, "/v3/namespaces/ns/datasets/" + "d" * 257 + "/fields")
    assert status == 400 and body["error"]["parameter"] == "ds"


# --------------------------------------------------------------------------- hostile names

HOSTILE = [
    "x'; DROP TABLE runs; --",
    'quote"d',
    "%",
    "_",
    "a:b:*",
    "{x}",
    "a/b",
    "back\\slash",
    "名前 with spaces",
    "wl:v1:*",
    "emoji-🙂",
]


async def test_hostile_names_round_trip_and_reach_neither_sql_nor_redis_keys(
    make_client: ClientFactory, redis_server: RedisProcess, store_path: Path
) -> None:
    client = await make_client(redis=redis_server.url, cache_prefix="sec")

    async def subscribed() -> bool:
        return client.server.app[CACHE].invalidator.subscribed

    await wait_until(subscribed)
    ns = "evil'ns;--"
    for i, name in enumerate(HOSTILE):
        await post_run(client, simple_body(f"run'{i}", f"src{name}", name, [name, "plain"]), ns=quote(ns, safe=""))
    for name in HOSTILE:
        url = f"/v3/namespaces/{quote(ns, safe='')}/datasets/{quote(name, safe='')}/fields"
        for expected in ("miss", "hit"):
            status, headers, body = await get_json(client, url)
            assert status == 200, (name, body)
            assert headers["X-Cache"] == expected
            assert (body["namespace"], body["dataset"]) == (ns, name)
            assert {f["name"] for f in body["fields"]} == {name, "plain"}
        field_url = f"/v3/namespaces/{quote(ns, safe='')}/datasets/{quote(name, safe='')}/fields/" \
                    f"{quote(name, safe='')}/lineage"
        _, _, lineage = await get_json(client, field_url)
        assert {(f["dataset"], f["field"]) for f in lineage["groups"][0]["fields"]} == {(f"src{name}", "record")}

    # LIKE wildcards in a prefix are literal text
    status, _, body = await get_json(client, f"/v3/namespaces/{quote(ns, safe='')}/datasets/%25/fields?prefix=%25")
    assert status == 200 and [f["name"] for f in body["fields"]] == ["%"]
    status, _, body = await get_json(client, f"/v3/namespaces/{quote(ns, safe='')}/datasets/_/fields?prefix=_")
    assert [f["name"] for f in body["fields"]] == ["_"]

    # every table is intact and holds the names as data
    with sqlite3.connect(store_path) as conn:
        runs = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
        names = {row[0] for row in conn.execute("SELECT name FROM datasets")}
    assert runs == len(HOSTILE)
    assert set(HOSTILE) <= names

    from redis.asyncio import Redis

    redis = Redis.from_url(redis_server.url)
    try:
        keys = [key.decode() async for key in redis.scan_iter(match="sec:*")]
    finally:
        await redis.aclose()
    assert len(keys) >= len(HOSTILE)
    shape = re.compile(r"sec:v\d+:[0-9a-f]{16}:[0-9a-f]{64}:\d+")
    assert all(shape.fullmatch(key) for key in keys), keys


async def test_control_characters_in_names_are_refused(make_client: ClientFactory) -> None:
    client = await make_client()
    status, _, body = await get_json(client, "/v3/namespaces/ns/datasets/a%00b/fields")
    assert status == 400 and body["error"]["parameter"] == "ds"
    bad = simple_body("r", "src", "dst", ["ok"])
    bad["destination"]["name"] = "new\nline"
    response = await client.post("/v3/namespaces/ns/lineage/runs", json=bad)
    assert response.status == 400 and (await response.json())["error"]["parameter"].startswith("destination")
