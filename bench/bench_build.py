"""How long building a recipe's plan takes, per directive, as recipes grow: 50, 100, 200, 400 directives.

    python -m bench.bench_build [--sizes 50,100,200,400] [--repeat 11] [--warm-seconds 240] [--profile N]

"Building" is `directives.run(df, recipe)` with no action: parsing and labelling the recipe, compiling every
directive into the lazy plan, and whatever that needs Spark for (analysing each projection, and the pass that
learns `parse-as-csv`'s width from the data, which a small input makes cheap but not free). The input is a few
hundred CSV lines in `body`. The recipes are shaped like the real ones in `../shared/realworld/`: `parse-as-csv`, a
rename per column, then per column trims, `fill-null-or-empty`, `set-type`, `set-column` expressions, case
changes, an occasional `filter-row` and drops of helper columns.

The target is for a warm JVM, so the JVM is warmed until its JIT is done with what building needs: rounds that build
every size once, until three rounds in a row spent less than a tenth of their wall time compiling (or
``--warm-seconds`` pass; Spark's analyzer is a lot of code, and the JIT works on it for a hundred builds or more,
on a core the build would otherwise have). The first build of each size in the fresh JVM is printed first: that is
what a new process waits for. Then ``--repeat`` measured rounds; each builds every size as many times as it takes to
build as many directives as one build of the largest (eight builds of 50 directives, one of 400), in an order
shuffled anew each round, and each size reports the median of all its builds.

Why equal work per size, shuffled, and not one build of each size per round in rotation (this benchmark's first
design): a build runs while py4j's finalizer thread releases the JVM references the builds before it let go of (a
round trip each, in a burst once a second; a 400-directive build leaves ~3,000), and the rotation (50, 100, 200, 400;
then 100, 200, 400, 50; …) put three of every four 50-directive builds right after the 400-directive one. Measured
on one machine, 200 builds of each kind: 50 directives cost 2.99 ms each after a 50-directive build and 3.32 after a
400-directive one; 400 directives 2.30 and 2.47. So the rotation charged the largest build's clean-up to the
smallest. Both designs interleaved in one process (48 builds of each size in rotation, 12 rounds of equal work): the
rotation 1.38×, equal work 1.27×. The rest of the rotation's spread on that machine (1.53×, 1.80×, 1.73× in three
runs of eleven rounds) was its eleven samples of the size that disturbances move most. The ratio is printed with an
interval: the central 90 % of the medians' ratios over builds resampled with replacement (``--resamples``).

It prints ms per directive at each size and the ratio of the largest per-directive cost to the smallest (flat
is 1.0×; the target is ≤ 1.5×, and ≤ 5 ms per directive at 400), with the CPU milliseconds per directive of this
process and the Spark JVM together beside the wall time (the fairer number on a busy machine) and the JIT's
milliseconds during a build. Round trips count the py4j commands of one more build, then, after a ``+``, the
releases py4j's finalizer thread sent meanwhile (a command for each JVM reference Python let go of, most of them
the earlier builds': the build pays for them in time, not in its own round trips).
``--profile N`` also runs one build of N directives under cProfile (the top functions by cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: Directives per input column after the rename (see `column_block`); the recipe's width follows from its size.
_BLOCK = 7


def column_block(i: int) -> list[str]:
    """The directives one input column gets: a rename, then cleaning shaped like real recipes' (numbers on odd
    columns, text on even ones)."""
    name = f"c{i}"
    if i % 2:
        lines = [
            f"rename :body_{i} :{name}",
            f"trim :{name}",
            f"fill-null-or-empty :{name} '0'",
            f"set-type :{name} double",
            f"set-column :{name}_x exp:{{ {name} * 2 + 1 }}",
            f"filter-row exp:{{ {name}_x < 3 }}" if i % 4 == 1 else f"set-column :{name} exp:{{ {name} / 10 }}",
            f"drop :{name}_x",
        ]
    else:
        lines = [
            f"rename :body_{i} :{name}",
            f"trim :{name}",
            f"fill-null-or-empty :{name} 'unknown'",
            f"uppercase :{name}",
            f"set-column :{name}_len exp:{{ {name}.length() }}",
            f"set-column :{name} exp:{{ {name} + '-' + {name}_len }}",
            f"drop :{name}_len",
        ]
    assert len(lines) == _BLOCK
    return lines


def recipe_of(size: int) -> tuple[str, int]:
    """A recipe of exactly ``size`` directives and the CSV width it reads."""
    width = max(1, -(-(size - 2) // _BLOCK))
    lines = ["parse-as-csv :body ',' false", "drop :body"]
    for i in range(1, width + 1):
        lines += column_block(i)
    return "\n".join(lines[:size]) + "\n", width


def source(spark: SparkSession, width: int, rows: int = 200) -> DataFrame:
    """``rows`` CSV lines of ``width`` fields: numbers (some blank) in odd fields, padded words in even ones."""
    def field(r: int, i: int) -> str:
        if i % 2:
            return "" if (r + i) % 11 == 0 else str((r * 31 + i * 7) % 1000)
        return f" w{(r + i) % 13} "

    lines = [(",".join(field(r, i) for i in range(1, width + 1)),) for r in range(rows)]
    return spark.createDataFrame(lines, "body string")


@contextmanager
def counting_round_trips(spark: SparkSession) -> Iterator[list[int]]:
    """Count the py4j commands this process sends to the JVM while the body runs (one per round trip): the build's
    own, then the releases of JVM references py4j's finalizer thread sends."""
    from py4j.clientserver import FinalizerWorker

    client: Any = spark.sparkContext._gateway._gateway_client  # type: ignore[union-attr]
    count = [0, 0]
    original = client.send_command

    def send(*args: Any, **kwargs: Any) -> Any:
        count[1 if isinstance(threading.current_thread(), FinalizerWorker) else 0] += 1
        return original(*args, **kwargs)

    client.send_command = send
    try:
        yield count
    finally:
        client.send_command = original


