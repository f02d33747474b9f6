"""The Spark runner: one lazy plan, errors kept with their original row, counts that reconcile."""

from __future__ import annotations

import pytest

from directives.spark.runtime.runner import rows_to_dataframe, run, run_rows

pytestmark = pytest.mark.spark


def test_rename_drop_swap_keep_order_and_values(spark) -> None:
    rows = [{"a": 1, "b": "x", "c": True}, {"a": 2, "b": "y", "c": False}]
    result = run_rows("rename :a :id\nswap :b :c\ndrop :B", rows, spark=spark)
    assert result.columns == ["id", "c"]
    assert result.rows == [{"id": 1, "c": "x"}, {"id": 2, "c": "y"}]
    assert result.counts.reconciled


def test_case_insensitive_lookup_as_wrangler(spark) -> None:
    result = run_rows("rename :NAME :n\ncopy :n :m", [{"name": "ada"}], spark=spark)
    assert result.rows == [{"n": "ada", "m": "ada"}]


def test_set_type_errors_go_to_the_error_output_with_the_original_row(spark) -> None:
    rows = [{"id": "1", "salary": "10.5"}, {"id": "2", "salary": "oops"}, {"id": "3", "salary": ""}]
    result = run_rows("set-type :salary double\nrename :id :key", rows, spark=spark)
    assert result.rows == [{"key": "1", "salary": 10.5}, {"key": "3", "salary": None}]
    assert len(result.errors) == 1
    error = result.errors[0]
    assert error["row"] == {"id": "2", "salary": "oops"}
    assert (error["directive_index"], error["line"]) == (1, 1)
    assert error["message"] == "Column 'salary' cannot be converted to a 'double'."  # ColumnConverter's words
    counts = result.counts
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.filtered_rows) == (3, 2, 1, 0)
    assert counts.reconciled


def test_merge_and_split_to_columns(spark) -> None:
    rows = [{"body": "a,b,c"}, {"body": "d,e"}]
    result = run_rows("split-to-columns :body ','\nmerge :body_1 :body_2 :both '\\t'", rows, spark=spark)
    assert result.columns == ["body", "body_1", "body_2", "body_3", "both"]
    assert result.rows[0]["both"] == "a\tb"
    assert result.rows[1]["body_3"] is None


def test_run_is_lazy_and_counts_come_from_the_write(spark, tmp_path) -> None:
    df = rows_to_dataframe(spark, [{"a": str(i)} for i in range(10)])
    result = run(df, "set-type :a int\nrename :a :n")
    assert result.df.columns == ["n"]
    result.df.write.parquet(str(tmp_path / "out"))
    counts = result.counts()
    assert (counts.rows_in, counts.rows_out, counts.error_rows) == (10, 10, 0)
    assert spark.read.parquet(str(tmp_path / "out")).count() == 10


def test_schema_level_conflicts_stop_the_run(spark) -> None:
    from grammar.errors import RecipeError

    with pytest.raises(RecipeError, match="already exists"):
        run_rows("rename :a :b", [{"a": 1, "b": 2}], spark=spark)


def test_input_types_survive_the_round_trip(spark) -> None:
    import datetime as dt
    import decimal

    from pyspark.sql import types as T

    rows = [{"d": decimal.Decimal("10000.0"), "n": 5, "ldt": dt.datetime(1, 1, 1, 0, 0),
             "zdt": dt.datetime(1, 1, 1, tzinfo=dt.UTC), "day": dt.date(1, 1, 1)}]
    result = run_rows("rename :n :m", rows, spark=spark, types={"n": T.LongType()})
    row = result.rows[0]
    assert row["d"] == decimal.Decimal("10000.0") and str(row["d"]) == "10000.0"
    assert row["ldt"] == dt.datetime(1, 1, 1) and row["ldt"].tzinfo is None
    assert row["zdt"] == dt.datetime(1, 1, 1, tzinfo=dt.UTC)
    assert row["day"] == dt.date(1, 1, 1)
    assert result.schema is not None
    assert isinstance(result.schema["m"].dataType, T.LongType)
    assert isinstance(result.schema["ldt"].dataType, T.TimestampNTZType)


