"""Every benchmark, one after the other: ``python -m bench`` (full sizes) or ``python -m bench --quick``.

Each benchmark runs in a process of its own, so one's JVM, caches or garbage cannot slow the
next; each prints its own baseline and ratios (see the module docstrings). ``--only`` picks some.
Full sizes take about 15 minutes on a 2-core machine; ``--quick`` about 3.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

#: (module, arguments at full size, arguments for --quick)
BENCHMARKS: dict[str, tuple[list[str], list[str]]] = {
    "bench_parse": ([], []),
    "bench_parse_adversarial": ([], ["--sizes", "16,64", "--repeat", "1"]),
    "bench_lineage": ([], ["--repeat", "2"]),
    "bench_store": ([], ["--runs", "10000"]),
    "bench_api": ([], ["--runs", "10000", "--duration", "3"]),
    "bench_hostile": ([], ["--duration", "3"]),
    "bench_run": ([], ["--rows", "200000", "--repeat", "1"]),
    "bench_run_lineage": ([], ["--rows", "200000", "--repeat", "1"]),
    "bench_read": ([], ["--rows", "200000", "--repeat", "1"]),
    "bench_start": ([], ["--repeat", "1"]),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the benchmarks run, not targets")
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS), help="run only these")
    args = parser.parse_args(argv)
    failed = []
    for name in args.only or BENCHMARKS:
        full, quick = BENCHMARKS[name]
        print(f"\n=== {name} {' '.join(quick if args.quick else full)}".rstrip(), flush=True)
        started = time.monotonic()
        code = subprocess.call([sys.executable, "-m", f"bench.{name}", *(quick if args.quick else full)])
        print(f"=== {name}: exit {code} after {time.monotonic() - started:.0f}s", flush=True)
        if code != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