def median_build(build: Callable[[], object], repeat: int, jvm_cpu: Callable[[], float] = lambda: 0.0
                 ) -> tuple[float, list[float], float]:
    """Median wall seconds, every build's wall seconds, and the median CPU seconds (this process and the JVM)."""
    walls, cpus = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time() + jvm_cpu()
        build()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() + jvm_cpu() - started_cpu)
    return statistics.median(walls), walls, statistics.median(cpus)


def equal_work_round(sizes: Sequence[int], shuffler: random.Random) -> list[int]:
    """One measured round: each size as many times as one build of the largest is directives (at least once), in a
    shuffled order."""
    largest = max(sizes)
    order = [size for size in sizes for _ in range(max(1, round(largest / size)))]
    shuffler.shuffle(order)
    return order


def spread(times: Sequence[float]) -> str:
    """How a size's builds spread: their count, quartiles and range, in seconds."""
    if len(times) < 2:
        return f"{len(times)}: " + " ".join(f"{t:.3f}" for t in times)
    low, middle, high = statistics.quantiles(times, n=4)
    return f"{len(times)}: {low:.3f} / {middle:.3f} / {high:.3f} ({min(times):.3f}–{max(times):.3f})"


def ratio_interval(walls: dict[int, list[float]], resamples: int, shuffler: random.Random,
                   share: float = 0.90) -> tuple[float, float]:
    """The central ``share`` of the largest-over-smallest ratio of median cost per directive, over ``resamples``
    resamplings (with replacement) of each size's builds: how far the printed ratio could move by chance."""
    ratios = []
    for _ in range(resamples):
        per = [statistics.median(shuffler.choices(times, k=len(times))) / size for size, times in walls.items()]
        ratios.append(max(per) / min(per))
    ratios.sort()
    tail = (1 - share) / 2
    return ratios[int(tail * (len(ratios) - 1))], ratios[int((1 - tail) * (len(ratios) - 1))]


def jit_clock(spark: SparkSession) -> Callable[[], float]:
    """Milliseconds the JVM's JIT compilers have spent so far (its `CompilationMXBean`), or NaN when unknown."""
    try:
        bean = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getCompilationMXBean()  # type: ignore
        if not bean.isCompilationTimeMonitoringSupported():
            return lambda: float("nan")
        return lambda: float(bean.getTotalCompilationTime())
    except Exception:  # a remote JVM: not known
        return lambda: float("nan")


