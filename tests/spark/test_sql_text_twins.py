"""Expressions that compilers write as one SQL text over a column reference (`reference_text`) and as Column
operations over anything else must be the same expression: both paths, on the same hostile values, give the same
results (a difference would make a directive's result depend on whether its input was composed)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark

TEXTS = [None, "", " ", "a", " a ", "\ta\n", "\u2003a\u00a0", "a\u3000", "\x00a\x1f", "\x7fa", "é ", " 🙂",
         "1.5", " 12 ", "-0", "1e3", "NaN", " nan ", "Infinity", "-INF ", "inf", "+infinity", "0x1F", "1_000",
         "+5", "٣", "9" * 40, "1.5d", "\u20031\u2003", "\x0b7\x0c"]
RECORDS = [None, "", "a", "a,b,c", 'a,"b,c",d', '"a""b",c', ',,', 'x,"y', '"q",,z,w', "\x00a,b", ' "a",b']


def _both(spark: Any, values: list[str | None], make: Any) -> list[tuple[Any, Any]]:
    """(SQL-text path, Column path) of ``make(column)`` for every value of a column `v`."""
    from pyspark.sql import functions as F

    from directives.spark.internals import column, compiling, reference_text

    df = spark.createDataFrame([(v,) for v in values], "v string")
    with compiling():
        reference, other = column("`v`"), F.col("v")
        assert reference_text(reference) == "`v`" and reference_text(other) is None
        rows = df.select(make(df, reference).alias("text"), make(df, other).alias("ops")).collect()
    return [(row["text"], row["ops"]) for row in rows]


def _same(pairs: list[tuple[Any, Any]]) -> None:
    for text, ops in pairs:
        assert text == ops or (text != text and ops != ops), (text, ops)  # NaN equals NaN here


@pytest.mark.parametrize(("start", "end"), [(True, True), (True, False), (False, True)])
def test_trim_is_the_same_either_way(start: bool, end: bool, spark: Any) -> None:
    from directives.spark.compile.transform import _trimmed

    _same(_both(spark, TEXTS, lambda df, v: _trimmed(v, start, end)))


@pytest.mark.parametrize("target", ["double", "float", "int", "long", "short"])
def test_set_type_of_text_is_the_same_either_way(target: str, spark: Any) -> None:
    import directives
    from directives.spark.compile.column_ops import _blank, _converted
    from directives.spark.runtime.frame import RunContext

    declaration = directives.parse(f"set-type :v {target}", schema=["v"]).directives[0]
    context = RunContext(spark=spark)
    pairs = _both(spark, TEXTS, lambda df, v: _converted(declaration, v, "string", None, context))
    _same(pairs)
    assert any(text is not None for text, _ in pairs) and any(text is None for text, _ in pairs)
    _same(_both(spark, TEXTS, lambda df, v: _blank(v, "string")))


def test_parse_as_csv_fields_are_the_same_either_way(spark: Any) -> None:
    from pyspark.sql import functions as F

    from directives.spark.compile.csvsplit import CsvFields
    from directives.spark.internals import column, compiling

    df = spark.createDataFrame([(v,) for v in RECORDS], "v string")
    with compiling():
        fields = CsvFields(F.col("v"), ",", 4, "__wr_t")
        parsed = df.select("*", *fields.columns)
        reference, other = column("`v`"), F.col("v")
        rows = parsed.select(*(fields.present_field(i, reference).alias(f"t{i}") for i in range(4)),
                             *(fields.present_field(i, other).alias(f"o{i}") for i in range(4))).collect()
    for row in rows:
        assert [row[f"t{i}"] for i in range(4)] == [row[f"o{i}"] for i in range(4)]
    assert [row["t1"] for row in rows][3:5] == ["b", "b,c"]  # quoted and plain records both read


HOSTILE_DELIMITERS = [",", "|", ";;", "'", "\\", "\t", "é"]


@pytest.mark.parametrize("delimiter", HOSTILE_DELIMITERS)
@pytest.mark.parametrize("width", [1, 4, 20])
def test_parse_as_csv_hidden_columns_are_the_same_either_way(delimiter: str, width: int, spark: Any) -> None:
    """The split, the plain-record test, the `from_csv` struct and the field count, for delimiters that are regex or
    SQL metacharacters, several characters long, or not ASCII, and widths on both sides of `FIELD_START_CHECKS`."""
    from pyspark.sql import functions as F

    from directives.spark.compile.csvsplit import CsvFields
    from directives.spark.internals import column, compiling, reference_text

    records = [None if r is None else r.replace(",", delimiter) for r in RECORDS]
    records += [delimiter.join(["a"] * 25), f'"{delimiter}"{delimiter}x', f"{delimiter}\\E{delimiter}'"]
    df = spark.createDataFrame([(v,) for v in records], "v string")
    with compiling():
        reference, other = column("`v`"), F.col("v")
        texts, ops = CsvFields(reference, delimiter, width, "__t"), CsvFields(other, delimiter, width, "__o")
        assert reference_text(reference) == "`v`"
        rows = df.select(*texts.columns, *ops.columns).collect()
    for row in rows:
        assert [row[f"__t{suffix}"] for suffix in ("_split", "_plain", "", "_count")] == \
               [row[f"__o{suffix}"] for suffix in ("_split", "_plain", "", "_count")], row
    assert any(row["__t_plain"] is False for row in rows) and any(row["__t_plain"] for row in rows)


@pytest.mark.parametrize("delimiter", [*HOSTILE_DELIMITERS, ""])
def test_field_count_is_the_same_either_way(delimiter: str, spark: Any) -> None:
    from directives.spark.compile.csvsplit import field_count

    records = [None if r is None else r.replace(",", delimiter or ",") for r in RECORDS]
    pairs = _both(spark, records, lambda df, v: field_count(v, delimiter))
    _same(pairs)
    assert len({text for text, _ in pairs}) > 2  # the records differ in width
