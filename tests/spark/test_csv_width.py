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
    assert widest_record(df, F.col("body"), delimiter) == width
    assert widest_record(df.limit(0), F.col("body"), delimiter) == 0


def test_a_wide_record_past_the_first_ones_gets_its_columns_in_a_run(spark: Any) -> None:
    import directives

    bodies = _bodies_with_one_wide_record_at(1450, "x,y,z,last")
    result = directives.run_rows("parse-as-csv :body ',' false\ndrop :body", bodies, spark=spark)
    assert result.columns == ["body_1", "body_2", "body_3", "body_4"]
    assert result.rows[1450] == {"body_1": "x", "body_2": "y", "body_3": "z", "body_4": "last"}
    assert result.rows[0]["body_4"] is None
