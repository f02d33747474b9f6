"""A Spark job run beside a recipe's compile, its answer asked for when the compile is done.

Learning `parse-as-csv`'s width is a job, and a job costs a tenth of a second or more even on a few hundred rows,
which is most of what a short recipe's build costs. When the recipe itself says what the width should be, the
compile goes on with that width while the job checks it (`runner.run` compiles again, with the learned width, in the
rare case they differ).

The jobs run on threads that stay for the next one. A new thread per job (PySpark's `InheritableThread`) cost each
build ~2.5 ms and ~4 ms of CPU: in pinned-thread mode a new Python thread opens a new connection to the JVM, which
starts a thread of its own to serve it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from pyspark import InheritableThread

from directives.spark.internals import as_the_caller

T = TypeVar("T")

#: Jobs waiting for a thread, and how many threads wait for a job (a job starts a thread only when none waits).
_jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
_lock = threading.Lock()
_idle = 0
_started = 0


def in_background(work: Callable[[], T], name: str) -> Future[T]:
    """Run ``work`` on a thread of its own and return its future. The job inherits the caller's Spark job properties
    as they are now (job group, description, scheduler pool), so its job is the run's. ``name`` names the thread
    over Spark Connect, where the work gets a new one (the connection is per session there, not per thread)."""
    from pyspark.sql import is_remote

    future: Future[T] = Future()
    if is_remote():
        InheritableThread(target=lambda: _settle(future, work), name=name, daemon=True).start()
        return future
    _submit(future, as_the_caller(work))
    return future


def _submit(future: Future[Any], work: Callable[[], Any]) -> None:
    global _idle, _started
    with _lock:
        if _idle:
            _idle -= 1  # that thread takes this job: its count goes back up when the job is done
        else:
            _started += 1
            threading.Thread(target=_serve, name=f"wrangler-background-{_started}", daemon=True).start()
        _jobs.put((future, work))


def _serve() -> None:
    """One thread: a job, then the next. Daemon threads: a job still running never holds up the process's exit."""
    global _idle
    while True:
        future, work = _jobs.get()
        _settle(future, work)
        with _lock:
            _idle += 1


def _settle(future: Future[Any], work: Callable[[], Any]) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(work())
    except BaseException as error:  # handed to whoever asks for the result
        future.set_exception(error)
