"""Directives that only rename, drop, reorder or map columns build no projection of their own (pending frames)."""

from __future__ import annotations

import re

import pytest
from pyspark.sql import DataFrame

from directives.spark.runtime.frame import Frame
from directives.spark.runtime.runner import run, run_rows

pytestmark = pytest.mark.spark

ROWS = [{"a": "x", "b": "1", "c": "p"}, {"a": "y", "b": "2", "c": None}, {"a": "z", "b": "n/a", "c": "r"}]


def _built_after_each_line(recipe: str) -> str:
    """The recipe with a `fail` that never fires after every line: `fail` does not compose, so every frame is built."""
    return "\n".join(f"{line}\nfail exp:{{ false }}" for line in recipe.splitlines())


def test_a_run_of_renames_and_drops_stays_deferred_until_a_value_is_computed(spark) -> None:
    df = spark.createDataFrame([tuple(r.values()) for r in ROWS], "a string, b string, c string")
    pure = run(df, "rename :a :name\nswap :b :c\ndrop :b\nrename :c :amount")
    assert pure.frame._df is None  # no projection was built for the four directives
    assert pure.frame.columns == ["name", "amount"]
    assert pure.frame.type_of("amount") == "string"  # read from the source DataFrame, still deferred
    assert pure.frame._df is None
    assert [tuple(r) for r in pure.df.collect()] == [("x", "1"), ("y", "2"), ("z", "n/a")]
    assert pure.errors.count() == 0
    mixed = run(df, "rename :a :name\nset-type :b integer\nrename :b :amount\nuppercase :name")
    assert mixed.frame._base is not None  # set-type's step and the uppercase were composed into one projection
    assert mixed.frame.type_of("name") == "string" and mixed.frame.type_of("amount") == "int"
    assert [tuple(r) for r in mixed.df.collect()] == [("X", 1, "p"), ("Y", 2, None)]
    assert [(e["directive"], e["row"]["b"]) for e in mixed.errors.collect()] == [("set-type :b integer", "n/a")]


def test_deferred_and_built_frames_give_the_same_rows_errors_and_counts(spark) -> None:
    recipe = "rename :a :first\ndrop :c\nset-type :b integer\nrename :first :a2\nkeep :a2,:b\nswap :a2 :b"
    deferred = run_rows(recipe, ROWS, spark=spark)
    built = run_rows(_built_after_each_line(recipe), ROWS, spark=spark)
    assert deferred.columns == built.columns == ["b", "a2"]
    assert deferred.rows == built.rows == [{"b": "x", "a2": 1}, {"b": "y", "a2": 2}]
    assert [e["row"] for e in deferred.errors] == [e["row"] for e in built.errors] == [ROWS[2]]
    assert deferred.counts.to_dict() == built.counts.to_dict()
    assert deferred.counts.reconciled


def test_composed_mapping_directives_give_the_same_rows_errors_and_counts_as_built_ones(spark) -> None:
    rows = [{"a": " x ", "b": "1", "c": ""}, {"a": None, "b": "2", "c": "q"}, {"a": "z", "b": "n/a", "c": None}]
    recipe = ("trim :a\nfill-null-or-empty :a 'none'\nuppercase :a\nmerge :a :c :ac '-'\n"
              "set-column :n exp:{ b * 2 }\nfilter-row exp:{ n == 4 }\nswap :a :ac\nfill-null-or-empty :c 'none'\n"
              "set-column :a exp:{ a + '!' }")
    composed = run_rows(recipe, rows, spark=spark)
    built = run_rows(_built_after_each_line(recipe), rows, spark=spark)
    assert composed.columns == built.columns
    assert composed.rows == built.rows == [{"ac": "X", "b": "1", "c": "none", "a": "X-!", "n": 2.0}]
    assert [(e["row"], e["directive"]) for e in composed.errors] == [(e["row"], e["directive"]) for e in built.errors]
    assert composed.counts.filtered_rows == built.counts.filtered_rows == 1
    assert composed.counts.error_rows == 1 and composed.counts.reconciled


