"""Jobs run beside a compile (`in_background`): on threads that stay for the next job, each job with the Spark job
properties its caller had when it asked, and as many at once as callers ask for."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from directives.spark.runtime import background
from directives.spark.runtime.background import in_background

pytestmark = pytest.mark.spark


def test_a_job_gets_the_properties_its_caller_had_when_it_asked(spark: Any) -> None:
    context = spark.sparkContext
    seen: list[tuple[str | None, int]] = []

    def job() -> None:
        seen.append((context.getLocalProperty("wrangler.test.owner"), threading.get_ident()))

    started = []
    try:
        for owner in ("first run", "second run", None):
            context.setLocalProperty("wrangler.test.owner", owner)  # None unsets it
            in_background(job, "test").result(timeout=60)
            started.append(background._started)
    finally:
        context.setLocalProperty("wrangler.test.owner", None)
    assert [owner for owner, _ in seen] == ["first run", "second run", None]
    assert started[0] == started[-1] > 0  # the later jobs took a thread that was there (no new one)
    assert context.getLocalProperty("wrangler.test.owner") is None


def test_jobs_asked_for_at_once_run_at_once_and_failures_reach_the_caller(spark: Any) -> None:
    both = threading.Barrier(2, timeout=30)  # each job waits for the other: only two threads get both through
    first, second = in_background(both.wait, "a"), in_background(both.wait, "b")
    assert {first.result(timeout=60), second.result(timeout=60)} == {0, 1}

    def fails() -> None:
        raise ValueError("the job's own error")

    with pytest.raises(ValueError, match="the job's own error"):
        in_background(fails, "c").result(timeout=60)
    assert in_background(lambda: spark.range(5).count(), "d").result(timeout=60) == 5
