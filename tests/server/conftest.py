"""Fixtures for the API tests: real apps on a real store (a SQLite file, then a PostgreSQL schema: every test that
builds an app runs on both) and a real redis-server.

``make_client`` builds an app with ``create_app`` (the same factory `wrangler serve` uses) and
serves it on a loopback port through pytest-aiohttp; several clients may share one store file
and one Redis, which is how the near-cache coherence tests run two "processes" side by side.
Redis timings are shortened so fail-open and reconnect tests finish quickly.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from bench.examples import employee_destination, employee_operations
from server.app import create_app
from server.settings import Settings

NS = "MyNamespace"
DATASET = f"/v3/namespaces/{NS}/datasets/EmployeeData"
RUNS = f"/v3/namespaces/{NS}/lineage/runs"
T0 = 1_510_000_000

FAST_REDIS: dict[str, Any] = {
    "redis_timeout": 0.5,
    "redis_retry_after": 0.2,
    "invalidation_ping_interval": 0.2,
    "store_poll_interval": 0.2,
}

ISSUE_BODY: dict[str, Any] = {
    "run": {"id": "run-7", "program": "EmployeePipeline", "start": 1510000000, "end": 1510000600},
    "destination": {"name": "EmployeeData", "properties": {"rowid": "ID"}, "fields": ["ID", "Salary"]},
    "operations": [
        {"name": "PersonRead", "description": "Read Person file.", "properties": {"stage": "Person File Reader"},
         "inputs": [{"dataset": {"name": "PersonFile", "properties": {"inputPath": "/data/2017/persons"}},
                     "field": "PersonRecord"}],
         "outputs": [{"field": "body"}]},
        {"name": "PersonParse", "inputs": [{"field": "body", "origin": "PersonRead"}], "outputs": [{"field": "SSN"}]},
        {"name": "GenerateID", "inputs": [{"field": "SSN"}], "outputs": [{"field": "ID"}]},
    ],
}
"""The body printed in issue 5, verbatim (it lists ``Salary`` as a destination field nothing produces)."""


def seed_body(run_id: str = "run1", start: int = T0, program: str = "EmployeePipeline") -> dict[str, Any]:
    """Seed 000's full example (HR file + Person file -> EmployeeData) as a POST body."""
    operations = [op.model_dump(mode="json", exclude_defaults=True) for op in employee_operations()]
    for op in operations:
        op.pop("type", None)
    return {
        "run": {"id": run_id, "program": program, "start": start, "end": start + 600},
        "destination": employee_destination().model_dump(mode="json", exclude_defaults=True),
        "operations": operations,
    }


def simple_body(run_id: str, source: str, target: str, fields: list[str], *, start: int = T0,
                program: str = "Copy", read: str = "record") -> dict[str, Any]:
    """A one-read, one-write run deriving ``fields`` of ``target`` from field ``read`` of ``source``."""
    return {
        "run": {"id": run_id, "program": program, "start": start, "end": start + 1},
        "destination": {"name": target, "fields": fields},
        "operations": [
            {"name": "read", "inputs": [{"dataset": {"name": source}, "field": read}],
             "outputs": [{"field": name} for name in fields]},
        ],
    }


def variant(body: dict[str, Any], **run: Any) -> dict[str, Any]:
    copied = copy.deepcopy(body)
    copied["run"].update(run)
    return copied


ClientFactory = Callable[..., Awaitable[TestClient]]


@pytest.fixture
def store_path(store_location: str | Path) -> str | Path:
    """The store of the test's apps: ``tests.conftest.store_location``, once per backend."""
    return store_location


@pytest.fixture
def make_client(aiohttp_client: Any, store_path: str | Path) -> ClientFactory:
    """``await make_client(redis=url_or_None, auth=path_or_None, **settings)`` -> a client of a new app."""

    async def build(*, redis: str | None = None, auth: Path | None = None, path: str | Path | None = None,
                    **overrides: Any) -> TestClient:
        options = {**(FAST_REDIS if redis else {}), "access_log": False, **overrides}
        settings = Settings(store_path=path or store_path, redis_url=redis, auth_file=auth, **options)
        app: web.Application = create_app(settings)
        return await aiohttp_client(app)

    return build


async def wait_until(predicate: Callable[[], Awaitable[bool]], *, timeout: float = 10.0, step: float = 0.05) -> None:
    """Poll ``predicate`` until it holds; fail the test if it never does (a bound, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await predicate():
        if loop.time() > deadline:
            pytest.fail(f"condition not reached within {timeout}s")
        await asyncio.sleep(step)


async def get_json(client: TestClient, path: str, **kwargs: Any) -> tuple[int, dict[str, str], Any]:
    response = await client.get(path, **kwargs)
    text = await response.text()
    return response.status, dict(response.headers), json.loads(text) if text else None


async def post_run(client: TestClient, body: dict[str, Any], ns: str = NS, **kwargs: Any) -> Any:
    response = await client.post(f"/v3/namespaces/{ns}/lineage/runs", json=body, **kwargs)
    payload = await response.json()
    assert response.status == 201, payload
    return payload
