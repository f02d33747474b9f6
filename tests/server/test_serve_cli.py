"""`wrangler serve` as a real process, and the promise that the server never imports pyspark."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, RedisProcess, free_port
from tests.server.conftest import seed_body

TOKEN = "smoke-test-token-0123456789"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _request(url: str, *, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.redis
def test_wrangler_serve_smoke(tmp_path: Path, redis_server: RedisProcess) -> None:
    port = free_port()
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"MyNamespace": [TOKEN]}))
    store = tmp_path / "served.db"
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--store",
         str(store), "--redis", redis_server.url, "--auth", str(auth), "--cache-prefix", "smoke", "--no-access-log"],
        cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=log, text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()  # blocks until the server listens (or dies)
        assert f"listening on http://127.0.0.1:{port}" in banner, (tmp_path / "serve.log").read_text()
        base = f"http://127.0.0.1:{port}"
        status, health = _request(f"{base}/healthz")
        assert status == 200 and health["store"]["status"] == "ok"
        status, error = _request(f"{base}/v3/namespaces/MyNamespace/datasets/EmployeeData/fields")
        assert status == 401 and error["error"]["type"] == "unauthorized"
        status, created = _request(f"{base}/v3/namespaces/MyNamespace/lineage/runs", body=seed_body(), token=TOKEN)
        assert status == 201 and created["run_id"] == "run1"
        status, lineage = _request(f"{base}/v3/namespaces/MyNamespace/datasets/EmployeeData/fields/ID/lineage",
                                   token=TOKEN)
        assert status == 200
        ops = {op["name"]: op for op in lineage["groups"][0]["operations"]}
        assert [i["field"] for i in ops["GenerateID"]["inputs"]] == ["Employee_Name", "Dept_Name", "SSN"]
        assert store.exists()
        status, error = _request(f"{base}/v3/namespaces/MyNamespace/datasets/{'d' * 9000}/fields", token=TOKEN)
        assert status == 400 and error["error"]["type"] == "bad_request"  # aiohttp's own error, as JSON
        status, static = _request(f"{base}/v3/lineage/recipe", body={"recipe": "rename :a :b"}, token=TOKEN)
        assert status == 200 and static["columns"]["b"]["sources"] == ["a"]  # from a worker process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
    log_text = (tmp_path / "serve.log").read_text()
    assert process.returncode == 0, log_text
    assert "refused a malformed request" in log_text and "Traceback" not in log_text


def test_wrangler_serve_refuses_a_bad_auth_file(tmp_path: Path) -> None:
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"ns": ["short"]}))
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--auth", str(auth), "--store", str(tmp_path / "s.db")],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2
    assert "at least 16" in result.stderr


def test_server_never_imports_pyspark(tmp_path: Path) -> None:
    """Import the app, build it, and answer a static-lineage request - then look at sys.modules."""
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from pathlib import Path
        from aiohttp.test_utils import TestClient, TestServer
        import server.app
        import server.cli
        from server.settings import Settings

        async def main():
            app = server.app.create_app(Settings(store_path=Path({str(tmp_path / "p.db")!r}), access_log=False))
            async with TestClient(TestServer(app)) as client:
                response = await client.post("/v3/lineage/recipe", json={{"recipe": "rename :a :b"}})
                assert response.status == 200, await response.text()
                assert (await client.get("/openapi.json")).status == 200

        asyncio.run(main())
        server.cli.build_parser()
        print("pyspark" in sys.modules, "py4j" in sys.modules)
        """
    )
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=_env(), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"], (result.stdout, time.monotonic() - started)
