"""`wrangler serve` as a real process for the fault tests: started, killed with SIGKILL, restarted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import ROOT, free_port


def serve_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@dataclass
class Served:
    """One `wrangler serve` process on ``store`` (and ``redis``, if given), logging to ``log``."""

    store: Path
    log: Path
    redis: str | None = None
    args: tuple[str, ...] = ()
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Served:
        command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                   "--store", str(self.store), "--no-access-log", *self.args]
        if self.redis is not None:
            command += ["--redis", self.redis, "--cache-prefix", "faults"]
        with self.log.open("a") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=serve_env(), stdout=subprocess.PIPE, stderr=log,
                                            text=True)
        assert self.process.stdout is not None
        banner = self.process.stdout.readline()  # blocks until the server listens (or dies)
        assert "listening on" in banner, self.log.read_text()
        return self

    def kill(self) -> None:
        """SIGKILL: no clean-up, no flush, whatever was in flight is cut off."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)

    def stop(self) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def restart(self) -> Served:
        """A new process on the same store, on a fresh port (the old one may linger in TIME_WAIT)."""
        self.kill()
        self.port = free_port()
        return self.start()
