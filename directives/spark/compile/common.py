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


#: Java class names of Spark types, for Wrangler's "is of invalid type 'X'" messages.
_JAVA_TYPES = {"string": "String", "int": "Integer", "bigint": "Long", "smallint": "Short", "tinyint": "Byte",
               "double": "Double", "float": "Float", "boolean": "Boolean", "binary": "byte[]", "date": "LocalDate",
               "timestamp": "ZonedDateTime", "timestamp_ntz": "LocalDateTime"}


def java_type(frame: Frame, name: str) -> str:
    """The Java class Wrangler would hold for a value of the column, as `getClass().getSimpleName()` prints it."""
    spark_type = frame.type_of(name)
    if spark_type.startswith("decimal"):
        return "BigDecimal"
    if spark_type.startswith("struct"):
        return "Row"
    if spark_type.startswith(("array", "map")):
        return "List" if spark_type.startswith("array") else "Map"
    return _JAVA_TYPES.get(spark_type, spark_type)


def error_row_message(directive: str, text: str, code: int) -> str:
    """The message of Wrangler's `ErrorRowException(name, text, code)`: "<text> (ecode: <code>, directive: <name>)"."""
    return f"{text} (ecode: {code}, directive: {directive})"