def test_errors_are_lazy_and_counts_need_no_prior_action(spark) -> None:
    df = rows_to_dataframe(spark, [{"a": "1"}, {"a": "x"}, {"a": None}])
    result = run(df, "set-type :a int")
    counts = result.counts()  # no action has run: one aggregate pass, never a blocking wait
    assert (counts.rows_in, counts.rows_out, counts.error_rows) == (3, 2, 1)
    errors = result.errors.collect()
    assert len(errors) == 1
    assert errors[0]["row"]["a"] == "x" and errors[0]["line"] == 1 and errors[0]["directive_index"] == 1
    assert "set-type" in errors[0]["directive"]


def test_write_then_counts_come_from_the_same_pass(spark) -> None:
    df = rows_to_dataframe(spark, [{"a": str(i)} for i in range(5)] + [{"a": "bad"}])
    result = run(df, "set-type :a int")
    collected = result.write(lambda out: out.collect())
    assert len(collected) == 5
    counts = result.counts()
    assert counts.to_dict()["reconciled"] is True
    assert (counts.rows_in, counts.rows_out, counts.error_rows, counts.rows_added) == (6, 5, 1, 0)


def test_observed_counts_with_and_without_a_row_multiplying_directive(spark) -> None:
    """Only a recipe that may multiply rows counts its input apart (a counted filter); both kinds reconcile from the
    write's own pass, and agree with the aggregate pass that runs when nothing was written."""
    df = rows_to_dataframe(spark, [{"a": "1,2,3", "b": "x"}, {"a": "4", "b": "bad"}, {"a": None, "b": "7"}])
    plain = run(df, "set-type :b int\nfilter-row exp:{ a == '4' }")
    assert plain._input is None and plain._input_fence is None
    multiplying = run(df, "split-to-rows :a ','\nset-type :b int")
    assert multiplying._input_fence is not None
    for result, text in ((plain, "set-type :b int\nfilter-row exp:{ a == '4' }"),
                         (multiplying, "split-to-rows :a ','\nset-type :b int")):
        collected = result.write(lambda out: out.collect())
        observed = result.counts()
        fresh = run(df, text).counts()  # nothing written: one aggregate pass over the whole plan
        assert observed.to_dict() == fresh.to_dict()
        assert observed.reconciled and observed.rows_in == 3 and observed.rows_out == len(collected)
    assert plain.counts().rows_added == 0 and plain.counts().error_rows == 2  # "x" and "bad"
    assert multiplying.counts().rows_added == 2  # "1,2,3" became three rows


def test_runs_compose_with_dataframe_transform(spark) -> None:
    df = rows_to_dataframe(spark, [{"a": 1, "b": 2}])
    out = df.transform(lambda d: run(d, "rename :a :x").df).transform(lambda d: run(d, "rename :b :y").df)
    assert out.columns == ["x", "y"]
    assert [tuple(r) for r in out.collect()] == [(1, 2)]


def test_fail_directive_aborts_the_run_naming_directive_and_line(spark) -> None:
    from directives.spark.runtime.runner import RecipeExecutionError

    rows = [{"a": 1}, {"a": 2}]
    with pytest.raises(RecipeExecutionError) as raised:
        run_rows("rename :a :b\nfail exp:{ b == 2 }", rows, spark=spark)
    assert raised.value.line == 2 and "fail" in str(raised.value)
    result = run(rows_to_dataframe(spark, rows), "rename :a :b\nfail exp:{ b == 2 }")
    with pytest.raises(RecipeExecutionError, match="line 2"):
        result.write(lambda out: out.collect())
    assert run_rows("fail exp:{ a == 3 }", rows, spark=spark).counts.rows_out == 2


