"""The one door to Spark's and PySpark's private internals: import from here, never from the modules inside.

Four things here lean on what Spark does not promise to keep. Each degrades instead of failing when the
internal it needs is gone, so a Spark upgrade that breaks one would change no result, only lose speed or
cost an extra pass, and nobody would notice. `missing(spark)` names every internal that is not where this
code expects it, and `tests/spark/test_spark_internals.py` asserts that it names none: that test is the
one that fails on the upgrade that breaks us.

* `compiling()`, `column()` and `reference_text()` (`jvm_calls`): while a recipe compiles, PySpark's function lookup
  (`pyspark.sql.functions.builtin._get_jvm_function`) and the gateway view `SparkContext._jvm` are swapped
  for memoizing ones, which cuts py4j round trips by about three quarters. Without them: no memo.
* `fence()`, `counted()`, `last_execution_id()`, `filter_counts()` (`filter_counts`): a run's counts are read from
  the row counters of three fenced filters (and, when rows may multiply, one on the input) in Spark's SQL status store
  (`SparkSession._jsparkSession.sharedState().statusStore()`, its `executionsList`, `planGraph` and
  `execution(id).metricValues()`, and the listener bus's `waitUntilEmpty`). Without them: `counts()`
  runs one aggregate pass.
* `active_stages()` (`stage_progress`): the running stages' input records and bytes and their tasks, from
  `SparkContext.statusStore().activeStages()`, for `wrangler run`'s progress line. Without it: no progress line.
* `empty_like()` (`empty_frames`): an empty DataFrame of a schema made by the JVM session's
  `createDataFrame(java.util.List, StructType)` from the DataFrame's `_jdf.schema()`, for the stand-ins types are
  probed over (`runtime/frame.py`). Without it: PySpark's `createDataFrame([], schema)`, six times dearer.
* `as_the_caller()` (`job_properties`): a job on a thread that stays runs with the Spark job properties of the thread
  that asked for it (`SparkContext._jsc`'s `getLocalProperties`/`setLocalProperties`). Without them: the job runs with
  its own thread's properties.
* `jvm_of()`: the session's py4j view (`SparkSession._jvm`), for asking Java itself (a regex's group count).
  Without it: the group count comes from our own reading of the regex.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from pyspark import SparkContext
from pyspark.sql import SparkSession

from directives.spark.internals.empty_frames import empty_like
from directives.spark.internals.filter_counts import FENCE_PREFIX, counted, fence, filter_counts, last_execution_id
from directives.spark.internals.job_properties import as_the_caller
from directives.spark.internals.jvm_calls import column, compiling, reference_text
from directives.spark.internals.stage_progress import active_stages

__all__ = ["FENCE_PREFIX", "active_stages", "as_the_caller", "column", "compiling", "counted", "empty_like", "fence",
           "filter_counts", "jvm_of", "last_execution_id", "missing", "reference_text"]


def jvm_of(spark: SparkSession) -> Any | None:
    """The session's py4j JVM view, or None (a Spark Connect session has none)."""
    return getattr(spark, "_jvm", None)


def _probe(description: str, reach: Callable[[], Any]) -> str | None:
    try:
        found = reach()
    except Exception as error:
        return f"{description}: {type(error).__name__}: {error}"
    return None if found is not None and found is not False else f"{description}: not found"


def missing(spark: SparkSession) -> list[str]:
    """Every Spark/PySpark internal this package leans on that is not where it expects it ([] when all are)."""
    from pyspark.sql.functions import builtin

    jsession: Any = getattr(spark, "_jsparkSession", None)
    jvm: Any = SparkContext._jvm
    probes: list[tuple[str, Callable[[], Any]]] = [
        ("pyspark.sql.functions.builtin._get_jvm_function",
         lambda: callable(getattr(builtin, "_get_jvm_function", None))),
        ("SparkContext._jvm", lambda: jvm),
        ("PythonUtils.toSeq/toList", lambda: jvm.org.apache.spark.api.python.PythonUtils.toSeq
         and jvm.org.apache.spark.api.python.PythonUtils.toList),
        ("java.util.List.of", lambda: jvm.java.util.List.of),
        ("SparkSession._jvm", lambda: jvm_of(spark)),
        ("SparkSession._jsparkSession", lambda: jsession),
    ]
    probes += [(f"SQLAppStatusStore.{method}", partial(_store_has, jsession, method))
               for method in ("executionsCount", "executionsList", "planGraph", "execution")]
    probes.append(("SparkSession.createDataFrame(java.util.List, StructType)",
                   partial(_has_method, jsession, "createDataFrame")))
    probes.append(("AppStatusStore.activeStages", partial(_app_store_has, spark, "activeStages")))
    probes.append(("LiveListenerBus.waitUntilEmpty", partial(_bus_has, spark, "waitUntilEmpty")))
    probes.append(("SparkContext.getLocalProperties/setLocalProperties",
                   lambda: _has_method(spark.sparkContext._jsc.sc(), "getLocalProperties")
                   and _has_method(spark.sparkContext._jsc.sc(), "setLocalProperties")))
    return [problem for description, reach in probes if (problem := _probe(description, reach)) is not None]


def _store_has(jsession: Any, method: str) -> bool:
    return _has_method(jsession.sharedState().statusStore(), method)


def _app_store_has(spark: Any, method: str) -> bool:
    return _has_method(spark.sparkContext._jsc.sc().statusStore(), method)


def _bus_has(spark: Any, method: str) -> bool:
    return _has_method(spark.sparkContext._jsc.sc().listenerBus(), method)


def _has_method(java_object: Any, name: str) -> bool:
    """Whether a JVM object's class has a public method of that name (asked through Java reflection)."""
    return any(method.getName() == name for method in java_object.getClass().getMethods())
