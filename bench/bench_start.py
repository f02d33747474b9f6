"""What a new process waits for: a whole `wrangler run` in a fresh process, with Spark's class archive and without.

    python -m bench.bench_start [--repeat 5] [--lines 1000]

Each round runs the same command twice, each in a process of its own, alternating which goes first: the demo
recipe (`examples/employees.recipe`) over ``--lines`` lines of the demo's CSV read as text, written to parquet,
once mapping the class archive (`directives/spark/runtime/class_archive.py`) and once with
``WRANGLER_CLASS_ARCHIVE=off``. It reports each one's median wall seconds (from starting the process to its exit,
everything a user waits for) and the ratio, and Spark's start as the command reports it. The archive is written
first into a temporary cache directory, the way `python -m directives.spark.runtime.class_archive` writes it
(that one-off cost is printed too); the user's own cache is not touched.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "examples" / "employees.recipe"
DATA = ROOT / "examples" / "employees.csv"
_READY = re.compile(r"Spark ready in ([0-9.]+) s")


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float | None]:
    """Wall seconds of ``command`` from start to exit, and Spark's start as the command reported it (run from the
    project's folder, where ``-m server.cli`` and ``-m directives…`` import from, wherever the benchmark is started)."""
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    ready = _READY.search(done.stderr)
    return wall, float(ready.group(1)) if ready else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_start", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (each runs both ways once)")
    parser.add_argument("--lines", type=int, default=1000, help="input lines (the demo's rows, repeated)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="wrangler-bench-start-") as folder:
        root = Path(folder)
        header, *rows = DATA.read_text().splitlines()
        lines = [header] + [rows[i % len(rows)] for i in range(args.lines)]
        source = root / "employees.txt"
        source.write_text("\n".join(lines) + "\n")
        cache = root / "cache"
        base = {**os.environ, "WRANGLER_CACHE_DIR": str(cache)}
        base.pop("WRANGLER_CLASS_ARCHIVE", None)
        write = [sys.executable, "-m", "directives.spark.runtime.class_archive"]
        wrote, _ = timed(write, base)
        archives = list(cache.glob("*.jsa"))
        if not archives:
            raise SystemExit("the class archive was not written (see python -m directives.spark.runtime.class_archive)")
        print(f"writing the archive once: {wrote:.1f} s ({archives[0].stat().st_size / 2**20:.0f} MB)")
        ways = {"archive": base, "no archive": {**base, "WRANGLER_CLASS_ARCHIVE": "off"}}
        walls: dict[str, list[float]] = {way: [] for way in ways}
        starts: dict[str, list[float]] = {way: [] for way in ways}
        for round_number in range(args.repeat):
            order = list(ways) if round_number % 2 == 0 else list(ways)[::-1]
            for way in order:
                out = root / f"out-{way.replace(' ', '-')}.parquet"
                command = [sys.executable, "-m", "server.cli", "run", str(RECIPE), "--input", str(source),
                           "--input-format", "text", "--output", str(out), "--overwrite", "--no-progress"]
                wall, ready = timed(command, ways[way])
                walls[way].append(wall)
                if ready is not None:
                    starts[way].append(ready)
                print(f"round {round_number + 1}: {way:>10} {wall:6.2f} s (Spark ready in {ready} s)", flush=True)
        for way in ways:
            start = f"{statistics.median(starts[way]):.1f} s" if starts[way] else "?"
            print(f"{way:>10}: median {statistics.median(walls[way]):6.2f} s, Spark's start {start}")
        ratio = statistics.median(walls["archive"]) / statistics.median(walls["no archive"])
        print(f"archive / no archive: {ratio:.2f}× of the wall time a user waits for")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
