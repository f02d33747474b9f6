"""Progress of a run on stderr: rows read so far, and for file inputs a percentage and an ETA.

The numbers are Spark's own: the input records and bytes its stages have read (the status store keeps them,
updated from the executors' heartbeats while tasks run and exactly when they finish). The total is the
input's size on disk, so the percentage is bytes read over bytes to read; the total row count is estimated
from the bytes per row so far. On a terminal a live bar is redrawn in place; otherwise (a log, CI) a plain
line is printed every few seconds, so a long run is never silent. Spark's own console bar stays off (it
interleaves with the output and floods logs). A Spark Connect session has no status store in this process: the
server reports each operation's stages with its responses, and a progress handler draws those (tasks and bytes).
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, TextIO

from pyspark.sql import SparkSession

from directives.spark.internals import active_stages
from directives.spark.runtime.session import is_remote_session

BAR_WIDTH = 24


@dataclass(frozen=True)
class Snapshot:
    """What the active stages have done: rows and bytes read, tasks done of tasks."""

    elapsed: float
    #: None when unknown (Spark Connect reports bytes and tasks, not rows).
    records: int | None
    bytes: int
    tasks_done: int
    tasks: int


def _count(value: int) -> str:
    return f"{value:,}"


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def describe(snapshot: Snapshot, total_bytes: int | None, bar: bool = False) -> str:
    """One progress line: ``[#####-----] 42% · 1,234 rows read of ~2,900 · 3s · ETA 4s``; without a known total
    (a table, a remote input), rows read and tasks done only."""
    parts: list[str] = []
    drawn = ""
    if snapshot.records is None:
        read = f" · {snapshot.bytes:,} bytes read" if snapshot.bytes else ""
        return f"{snapshot.tasks_done}/{snapshot.tasks} tasks{read} · {_duration(snapshot.elapsed)}"
    if total_bytes and snapshot.bytes > 0:
        fraction = min(snapshot.bytes / total_bytes, 0.99)  # 100 % is the end of the write, not of the read
        if bar:
            filled = int(fraction * BAR_WIDTH)
            drawn = "[" + "#" * filled + "-" * (BAR_WIDTH - filled) + "] "
        parts.append(f"{fraction:.0%}")
        estimate = int(snapshot.records * total_bytes / snapshot.bytes)
        parts.append(f"{_count(snapshot.records)} rows read of ~{_count(max(estimate, snapshot.records))}")
        parts.append(_duration(snapshot.elapsed))
        if fraction > 0.01:
            parts.append(f"ETA {_duration(snapshot.elapsed * (1 - fraction) / fraction)}")
    else:
        parts.append(f"{_count(snapshot.records)} rows read")
        parts.append(f"{snapshot.tasks_done}/{snapshot.tasks} tasks")
        parts.append(_duration(snapshot.elapsed))
    return drawn + " · ".join(parts)


def read_snapshot(spark: SparkSession, started: float) -> Snapshot | None:
    """The active stages' input so far, from Spark's status store (None when no stage runs or it is unreachable)."""
    stages = active_stages(spark)
    if not stages:
        return None
    return Snapshot(time.monotonic() - started, sum(s[0] for s in stages), sum(s[1] for s in stages),
                    sum(s[2] for s in stages), sum(s[3] for s in stages))


class Progress:
    """A thread polling the status store; best effort, so a failing poll only ends the display.

    ``mode``: ``bar`` (a terminal: redrawn in place every half second), ``lines`` (a line every ``interval``
    seconds) or ``off``."""

    def __init__(self, spark: SparkSession, mode: str, total_bytes: int | None = None, interval: float = 5.0,
                 stream: TextIO | None = None) -> None:
        self._spark = spark
        self._remote = is_remote_session(spark)
        self._mode = mode
        self._total = total_bytes
        self._interval = 0.5 if mode == "bar" else interval
        self._stream = stream or sys.stderr
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="wrangler-progress", daemon=True)
        self._drawn = False
        self._started = time.monotonic()
        self._last = 0.0

    def __enter__(self) -> Progress:
        if self._mode != "off" and self._remote:
            self._spark.registerProgressHandler(self._on_connect_progress)  # type: ignore[attr-defined]
        elif self._mode != "off":
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._mode == "off":
            return
        if self._remote:
            self._spark.removeProgressHandler(self._on_connect_progress)  # type: ignore[attr-defined]
        else:
            self._stop.set()
            self._thread.join(timeout=5)
        if self._drawn and self._mode == "bar":
            self._stream.write("\r\033[K")
            self._stream.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                snapshot = read_snapshot(self._spark, self._started)
            except Exception:  # the context is stopping, or the store changed shape: progress is best effort
                return
            if snapshot is None:
                continue
            self._show(describe(snapshot, self._total, bar=self._mode == "bar"))

    def _on_connect_progress(self, stages: Any = None, inflight_tasks: int = 0, operation_id: str | None = None,
                             done: bool = False) -> None:
        """Called by the Connect client with each progress report of an operation (its stages so far), by keyword
        (`stages=…, inflight_tasks=…, operation_id=…, done=…`). Best effort: an exception here would abort the
        operation the report came with."""
        del inflight_tasks, operation_id
        try:
            now = time.monotonic()
            if done or not stages or (self._mode == "lines" and now - self._last < self._interval):
                return
            self._last = now
            running = [s for s in stages if not s.done]
            snapshot = Snapshot(now - self._started, None,
                                sum(int(getattr(s, "num_bytes_read", 0) or 0) for s in running),
                                sum(s.num_completed_tasks for s in running), sum(s.num_tasks for s in running))
            self._show(describe(snapshot, None, bar=self._mode == "bar"))
        except Exception:
            return

    def _show(self, text: str) -> None:
        if self._mode == "bar":
            self._stream.write(f"\r\033[K{text}")
        else:
            self._stream.write(f"wrangler run: {text}\n")
        self._stream.flush()
        self._drawn = True