def test_set_type_and_expressions_over_composed_values_compose_with_the_same_results(spark) -> None:
    rows = [{"b": " 1 ", "c": "x"}, {"b": "4", "c": ""}, {"b": "n/a", "c": "z"}, {"b": None, "c": "w"}]
    recipe = ("trim :b\nfill-null-or-empty :c 'none'\nset-type :b double\nset-column :n exp:{ b * 2 }\n"
              "filter-row exp:{ n > 5 }\nset-column :m exp:{ n + 1 }")
    df = spark.createDataFrame([tuple(r.values()) for r in rows], "b string, c string")
    result = run(df, recipe)
    # set-type's input and result are hidden columns the pending frame defers (no select until its rows are needed,
    # the base unchanged), and the types of computed values are known without building: the frame after the last
    # directive is still pending
    assert result.frame._base is not None and "__wr_tmp_set_type_3_in" not in result.frame._base.columns
    # (the trimmed value, read once, and set-type's result: later directives read the result by name)
    assert result.frame._hidden is not None
    assert [node.name for node in result.frame._hidden.chain()] == ["__wr_tmp_set_type_3_in",
                                                                    "__wr_tmp_set_type_3_value"]
    assert result.frame.type_of("n") == "double" and result.frame.type_of("m") == "double"
    composed = run_rows(recipe, rows, spark=spark)
    built = run_rows(_built_after_each_line(recipe), rows, spark=spark)
    assert composed.rows == built.rows
    assert [(e["row"], e["directive"], e["message"]) for e in composed.errors] == \
        [(e["row"], e["directive"], e["message"]) for e in built.errors]
    assert composed.rows == [{"b": 1.0, "c": "x", "n": 2.0, "m": 3.0}]  # b = 4 gives n = 8: filtered
    # "n/a" cannot be converted; a null b is left alone by set-type and fails the multiplication
    assert [(e["row"]["b"], e["directive"]) for e in composed.errors] == [
        ("n/a", "set-type :b double"), (None, "set-column :n exp:{ b * 2 }")]
    assert composed.counts.to_dict() == built.counts.to_dict() and composed.counts.reconciled


def _optimized_plan(df: DataFrame) -> str:
    return df._jdf.queryExecution().optimizedPlan().toString()


def test_rows_that_failed_or_were_filtered_compute_no_later_value(spark) -> None:
    """The output's filters come between the conditions that decide a row and the values of a pending frame: in the
    optimized plan, the projection with the digest and the mask sits above (after) the filter on the error mark, so
    the 16 % of bench_run's rows that fail or are filtered never hash or mask anything."""
    rows = [{"ssn": "123-45-6789", "email": "a@b.c", "pay": "10"}, {"ssn": "987-65-4321", "email": "d@e.f",
                                                                   "pay": "n/a"},
            {"ssn": "111-22-3333", "email": "", "pay": "0"}]
    recipe = ("set-type :pay double\nfilter-row exp:{ pay == 0 }\nmask-number :ssn 'xxx-xx-####'\n"
              "hash :email 'SHA-256' true\nuppercase :email")
    df = spark.createDataFrame([tuple(r.values()) for r in rows], "ssn string, email string, pay string")
    result = run(df, recipe)
    plan = _optimized_plan(result.df)
    digest = plan.find("sha2(")
    # the filter that lets through rows without an error: it tests the mark, or the sign of the events' status
    error_filter = min(found.start() for found in re.finditer(r"isnull\(__wr_error|__wr_status#\d+ > 0", plan))
    assert digest != -1
    assert digest < error_filter, plan  # the tree prints from the top: the digest is computed after the filter
    assert "locate(" in plan[:error_filter]
    composed = run_rows(recipe, rows, spark=spark)
    built = run_rows(_built_after_each_line(recipe), rows, spark=spark)
    assert composed.rows == built.rows and len(composed.rows) == 1
    assert composed.rows[0]["ssn"] == "xxx-xx-6789"
    assert [(e["row"], e["message"]) for e in composed.errors] == [(e["row"], e["message"]) for e in built.errors]
    assert composed.counts.to_dict() == built.counts.to_dict()
    assert composed.counts.filtered_rows == 1 and composed.counts.error_rows == 1


