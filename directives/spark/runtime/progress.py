"""A one-line progress display for long runs, read from Spark's status tracker.

Spark's own console progress bar is off in our sessions (it interleaves with the command's output and
floods logs in CI); this draws one line on stderr only when asked or when stderr is a terminal, and
wipes it before the counts are printed.
"""

from __future__ import annotations

import sys
import threading
import time

from pyspark.sql import SparkSession


class Progress:
    """A thread polling the status tracker; best effort, so a stopping context only ends the display."""

    def __init__(self, spark: SparkSession, enabled: bool, interval: float = 0.5) -> None:
        self._tracker = spark.sparkContext.statusTracker()
        self._enabled = enabled
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="wrangler-progress", daemon=True)
        self._drawn = False

    def __enter__(self) -> Progress:
        if self._enabled:
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._enabled:
            self._stop.set()
            self._thread.join(timeout=5)
            if self._drawn:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()

    def _loop(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(self._interval):
            try:
                stages = [self._tracker.getStageInfo(sid) for sid in self._tracker.getActiveStageIds()]
            except Exception:  # the context is stopping; progress is best effort
                return
            parts = [f"stage {s.stageId}: {s.numCompletedTasks}/{s.numTasks} tasks" for s in stages if s is not None]
            if parts:
                sys.stderr.write(f"\r\033[K[{time.monotonic() - started:5.1f}s] " + "; ".join(parts))
                sys.stderr.flush()
                self._drawn = True
