"""Two `wrangler serve` processes on one PostgreSQL store and one redis-server (issue 19): four writers post
runs to both alternately; no run is lost, and a GET from either instance right after a POST to the other
is never stale, although its answer sat in that instance's near-cache a moment before.

Everything is real: two server processes, the session's PostgreSQL (``tests.postgres``), a redis-server,
HTTP connections. What is asserted is what a client behind a load balancer relies on.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from lineage.store import open_store
from tests.conftest import RedisProcess, store_sql
from tests.postgres import PostgresForTests
from tests.server.conftest import NS, RUNS, T0, simple_body, wait_until
from tests.server.served import Served

TIMEOUT = aiohttp.ClientTimeout(total=30)
WRITERS = 4
RUNS_PER_WRITER = 25


@pytest.fixture
def served() -> Iterator[list[Served]]:
    started: list[Served] = []
    yield started
    for server in started:
        server.stop()


async def _ready(http: aiohttp.ClientSession, server: Served) -> bool:
    async with http.get(f"{server.url}/healthz") as response:
        body = await response.json()
    return response.status == 200 and body["redis"]["status"] == ("ok" if server.redis else "disabled")


@pytest.mark.redis
@pytest.mark.parametrize("shared_redis", [True, False], ids=["redis", "no-redis"])
async def test_two_instances_on_one_postgres_store_lose_no_run_and_serve_nothing_stale(
    tmp_path: Path, postgres: PostgresForTests, redis_server: RedisProcess, served: list[Served], shared_redis: bool
) -> None:
    """Without Redis no message warns the other instance at all (its store poll runs every 0.5 s): only the
    store probe (``server.pgprobe``) stands between its near-cache and a stale answer."""
    url = postgres.new_schema()
    redis = redis_server.url if shared_redis else None
    for i in range(2):
        served.append(Served(url, tmp_path / f"serve{i}.log", redis=redis))  # type: ignore[arg-type]
    # both start at once on an empty schema: the migrations race, and must be applied once
    await asyncio.gather(*(asyncio.to_thread(server.start) for server in served))
    acked: dict[str, str] = {}
    failures: list[str] = []
    stale: list[tuple[str, str]] = []
    layers: Counter[str] = Counter()

    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        for server in served:
            await wait_until(lambda server=server: _ready(http, server), timeout=30)

        async def fields(server: Served, dataset: str) -> set[str]:
            async with http.get(f"{server.url}/v3/namespaces/{NS}/datasets/{dataset}/fields?limit=1000") as response:
                body = await response.json()
                assert response.status == 200, body
                layers[f"{response.headers.get('X-Cache')}/{response.headers.get('X-Cache-Layer')}"] += 1
            return {field["name"] for field in body["fields"]}

        async def writer(number: int) -> None:
            dataset = f"Out{number}"
            for i in range(RUNS_PER_WRITER):
                target, other = served[(number + i) % 2], served[(number + i + 1) % 2]
                await fields(other, dataset)  # the other instance caches the answer before the POST
                await fields(other, dataset)
                run_id = f"w{number}-{i}"
                body = simple_body(run_id, f"In{number}", dataset, [f"f{i}"], start=T0 + i)
                async with http.post(f"{target.url}{RUNS}", json=body) as response:
                    if response.status != 201:
                        failures.append(f"{response.status} {await response.text()}")
                        continue
                acked[run_id] = dataset
                if f"f{i}" not in await fields(other, dataset):  # right after the POST returned
                    stale.append((run_id, other.url))

        await asyncio.wait_for(asyncio.gather(*(writer(n) for n in range(WRITERS))), 240)

        unreadable = []
        for run_id in acked:
            for server in served:
                async with http.get(f"{server.url}{RUNS}/{run_id}") as response:
                    if response.status != 200:
                        unreadable.append((server.port, run_id))

    assert [server.stop() for server in served] == [0, 0]
    assert failures == [] and stale == [] and unreadable == []
    assert len(acked) == WRITERS * RUNS_PER_WRITER
    assert layers["hit/near"] > 0, layers  # the near-cache did answer: its staleness was really at stake
    with open_store(url) as store:
        assert store_sql(store, "SELECT count(*) FROM runs") == [(WRITERS * RUNS_PER_WRITER,)]
        assert store_sql(store, "SELECT count(*) FROM schema_migrations") == [(1,)]
