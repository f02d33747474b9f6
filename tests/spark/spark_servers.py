"""Real Spark servers on loopback for the cluster tests: a standalone master with workers, and a Spark Connect server.

Everything comes with PySpark (`spark-class`, `sbin/start-connect-server.sh`, the Connect jar in `jars/`), so
nothing is downloaded. Each server is a process group of its own (the workers' executor JVMs and Python workers
are their children), listens on 127.0.0.1 on free ports, logs into the test's directory, and is stopped by its
process group id, on success and failure alike.

Every server process gets ``PYTHONPATH`` pointing at decoy `grammar` and `directives` packages that refuse to be
imported: a Python worker that imports our code from its own path instead of the zip the driver ships
(`directives.spark.runtime.shipping`) fails the run, so a passing run proves the shipping.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent
#: Small enough for a 2-core machine shared with other work: one core and 512 MiB per worker (an executor needs
#: at least 450 MiB).
WORKER_CORES = 1
WORKER_MEMORY = "512m"
START_TIMEOUT = 180.0

_DECOY = 'raise ImportError("a Python worker imported {name} from its own path, not the code the driver shipped")\n'


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def decoy_path(directory: Path) -> Path:
    """A directory whose `grammar` and `directives` packages fail on import (see the module docstring)."""
    for name in ("grammar", "directives"):
        package = directory / name
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text(_DECOY.format(name=name))
    return directory


def server_env(directory: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SPARK_", "PYSPARK_"))}
    env.update({
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(directory / "logs"),
        "SPARK_PID_DIR": str(directory / "pids"),
        "PYSPARK_PYTHON": sys.executable,
        "PYTHONPATH": str(decoy_path(directory / "decoy")),
        # No REST submission server (it would take the fixed port 6066).
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
    })
    return env


@dataclass
class ServerProcess:
    """One server JVM started in a process group of its own, logging to ``log``."""

    name: str
    log: Path
    process: subprocess.Popen[bytes]

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_for(self, ready: Callable[[str], bool], what: str, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready(self.text()):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.process.returncode}) before {what}:\n{self.tail()}")
            time.sleep(0.25)
        raise RuntimeError(f"{self.name}: no {what} within {timeout:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.text().splitlines()[-lines:])

    def stop(self) -> None:
        """TERM to the whole group (executors and Python workers included), KILL when it lingers."""
        if self.process.poll() is not None:
            return
        group = self.process.pid  # start_new_session: the group id is the leader's pid
        with _no_such_process():
            os.killpg(group, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with _no_such_process():
                os.killpg(group, signal.SIGKILL)
            self.process.wait(timeout=10)


class _no_such_process:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> bool:
        return kind is ProcessLookupError


def start(name: str, command: list[str], directory: Path, env: dict[str, str]) -> ServerProcess:
    log = directory / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=directory, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    return ServerProcess(name, log, process)


@dataclass
class StandaloneCluster:
    """A standalone master and its workers; ``url`` is ``spark://127.0.0.1:<port>``."""

    directory: Path
    url: str = ""
    servers: list[ServerProcess] = field(default_factory=list)

    def worker_dirs(self) -> list[Path]:
        return sorted(self.directory.glob("worker-*/work"))

    def executor_errors(self, lines: int = 12) -> str:
        """The last error lines of every executor's log (a Python worker's traceback ends up there), for a
        failing test's message."""
        found = []
        for log in sorted(self.directory.glob("worker-*/work/app-*/*/stderr")):
            errors = [line for line in log.read_text(errors="replace").splitlines()
                      if "Error" in line and not line.lstrip().startswith("at ")]
            if errors:
                found.append(f"{log}:\n" + "\n".join(errors[-lines:]))
        return "\n".join(found)

    def stop(self) -> None:
        for server in reversed(self.servers):  # workers first: they would otherwise try to reconnect
            server.stop()


def start_standalone(directory: Path, workers: int = 2) -> StandaloneCluster:
    """Master, then ``workers`` workers; returns once every worker has registered with the master. A failure to
    start stops what did start."""
    env = server_env(directory)
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    port = free_port()
    cluster = StandaloneCluster(directory, f"spark://127.0.0.1:{port}")
    try:
        master = start("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                  "--port", str(port), "--webui-port", str(free_port())], directory, env)
        cluster.servers.append(master)
        master.wait_for(lambda text: "I have been elected leader" in text, "leader election")
        for index in range(workers):
            work = directory / f"worker-{index}" / "work"
            work.mkdir(parents=True)
            cluster.servers.append(start(
                f"worker-{index}", [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                    "--cores", str(WORKER_CORES), "--memory", WORKER_MEMORY,
                                    "--webui-port", str(free_port()), "--work-dir", str(work), cluster.url],
                directory, env))
        master.wait_for(lambda text: len(re.findall(r"Registering worker", text)) >= workers, "registered workers")
    except BaseException:
        cluster.stop()
        raise
    return cluster


@dataclass
class ConnectServer:
    """A Spark Connect server (`start-connect-server.sh --wait`, in the foreground); ``url`` is ``sc://…``."""

    url: str
    server: ServerProcess

    def stop(self) -> None:
        self.server.stop()


def start_connect(directory: Path, master: str, conf: dict[str, str]) -> ConnectServer:
    """A Connect server whose driver runs on ``master``; returns once it listens."""
    env = server_env(directory)
    port = free_port()
    command = [str(SPARK_HOME / "sbin" / "start-connect-server.sh"), "--wait", "--master", master,
               "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
               "--conf", f"spark.connect.grpc.binding.port={port}"]
    for key, value in conf.items():
        command += ["--conf", f"{key}={value}"]
    server = start("connect", command, directory, env)
    try:
        server.wait_for(lambda text: "Spark Connect server started" in text, "Connect server")
    except BaseException:
        server.stop()
        raise
    return ConnectServer(f"sc://127.0.0.1:{port}", server)
