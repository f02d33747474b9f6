"""Benchmark of the lineage store (SQLite or PostgreSQL): query latency as the number of runs grows 10x and 100x.

    python -m bench.bench_store                        # SQLite: 1,000, 10,000 and 100,000 runs
    python -m bench.bench_store --runs 20000           # smaller and faster (200, 2,000, 20,000)
    python -m bench.bench_store --postgres postgresql://postgres@127.0.0.1:5432/postgres
                                                       # the same on PostgreSQL (a database per size, dropped after)

It builds a synthetic but realistic world — raw -> clean -> mart datasets in two namespaces,
45 pipelines, each with three recipe versions over a year, 8-20 fields per dataset — and records
``--runs`` runs into one store, a tenth into a second and a hundredth into a third (same world, same
year, so every time range holds 10x and 100x more runs in the bigger stores), then times the four
main queries over a narrow (7 days) and a wide (whole year) range. If latency followed the number of
runs in the range, the biggest store would be ~100x slower than the smallest; the ratio columns show
it is not (growth with log(runs) is a small constant step per 10x).

Setup uses ``record_runs`` (2,000 runs per transaction); queries run on a warm store (caches of
per-checksum operations filled by a short warm-up), as in a long-lived server process. On PostgreSQL
the loaded database is ``VACUUM ANALYZE``d first (autovacuum does the same on a live server) and the plan
of the hottest query is printed, to show the primary-key seek.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lineage.model import DatasetRef, Destination, FieldOperation, InputField, RunInfo, read_fields
from lineage.recorder import RecordedRun, build_recorded_run
from lineage.store import LineageStore

YEAR_START = 1_672_531_200  # 2023-01-01
YEAR = 365 * 86400
DAY = 86400
TARGET_P99_MS = 50.0


@dataclass(frozen=True)
class Pipeline:
    name: str
    namespace: str
    sources: tuple[tuple[str, tuple[str, ...]], ...]
    destination: str
    dest_fields: tuple[str, ...]
    versions: tuple[RecordedRun, ...]
    histories: tuple[dict[str, dict[str, object]], ...]


@dataclass(frozen=True)
class World:
    pipelines: tuple[Pipeline, ...]

    def destinations(self) -> list[tuple[str, str, tuple[str, ...]]]:
        return [(p.namespace, p.destination, p.dest_fields) for p in self.pipelines]

    def sources(self) -> list[tuple[str, str, tuple[str, ...]]]:
        seen = {}
        for p in self.pipelines:
            for name, fields in p.sources:
                seen[(p.namespace, name)] = fields
        return [(ns, name, fields) for (ns, name), fields in seen.items()]


def _history(column: str, inputs: list[str], version: int) -> dict[str, object]:
    """A small directive tree shaped like the backtracker's: column <- directive <- upstream columns."""
    return {
        "column": column,
        "directive": f"set-column :{column} exp:{{...}} # v{version}",
        "upstream": [
            {"column": i, "directive": f"rename :{i}_raw :{i}", "upstream": [{"column": f"{i}_raw", "upstream": []}]}
            for i in inputs
        ],
    }


def _pipeline(
    rng: random.Random,
    name: str,
    namespace: str,
    sources: list[tuple[str, tuple[str, ...]]],
    destination: str,
    n_out: int,
) -> Pipeline:
    dest_fields = tuple(f"{destination}_c{i:02d}" for i in range(n_out))
    # each output is computed from 1-3 source fields (drawn once, shared by every version)
    plan = []
    for out in dest_fields:
        picks = []
        for _ in range(rng.randint(1, 3)):
            src, fields = rng.choice(sources)
            picks.append((src, rng.choice(fields)))
        plan.append((out, sorted(set(picks))))
    versions, histories = [], []
    for version in range(3):
        ops: list[FieldOperation] = []
        read_names: dict[tuple[str, str], str] = {}
        for src, _fields in sources:
            used = sorted({f for _, picks in plan for s, f in picks if s == src})
            for op in read_fields(DatasetRef(name=src, properties={"path": f"/lake/{src}"}), used):
                ops.append(op)
                read_names[(src, op.output_names[0])] = op.name
        history = {}
        for out, picks in plan:
            inputs = [InputField(field=f, origin=read_names[(s, f)]) for s, f in picks]
            ops.append(
                FieldOperation(
                    name=f"make_{out}", description=f"derive {out} (recipe v{version})", inputs=inputs, outputs=[out]
                )
            )
            history[out] = _history(out, [f for _, f in picks], version)
        run = RunInfo(namespace=namespace, program=name, run_id="template", start=YEAR_START)
        versions.append(build_recorded_run(run, Destination(name=destination, fields=dest_fields), ops))
        histories.append(history)
    return Pipeline(name, namespace, tuple(sources), destination, dest_fields, tuple(versions), tuple(histories))


