"""Counting a run's rows with the row counters Spark's filters keep anyway, read back after the write.

Why not an `Observation`: it adds a `CollectMetrics` node, which Spark does not compile into generated
code. The plan splits in two there, every row (errors and filtered rows too) is copied once more, and
the bench recipe took 0.3–0.6 s longer on 2M rows (about 15 %). A `Filter` node counts the rows it
lets through ("number of output rows") inside the generated code, and Spark's SQL status store keeps
those numbers per query. So the output is three filters in a row (every row; rows no `filter-row`
dropped; rows without an error) and the counts are those filters' numbers, read after the write.

Two optimizer rules would undo this, and both leave nondeterministic expressions alone:

* filter pushdown would move the filters below the directives' projections, inlining every error
  expression into the condition (the run then takes 14 s instead of 4);
* `CombineFilters` would merge the three filters into one, and with them their counts.

So `fence` gives the rows a `spark_partition_id()` column (a nondeterministic column: nothing is
pushed below it), and each filter also checks that column against `spark_partition_id()` again,
which always holds and keeps every filter nondeterministic (never merged). Both cost a few
nanoseconds a row. The status store is the driver's, so this holds on a cluster too (client mode: the
executors' counters reach the driver with their task results). Reading the numbers back is best-effort: when
the query cannot be found, the caller counts with an aggregate pass. A Spark Connect session has no status store
in this process: `RunResult.write` counts with an observation there instead.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from directives.spark.internals.jvm_calls import column

FENCE_PREFIX = "__wr_fence_"
#: How many of the newest SQL executions are searched for the write (other threads may have run queries too).
_RECENT = 16
_ROWS_METRIC = "number of output rows"


def fence(rows: DataFrame, name: str) -> tuple[DataFrame, Column]:
    """``rows`` with the fence column ``name``, and a condition that always holds but keeps a filter in place."""
    fenced = rows.select("*", F.spark_partition_id().alias(name))
    return fenced, column(f"`{name}`") == F.spark_partition_id()


def counted(rows: DataFrame, name: str) -> DataFrame:
    """``rows`` as they are, through a fenced filter named ``name`` that lets every row through: its row counter
    counts them in whatever query runs the plan (`filter_counts`'s ``also``). A run counts its input rows this way
    when a directive may multiply them; an `Observation` would take its value from the first query over the plan to
    finish, which may be a job that reads only the first records (learning a width), not the write."""
    fenced, holds = fence(rows, name)
    return fenced.filter(holds).drop(name)


def last_execution_id(spark: SparkSession) -> int:
    """The newest SQL execution's id (-1 when none or unknown), so a later search skips what ran before."""
    try:
        store = _status_store(spark)
        count = store.executionsCount()
        if count == 0:
            return -1
        return int(store.executionsList(count - 1, 1).apply(0).executionId())
    except Exception:  # no status store (Spark Connect): the caller falls back to an aggregate pass
        return -1


def filter_counts(spark: SparkSession, fence_name: str, after: int, timeout: float = 10.0, also: Sequence[str] = ()
                  ) -> dict[str, int] | None:
    """Rows let through by each filter that mentions ``fence_name``, by the filter's description, in the newest
    SQL execution after ``after`` that has such filters; None when there is none or it did not finish in time.
    The filters that mention a name in ``also`` in that same execution are counted too (`counted`)."""
    try:
        _wait_for_listeners(spark, timeout)
        store = _status_store(spark)
        count = store.executionsCount()
        recent = store.executionsList(max(0, count - _RECENT), min(count, _RECENT))
        for index in range(recent.length() - 1, -1, -1):
            execution_id = int(recent.apply(index).executionId())
            if execution_id <= after:
                return None
            metrics = _fenced_filters(store, execution_id, fence_name)
            if metrics:
                for name in also:
                    metrics.update(_fenced_filters(store, execution_id, name))
                values = _final_metric_values(store, execution_id, timeout)
                if values is None:
                    return None
                return {description: _count(values, accumulator) for description, accumulator in metrics.items()}
    except Exception:  # the status store changed shape or went away: count with an aggregate pass instead
        return None
    return None


def _status_store(spark: SparkSession) -> Any:
    return spark._jsparkSession.sharedState().statusStore()  # type: ignore[attr-defined]


def _wait_for_listeners(spark: SparkSession, timeout: float) -> None:
    """Let Spark's listeners take in the events the write posted (they run on their own thread), so the write's
    query is in the status store. Spark's own test helper; when it is not reachable the store is usually
    up to date anyway, and a query not found only costs the aggregate pass."""
    try:
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(int(timeout * 1000))  # type: ignore[union-attr]
    except Exception:
        return


def _fenced_filters(store: Any, execution_id: int, fence_name: str) -> dict[str, int]:
    """Each fenced filter's description and the accumulator id of its row counter."""
    found: dict[str, int] = {}
    nodes = store.planGraph(execution_id).allNodes()
    for index in range(nodes.length()):
        node = nodes.apply(index)
        if node.name() != "Filter":
            continue
        description = node.desc()
        if f"{fence_name}#" not in description:  # the column as Spark prints it, never a longer name
            continue
        metrics = node.metrics()
        for position in range(metrics.length()):
            metric = metrics.apply(position)
            if metric.name() == _ROWS_METRIC:
                found[description] = int(metric.accumulatorId())
    return found


def _final_metric_values(store: Any, execution_id: int, timeout: float) -> Any:
    """The execution's aggregated metric values, once Spark's listener has aggregated them (it does that
    asynchronously after the query ends); None after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        execution = store.execution(execution_id)
        if execution.isDefined():
            values = execution.get().metricValues()
            if values is not None:
                return values
        if time.monotonic() > deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _count(values: Any, accumulator: int) -> int:
    """A row counter's final value. Spark formats it for display ("1,677,550"); a counter that never moved
    may be missing, which means zero."""
    value = values.get(accumulator)
    if not value.isDefined():
        return 0
    return int(str(value.get()).replace(",", "").strip())
