"""The Redis cache against a real redis-server: hits, exact invalidation, single flight, fail-open,
reconnection, and near-caches of two app instances kept coherent through Redis.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient

from bench.examples import employee_destination, employee_operations, employee_run
from lineage.recorder import LineageRecorder
from lineage.store import open_store
from server.keys import CACHE
from tests.conftest import RedisProcess
from tests.server.conftest import DATASET, NS, T0, ClientFactory, get_json, post_run, seed_body, simple_body, wait_until

pytestmark = pytest.mark.redis
BASE = f"/v3/namespaces/{NS}/datasets"


def computations(client: TestClient) -> int:
    return client.server.app[CACHE].store_computations


async def subscribed(client: TestClient) -> None:
    async def ready() -> bool:
        return client.server.app[CACHE].invalidator.subscribed

    await wait_until(ready)


async def test_miss_then_hit_and_a_second_instance_hits_in_redis(make_client: ClientFactory,
                                                                 redis_server: RedisProcess) -> None:
    first = await make_client(redis=redis_server.url, cache_prefix="t1")
    await subscribed(first)
    await post_run(first, seed_body())
    url = f"{DATASET}/fields/ID/lineage"
    status, headers, body = await get_json(first, url)
    assert status == 200 and headers["X-Cache"] == "miss" and body["groups"]
    _, again, same = await get_json(first, url)
    assert again["X-Cache"] == "hit" and again["X-Cache-Layer"] == "near" and same == body
    assert computations(first) == 1

    second = await make_client(redis=redis_server.url, cache_prefix="t1")
    await subscribed(second)
    _, shared, from_redis = await get_json(second, url)
    assert shared["X-Cache"] == "hit" and shared["X-Cache-Layer"] == "redis" and from_redis == body
    assert computations(second) == 0


async def test_post_invalidates_exactly_the_datasets_it_touches(make_client: ClientFactory,
                                                               redis_server: RedisProcess) -> None:
    client = await make_client(redis=redis_server.url, cache_prefix="t2")
    await subscribed(client)
    await post_run(client, seed_body("run1", T0))
    employee, other = f"{DATASET}/fields/ID/lineage", f"{BASE}/Elsewhere/fields"
    await post_run(client, simple_body("e1", "Far", "Elsewhere", ["z"], start=T0))
    for url in (employee, other):
        assert (await get_json(client, url))[1]["X-Cache"] == "miss"
        assert (await get_json(client, url))[1]["X-Cache"] == "hit"

    # a run touching EmployeeData: its answers are recomputed at once, the other dataset's are not
    await post_run(client, seed_body("run2", T0 + 100))
    _, headers, body = await get_json(client, employee)
    assert headers["X-Cache"] == "miss"
    assert [r["run_id"] for r in body["groups"][0]["runs"]] == ["run2", "run1"]
    assert (await get_json(client, other))[1]["X-Cache"] == "hit"

    # a run touching only Elsewhere leaves EmployeeData cached
    await post_run(client, simple_body("e2", "Far", "Elsewhere", ["z", "w"], start=T0 + 5))
    assert (await get_json(client, employee))[1]["X-Cache"] == "hit"
    _, headers, fields = await get_json(client, other)
    assert headers["X-Cache"] == "miss" and {f["name"] for f in fields["fields"]} == {"z", "w"}

    # an idempotent re-post changes nothing, so nothing is invalidated
    again = await client.post(f"/v3/namespaces/{NS}/lineage/runs", json=seed_body("run2", T0 + 100))
    assert again.status == 200
    assert (await get_json(client, employee))[1]["X-Cache"] == "hit"


async def test_multi_level_answers_follow_runs_on_other_datasets(make_client: ClientFactory,
                                                                 redis_server: RedisProcess) -> None:
    client = await make_client(redis=redis_server.url, cache_prefix="t3")
    await subscribed(client)
    await post_run(client, simple_body("bc", "B", "C", ["x"], start=T0, read="x"))
    url = f"{BASE}/C/fields/lineage?level=2"
    _, _, before = await get_json(client, url)
    assert (await get_json(client, url))[1]["X-Cache"] == "hit"
    await post_run(client, simple_body("ab", "A", "B", ["x"], start=T0 + 1))  # does not touch C
    _, headers, after = await get_json(client, url)
    assert headers["X-Cache"] == "miss"
    assert len(after["mappings"]) == len(before["mappings"]) + 1


async def test_no_stampede_on_a_hot_key(make_client: ClientFactory, redis_server: RedisProcess) -> None:
    client = await make_client(redis=redis_server.url, cache_prefix="t4")
    await subscribed(client)
    await post_run(client, seed_body())
    url = f"{DATASET}/fields/ID/lineage/openlineage"
    answers = await asyncio.gather(*(get_json(client, url) for _ in range(40)))
    assert {status for status, _, _ in answers} == {200}
    assert len({str(body) for _, _, body in answers}) == 1
    assert computations(client) == 1
    layers = [headers["X-Cache-Layer"] for _, headers, _ in answers]
    assert layers.count("store") == 1 and set(layers) <= {"store", "coalesced", "near"}


async def test_fail_open_when_redis_stops_and_hits_again_after_restart(make_client: ClientFactory,
                                                                       fresh_redis: RedisProcess) -> None:
    client = await make_client(redis=fresh_redis.url)
    await subscribed(client)
    await post_run(client, seed_body())
    url = f"{DATASET}/fields"
    assert (await get_json(client, url))[1]["X-Cache"] == "miss"
    assert (await get_json(client, url))[1]["X-Cache"] == "hit"

    fresh_redis.stop()
    # a key never cached: the store answers at once, whatever the invalidation listener has noticed yet
    status, headers, body = await get_json(client, f"{DATASET}/properties")
    assert status == 200 and headers["X-Cache"] == "bypass" and body["items"]

    async def degraded() -> bool:
        status, _, health = await get_json(client, "/healthz")
        return status == 200 and health["status"] == "degraded" and health["redis"]["status"] == "down"

    await wait_until(degraded)
    for _ in range(3):  # the near-cache is off while invalidations cannot arrive: every answer is a bypass
        status, headers, body = await get_json(client, url)
        assert status == 200 and headers["X-Cache"] == "bypass" and len(body["fields"]) == 5
    # writes still work, and what they change is visible at once
    await post_run(client, simple_body("late", "S", "EmployeeData", ["Extra"], start=T0 + 1))
    _, headers, body = await get_json(client, url)
    assert headers["X-Cache"] == "bypass" and "Extra" in {f["name"] for f in body["fields"]}

    fresh_redis.start()

    async def healthy() -> bool:
        _, _, health = await get_json(client, "/healthz")
        return health["status"] == "ok"

    await wait_until(healthy)

    async def hits() -> bool:
        return (await get_json(client, url))[1]["X-Cache"] == "hit"

    await wait_until(hits)
    _, _, body = await get_json(client, url)
    assert "Extra" in {f["name"] for f in body["fields"]}


async def test_near_caches_of_two_instances_stay_coherent(make_client: ClientFactory,
                                                          redis_server: RedisProcess) -> None:
    reader = await make_client(redis=redis_server.url, cache_prefix="t5", near_cache_max_age=3600.0)
    writer = await make_client(redis=redis_server.url, cache_prefix="t5", near_cache_max_age=3600.0)
    await subscribed(reader)
    await subscribed(writer)
    await post_run(writer, seed_body("run1", T0))
    url = f"{DATASET}/fields/ID/lineage"
    for client in (reader, writer):
        await get_json(client, url)
        _, headers, _ = await get_json(client, url)
        assert headers["X-Cache-Layer"] == "near"

    await post_run(writer, seed_body("run2", T0 + 100))
    _, headers, body = await get_json(writer, url)  # the writer itself: fresh before the POST returned
    assert headers["X-Cache"] == "miss" and len(body["groups"][0]["runs"]) == 2

    # the reader, at once: its store probe saw the commit; no waiting for the Redis message
    _, headers, body = await get_json(reader, url)
    assert [r["run_id"] for r in body["groups"][0]["runs"]] == ["run2", "run1"]
    assert headers["X-Cache-Layer"] != "near"
    _, headers, _ = await get_json(reader, url)
    assert headers["X-Cache"] == "hit"


async def test_two_instances_without_redis_never_serve_what_the_other_made_stale(make_client: ClientFactory) -> None:
    """No Redis, polling off: only the store probe stands between the reader's near-cache and staleness."""
    options = {"near_cache_max_age": 3600.0, "store_poll_interval": 3600.0}
    reader, writer = await make_client(**options), await make_client(**options)
    await post_run(writer, seed_body("run1", T0))
    url = f"{DATASET}/fields"
    await get_json(reader, url)
    assert (await get_json(reader, url))[1]["X-Cache"] == "hit"
    for i in range(3):
        await post_run(writer, simple_body(f"w{i}", "S", "EmployeeData", [f"New{i}"], start=T0 + 10 + i))
        _, headers, body = await get_json(reader, url)
        assert headers["X-Cache"] == "miss"
        assert f"New{i}" in {f["name"] for f in body["fields"]}


