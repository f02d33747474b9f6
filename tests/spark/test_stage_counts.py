"""Counts come from the write of the output: every stage of a pipeline is counted by its own filters inside the
written plan (no aggregate pass per stage), and so is a recipe whose filters Spark leaves out of the plan."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark

ROWS = [{"body": "1,ann,7"}, {"body": "2,bo,x"}, {"body": "3,cy,9"}, {"body": "4,di,1"}, {"body": "5"}]


def _stages(spark: Any) -> Any:
    from directives.pipeline_export import StageSpec
    from directives.spark.runtime.runner import rows_to_dataframe
    from directives.spark.runtime.stages import run_stages

    parse = StageSpec("Parse", "parse-as-csv :body ',' false\ndrop :body\nset-type :body_3 integer")
    tidy = StageSpec("Tidy", "rename :body_2 :name\nfilter-row exp:{ body_3 > 8 }\nsend-to-error exp:{ name == 'di' }",
                     on_error="skip-error")
    return run_stages(rows_to_dataframe(spark, ROWS), [parse, tidy])


def _summary(counts: Any) -> tuple[int, ...]:
    return counts.rows_in, counts.rows_out, counts.error_rows, counts.filtered_rows, counts.rows_added


def test_every_stage_is_counted_by_the_write_and_agrees_with_an_aggregate_pass(spark: Any) -> None:
    written = _stages(spark)
    rows = written.write(lambda df: df.collect())
    by_write = written.stage_counts()
    by_aggregate = _stages(spark).stage_counts()  # never written: each stage makes its own pass
    assert [(row["body_1"], row["name"]) for row in rows] == [("1", "ann"), ("5", None)]
    assert [counts.counted_by for _, counts in by_write] == ["filters", "filters"]
    assert [counts.counted_by for _, counts in by_aggregate] == ["aggregate", "aggregate"]
    assert [_summary(c) for _, c in by_write] == [_summary(c) for _, c in by_aggregate]
    # Parse: 'x' is no integer (bo fails); Tidy: cy filtered (9 > 8), di sent to errors, the lone '5' kept
    assert [_summary(c) for _, c in by_write] == [(5, 4, 1, 0, 0), (4, 2, 1, 1, 0)]
    assert all(c.reconciled for _, c in by_write)


@pytest.mark.parametrize("recipe", ["uppercase :body", "filter-row exp:{ body == '2,bo,x' }",
                                    "set-type :body integer", "parse-as-csv :body ',' false\nset-type :body_3 integer"])
def test_a_recipe_that_cannot_filter_or_fail_a_row_is_counted_by_its_write_too(recipe: str, spark: Any) -> None:
    """Spark leaves out a counted filter whose condition always holds (no directive filters, or none fails a row):
    the counts are still read from the write, not from a second pass over the data."""
    import directives
    from directives.spark.runtime.runner import rows_to_dataframe

    written = directives.run(rows_to_dataframe(spark, ROWS), recipe)
    written.write(lambda df: df.collect())
    aggregated = directives.run(rows_to_dataframe(spark, ROWS), recipe)
    assert written.counts().counted_by == "filters"
    assert aggregated.counts().counted_by == "aggregate"
    assert _summary(written.counts()) == _summary(aggregated.counts())
    assert written.counts().reconciled
