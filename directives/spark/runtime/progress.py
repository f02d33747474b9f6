"""A one-line progress display for long runs, read from Spark's status tracker.

Spark's own console progress bar is off in our sessions (it interleaves with the command's output and
floods logs in CI); this draws one line on stderr only when asked or when stderr is a terminal, and
wipes it before the counts are printed. A Spark Connect session has no status tracker in this process: the
server reports the progress of each operation with its responses instead, and a progress handler draws that.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from pyspark.sql import SparkSession

from directives.spark.runtime.session import is_remote_session


class Progress:
    """A thread polling the status tracker (over Spark Connect: a progress handler the client calls); best effort,
    so a stopping context only ends the display."""

    def __init__(self, spark: SparkSession, enabled: bool, interval: float = 0.5) -> None:
        self._spark = spark
        self._remote = is_remote_session(spark)
        self._tracker = None if self._remote or not enabled else spark.sparkContext.statusTracker()
        self._enabled = enabled
        self._started = time.monotonic()
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="wrangler-progress", daemon=True)
        self._drawn = False

    def __enter__(self) -> Progress:
        if self._enabled and self._remote:
            self._spark.registerProgressHandler(self._on_connect_progress)  # type: ignore[attr-defined]
        elif self._enabled:
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._enabled:
            if self._remote:
                self._spark.removeProgressHandler(self._on_connect_progress)  # type: ignore[attr-defined]
            else:
                self._stop.set()
                self._thread.join(timeout=5)
            if self._drawn:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()

    def _loop(self) -> None:
        assert self._tracker is not None
        while not self._stop.wait(self._interval):
            try:
                stages = [self._tracker.getStageInfo(sid) for sid in self._tracker.getActiveStageIds()]
            except Exception:  # the context is stopping; progress is best effort
                return
            self._draw([(s.stageId, s.numCompletedTasks, s.numTasks) for s in stages if s is not None])

    def _on_connect_progress(self, stages: Any, _inflight_tasks: int, _operation_id: str | None, done: bool) -> None:
        """Called by the Connect client with each progress report of an operation (its stages so far)."""
        if not done and stages:
            self._draw([(s.stage_id, s.num_completed_tasks, s.num_tasks) for s in stages if not s.done])

    def _draw(self, stages: list[tuple[int, int, int]]) -> None:
        parts = [f"stage {stage}: {completed}/{total} tasks" for stage, completed, total in stages]
        if parts:
            sys.stderr.write(f"\r\033[K[{time.monotonic() - self._started:5.1f}s] " + "; ".join(parts))
            sys.stderr.flush()
            self._drawn = True