def test_deferred_hidden_columns_that_read_each_other_give_the_same_rows_as_built_frames(spark) -> None:
    rows = [{"b": " 1 ", "c": "x"}, {"b": "2.5", "c": ""}, {"b": "n/a", "c": "z"}, {"b": None, "c": "w"},
            {"b": "", "c": "v"}, {"b": "7", "c": None}]
    # each set-type converts the value the one before it converted: its hidden column reads the previous one's
    recipe = ("trim :b\nset-type :b double\nset-type :b string\nset-column :d exp:{ b + '!' }\nset-type :b double\n"
              "trim :c\nset-type :c string\nset-column :e exp:{ b * 2 }")
    df = spark.createDataFrame([tuple(r.values()) for r in rows], "b string, c string")
    result = run(df, recipe)
    chain = result.frame._hidden.chain() if result.frame._hidden is not None else []
    # a set-type stores its input (when it is a composed expression) and its result (a number's) in hidden columns:
    # the one to text reads the result before it by name, and stores nothing
    assert [(node.name, node.layer) for node in chain] == [
        ("__wr_tmp_set_type_2_in", 0), ("__wr_tmp_set_type_2_value", 1),
        ("__wr_tmp_set_type_5_in", 2), ("__wr_tmp_set_type_5_value", 3),
        ("__wr_tmp_set_type_7_in", 0)]  # the trimmed c reads no other hidden column: it joins the first layer
    assert result.frame.type_of("b") == "double" and result.frame.type_of("e") == "double"
    composed = run_rows(recipe, rows, spark=spark)
    built = run_rows(_built_after_each_line(recipe), rows, spark=spark)
    assert composed.columns == built.columns == ["b", "c", "d", "e"]
    assert composed.rows == built.rows
    assert composed.rows == [{"b": 1.0, "c": "x", "d": "1.0!", "e": 2.0}, {"b": 2.5, "c": "", "d": "2.5!", "e": 5.0},
                             {"b": 7.0, "c": None, "d": "7.0!", "e": 14.0}]
    assert [(e["row"], e["directive"], e["message"]) for e in composed.errors] == \
        [(e["row"], e["directive"], e["message"]) for e in built.errors]
    assert [(e["row"]["b"], e["directive_index"]) for e in composed.errors] == [("n/a", 2), (None, 4), ("", 4)]
    assert composed.counts.to_dict() == built.counts.to_dict() and composed.counts.reconciled