def build_world(seed: int = 7) -> World:
    rng = random.Random(seed)
    pipelines: list[Pipeline] = []
    for namespace in ("sales", "ops"):
        raw = [
            (f"{namespace}_raw{i:02d}", tuple(f"r{i:02d}_f{j:02d}" for j in range(rng.randint(8, 20))))
            for i in range(20)
        ]
        clean = []
        for i in range(15):
            srcs = rng.sample(raw, rng.randint(1, 2))
            name = f"{namespace}_clean{i:02d}"
            p = _pipeline(rng, f"{name}_job", namespace, srcs, name, rng.randint(8, 20))
            pipelines.append(p)
            clean.append((name, p.dest_fields))
        for i in range(8 if namespace == "sales" else 7):
            srcs = rng.sample(clean, rng.randint(1, 2))
            name = f"{namespace}_mart{i:02d}"
            pipelines.append(_pipeline(rng, f"{name}_job", namespace, srcs, name, rng.randint(8, 20)))
    return World(tuple(pipelines))


def runs_for(world: World, count: int, seed: int = 11) -> Iterator[tuple[RecordedRun, dict[str, dict[str, object]]]]:
    """``count`` runs spread evenly over the year; recipe version 0, 1, 2 in each third of it."""
    rng = random.Random(seed)
    for i in range(count):
        p = world.pipelines[i % len(world.pipelines)]
        start = YEAR_START + (i * YEAR) // count + rng.randint(0, 59)
        version = min(2, 3 * (start - YEAR_START) // YEAR)
        template = p.versions[version]
        run = RunInfo(namespace=p.namespace, program=p.name, run_id=f"{p.name}-{i:07d}", start=start, end=start + 300)
        yield template.model_copy(update={"run": run}), p.histories[version]


def build_store(store: LineageStore, world: World, count: int) -> float:
    """Record ``count`` runs of ``world`` into ``store``; the seconds it took."""
    before = len_runs(store)  # a store an interrupted --keep run left half full is completed (re-records are no-ops)
    began = time.perf_counter()
    stored = store.record_runs(runs_for(world, count), batch_size=2000)
    elapsed = time.perf_counter() - began
    assert stored == count - before and len_runs(store) == count, (stored, before, count)
    return elapsed


class Backend:
    """Where the stores live: SQLite files in a directory, or one PostgreSQL database per size."""

    def __init__(self, workdir: Path, postgres: str | None) -> None:
        self.workdir, self.postgres = workdir, postgres

    def _database(self, count: int) -> str:
        return f"bench_store_{count}"

    def location(self, count: int) -> str | Path:
        if self.postgres is None:
            return self.workdir / f"lineage_{count}.db"
        base = self.postgres.rsplit("/", 1)[0]
        return f"{base}/{self._database(count)}"

    def fresh(self, count: int, reuse: bool) -> tuple[LineageStore, bool]:
        """The store for ``count`` runs, and whether it already holds them (``--reuse``)."""
        from lineage.store import open_store

        location = self.location(count)
        if self.postgres is None:
            path = Path(location)
            if not (reuse and path.exists()):
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{path}{suffix}").unlink(missing_ok=True)
        else:
            import psycopg

            with psycopg.connect(self.postgres, autocommit=True) as admin:
                exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                       (self._database(count),)).fetchone()
                if exists and not reuse:
                    admin.execute(f'DROP DATABASE "{self._database(count)}" WITH (FORCE)')
                if not exists or not reuse:
                    admin.execute(f'CREATE DATABASE "{self._database(count)}"')
        store = open_store(location)
        held = len_runs(store)
        if held > count:
            store.close()
            return self.fresh(count, reuse=False)
        return store, held == count

    def settle(self, store: LineageStore) -> None:
        """After a bulk load: what a live server's autovacuum would have done by now (PostgreSQL)."""
        if self.postgres is not None:
            with store._db.pool().connection() as raw:  # type: ignore[attr-defined]
                raw.execute("VACUUM ANALYZE")

    def size(self, store: LineageStore, count: int) -> str:
        if self.postgres is None:
            return f"database file {Path(self.location(count)).stat().st_size / 1e6:.0f} MB"
        with store._db.read() as conn:
            size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        return f"database {size / 1e6:.0f} MB"

    def drop(self, count: int) -> None:
        if self.postgres is not None:
            import psycopg

            with psycopg.connect(self.postgres, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{self._database(count)}" WITH (FORCE)')


def len_runs(store: LineageStore) -> int:
    with store._db.read() as conn:
        return int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])


