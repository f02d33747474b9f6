"""What only the PostgreSQL backend has to prove: a writer killed in the middle of a run leaves nothing of
it, the time-range queries seek the primary keys (``EXPLAIN``), and the dialect rewrites are the ones meant.

The rest of the store's behaviour is tested on both backends by the ``store_location`` tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psycopg
import pytest

from lineage.errors import StoreUnavailableError
from lineage.model import DatasetRef, Destination, FieldOperation, RunInfo, read_fields
from lineage.recorder import RecordedRun, build_recorded_run
from lineage.store import open_store
from lineage.store.keys import inverted_bounds
from lineage.store.postgres import PgConn, PostgresLineageStore, pg_ddl, pg_sql
from lineage.store.queries import _NEWEST_DATASET_RUNS, _NEWEST_FIELD_ROW
from tests.conftest import ROOT, store_sql
from tests.postgres import PostgresForTests

NS = "ns"
T0 = 1_700_000_000


def _run(run_id: str, start: int, width: int = 3, destination: str = "Out") -> RecordedRun:
    ops = [*read_fields(DatasetRef(name="In"), ["record"]),
           FieldOperation(name="spread", inputs=["record"], outputs=[f"c{i}" for i in range(width)])]
    run = RunInfo(namespace=NS, program="p", run_id=run_id, start=start)
    return build_recorded_run(run, Destination(name=destination, fields=tuple(f"c{i}" for i in range(width))), ops)


VICTIM = textwrap.dedent("""
    import sys
    from lineage.model import DatasetRef, Destination, FieldOperation, RunInfo, read_fields
    from lineage.recorder import build_recorded_run
    from lineage.store import open_store
    width = 200
    ops = [*read_fields(DatasetRef(name="In"), ["record"]),
           FieldOperation(name="spread", inputs=["record"], outputs=[f"c{i}" for i in range(width)])]
    run = RunInfo(namespace="ns", program="p", run_id="victim", start=1_700_000_500)
    recorded = build_recorded_run(run, Destination(name="Out", fields=tuple(f"c{i}" for i in range(width))), ops)
    with open_store(sys.argv[1]) as store:
        print("recording", flush=True)
        store.record_run(recorded)
    print("recorded", flush=True)