def test_a_pending_frame_with_many_events_gives_the_same_error_records_and_counts_as_built_frames(spark) -> None:
    rows = [{"a": str(i) if i % 7 else None, "b": f" w{i % 5} ", "n": str(i % 4) if i % 9 else "x"}
            for i in range(40)]
    lines = ["split-to-columns :b ' '"]  # not composable: fails no row here, but builds the frame the rest composes on
    for k in range(6):
        lines += [
            f"set-column :m{k} exp:{{ a * {k + 1} + n }}",  # null a or a non-number n: fail_first, two messages
            f"filter-row exp:{{ m{k} > {30 + 10 * k} }}" if k % 2 else f"send-to-error exp:{{ m{k} == {k + 3} }}",
            "set-type :n double" if k == 0 else f"set-column :q{k} exp:{{ n / {k} }}",
            f"send-to-error exp:{{ q{k} == 0.5 }} half 'half of {k}'" if k else "trim :b",
        ]
    lines.append("set-type :a decimal 1 'HALF_UP' prop:{precision=2}")  # a message computed from the value
    recipe = "\n".join(lines)
    df = spark.createDataFrame([tuple(r.values()) for r in rows], "a string, b string, n string")
    result = run(df, recipe)
    assert result.frame._base is not None and len(result.frame._events) > 20  # all of it composed: one pending frame
    composed = run_rows(recipe, rows, spark=spark)
    built = run_rows(_built_after_each_line(recipe), rows, spark=spark)
    assert composed.columns == built.columns
    assert composed.rows == built.rows and composed.rows
    # (the built recipe's directive indexes and lines count its `fail` lines)
    assert [(e["row"], e["directive"], e["message"]) for e in composed.errors] == \
        [(e["row"], e["directive"], e["message"]) for e in built.errors]
    messages = {e["message"] for e in composed.errors}
    assert {"half of 2 (ecode: 1, directive: send-to-error)", "half of 4 (ecode: 1, directive: send-to-error)",
            "Expression 'a * 1 + n' failed: null operand of '*'",  # the first failure of a fail_first gives its message
            "Cannot set scale as '1' and precision as '2' for value '11' whengiven precision - scale is less than "
            "number of digits before decimal point "} <= messages
    assert len({e["directive_index"] for e in composed.errors}) >= 4  # rows decided by several steps' events
    assert composed.counts.to_dict() == built.counts.to_dict() and composed.counts.reconciled
    assert composed.counts.filtered_rows > 0 and composed.counts.error_rows > 0


def test_expression_results_carry_their_types_so_later_directives_read_them_without_analysis(spark, monkeypatch
                                                                                            ) -> None:
    """`set-column` declares its value's Spark type when the compiler knows it (a cast it made, a comparison, text, a
    column read as it is), so the directives after it learn the type without a probe: 43 probes of a 400-directive
    recipe cost a fifth of its build. (The test session checks every declared type against Spark's analysis.)"""
    probed: list[str] = []
    original = Frame._probe_rows

    def probe(frame: Frame) -> DataFrame:
        probed.append(",".join(frame.columns))
        return original(frame)

    monkeypatch.setattr(Frame, "_probe_rows", probe)
    rows = [{"b": "1.5", "c": "ab", "f": 2.0, "s": 3}, {"b": "x", "c": None, "f": None, "s": 4},
            {"b": " 4 ", "c": "xyz", "f": 0.5, "s": None}]
    df = spark.createDataFrame([tuple(r.values()) for r in rows], "b string, c string, f float, s short")
    recipe = ("set-type :b double\nset-column :x exp:{ b * 2 + 1 }\nset-column :n exp:{ c.length() }\n"
              "set-column :t exp:{ c + '-' + n }\nset-column :g exp:{ x > 4 }\nset-column :u exp:{ t + x }\n"
              "set-column :v exp:{ x / 4 }\nset-column :w exp:{ f * 2 }\nset-column :k exp:{ s }\n"
              "set-column :m exp:{ n + k }\nfilter-row exp:{ v < 0.5 || g }")
    result = run(df, recipe)
    types = {name: result.frame.type_of(name) for name in ("x", "n", "t", "g", "u", "v", "w", "k", "m")}
    assert types == {"x": "double", "n": "int", "t": "string", "g": "boolean", "u": "string", "v": "double",
                     "w": "double", "k": "smallint", "m": "int"}
    assert probed == [] and result.frame._df is None  # nothing analysed to learn them, nothing built
    assert {f.name: f.dataType.simpleString() for f in result.df.schema.fields if f.name in types} == types
    composed = run_rows(recipe, rows, spark=spark)
    built = run_rows(_built_after_each_line(recipe), rows, spark=spark)
    assert composed.rows == built.rows and len(composed.rows) == 1
    assert composed.rows[0]["x"] == 4.0 and composed.rows[0]["t"] == "ab-2" and composed.rows[0]["k"] == 3
    assert [(e["row"], e["directive"]) for e in composed.errors] == [(e["row"], e["directive"]) for e in built.errors]
    assert composed.counts.to_dict() == built.counts.to_dict() and composed.counts.reconciled
