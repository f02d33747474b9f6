"""A Spark job run beside a recipe's compile, its answer asked for when the compile is done.

Learning `parse-as-csv`'s width is a job, and a job costs a tenth of a second or more even on a few hundred rows,
which is most of what a short recipe's build costs. When the recipe itself says what the width should be, the
compile goes on with that width while the job checks it (`runner.run` compiles again, with the learned width, in the
rare case they differ).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from pyspark import InheritableThread

T = TypeVar("T")


def in_background(work: Callable[[], T], name: str) -> Future[T]:
    """Start ``work`` on a thread of its own and return its future. The thread inherits the caller's Spark job
    properties (`InheritableThread`: job group, description, scheduler pool), so its job is the run's."""
    future: Future[T] = Future()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(work())
        except BaseException as error:  # handed to whoever asks for the result
            future.set_exception(error)

    InheritableThread(target=target, name=name, daemon=True).start()
    return future
