"""A real PostgreSQL server for the tests: a private cluster in a temporary directory, as Redis gets one.

Where the tests find PostgreSQL, in order:

1. ``$WRANGLER_TEST_POSTGRES`` (a URL to a server's maintenance database, e.g.
   ``postgresql://postgres@127.0.0.1:5432/postgres``): a throwaway database is created there for
   the session and dropped afterwards.
2. A **private cluster** (the default, on a developer machine and in CI alike): ``initdb`` and
   ``pg_ctl`` of Debian's ``postgresql`` package (``/usr/lib/postgresql/*/bin``, which
   ``scripts/bootstrap.sh --tests`` installs) make one in a temporary directory, listening on a free
   loopback port with its unix socket in that directory, trust authentication, and durability
   switched off (``fsync=off``: a test cluster is thrown away, not recovered). It is stopped and
   deleted at the end. PostgreSQL refuses to run as root, so as root the cluster belongs to the
   ``postgres`` system user (the package creates it) and its commands run through ``runuser``.
3. The server on ``127.0.0.1:5432`` as user ``postgres`` (a development machine without the binaries).

Each test that asks for a PostgreSQL store gets a schema of its own in the session's database
(``search_path`` in the URL), so tests never see each other's runs and no database is created per test.
"""

from __future__ import annotations

import glob
import itertools
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import psycopg

DEV_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
ENV = "WRANGLER_TEST_POSTGRES"
SUPERUSER = "wrangler"
_schemas = itertools.count()


def find_bindir() -> Path | None:
    """The newest PostgreSQL server binaries installed (Debian keeps them out of PATH)."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                        if Path(p).parent.name.isdigit() else 0, reverse=True)
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent))
    for candidate in candidates:
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PrivateCluster:
    """initdb + pg_ctl in a temporary directory; ``url`` reaches its ``postgres`` database."""

    bindir: Path
    port: int = field(default_factory=_free_port)
    directory: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="wrangler-pg-")))

    @property
    def url(self) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def _command(self, *args: str) -> list[str]:
        if os.geteuid() != 0:
            return list(args)
        runuser = shutil.which("runuser")
        if runuser is None:
            raise RuntimeError("running as root without runuser: cannot start PostgreSQL as the postgres user")
        return [runuser, "-u", "postgres", "--", *args]

    def start(self) -> None:
        data = self.directory / "data"
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        subprocess.run(self._command(str(self.bindir / "initdb"), "-D", str(data), "-U", SUPERUSER, "--auth=trust",
                                     "-E", "UTF8", "--no-locale", "--no-sync"),
                       check=True, capture_output=True)
        options = (f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        subprocess.run(self._command(str(self.bindir / "pg_ctl"), "-D", str(data), "-l",
                                     str(self.directory / "server.log"), "-o", options, "-w", "-t", "60", "start"),
                       check=True, capture_output=True)
        self._watch(data)

    def _watch(self, data: Path) -> None:
        """A watchdog that stops and deletes the cluster if this test process dies without tearing it down
        (pytest killed by a timeout, a second Ctrl-C): a server started with pg_ctl outlives its starter."""
        stop = " ".join(shlex.quote(part) for part in self._command(str(self.bindir / "pg_ctl"), "-D", str(data),
                                                                     "-m", "immediate", "-w", "stop"))
        script = (f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 2; done; "
                  f"if [ -f {shlex.quote(str(data / 'postmaster.pid'))} ]; then {stop}; fi; "
                  f"rm -rf {shlex.quote(str(self.directory))}")
        subprocess.Popen(["sh", "-c", script], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)

    def stop(self) -> None:
        data = self.directory / "data"
        if (data / "postmaster.pid").exists():
            subprocess.run(self._command(str(self.bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w",
                                         "stop"), capture_output=True)
        shutil.rmtree(self.directory, ignore_errors=True)

    def log(self) -> str:
        path = self.directory / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _reachable(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=2):
            return True
    except psycopg.Error:
        return False


@dataclass
class PostgresForTests:
    """The session's PostgreSQL: a database of its own on a private cluster or a given server."""

    admin_url: str
    cluster: PrivateCluster | None = None
    database: str = field(default_factory=lambda: f"wl_test_{uuid.uuid4().hex[:10]}")

    @classmethod
    def start(cls) -> PostgresForTests:
        given = os.environ.get(ENV, "").strip()
        if given:
            found = cls(given)
        else:
            bindir = find_bindir()
            cluster = PrivateCluster(bindir) if bindir is not None else None
            if cluster is not None:
                try:
                    cluster.start()
                except (subprocess.CalledProcessError, RuntimeError, OSError) as error:
                    detail = getattr(error, "stderr", b"") or b""
                    log = cluster.log()
                    cluster.stop()
                    cluster = None
                    if not _reachable(DEV_SERVER):
                        raise RuntimeError(f"could not start a private PostgreSQL cluster: {error} "
                                           f"{detail.decode(errors='replace')} {log}") from error
            if cluster is not None:
                found = cls(cluster.url, cluster)
            elif _reachable(DEV_SERVER):
                found = cls(DEV_SERVER)
            else:
                raise RuntimeError("no PostgreSQL: install the postgresql package (scripts/bootstrap.sh --tests "
                                   f"does), or point ${ENV} at a server")
        with psycopg.connect(found.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{found.database}"')
        return found

    @property
    def url(self) -> str:
        """The session database (its ``public`` schema)."""
        base, _, _ = self.admin_url.rpartition("/")
        return f"{base}/{self.database}"

    def new_schema(self) -> str:
        """A fresh, empty schema; the URL of a store in it (its search_path)."""
        name = f"t{next(_schemas)}_{uuid.uuid4().hex[:6]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        return f"{self.url}?options={quote(f'-csearch_path={name}')}"

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
            return
        for _ in range(20):
            try:
                with psycopg.connect(self.admin_url, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
                return
            except psycopg.Error:
                time.sleep(0.2)
