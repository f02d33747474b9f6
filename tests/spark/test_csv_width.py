"""The width `parse-as-csv` learns (its delimiter count by bytes) for delimiters of one and several bytes, and for
records with quoted fields, which count by the regex instead."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(("delimiter", "bodies", "width"), [
    (",", ["a,b", "a,b,c,d", "é,ü,ß"], 4),
    ("é", ["aéb", "ü🙂éxéy"], 3),              # a two-byte delimiter among other multi-byte characters
    ("→", ["a→b→c", "🙂"], 3),               # three bytes
    ("||", ["a||b||c||d||e", "x"], 5),
    (",", ['"a,b,c",d', 'x,y'], 2),          # a quoted field counts once
])
def test_learned_width_counts_fields_not_bytes(delimiter: str, bodies: list[str], width: int, spark: Any) -> None:
    from pyspark.sql import functions as F

    from directives.spark.compile.csvsplit import field_count
    from directives.spark.runtime.runner import rows_to_dataframe

    df = rows_to_dataframe(spark, [{"body": body} for body in bodies])
    assert df.agg(F.max(field_count(F.col("body"), delimiter))).collect()[0][0] == width


def _bodies_with_one_wide_record_at(position: int, wide: str, total: int = 1500) -> list[dict[str, str]]:
    bodies = [{"body": f"{i},b,c"} for i in range(total)]
    bodies[position] = {"body": wide}
    return bodies


@pytest.mark.parametrize(("position", "wide", "delimiter", "width"), [
    (10, "a,b,c,d,e", ",", 5),                 # the widest record among the first ones: the guess holds
    (1400, "a,b,c,d,e", ",", 5),               # past the first records: the check finds it, all are counted
    (1400, '"q,q,q,q,q,q",x,y,z', ",", 4),     # quoted delimiters do not count, however many
    (1400, '"q,q",x,y,z,w', ",", 5),           # a quoted record wider than the guess
    (1499, "a,b,c,", ",", 4),                  # an empty last field counts
    (1400, "a||b||c||d", "||", 4),             # several characters: always counted
])
def test_learned_width_is_exact_wherever_the_widest_record_is(position: int, wide: str, delimiter: str, width: int,
                                                               spark: Any) -> None:
    from pyspark.sql import functions as F

    from directives.spark.compile.csvsplit import SAMPLE_RECORDS, widest_record
    from directives.spark.runtime.runner import rows_to_dataframe

    assert SAMPLE_RECORDS < 1400  # the late records are past the guess
    bodies = _bodies_with_one_wide_record_at(position, wide.replace(",", delimiter) if delimiter != "," else wide)
    df = rows_to_dataframe(spark, bodies)
    every = F.col("body").isNotNull()
    assert widest_record(df, every, F.col("body"), delimiter) == width
    assert widest_record(df.limit(0), every, F.col("body"), delimiter) == 0


@pytest.mark.parametrize("rows", [200, 3000])
def test_records_that_are_not_active_do_not_count_among_the_first_or_the_rest(rows: int, spark: Any) -> None:
    """Rows an earlier directive sent to the errors or filtered out are not the parse's records: a wide one among the
    first rows or past them is left out, and an active record wider than the rest is found wherever it is."""
    from pyspark.sql import functions as F

    from directives.spark.compile.csvsplit import widest_record
    from directives.spark.runtime.runner import rows_to_dataframe

    bodies = [{"body": "a,b,c"} for _ in range(rows)]
    bodies[5] = {"body": "skip,1,2,3,4,5,6,7"}
    bodies[-2] = {"body": "skip,1,2,3,4,5,6,7,8,9"}
    df = rows_to_dataframe(spark, bodies)
    active = ~F.col("body").startswith("skip")
    assert widest_record(df, active, F.col("body"), ",") == 3
    bodies[-3] = {"body": "a,b,c,d"}
    assert widest_record(rows_to_dataframe(spark, bodies), active, F.col("body"), ",") == 4


def test_a_wide_record_past_the_first_ones_gets_its_columns_in_a_run(spark: Any) -> None:
    import directives

    bodies = _bodies_with_one_wide_record_at(1450, "x,y,z,last")
    result = directives.run_rows("parse-as-csv :body ',' false\ndrop :body", bodies, spark=spark)
    assert result.columns == ["body_1", "body_2", "body_3", "body_4"]
    assert result.rows[1450] == {"body_1": "x", "body_2": "y", "body_3": "z", "body_4": "last"}
    assert result.rows[0]["body_4"] is None


def test_the_width_a_recipe_names_is_a_guess_checked_beside_the_compile() -> None:
    import directives
    from directives.spark.compile.parsers import referenced_width

    later = directives.parse("parse-as-csv :body ','\nrename :body_1 :id\nrename :Body_3 :c\n"
                             "set-column :s exp:{ body_2 + mybody_9 }\ndrop :body_2x\ndrop :body").directives[1:]
    assert referenced_width("body", later) == 3  # 1, 2 (in an expression) and 3 (case as written), nothing else
    gap = directives.parse("parse-as-csv :body ','\nrename :body_1 :a\nrename :body_3 :c").directives[1:]
    assert referenced_width("body", gap) is None  # not every field named: no guess
    assert referenced_width("body", ()) is None


@pytest.mark.parametrize(("named", "fields"), [(3, 3), (3, 5), (4, 3)])
def test_a_run_with_a_guessed_width_gives_what_a_run_that_learned_it_first_gives(named: int, fields: int,
                                                                                  spark: Any) -> None:
    """The recipe names body_1 … body_n; the data has ``fields`` fields. Right or wrong, the guess changes nothing
    but how long the build takes: a wrong one is compiled again with the learned width."""
    from directives.spark.runtime.runner import rows_to_dataframe, run

    rows = [{"body": ",".join(f"v{r}{i}" for i in range(fields - (r % 2)))} for r in range(6)]
    df = rows_to_dataframe(spark, rows)
    recipe = "parse-as-csv :body ',' false\ndrop :body\n" + "".join(
        f"uppercase :body_{i}\n" for i in range(1, named + 1))
    guessed = run(df, recipe)
    learned = run(df, recipe, declared_widths={1: fields})
    # (a run compiled again was told the width it learned: it guessed nothing)
    assert [check.guessed for check in guessed.context.width_checks] == ([named] if named == fields else [])
    assert guessed.df.columns == learned.df.columns == [f"body_{i}" for i in range(1, fields + 1)]
    assert guessed.df.collect() == learned.df.collect()
    assert guessed.df.collect()[0]["body_1"] == "V00"
    assert guessed.counts().to_dict() == learned.counts().to_dict()


@pytest.mark.parametrize(("named", "wide_at", "fields"), [(3, 1450, 5), (3, 10, 4), (4, None, 3), (3, None, 3)])
def test_a_guess_checked_in_the_write_gives_what_a_run_that_learned_the_width_first_gives(
        named: int, wide_at: int | None, fields: int, spark: Any) -> None:
    """`widths_in_write`: only the first records are read before the write; a wider record past them stops the
    write's pass, which runs again with the learned width; a recipe naming more fields than any record has is
    compiled again before the write, as without it."""
    from directives.spark.runtime.runner import rows_to_dataframe, run

    bodies = [{"body": ",".join(f"v{r}{i}" for i in range(min(fields, 3)))} for r in range(1500)]
    if wide_at is not None:
        bodies[wide_at] = {"body": ",".join(f"w{i}" for i in range(fields))}
    df = rows_to_dataframe(spark, bodies)
    recipe = "parse-as-csv :body ',' false\ndrop :body\n" + "".join(
        f"uppercase :body_{i}\n" for i in range(1, named + 1)) + "filter-row exp:{ body_1 == 'V70' }\n"
    checked = run(df, recipe, widths_in_write=True)
    written = checked.write(lambda out: out.collect())
    learned = run(df, recipe, declared_widths={1: fields})
    assert checked.df.columns == learned.df.columns == [f"body_{i}" for i in range(1, fields + 1)]
    assert written == learned.df.collect()
    assert checked.counts().to_dict() == learned.counts().to_dict()
    assert checked.counts().filtered_rows == 1


def test_a_wider_record_stops_a_guessed_width_s_own_action_with_a_clear_error(spark: Any) -> None:
    """`widths_in_write` without `write`: an action of the caller's own gets the stop as a Spark error that says
    what happened (never a silently narrower result)."""
    from directives.spark.runtime.frame import WIDTH_GUESS_FAILED
    from directives.spark.runtime.runner import rows_to_dataframe, run

    df = rows_to_dataframe(spark, _bodies_with_one_wide_record_at(1450, "x,y,z,last"))
    recipe = "parse-as-csv :body ',' false\ndrop :body\nrename :body_1 :a\nrename :body_2 :b\nrename :body_3 :c\n"
    result = run(df, recipe, widths_in_write=True)
    assert [check.learned.result() for check in result.context.width_checks] == [3]  # the first records say 3
    with pytest.raises(Exception, match=WIDTH_GUESS_FAILED) as raised:
        result.df.collect()
    assert "more than the 3 fields the recipe names" in str(raised.value)


def test_two_guesses_wrong_in_one_write_are_both_learned(spark: Any) -> None:
    """Each wrong guess stops a pass: the write starts again until none is wrong, and says what it learned."""
    from directives.spark.runtime.runner import rows_to_dataframe, run

    bodies = [{"body": f"{i},a;b"} for i in range(1500)]
    bodies[1200] = {"body": "1200,a;b;c,extra"}
    df = rows_to_dataframe(spark, bodies)
    recipe = ("parse-as-csv :body ',' false\ndrop :body\nrename :body_1 :id\n"
              "parse-as-csv :body_2 ';' false\ndrop :body_2\nrename :body_2_1 :x\nrename :body_2_2 :y\n")
    checked = run(df, recipe, widths_in_write=True)
    written = checked.write(lambda out: out.collect())
    assert checked.learned_in_write == {1: 3, 4: 3}
    assert checked.df.columns == ["id", "body_3", "x", "y", "body_2_3"]
    assert written[1200].asDict() == {"id": "1200", "body_3": "extra", "x": "a", "y": "b", "body_2_3": "c"}
    assert written[0].asDict() == {"id": "0", "body_3": None, "x": "a", "y": "b", "body_2_3": None}
