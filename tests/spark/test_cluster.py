"""One recipe, three places: local mode, a real standalone cluster (a master and two workers) and a real Spark
Connect server, all on loopback. The output rows, the error rows and the counts must be identical.

The recipe has Python UDF directives (`stemming`, `parse-as-date`, `hash` with SHA3, `text-distance 'cosine'`),
row-multiplying ones (`split-to-rows`, `flatten`), `parse-as-csv`, a filter, `send-to-error`, a type conversion
that fails on some values, and its input has lines the reader rejects. The input is split into several
partitions, so both workers' executors run tasks. The servers' Python workers see decoy packages on their
path (`spark_servers`), so the UDFs only work with the code `wrangler run` ships.

The cluster and Connect runs are `wrangler run` in a subprocess, as a user runs it (a driver of its own: the
test session's local SparkContext cannot talk to another master). The local run is the same command in this
process, on the test session. The Connect server's driver runs on the same standalone cluster; it takes the
workers' cores while it lives, so the Connect test comes after the standalone ones (file order) and the
cluster fixture is shared by both.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT
from tests.spark.spark_servers import ConnectServer, StandaloneCluster, start_connect, start_standalone

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

RECIPE = """\
split-to-rows :tags ';'
send-to-error exp:{name == 'bob' && tags == 'e'}
filter-rows-on condition-true name == 'drop'
stemming :note
flatten :note_porter
parse-as-date :when 'UTC'
hash :name 'SHA3-256'
text-distance 'cosine' :note :tags :similarity
parse-as-csv :pair '|' false
set-type :price int
"""

#: What both remote runs add: three input partitions (8 KiB each), executors that fit a 512 MiB worker.
SPLIT = {"spark.sql.files.maxPartitionBytes": "8192", "spark.sql.files.openCostInBytes": "0"}
EXECUTOR = {"spark.executor.memory": "512m", "spark.executor.cores": "1",
            # the first stage waits for both executors, so both run tasks
            "spark.scheduler.minRegisteredResourcesRatio": "1.0",
            "spark.scheduler.maxRegisteredResourcesWaitingTime": "120s"}
DRIVER = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1", "spark.ui.enabled": "false"}
RUN_TIMEOUT = 600


def _write_input(path: Path) -> None:
    """Orders with lists to split, words to stem, dates in several forms, a pair to parse, prices of which some
    are not numbers, and a few lines with too few values (error rows from the reader)."""
    chooser = random.Random(19)
    words = ["running", "dogs", "jumped", "quickly", "cats", "sleeping", "happily", "connection"]
    lines = ["id,name,tags,note,when,pair,price"]
    for i in range(400):
        tags = ";".join(chooser.sample("abcde", chooser.randint(1, 3)))
        note = " ".join(chooser.sample(words, chooser.randint(1, 3)))
        when = chooser.choice(["2024-01-02", "March 3rd 2023", "2021-12-31 10:30", "", "not a date"])
        pair = chooser.choice(["x|y", "p|q|r", "solo"])
        price = chooser.choice([str(chooser.randint(1, 99)), "bad", "12.5"])
        name = chooser.choice(["ada", "bob", "cy", "drop"])
        lines.append(f"{i},{name},{tags},{note},{when},{pair},{price}")
        if i % 150 == 7:
            lines.append(f"{i},a line with too few values")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("cluster-run")
    _write_input(directory / "orders.csv")
    (directory / "recipe.txt").write_text(RECIPE)
    return directory


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    started = start_standalone(tmp_path_factory.mktemp("standalone"), workers=2)
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory: pytest.TempPathFactory, cluster: StandaloneCluster) -> Iterator[ConnectServer]:
    server = start_connect(tmp_path_factory.mktemp("connect"), cluster.url, {**EXECUTOR, **DRIVER})
    try:
        yield server
    finally:
        server.stop()


# -- running and reading back ----------------------------------------------------------------------------------
def _arguments(workspace: Path, name: str) -> list[str]:
    return [str(workspace / "recipe.txt"), "--input", str(workspace / "orders.csv"),
            "--output", str(workspace / f"{name}-out"), "--errors", str(workspace / f"{name}-errors"),
            "--output-format", "json", "--counts-json", str(workspace / f"{name}-counts.json")]


def _conf(settings: dict[str, str]) -> list[str]:
    return [item for key, value in settings.items() for item in ("--conf", f"{key}={value}")]


def _wrangler(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    env.pop("WRANGLER_STORE", None)
    env.pop("SPARK_REMOTE", None)
    return subprocess.run([sys.executable, "-m", "server.cli", "run", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT)


def _rows(directory: Path) -> list[str]:
    """Every JSON line of a Spark output directory, keys sorted, in a stable order (partitions differ by place)."""
    return sorted(json.dumps(json.loads(line), sort_keys=True)
                  for part in sorted(directory.glob("part-*"))
                  for line in part.read_text().splitlines() if line.strip())


def _result(workspace: Path, name: str) -> dict[str, Any]:
    return {"rows": _rows(workspace / f"{name}-out"), "errors": _rows(workspace / f"{name}-errors"),
            "counts": json.loads((workspace / f"{name}-counts.json").read_text())}


@pytest.fixture(scope="module")
def local(workspace: Path, spark: Any) -> dict[str, Any]:
    """The same command in this process, on the test session's local Spark."""
    from server.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["run", *_arguments(workspace, "local")])
    assert code == 0, err.getvalue()
    assert "counted by the write's own filters" in err.getvalue()
    return _result(workspace, "local")


