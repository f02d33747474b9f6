"""Several processes (and threads) recording into one store at once lose nothing and double-count nothing
(SQLite and PostgreSQL)."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

from lineage.model import DatasetRef, Destination, FieldOperation, RunInfo, read_fields
from lineage.recorder import RecordedRun, build_recorded_run
from lineage.store import LineageStore, SQLiteLineageStore, open_store
from tests.conftest import store_sql

NS = "ns"
T0 = 1_650_000_000
WORKERS = 4
RUNS_PER_WORKER = 50
SHARED_RUNS = 10


def _recorded(run_id: str, start: int, variant: int) -> RecordedRun:
    src = DatasetRef(name="events", properties={"topic": f"t{variant}"})
    ops = [
        *read_fields(src, ["user", "ts"]),
        FieldOperation(name="normalise", description=f"variant {variant}", inputs=["user", "ts"], outputs=["key"]),
    ]
    run = RunInfo(namespace=NS, program=f"prog{variant}", run_id=run_id, start=start)
    return build_recorded_run(run, Destination(name="sessions", fields=("key", "ts")), ops)


def _worker(store: LineageStore, worker: int, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """Runs in a forked child and uses the store object it inherited (it must open its own connection)."""
    new = duplicates = 0
    for i in range(RUNS_PER_WORKER):
        history = {"key": {"column": "key", "worker": worker, "upstream": []}}
        new += store.record_run(_recorded(f"w{worker}-{i}", T0 + i * WORKERS + worker, worker % 2), history)
        if i < SHARED_RUNS:  # every worker also records the same shared runs: exactly one may store each
            if store.record_run(_recorded(f"shared-{i}", T0 - 1000 + i, 0)):
                new += 1
            else:
                duplicates += 1
    results.put((worker, new, duplicates))


def test_four_processes_record_200_runs_without_losing_any(store_location: str | Path) -> None:
    store = open_store(store_location)
    store.record_run(_recorded("before-fork", T0 - 5000, 0))  # the parent's connection is open across the fork
    ctx = multiprocessing.get_context("fork")
    results: multiprocessing.Queue = ctx.Queue()  # type: ignore[type-arg]
    processes = [ctx.Process(target=_worker, args=(store, w, results)) for w in range(WORKERS)]
    for p in processes:
        p.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for p in processes:
        p.join(timeout=120)
        assert p.exitcode == 0

    assert sum(new for _, new, _ in outcomes) == WORKERS * RUNS_PER_WORKER + SHARED_RUNS
    assert sum(dup for _, _, dup in outcomes) == (WORKERS - 1) * SHARED_RUNS
    worker_runs = store.runs(NS, T0, T0 + 10_000, limit=1000).items
    assert len(worker_runs) == WORKERS * RUNS_PER_WORKER
    assert len({r.run_id for r in worker_runs}) == WORKERS * RUNS_PER_WORKER
    assert len(store.runs(NS, 0, T0 + 10_000, limit=1000).items) == WORKERS * RUNS_PER_WORKER + SHARED_RUNS + 1

    assert store_sql(store, "SELECT count(*) FROM operations") == [(2,)]  # two variants, stored once each
    assert store_sql(store, "SELECT count(*) FROM column_history") == [(WORKERS * RUNS_PER_WORKER,)]
    expected_rows = (WORKERS * RUNS_PER_WORKER + SHARED_RUNS + 1) * 4  # 2 destination + 2 source fields per run
    assert store_sql(store, "SELECT count(*) FROM field_runs") == [(expected_rows,)]
    if isinstance(store, SQLiteLineageStore):
        assert store_sql(store, "PRAGMA journal_mode") == [("wal",)]
    # every run has its own id (ids are what the server's cache watermarks compare)
    ids = [row[0] for row in store_sql(store, "SELECT id FROM runs ORDER BY id")]
    assert len(ids) == len(set(ids)) == WORKERS * RUNS_PER_WORKER + SHARED_RUNS + 1
    group_runs = sum(
        len(g.runs)
        for g in store.field_lineage(NS, "sessions", "key", "backward", T0, T0 + 10_000, max_runs=1000).groups
    )
    assert group_runs == WORKERS * RUNS_PER_WORKER
    store.close()


def test_threads_share_one_store_while_reading(store_location: str | Path) -> None:
    store = open_store(store_location)
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            for i in range(25):
                store.record_run(_recorded(f"t{worker}-{i}", T0 + i, worker % 2))
                store.fields(NS, "sessions", 0, T0 + 1000)
        except BaseException as exc:  # surfaced below; a thread's exception would otherwise vanish
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.runs(NS, 0, T0 + 1000, limit=1000).items) == 100
    store.close()