async def test_runs_written_straight_into_the_store_reach_the_near_cache(make_client: ClientFactory,
                                                                         store_path: str | Path) -> None:
    client = await make_client(near_cache_max_age=3600.0, store_poll_interval=3600.0)  # no help from polling
    url = f"{DATASET}/fields/ID/lineage"
    await post_run(client, seed_body("run1", T0))
    await get_json(client, url)
    assert (await get_json(client, url))[1]["X-Cache"] == "hit"

    store = open_store(store_path)  # another program, recording without the API
    try:
        LineageRecorder(employee_run("direct", T0 + 100), store).record(employee_destination(), employee_operations())
    finally:
        store.close()

    _, headers, body = await get_json(client, url)
    assert headers["X-Cache"] == "miss"
    assert [r["run_id"] for r in body["groups"][0]["runs"]] == ["direct", "run1"]
    other = f"{DATASET}/properties"
    await get_json(client, other)
    assert (await get_json(client, other))[1]["X-Cache"] == "hit"  # one commit, one invalidation: then hits


async def test_redis_values_are_json_bodies_under_hashed_keys(make_client: ClientFactory,
                                                              redis_server: RedisProcess) -> None:
    from redis.asyncio import Redis

    client = await make_client(redis=redis_server.url, cache_prefix="t6")
    await subscribed(client)
    await post_run(client, seed_body())
    _, _, body = await get_json(client, f"{DATASET}/properties")
    redis = Redis.from_url(redis_server.url)
    try:
        keys = [key async for key in redis.scan_iter(match=f"{client.app[CACHE].prefix}:*")]
        assert len(keys) == 1
        raw = await redis.get(keys[0])
    finally:
        await redis.aclose()
    assert raw is not None
    import json

    assert json.loads(raw.partition(b"\n")[2]) == body
    assert await redis_ttl_is_set(redis_server.url, keys[0])