def test_the_local_run_exercises_what_the_cluster_runs_must_match(local: dict[str, Any]) -> None:
    """The baseline is worth comparing with: every kind of row is there, and the counts reconcile."""
    counts = local["counts"]
    assert counts["reconciled"] is True
    assert counts["rows_in"] == 403 and counts["row_multiplying_directives"] == [1, 5]
    assert min(counts["rows_out"], counts["error_rows"], counts["filtered_rows"], counts["rows_added"]) > 0
    assert len(local["rows"]) == counts["rows_out"] and len(local["errors"]) == counts["error_rows"]
    first = json.loads(local["rows"][0])
    assert {"note_porter", "when_1", "similarity", "pair_1"} <= set(first)
    assert any('"when_1": "2023-03-03T00:00:00.000Z"' in row for row in local["rows"])  # the UDF parsed a date
    messages = " ".join(local["errors"])
    assert "too few values" in messages or "the header has 7 columns" in messages  # the reader's error rows


def test_master_and_remote_exclude_each_other(workspace: Path) -> None:
    from server.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stopped:
        main(["run", *_arguments(workspace, "both"), "--master", "local[1]", "--remote", "sc://127.0.0.1:1"])
    assert stopped.value.code == 2 and "not allowed with argument" in err.getvalue()


# -- standalone cluster -----------------------------------------------------------------------------------------
def test_a_standalone_cluster_gives_the_local_rows_and_counts(workspace: Path, cluster: StandaloneCluster,
                                                             local: dict[str, Any]) -> None:
    run = _wrangler(*_arguments(workspace, "standalone"), "--master", cluster.url, "--progress",
                    *_conf({**SPLIT, **EXECUTOR, **DRIVER}))
    assert run.returncode == 0, run.stderr[-4000:] + cluster.executor_errors()
    assert "counted by the write's own filters" in run.stderr  # the driver's status store, no extra pass
    remote = _result(workspace, "standalone")
    assert remote["counts"] == local["counts"]
    assert remote["rows"] == local["rows"]
    assert remote["errors"] == local["errors"]
    # Both workers ran an executor of the run, and each executor ran tasks.
    executors = [log for work in cluster.worker_dirs() for log in work.glob("app-*/*/stderr")]
    assert len({log.parents[2] for log in executors}) == 2, executors
    assert all("Finished task" in log.read_text(errors="replace") for log in executors)


# -- Spark Connect ------------------------------------------------------------------------------------------------
def test_spark_connect_gives_the_local_rows_and_counts(workspace: Path, cluster: StandaloneCluster,
                                                       connect_server: ConnectServer, local: dict[str, Any]) -> None:
    run = _wrangler(*_arguments(workspace, "connect"), "--remote", connect_server.url, "--progress", *_conf(SPLIT))
    assert run.returncode == 0, run.stderr[-4000:] + connect_server.server.tail() + cluster.executor_errors()
    assert "counted by the write's observation" in run.stderr  # no status store here, and still no extra pass
    remote = _result(workspace, "connect")
    assert remote["counts"] == local["counts"]
    assert remote["rows"] == local["rows"]
    assert remote["errors"] == local["errors"]
