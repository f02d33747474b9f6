"""Shared fixtures: one real local SparkSession per test run, real redis-server processes, a real PostgreSQL.

No mocks of what we depend on: Spark tests run on a local JVM, cache tests on a redis-server
this fixture starts on a free port and stops afterwards, store tests on SQLite files and on a
PostgreSQL cluster of the session's own (``tests.postgres``). ``store_location`` runs a test once per
backend: only store and API tests ask for it, so Spark tests do not run twice.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from lineage.store import LineageStore
    from tests.postgres import PostgresForTests

from tests.paths import CONFORMANCE, ROOT, SHARED  # noqa: F401  (re-exported for tests)

#: On top of the product's local settings (UI off, loopback driver): one core, so one partition.
TEST_SPARK_CONF = {
    "spark.sql.shuffle.partitions": "1",
    "spark.default.parallelism": "1",
}


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The session `wrangler run` would make (`get_session`: our SQL semantics, quiet JVM start), on one core."""
    from directives.spark.runtime import frame
    from directives.spark.runtime.session import get_session

    frame.VERIFY_DECLARED_TYPES = True  # every projection checks the types declared on our side against Spark's
    session = get_session(master="local[1]", conf=TEST_SPARK_CONF, app_name="wrangler-lineage-tests")
    yield session
    session.stop()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RedisProcess:
    """A real redis-server on a free loopback port; tests may stop and restart it."""

    port: int
    directory: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed; run scripts/bootstrap.sh (it installs it with apt)")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        pytest.fail(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    server = RedisProcess(free_port(), tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fresh_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server of the test's own, for tests that stop and restart it."""
    server = RedisProcess(free_port(), tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresForTests]:
    """The session's PostgreSQL database (a private cluster when the binaries are installed)."""
    from tests.postgres import PostgresForTests

    try:
        server = PostgresForTests.start()
    except RuntimeError as error:
        pytest.fail(str(error))
    yield server
    server.stop()


BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(params=BACKENDS)
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a test's lineage store lives: a SQLite file, or a fresh schema of the session's PostgreSQL."""
    if request.param == "sqlite":
        return tmp_path / "lineage.db"
    server: PostgresForTests = request.getfixturevalue("postgres")
    return server.new_schema()


def store_sql(store: LineageStore, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of a query (written with ``?`` placeholders) on the store's own database, whichever backend."""
    with store._db.read() as conn:
        return [tuple(row) for row in conn.execute(sql, params).fetchall()]


def load_conformance(kind: str | None = None) -> list[dict[str, object]]:
    import json

    cases = [json.loads(line) for line in CONFORMANCE.read_text().splitlines() if line.strip()]
    return [case for case in cases if kind is None or case["kind"] == kind]
