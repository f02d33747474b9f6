"""A job run on another thread, as the thread that asked for it: its Spark job properties (job group, description,
scheduler pool) copied over.

In pinned-thread mode (py4j's `ClientServer`, PySpark's default) every Python thread has a JVM thread of its own,
and job properties are that JVM thread's. PySpark's `InheritableThread` copies them to a new thread; a thread that
stays for the next job (`runtime.background`) needs them copied per job, through `SparkContext._jsc`'s
`getLocalProperties` and `setLocalProperties`. Without them: the job runs with its thread's own properties.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def as_the_caller(work: Callable[[], T]) -> Callable[[], T]:
    """``work``, run with the caller's Spark job properties as they are now, wherever it runs. Properties, not tags,
    as `InheritableThread` does without a session (tags would pile up on a thread that stays)."""
    from py4j.clientserver import ClientServer
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    if context is None or not isinstance(SparkContext._gateway, ClientServer):
        return work
    try:
        properties = context._jsc.sc().getLocalProperties().clone()
    except Exception:  # the internals moved: run the job as its thread is
        return work

    def work_as_the_caller() -> T:
        context._jsc.sc().setLocalProperties(properties)
        return work()

    return work_as_the_caller