""")


def _counts(store: PostgresLineageStore) -> dict[str, int]:
    tables = ("runs", "field_runs", "dataset_runs", "operations", "checksum_fields", "checksum_edges",
              "dataset_fields", "datasets", "run_properties", "column_history")
    return {table: store_sql(store, f"SELECT count(*) FROM {table}")[0][0] for table in tables}


def test_a_writer_killed_mid_run_leaves_no_partial_run(postgres: PostgresForTests) -> None:
    """The victim's transaction is stopped at its last statement (the test holds a row lock on the dataset
    it updates there), after it inserted the run and its index rows; then the process is SIGKILLed."""
    url = postgres.new_schema()
    store = open_store(url)
    assert isinstance(store, PostgresLineageStore)
    try:
        store.record_run(_run("before", T0))
        before = _counts(store)
        # pg_stat_activity is read through an autocommit connection: inside a transaction it is a snapshot
        with psycopg.connect(url) as blocker, psycopg.connect(url, autocommit=True) as watcher:
            blocker.execute("SELECT id FROM datasets WHERE name = 'Out' FOR UPDATE")
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            victim = subprocess.Popen([sys.executable, "-c", VICTIM, url], cwd=ROOT, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                waiting = None
                deadline = time.monotonic() + 60
                while waiting is None and time.monotonic() < deadline and victim.poll() is None:
                    waiting = watcher.execute(
                        "SELECT pid, query FROM pg_stat_activity WHERE application_name = 'wrangler-lineage' "
                        "AND wait_event_type = 'Lock' AND datname = current_database()").fetchone()
                    time.sleep(0.05)
                assert waiting is not None, ("the victim never reached the dataset update",
                                             victim.poll(), victim.stderr.read() if victim.poll() is not None else "")
                assert waiting[1].lstrip().startswith("UPDATE datasets SET watermark")  # the run was inserted
                victim.send_signal(signal.SIGKILL)
                victim.wait(timeout=30)
            finally:
                if victim.poll() is None:
                    victim.kill()
                    victim.wait()
            blocker.rollback()
            deadline = time.monotonic() + 30
            while watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                  (waiting[0],)).fetchone()[0] and time.monotonic() < deadline:
                time.sleep(0.05)  # the server notices the closed socket and rolls the transaction back
        assert victim.returncode == -signal.SIGKILL
        assert store.run(NS, "victim") is None
        assert _counts(store) == before
        assert store.record_run(_run("after", T0 + 1)) is True  # the writers' lock was released with it
        assert [r.run_id for r in store.runs(NS, 0, T0 + 10).items] == ["after", "before"]
    finally:
        store.close()


def test_time_range_queries_seek_the_primary_keys(postgres: PostgresForTests) -> None:
    """With enough runs that a scan would cost, the planner picks the index seeks the queries are written for."""
    url = postgres.new_schema()
    with open_store(url) as store:
        assert isinstance(store, PostgresLineageStore)
        store.record_runs((_run(f"r{i}", T0 + i, destination=f"Out{i % 20}") for i in range(3000)),
                          batch_size=1000)
        with store._db.pool().connection() as raw:
            raw.execute("ANALYZE")
        dataset_id = store_sql(store, "SELECT id FROM datasets WHERE name = 'Out3'")[0][0]
        checksum_id = store_sql(store, "SELECT id FROM operations")[0][0]
        lo, hi = inverted_bounds(T0 + 100, T0 + 200)
        plans = {
            "field_runs_pkey": (_NEWEST_FIELD_ROW, ("b", dataset_id, "c1", lo, hi)),
            "dataset_runs_pkey": (_NEWEST_DATASET_RUNS, ("b", dataset_id, checksum_id, lo, hi, 20)),
            "runs_by_time": ("SELECT id FROM runs WHERE namespace = ? AND inv_start > ? AND inv_start <= ? "
                             "ORDER BY inv_start, id LIMIT 21", (NS, lo, hi)),
        }
        with store._db.read() as conn:
            for index, (sql, params) in plans.items():
                plan = "\n".join(row[0] for row in conn.execute("EXPLAIN " + sql, params).fetchall())
                assert f"Index Only Scan using {index}" in plan or f"Index Scan using {index}" in plan, plan
                assert "Seq Scan" not in plan and "Sort" not in plan.split("->")[0], plan


def test_dialect_rewrites() -> None:
    assert pg_sql("SELECT ? WHERE a LIKE '50%'") == "SELECT %s WHERE a LIKE '50%%'"
    assert pg_ddl("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, s TEXT) WITHOUT ROWID") == (
        'CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n BIGINT NOT NULL, '
        's TEXT COLLATE "C")')
    assert PgConn.like == "ILIKE"


def test_names_sort_and_match_as_on_sqlite(postgres: PostgresForTests) -> None:
    """Byte order (COLLATE "C"), not the server's locale: upper case before lower, as SQLite sorts."""
    with open_store(postgres.new_schema()) as store:
        for i, name in enumerate(["b", "B", "a", "_x", "Ä"]):
            store.record_run(_run(f"r{i}", T0 + i, destination=name))
        names = [d.name for d in store.datasets(NS, 0, T0 + 100).items]
        assert names == sorted(names) == ["B", "In", "_x", "a", "b", "Ä"]
        assert [d.name for d in store.datasets(NS, 0, T0 + 100, search="B").items] == ["B", "b"]


def test_a_store_url_that_reaches_no_server_fails_at_open() -> None:
    with pytest.raises(StoreUnavailableError, match=r"cannot open the PostgreSQL store .*refused"):
        PostgresLineageStore("postgresql://nobody:secret@127.0.0.1:1/none")
    with pytest.raises(StoreUnavailableError) as raised:
        PostgresLineageStore("postgresql://nobody:secret@127.0.0.1:1/none")
    assert "secret" not in str(raised.value)
