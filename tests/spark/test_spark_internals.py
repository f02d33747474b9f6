"""The Spark/PySpark internals `directives.spark.internals` leans on are still there.

Everything behind that module degrades quietly when an internal goes (no memo while compiling, an
aggregate pass for the counts), so results alone would not show a Spark upgrade that broke it. These
tests do: each fails, naming the internal, when it is gone or no longer does what we use it for.
"""

from __future__ import annotations

import pytest
from pyspark import SparkContext
from pyspark.sql.functions import builtin

from directives.spark import internals
from directives.spark.internals import compiling, fence, filter_counts, jvm_of, last_execution_id

pytestmark = pytest.mark.spark


def test_every_internal_is_where_we_reach_for_it(spark) -> None:
    assert internals.missing(spark) == []


def test_the_compile_memo_is_really_installed(spark) -> None:
    """`compiling()` does nothing (and says nothing) when PySpark's lookup function or gateway view moved."""
    original, view = builtin._get_jvm_function, SparkContext._jvm
    with compiling():
        assert builtin._get_jvm_function is not original
        assert SparkContext._jvm is not view
    assert builtin._get_jvm_function is original and SparkContext._jvm is view


def test_fenced_filters_are_counted_from_the_status_store(spark) -> None:
    """`filter_counts` answers None (and the run falls back to an aggregate pass) when the store changed shape."""
    before = last_execution_id(spark)
    rows, condition = fence(spark.range(7).toDF("n"), "__wr_fence_probe")
    rows.filter(condition).filter((rows["n"] % 2 == 0) & condition).collect()
    counts = filter_counts(spark, "__wr_fence_probe", before)
    assert counts is not None, "the SQL status store no longer gives the fenced filters' row counters"
    assert sorted(counts.values()) == [4, 7]


def test_the_session_reaches_java(spark) -> None:
    jvm = jvm_of(spark)
    assert jvm is not None
    assert int(jvm.java.util.regex.Pattern.compile("(a)(b)?").matcher("").groupCount()) == 2


def test_missing_names_an_internal_that_is_gone(spark, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe itself can fail: with PySpark's lookup function gone it names it."""
    monkeypatch.delattr(builtin, "_get_jvm_function")
    assert any("_get_jvm_function" in problem for problem in internals.missing(spark))