async def redis_ttl_is_set(url: str, key: bytes) -> bool:
    from redis.asyncio import Redis

    redis = Redis.from_url(url)
    try:
        return int(await redis.ttl(key)) > 0
    finally:
        await redis.aclose()


async def test_fail_open_when_redis_is_slow(make_client: ClientFactory, fresh_redis: RedisProcess) -> None:
    """CLIENT PAUSE makes the real Redis hold every command: slower than the budget counts as down."""
    from redis.asyncio import Redis

    client = await make_client(redis=fresh_redis.url, redis_timeout=0.3)
    await subscribed(client)
    await post_run(client, seed_body())
    admin = Redis.from_url(fresh_redis.url)
    try:
        await admin.execute_command("CLIENT", "PAUSE", "3000", "ALL")
        status, headers, body = await get_json(client, f"{DATASET}/fields/ID/lineage")
        assert status == 200 and headers["X-Cache"] == "bypass" and body["groups"]
        status, headers, _ = await get_json(client, f"{DATASET}/fields")
        assert status == 200 and headers["X-Cache"] == "bypass"  # skipped by the breaker, or timed out again
    finally:
        await admin.execute_command("CLIENT", "UNPAUSE")
        await admin.aclose()

    async def hits() -> bool:
        return (await get_json(client, f"{DATASET}/properties"))[1]["X-Cache"] == "hit"

    await wait_until(hits)
