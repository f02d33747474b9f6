"""Security: bad token files, size limits, and hostile names that must reach neither SQL text nor Redis
keys (checked in the SQLite file and in the real Redis). The authorization matrix over every route is
``test_authorization.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from lineage.store import open_store
from server.auth import AuthFileError, Authorizer
from server.keys import CACHE
from tests.conftest import RedisProcess, store_sql
from tests.server.conftest import ClientFactory, get_json, post_run, seed_body, simple_body, wait_until

TOKEN_A = "token-for-team-a-0123456789"
TOKEN_B = "token-for-team-b-0123456789"
ADMIN = "operator-token-abcdefghijkl"


@pytest.fixture
def auth_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    hashed = "sha256:" + __import__("hashlib").sha256(TOKEN_B.encode()).hexdigest()
    path.write_text(json.dumps({"teamA": [TOKEN_A], "teamB": [hashed], "*": [ADMIN]}))
    return path


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
    make_client: ClientFactory, redis_server: RedisProcess, store_path: str | Path
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
    with open_store(store_path) as store:
        runs = store_sql(store, "SELECT count(*) FROM runs")[0][0]
        names = {row[0] for row in store_sql(store, "SELECT name FROM datasets")}
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