def test_dates_python_cannot_hold_come_back_as_text_not_a_crash(spark) -> None:
    """Julian day 1721426 is 1 January of year 1 (proleptic Gregorian); the day before is year 0, which Python's
    `date` cannot hold, and day 1 is in 4714 BC. Collecting such a value used to raise `ValueError: ordinal
    must be >= 1` and lose the whole result."""
    import datetime as dt

    days = ["1721426", "1721425", "1", "5373484", "5373485"]
    result = run_rows("set-column :d exp:{ datetime:DateFromJulianDay(day) }", [{"day": d} for d in days],
                      spark=spark)
    values = [row["d"] for row in result.rows]
    assert values[0] == dt.date(1, 1, 1) and values[3] == dt.date(9999, 12, 31)
    assert values[1] == "0000-12-31" and values[2].startswith("-4713-") and values[4] == "+10000-01-01"
    assert result.counts.rows_out == len(days) and not result.errors


def test_timestamps_python_cannot_hold_come_back_as_text_from_run_rows_and_iter_rows(spark) -> None:
    import datetime as dt

    from directives.spark.runtime.files import iter_rows

    df = spark.sql("SELECT TIMESTAMP_NTZ'9999-12-31 23:59:59.999999' + INTERVAL 1 SECOND AS late, "
                   "TIMESTAMP_NTZ'0001-01-01 00:00:00' AS first, TIMESTAMP_NTZ'0001-01-01 00:00:00' - INTERVAL 1 DAY "
                   "AS early, array(DATE'0001-01-01' - 1, DATE'2020-02-29') AS dates, "
                   "named_struct('t', TIMESTAMP_NTZ'2020-01-01 00:00:00') AS nested")
    row = next(iter_rows(df))
    assert row["late"] == "+10000-01-01 00:00:00.999999"
    assert row["first"] == dt.datetime(1, 1, 1) and row["early"] == "0000-12-31 00:00:00"
    assert row["dates"] == ["0000-12-31", dt.date(2020, 2, 29)]
    assert row["nested"] == {"t": dt.datetime(2020, 1, 1)}
    collected = run_rows("set-column :d exp:{ datetime:DateFromJulianDay(day) }", [{"day": "0"}], spark=spark)
    assert collected.rows[0]["d"].startswith("-4713-")


def test_a_session_in_ansi_mode_still_turns_bad_values_into_error_rows(spark) -> None:
    """Spark 4 starts sessions with ANSI mode on, where a bad cast, an overflow or an impossible date throws
    and fails the job; a recipe is compiled without it, and the session's setting is left as it was."""
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        # parse-as-datetime reads through Spark's own parser (parse-as-simple-date is lenient, as Wrangler's is)
        result = run_rows("set-type :a int\nset-column :b exp:{ n + 1 }\nparse-as-datetime :d 'yyyy-MM-dd'",
                          [{"a": "x", "n": 1, "d": "2020-01-02"}, {"a": "1", "n": 2**31 - 1, "d": "2020-01-02"},
                           {"a": "2", "n": 3, "d": "2020-13-45"}, {"a": "3", "n": 4, "d": "2020-01-02"}], spark=spark)
        assert spark.conf.get("spark.sql.ansi.enabled") == "true"
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "false")
    assert [row["a"] for row in result.rows] == [3]
    assert [e["directive_index"] for e in result.errors] == [1, 2, 3]


def test_the_compile_goes_without_dataframe_call_sites_and_leaves_the_setting_as_it_was(spark) -> None:
    """Spark 4 walks the JVM stack for every Column it makes, to name the call in its errors; the compile turns that
    off (its errors would point into our compilers) and puts the session's setting back, set or unset."""
    from directives.spark.runtime.runner import wrangler_semantics

    key = "spark.sql.dataFrameQueryContext.enabled"
    before = spark.conf.get(key, None)
    try:
        for setting in ("true", None):
            if setting is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, setting)
            with wrangler_semantics(spark):
                assert spark.conf.get(key) == "false"
            assert spark.conf.get(key, None) == setting or (setting is None and spark.conf.get(key) == "true")
            result = run_rows("set-type :a int", [{"a": "x"}, {"a": "2"}], spark=spark)
            assert [row["a"] for row in result.rows] == [2] and len(result.errors) == 1
            assert spark.conf.get(key, None) == setting or (setting is None and spark.conf.get(key) == "true")
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