def warm_up(builds: Sequence[Callable[[], object]], jit_ms: Callable[[], float], seconds: float,
            quiet_share: float = 0.10, quiet_rounds: int = 3) -> tuple[int, list[float]]:
    """Build every size in turn until the JIT is done with what building needs: ``quiet_rounds`` rounds in a row in
    which the JIT compiled for less than ``quiet_share`` of the round's wall time, or ``seconds`` have passed.
    Returns the rounds run and each round's JIT share. (Spark's analyzer is a lot of code: the JIT goes on compiling
    it for a hundred builds or more, on a core the build would otherwise have, and per build it costs the small
    recipes most, as a fixed cost does.)"""
    shares: list[float] = []
    quiet = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline and quiet < quiet_rounds:
        started, jit_started = time.perf_counter(), jit_ms()
        for build in builds:
            build()
        share = (jit_ms() - jit_started) / 1000 / (time.perf_counter() - started)
        shares.append(share)
        quiet = quiet + 1 if share < quiet_share else 0
    return len(shares), shares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_build", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,100,200,400", help="recipe sizes, in directives")
    parser.add_argument("--repeat", type=int, default=11,
                        help="measured rounds (each builds every size as often as it takes to build as many directives "
                             "as one build of the largest); each size reports the median of its builds")
    parser.add_argument("--warm-seconds", type=float, default=240.0,
                        help="longest warm-up before the measured rounds (it stops once the JIT is quiet)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the rounds' order and of the resamples")
    parser.add_argument("--resamples", type=int, default=1000, help="resamples for the ratio's interval")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--profile", type=int, default=0, help="also profile one build of this many directives")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    import directives
    from bench.bench_run import JvmClock
    from directives.spark.runtime.session import get_session

    spark = get_session(args.master, {"spark.sql.shuffle.partitions": "2"}, app_name="wrangler-bench-build")
    clock, jit_ms = JvmClock(spark), jit_clock(spark)
    print(f"uptime: {os.popen('uptime').read().strip()}")
    cases = {}
    for size in sizes:
        text, width = recipe_of(size)
        df = source(spark, width).cache()
        df.count()
        cases[size] = (text, df)
    builds = {size: partial(directives.run, cases[size][1], cases[size][0]) for size in sizes}
    firsts = {}
    for size in sizes:  # what a new process waits for: the first build of each size (the JVM still cold)
        started = time.perf_counter()
        builds[size]()
        firsts[size] = time.perf_counter() - started
    print("first build of each size in this JVM (cold, then warming): "
          + ", ".join(f"{size}: {seconds:.2f} s" for size, seconds in firsts.items()))
    rounds, shares = warm_up(list(builds.values()), jit_ms, args.warm_seconds)
    quiet = " (the JIT was still busy: the time limit ended it)" if len(shares) < 3 or shares[-1] >= 0.10 else ""
    print(f"warm-up: {rounds} rounds of every size; the JIT's share of a round's wall time went from "
          f"{shares[0]:.0%} to {shares[-1]:.0%}{quiet}")
    walls: dict[int, list[float]] = {size: [] for size in sizes}
    cpus: dict[int, list[float]] = {size: [] for size in sizes}
    jits: dict[int, list[float]] = {size: [] for size in sizes}
    shuffler = random.Random(args.seed)
    for _ in range(args.repeat):
        for size in equal_work_round(sizes, shuffler):
            started, started_cpu, started_jit = time.perf_counter(), time.process_time() + clock.cpu(), jit_ms()
            builds[size]()
            walls[size].append(time.perf_counter() - started)
            cpus[size].append(time.process_time() + clock.cpu() - started_cpu)
            jits[size].append(jit_ms() - started_jit)
    print(f"{'directives':>10} {'median s':>9} {'ms/directive':>13} {'CPU ms/dir':>11} {'JIT ms':>7} "
          f"{'round trips':>14} {'parse s':>8}  builds: count, quartiles and range (s)")
    per_directive: dict[int, float] = {}
    for size in sizes:
        text, df = cases[size]
        with counting_round_trips(spark) as trips:
            builds[size]()
        parse_s, _, _ = median_build(lambda text=text: directives.parse(text, schema=["body"]), 1)
        wall = statistics.median(walls[size])
        per_directive[size] = wall * 1000 / size
        print(f"{size:>10} {wall:9.2f} {per_directive[size]:13.2f} {statistics.median(cpus[size]) * 1000 / size:11.2f} "
              f"{statistics.median(jits[size]):7.0f} {f'{trips[0]:,} +{trips[1]:,}':>14} {parse_s:8.2f}  "
              f"{spread(walls[size])}", flush=True)
    if per_directive:
        low, high = min(per_directive.values()), max(per_directive.values())
        largest = max(sizes)
        lower, upper = ratio_interval(walls, args.resamples, random.Random(args.seed))
        print(f"per-directive cost: largest / smallest = {high / low:.2f}× (90 % of {args.resamples} resamples of "
              f"the builds: {lower:.2f}–{upper:.2f}×; target ≤ 1.5×); "
              f"{largest} directives: {per_directive[largest]:.2f} ms/directive (target ≤ 5)")
    if args.profile:
        text, width = recipe_of(args.profile)
        df = cases[args.profile][1] if args.profile in cases else source(spark, width).cache()
        profile = cProfile.Profile()
        profile.enable()
        directives.run(df, text)
        profile.disable()
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(40)
        print(out.getvalue())
    print(f"uptime: {os.popen('uptime').read().strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
