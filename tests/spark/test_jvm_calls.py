"""The compile-time memo of PySpark function lookups: same results, and PySpark is left as it was."""

from __future__ import annotations

import pytest
from pyspark import SparkContext
from pyspark.sql import functions as F
from pyspark.sql.functions import builtin

from directives.spark.internals.jvm_calls import column, compiling

pytestmark = pytest.mark.spark


def test_the_memo_is_installed_only_while_compiling_and_nests(spark) -> None:
    original, original_view = builtin._get_jvm_function, SparkContext._jvm
    with compiling():
        installed, view = builtin._get_jvm_function, SparkContext._jvm
        assert installed is not original
        assert view is not original_view
        with compiling():
            assert builtin._get_jvm_function is installed
            assert SparkContext._jvm is view
        assert builtin._get_jvm_function is installed  # the inner block does not remove the outer one's memo
        assert SparkContext._jvm is view
    assert builtin._get_jvm_function is original
    assert SparkContext._jvm is original_view


def test_the_memo_is_removed_when_compiling_fails(spark) -> None:
    original, original_view = builtin._get_jvm_function, SparkContext._jvm
    with pytest.raises(ValueError), compiling():
        raise ValueError("a compiler failed")
    assert builtin._get_jvm_function is original
    assert SparkContext._jvm is original_view


def test_the_view_remembers_classes_and_their_static_members(spark) -> None:
    with compiling():
        view = SparkContext._jvm
        assert view.PythonUtils is view.PythonUtils
        assert view.PythonUtils.toSeq is view.PythonUtils.toSeq
        assert view.org is not None  # a package: passed through, not remembered
        assert list(view.PythonUtils.toList(["x", "y"]).toString()) == list("List(x, y)")


def test_functions_give_the_same_columns_with_and_without_the_memo(spark) -> None:
    df = spark.createDataFrame([(" a b ", 3), (None, -1)], "s string, n int")

    def expressions() -> list:
        return [F.upper(F.trim("s")).alias("u"), F.concat_ws("-", F.col("s"), F.lit("x")).alias("c"),
                (F.abs("n") * 2).alias("a"), F.coalesce(F.col("s"), F.lit("null")).alias("z"),
                (10 - F.col("n")).alias("r"), F.struct("n", F.lit(1).alias("one")).alias("t")]

    plain = df.select(*expressions()).collect()
    with compiling():
        memoized = df.select(*expressions()).collect()
        memoized_again = df.select(*expressions()).collect()
    assert plain == memoized == memoized_again
    assert [tuple(r) for r in plain] == [("A B", " a b -x", 6, " a b ", 7, (3, 1)), (None, "x", 2, "null", 11, (-1, 1))]


def test_column_references_are_shared_only_inside_a_block(spark) -> None:
    with compiling():
        first, second = column("`a`"), column("`a`")
        assert first is second
        assert column("`b`") is not first
    assert column("`a`") is not column("`a`")
    df = spark.createDataFrame([(1, 2)], "a int, b int")
    with compiling():
        assert df.select(column("`a`"), column("`b`"), column("`a`").alias("c")).collect()[0] == (1, 2, 1)


def test_lists_reach_the_jvm_whole_and_in_order(spark) -> None:
    with compiling():
        view = SparkContext._jvm
        for size in (0, 1, 10, 11, 25):
            items = [f"v{i}" for i in range(size)]
            assert list(view.java_list(items).toArray()) == items
        df = spark.createDataFrame([(1,)], "a int")
        wide = df.select(*(F.lit(i).alias(f"c{i}") for i in range(23)))  # a select's list is 23 columns long
        assert wide.columns == [f"c{i}" for i in range(23)]
        assert list(wide.collect()[0]) == list(range(23))
        assert list(view.PythonUtils.toSeq(["x", None, "y"]).toString()) == list("List(x, null, y)")  # py4j's way


def test_literals_of_one_constant_are_made_once_while_compiling_and_give_the_same_values(spark) -> None:
    df = spark.createDataFrame([("a", 1), (None, -1)], "s string, n int")
    with compiling():
        first, again = F.lit(""), F.lit("")
        assert first._jc is again._jc  # one JVM column for both
        assert F.lit(True)._jc is not F.lit(1)._jc  # a bool is not the int it equals
        assert F.lit(0.0)._jc is not F.lit(-0.0)._jc
        values = df.select(F.coalesce("s", F.lit("")).alias("c"), (F.col("n") + F.lit(1)).alias("p"),
                           F.lit(True).alias("t"), F.lit(1).alias("one"), F.lit(-0.0).alias("z"),
                           F.lit(None).cast("int").alias("none"), F.lit([1, 2]).alias("list")).collect()
    assert F.lit("")._jc is not F.lit("")._jc  # outside `compiling()`: PySpark's own, a new column each time
    assert [tuple(r) for r in values] == [("a", 2, True, 1, -0.0, None, [1, 2]), ("", 0, True, 1, -0.0, None, [1, 2])]
    assert str(values[0]["z"]) == "-0.0"


def test_what_the_memo_made_is_kept_for_the_next_block_and_gives_the_same_values(spark) -> None:
    """Every run used to look its functions, classes and literals up again: ~60 round trips before its first directive.
    What one block made is reused by the next (bounded), and PySpark outside the blocks stays its own."""
    from directives.spark.internals import jvm_calls, reference_text

    df = spark.createDataFrame([("a", 1), (None, -1)], "s string, n int")
    with compiling():
        first_lit, first_ref, first_view = F.lit("x")._jc, column("`s`"), SparkContext._jvm
        first = df.select(F.coalesce(first_ref, F.lit("x")).alias("c"), (F.col("n") + F.lit(1)).alias("p")).collect()
    assert SparkContext._jvm is not first_view  # PySpark's own view between blocks
    with compiling():
        assert F.lit("x")._jc is first_lit and column("`s`") is first_ref and SparkContext._jvm is first_view
        assert reference_text(first_ref) == "`s`"
        again = df.select(F.coalesce(column("`s`"), F.lit("x")).alias("c"),
                          (F.col("n") + F.lit(1)).alias("p")).collect()
    assert [tuple(r) for r in first] == [tuple(r) for r in again] == [("a", 2), ("x", 0)]
    for i in range(jvm_calls._MAX_KEPT + 1):  # past the bound, the next block starts afresh
        jvm_calls._columns[f"`c{i}`"] = first_ref
    with compiling():
        assert column("`s`") is not first_ref
        assert len(jvm_calls._columns) < jvm_calls._MAX_KEPT
