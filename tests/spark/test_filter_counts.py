"""Counts from the output's own filters: no extra query after a write, right at the edges, and a plan Spark
keeps in one piece (no CollectMetrics, no filter pushed into the directives' projections)."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from directives.spark.internals.filter_counts import FENCE_PREFIX, fence, filter_counts, last_execution_id
from directives.spark.runtime.runner import RunCounts, RunResult, rows_to_dataframe, run

pytestmark = pytest.mark.spark

RECIPE = "set-type :b int\nfilter-row exp:{ a == 'drop me' }"


def _rows(good: int, bad: int, dropped: int) -> list[dict[str, str]]:
    return ([{"a": f"g{i}", "b": str(i)} for i in range(good)]
            + [{"a": f"e{i}", "b": "not a number"} for i in range(bad)]
            + [{"a": "drop me", "b": "1"} for _ in range(dropped)])


def _counts_with_no_query(spark: SparkSession, result: RunResult) -> RunCounts:
    """The counts right after a write must come from that write's counters: asking for them runs nothing."""
    before = last_execution_id(spark)
    counts = result.counts()
    assert last_execution_id(spark) == before, "counts() ran a query of its own"
    return counts


@pytest.mark.parametrize(("good", "bad", "dropped"), [(5, 2, 3), (0, 4, 0), (0, 0, 6), (3, 0, 0), (0, 0, 0)])
def test_counts_after_a_write_come_from_the_write_itself(spark, good: int, bad: int, dropped: int) -> None:
    """Every mix, including outputs where a filter let nothing through (its counter never moved)."""
    rows = _rows(good, bad, dropped)
    df = rows_to_dataframe(spark, rows) if rows else spark.createDataFrame([], "a string, b string")
    result = run(df, RECIPE)
    written = result.write(lambda out: out.collect())
    counts = _counts_with_no_query(spark, result)
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.filtered_rows) == (
        good + bad + dropped, good, bad, dropped)
    assert counts.rows_out == len(written) and counts.reconciled and counts.counted_by == "filters"
    fresh = run(df, RECIPE).counts()
    assert counts.to_dict() == fresh.to_dict() and fresh.counted_by == "aggregate"  # the aggregate pass agrees


def test_a_row_multiplying_recipe_counts_its_input_by_observation_and_the_rest_by_filters(spark) -> None:
    df = rows_to_dataframe(spark, [{"a": "1,2,3", "b": "x"}, {"a": "4", "b": "5"}])
    result = run(df, "split-to-rows :a ','\nset-type :b int")
    result.write(lambda out: out.collect())
    counts = _counts_with_no_query(spark, result)
    assert (counts.rows_in, counts.rows_added, counts.rows_out, counts.error_rows) == (2, 2, 1, 3)


def test_writing_the_errors_after_the_output_does_not_hide_the_output_counters(spark) -> None:
    """`wrangler run --errors` writes the errors after the output; the error filter is fenced too, under its own
    name, and the newest query is then the errors' one."""
    df = rows_to_dataframe(spark, _rows(4, 2, 1))
    result = run(df, RECIPE)
    result.write(lambda out: out.collect())
    assert len(result.errors.collect()) == 2
    counts = _counts_with_no_query(spark, result)
    assert (counts.rows_out, counts.error_rows, counts.filtered_rows) == (4, 2, 1)


def test_a_plan_with_a_shuffle_is_counted_from_its_final_adaptive_plan(spark) -> None:
    """Transient variables order the rows with a window (a shuffle, so adaptive execution re-plans the query
    while it runs); the counters are read from the plan that actually ran."""
    df = rows_to_dataframe(spark, _rows(6, 3, 2)).repartition(3)
    recipe = f"increment-variable seen 1 exp:{{true}}\n{RECIPE}"
    result = run(df, recipe)
    assert "Exchange" in result.df._jdf.queryExecution().executedPlan().toString()
    result.write(lambda out: out.collect())
    counts = _counts_with_no_query(spark, result)
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.filtered_rows) == (11, 6, 3, 2)


def test_counters_of_an_earlier_partial_action_are_not_trusted(spark) -> None:
    """A `show()` ran the plan on part of the data before: counts() after a write must not pick it up, and
    without a write it counts afresh."""
    df = rows_to_dataframe(spark, _rows(30, 5, 5))
    result = run(df, RECIPE)
    result.df.limit(2).collect()
    assert result.counts().rows_in == 40  # nothing written: the aggregate pass
    second = run(df, RECIPE)
    second.df.limit(2).collect()
    second.write(lambda out: out.count())
    assert (second.counts().rows_in, second.counts().rows_out) == (40, 30)


def test_filter_counts_finds_nothing_for_a_fence_no_query_used(spark) -> None:
    before = last_execution_id(spark)
    spark.range(3).collect()
    assert filter_counts(spark, FENCE_PREFIX + "never_used", before) is None


def test_fenced_filters_are_not_combined_or_pushed_below_the_projections(spark) -> None:
    """The plan of a run's output: one generated-code stage, no CollectMetrics, and the three fenced filters on
    top of the directives' projections (pushed down, they would carry the error expressions with them)."""
    df = rows_to_dataframe(spark, _rows(2, 1, 1))
    result = run(df, RECIPE)
    plan = result.df._jdf.queryExecution().executedPlan().toString()
    assert "CollectMetrics" not in plan
    filters = [line for line in plan.splitlines() if "Filter " in line]
    assert len(filters) == 3
    assert all("CASE" not in line for line in filters)  # no inlined directive expression
    assert len({line.split("*(")[1].split(")")[0] for line in plan.splitlines() if "*(" in line}) == 1


def test_fence_condition_always_holds(spark) -> None:
    fenced, holds = fence(spark.range(0, 100, numPartitions=4).toDF("n"), "__wr_fence_test")
    assert fenced.filter(holds).count() == 100
    assert fenced.columns == ["n", "__wr_fence_test"]
