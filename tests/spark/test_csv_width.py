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
