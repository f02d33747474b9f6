"""Untrusted recipes are analysed off the event loop, in worker processes with a time limit (issue 21, bug 3).

The hostile input is the one the attack campaign used - a line of 100,000 spaces (31 s of
quadratic parsing when the issue was filed) - followed by a long chain of renames, which stays
slower than the test's time limit even once parsing is linear. Every worker is a real process.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from server.errors import UnavailableError
from server.keys import RECIPE_WORKERS
from server.recipe_pool import RecipePool
from tests.server.conftest import DATASET, ClientFactory, post_run, seed_body, wait_until


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Recipe analysis never reads the store: these tests run once, on SQLite, not once per backend."""
    return tmp_path / "lineage.db"

TIME_LIMIT = 0.5
CHAIN = 20_000
#: Slow but linear (the quadratic shapes this once used now parse in milliseconds): a syntax error on every line
#: costs ~15 ms per KiB to report, ~5 s of CPU for these 480 KB, far past TIME_LIMIT on any machine.
HOSTILE = "drop ):\n" * 60_000


def _chain(length: int) -> str:
    return "\n".join(f"rename :c{i} :c{i + 1}" for i in range(length))


async def test_a_hostile_recipe_is_stopped_with_a_422_while_the_server_keeps_answering(
    make_client: ClientFactory,
) -> None:
    client = await make_client(recipe_workers=1, recipe_time_limit=TIME_LIMIT)
    await post_run(client, seed_body())
    lineage = f"{DATASET}/fields/ID/lineage"
    assert (await client.get(lineage)).status == 200  # cached from now on
    warm = await client.post("/v3/lineage/recipe", json={"recipe": "rename :a :b"})
    assert warm.status == 200  # the worker is up: what follows measures the hostile request only

    hostile = asyncio.create_task(client.post("/v3/lineage/recipe", json={"recipe": HOSTILE}))
    answered_meanwhile: list[int] = []
    while not hostile.done():
        health, cached = await asyncio.gather(client.get("/healthz"), client.get(lineage))
        if not hostile.done():
            answered_meanwhile += [health.status, cached.status]
            assert cached.headers["X-Cache"] == "hit"
        await asyncio.sleep(0.02)
    response = await hostile
    error = (await response.json())["error"]
    assert response.status == 422, error
    assert error["type"] == "unprocessable" and error["parameter"] == "recipe"
    assert f"longer than {TIME_LIMIT:g} s" in error["message"]
    assert answered_meanwhile and set(answered_meanwhile) == {200}

    pool = client.server.app[RECIPE_WORKERS]
    assert pool.stopped == 1
    after = await client.post("/v3/lineage/recipe", json={"recipe": "rename :a :b", "schema": ["a"]})
    assert after.status == 200  # a fresh worker took the stopped one's place
    assert (await after.json())["columns"]["b"]["sources"] == ["a"]


async def test_a_deep_rename_chain_is_answered_not_a_500(make_client: ClientFactory) -> None:
    """130 renames of one column nest its lineage tree 260 levels deep; pydantic's serializer refused that (500).

    300 keeps the answer within what Python's own JSON decoder reads back; the worker writes far deeper ones.
    The time limit is not what this test is about: a generous one keeps a busy machine from turning it into a 422.
    """
    client = await make_client(recipe_workers=1, recipe_time_limit=120)
    response = await client.post("/v3/lineage/recipe", json={"recipe": _chain(300)})
    assert response.status == 200
    document = json.loads(await response.read())
    node: Any = document["columns"]["c300"]["tree"]
    depth = 0
    while node["upstream"]:
        node, depth = node["upstream"][0], depth + 1
    assert depth == 300 and node["column"] == "c0"
    deep = await client.post("/v3/lineage/recipe", json={"recipe": _chain(CHAIN)})
    body = await deep.read()
    assert deep.status == 200 and body.count(b'"upstream":[{') == CHAIN


async def test_recipe_errors_from_the_worker_keep_line_and_column(make_client: ClientFactory) -> None:
    client = await make_client(recipe_workers=1)
    response = await client.post("/v3/lineage/recipe", json={"recipe": "rename :a :b\nrename :a"})
    error = (await response.json())["error"]
    assert response.status == 400 and error["parameter"] == "recipe"
    assert error["errors"][0]["line"] == 2 and "column" in error["errors"][0]


async def test_a_worker_killed_from_outside_is_replaced(make_client: ClientFactory) -> None:
    client = await make_client(recipe_workers=1)
    assert (await client.post("/v3/lineage/recipe", json={"recipe": "rename :a :b"})).status == 200
    pool: RecipePool = client.server.app[RECIPE_WORKERS]
    (worker,) = pool._all
    worker.process.kill()
    await worker.process.wait()
    response = await client.post("/v3/lineage/recipe", json={"recipe": "rename :a :b"})
    assert response.status == 200


async def test_every_worker_busy_is_a_503_with_retry_after(client_factory_pool: RecipePool) -> None:
    pool = client_factory_pool
    held = await pool._acquire()  # the only worker, as a long analysis would hold it
    try:
        with pytest.raises(UnavailableError) as raised:
            await pool.analyse("rename :a :b", None)
    finally:
        pool._idle.put_nowait(held)
    assert raised.value.status == 503 and raised.value.retry_after == 1
    assert json.loads(await pool.analyse("rename :a :b", None))["columns"]["b"]["sources"] == ["a"]


@pytest.fixture
async def client_factory_pool() -> Any:
    pool = RecipePool(size=1, time_limit=TIME_LIMIT)
    try:
        yield pool
    finally:
        await pool.close()


async def test_workers_start_only_when_a_recipe_arrives_and_stop_with_the_app(make_client: ClientFactory) -> None:
    client: TestClient = await make_client(recipe_workers=2)
    pool: RecipePool = client.server.app[RECIPE_WORKERS]
    assert not pool._all
    responses = await asyncio.gather(*(client.post("/v3/lineage/recipe", json={"recipe": "rename :a :b"})
                                       for _ in range(4)))
    assert [r.status for r in responses] == [200] * 4

    async def both_started() -> bool:
        return len(pool._all) == 2

    await wait_until(both_started, timeout=60)
    processes = [worker.process for worker in pool._all]
    assert all(p.returncode is None for p in processes)
    await client.close()
    assert all(p.returncode is not None for p in processes)


CODE = [
    "__import__('os').system('touch {marker}')",
    "exec(\"open('{marker}', 'w').write('x')\")",
    "eval(\"__import__('os').system('touch {marker}')\")",
    "open('{marker}', 'w').write('pwned')",
    "(lambda: __import__('subprocess').call(['touch', '{marker}']))()",
    "''.__class__.__mro__[1].__subclasses__()",
    "java.lang.Runtime.getRuntime().exec('touch {marker}')",
    "new('java.lang.ProcessBuilder', ['touch', '{marker}']).start()",
]


@pytest.mark.parametrize("payload", CODE)
async def test_expression_payloads_execute_nothing(make_client: ClientFactory, tmp_path: Any, payload: str) -> None:
    """What held in the attack campaign: no expression in a recipe is ever run, only parsed."""
    marker = tmp_path / "pwned"
    client = await make_client(recipe_workers=1)
    for directive in ("set-column :x exp:{{{code}}}", "filter-rows-on condition-true {code}",
                      "set-column :x {code}"):
        recipe = directive.format(code=payload.format(marker=marker))
        response = await client.post("/v3/lineage/recipe", json={"recipe": recipe, "schema": ["a"]})
        assert response.status in (200, 400), (recipe, await response.text())
    assert not marker.exists()