def explain_hot_query(store: LineageStore, world: World) -> str:
    """The plan of one field's newest runs in a 7-day range (``field_lineage``'s seek), on PostgreSQL."""
    from lineage.store.keys import inverted_bounds
    from lineage.store.queries import _NEWEST_DATASET_RUNS

    ns, ds, _ = world.destinations()[0]
    with store._db.read() as conn:
        dataset_id, = conn.execute("SELECT id FROM datasets WHERE namespace = ? AND name = ?", (ns, ds)).fetchone()
        checksum_id, = conn.execute("SELECT checksum_id FROM dataset_checksums WHERE dataset_id = ? LIMIT 1",
                                    (dataset_id,)).fetchone()
        lo, hi = inverted_bounds(YEAR_START + 100 * DAY, YEAR_START + 107 * DAY)
        rows = conn.execute("EXPLAIN ANALYZE " + _NEWEST_DATASET_RUNS, ("b", dataset_id, checksum_id, lo, hi, 20))
        return "\n".join("    " + row[0] for row in rows.fetchall())


def _ranges(rng: random.Random, kind: str) -> tuple[int, int]:
    if kind == "wide":
        return YEAR_START, YEAR_START + YEAR + DAY
    day = rng.randint(0, 358)
    return YEAR_START + day * DAY, YEAR_START + (day + 7) * DAY


def query_makers(world: World) -> dict[str, Callable[[LineageStore, random.Random, tuple[int, int]], object]]:
    dests = world.destinations()
    sources = world.sources()
    marts = [d for d in dests if "_mart" in d[1]]

    def field_lineage(store: LineageStore, rng: random.Random, span: tuple[int, int]) -> object:
        if rng.random() < 0.5:
            ns, ds, fields = rng.choice(dests)
            return store.field_lineage(ns, ds, rng.choice(fields), "backward", *span)
        ns, ds, fields = rng.choice(sources)
        return store.field_lineage(ns, ds, rng.choice(fields), "forward", *span)

    def fields(store: LineageStore, rng: random.Random, span: tuple[int, int]) -> object:
        ns, ds, _ = rng.choice(dests + sources)
        return store.fields(ns, ds, *span)

    def column_history(store: LineageStore, rng: random.Random, span: tuple[int, int]) -> object:
        ns, ds, fields = rng.choice(dests)
        return store.column_history(ns, ds, rng.choice(fields), *span, max_levels=2, limit=20)

    def summary(store: LineageStore, rng: random.Random, span: tuple[int, int]) -> object:
        ns, ds, _ = rng.choice(marts)
        return store.summary(ns, ds, "backward", *span, levels=2)

    return {"field_lineage": field_lineage, "fields": fields, "column_history": column_history, "summary": summary}


