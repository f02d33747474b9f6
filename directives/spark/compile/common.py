"""Reusable `Column -> Column` helpers that give Spark Wrangler's value semantics."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from directives.spark.compilers import Finished
from directives.spark.runtime.frame import Frame


def wrangler_string(value: Column) -> Column:
    """Java's `String.valueOf`: null prints as "null", booleans as true/false."""
    return F.coalesce(value.cast("string"), F.lit("null"))


def split_width(frame: Frame, parts: Column) -> int:
    """How many columns a data-dependent split produces: one aggregate pass over the active rows."""
    row = frame.df.filter(frame.active).agg(F.max(F.size(parts)).alias("width")).collect()[0]
    return max(int(row["width"] or 0), 0)


def existing_column(frame: Frame, name: str) -> str:
    """The column's name as the frame has it; when it is absent the compiler is `Finished` with the frame unchanged
    (a directive whose column a row lacks leaves that row alone in Wrangler)."""
    actual = frame.find(name)
    if actual is None:
        raise Finished(frame)
    return actual
