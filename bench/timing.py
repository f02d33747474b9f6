"""Repeated timing of one piece of work, in wall-clock and CPU time of this process.

The benchmarks run on a machine other sessions share, so each reports both: the best wall time says
how fast it can go, the best CPU time is the fairer number when the machine is busy.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def time_runs(repeat: int, work: Callable[[], object]) -> tuple[list[float], list[float]]:
    """Run ``work`` ``repeat`` times; the wall-clock seconds and the CPU seconds of every run, in order."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - started_cpu)
    return walls, cpus