def measure(store: LineageStore, world: World, queries: int, seed: int = 3) -> dict[tuple[str, str], list[float]]:
    makers = query_makers(world)
    results: dict[tuple[str, str], list[float]] = {}
    for name, make in makers.items():
        for kind in ("narrow", "wide"):
            rng = random.Random(f"{seed}-{name}-{kind}")
            for _ in range(min(20, queries)):  # warm-up: fill the per-checksum caches
                make(store, rng, _ranges(rng, kind))
            rng = random.Random(f"{seed}-{name}-{kind}-measured")
            timings, cpu = [], []
            for _ in range(queries):
                span = _ranges(rng, kind)
                began, began_cpu = time.perf_counter(), time.thread_time()
                make(store, rng, span)
                timings.append((time.perf_counter() - began) * 1000)
                cpu.append((time.thread_time() - began_cpu) * 1000)
            results[(name, kind)] = timings
            results[(name, kind + "/cpu")] = cpu
    return results


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100_000, help="runs in the biggest store (default 100000)")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per query type and range")
    parser.add_argument("--postgres", default=None, metavar="URL",
                        help="measure PostgreSQL: URL of a server's maintenance database, where a database per "
                             "size is created (and dropped afterwards unless --keep)")
    parser.add_argument("--dir", type=Path, default=None, help="where to put the SQLite files (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    parser.add_argument("--check", action="store_true", help=f"exit 1 if a p99 exceeds {TARGET_P99_MS:.0f} ms")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse databases kept by an earlier --keep run that hold the right number of runs")
    args = parser.parse_args(argv)
    sizes = sorted({max(args.runs // 100, 10), max(args.runs // 10, 10), max(args.runs, 10)})

    workdir = args.dir or Path(tempfile.mkdtemp(prefix="bench_store_"))
    workdir.mkdir(parents=True, exist_ok=True)
    backend = Backend(workdir, args.postgres)
    world = build_world()
    checksums = sum(len(p.versions) for p in world.pipelines)
    print(
        f"{'PostgreSQL' if args.postgres else 'SQLite'} store; world: {len(world.pipelines)} pipelines, "
        f"{checksums} operation sets, {len(world.destinations()) + len(world.sources())} datasets; "
        f"runs spread over one year"
    )
    measured: dict[int, dict[tuple[str, str], list[float]]] = {}
    try:
        for count in sizes:
            store, held = backend.fresh(count, args.reuse)
            setup = float("nan") if held else build_store(store, world, count)
            backend.settle(store)
            measured[count] = measure(store, world, args.queries)
            print(f"{count:>8,} runs: recorded in {setup:.1f}s ({count / setup:,.0f} runs/s), "
                  f"{backend.size(store, count)}", flush=True)
            if args.postgres and count == sizes[-1]:
                print(f"plan of field_lineage's seek at {count:,} runs:\n{explain_hot_query(store, world)}")
            store.close()  # SQLite: the last close checkpoints the WAL into the database file
    finally:
        if not args.keep:
            for count in sizes:
                backend.drop(count)
            if args.dir is None:
                shutil.rmtree(workdir, ignore_errors=True)

    small, big = sizes[0], sizes[-1]
    header = f"{'query':<15}{'range':<12}" + "".join(f"{f'p50 @{n:,}':>13}{f'p99 @{n:,}':>13}" for n in sizes)
    header += "".join(f"{f'p50 {n // small}x':>10}" for n in sizes[1:])
    print()
    print(header)
    print("-" * len(header))
    worst = worst_cpu = 0.0
    for key in measured[big]:
        cells = ""
        for n in sizes:
            p50, p99 = pct(measured[n][key], 50), pct(measured[n][key], 99)
            cells += f"{p50:>11.2f}ms{p99:>11.2f}ms"
            if key[1].endswith("/cpu"):
                worst_cpu = max(worst_cpu, p99)
            else:
                worst = max(worst, p99)
        base = pct(measured[small][key], 50)
        ratios = "".join(f"{pct(measured[n][key], 50) / max(base, 1e-9):>9.2f}x" for n in sizes[1:])
        print(f"{key[0]:<15}{key[1]:<12}{cells}{ratios}")
    print()
    print(f"runs per range grow {big // small}x from the smallest store to the biggest; a ratio near 1x (a small "
          f"constant step per 10x) means latency follows log(runs), not runs")
    verdict = "PASS" if worst <= TARGET_P99_MS else "FAIL"
    print(f"worst p99 {worst:.2f} ms wall, {worst_cpu:.2f} ms CPU (the query's own thread time, which a busy "
          f"shared machine does not inflate) vs target {TARGET_P99_MS:.0f} ms: {verdict}")
    return 1 if args.check and verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
