"""Spark compilers of the row family: explode lists and split values into rows, filter rows out.

Row multiplication is `Frame.repeat` (one `explode` of a copy counter) followed by one step
that picks each copy's value, so a directive stays a single projection over the repeated rows
and inactive rows (errored or filtered earlier) pass through once, untouched. Filters mark
rows (`filter_when`) instead of removing them, so the run counts say how many each dropped.
"""

from __future__ import annotations

from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.catalog.rows import FilterByRegex, FilterEmptyOrNull, Flatten, SetRecordDelim, SplitToRows
from directives.spark.compile.common import java_type
from directives.spark.compilers import Finished, compiles
from directives.spark.runtime.frame import COPY, Frame, RunContext, col

_NUMERIC = (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.FloatType, T.DoubleType, T.DecimalType)


def java_split(value: Column, regex: str) -> Column:
    """Java's `String.split(regex)`: trailing empty parts removed, so a value of only delimiters gives no part.

    Spark's `split` keeps trailing empty strings; stripping trailing delimiters first gives Java's list,
    except for a non-empty value made only of delimiters, which Java splits into nothing.
    """
    stripped = F.regexp_replace(value, f"(?:{regex})+$", "")
    parts = F.split(stripped, regex)
    return F.when((stripped == "") & (value != ""), F.array().cast("array<string>")).otherwise(parts)


def _is_string(frame: Frame, name: str) -> bool:
    return isinstance(frame.df.schema[name].dataType, T.StringType)


@compiles(Flatten)
def flatten(d: Flatten, frame: Frame, ctx: RunContext) -> Frame:
    listed: list[str] = []
    for name in d.column:
        if name.strip().lower() not in {seen.lower() for seen in listed}:
            listed.append(name.strip())
    present = [actual for actual in (frame.find(name) for name in listed) if actual is not None]
    if not present:
        # Wrangler: with none of the listed columns, the row is dropped (counted as filtered here).
        return frame.step(d).filter_when(F.lit(True)).build()
    arrays = [name for name in present if isinstance(frame.df.schema[name].dataType, T.ArrayType)]
    # A null or scalar value counts as one element; a list as its length; the row becomes the longest.
    sizes = [F.when(col(name).isNull(), F.lit(1)).otherwise(F.size(col(name))) for name in arrays]
    count = F.lit(1) if not sizes else sizes[0] if len(sizes) == 1 else F.greatest(*sizes)
    repeated = frame.repeat(count) if arrays else frame
    step = repeated.step(d)
    for name in arrays:
        step.set(name, F.get(col(name), F.col(COPY)))
    for name in listed:
        if frame.find(name) is None:
            step.set(name, F.lit(None).cast("string"))
    if arrays:
        ctx.multiplying.append(d.index)
    return step.build()


def _text_to_split(d: SplitToRows | SetRecordDelim, frame: Frame, wrong_type: str) -> str:
    """The column a row-splitting directive splits; else the compiler is `Finished`: rows without the column are
    dropped (as Wrangler drops them), and every row fails when the column is not text (``wrong_type``: the message,
    `{name}` and `{type}` filled in)."""
    name = frame.find(d.column)
    if name is None:
        raise Finished(frame.step(d).filter_when(F.lit(True)).build())
    if not _is_string(frame, name):
        message = wrong_type.format(name=name, type=java_type(frame, name))
        raise Finished(frame.step(d).fail_when(F.lit(True), message).build())
    return name


@compiles(SplitToRows)
def split_to_rows(d: SplitToRows, frame: Frame, ctx: RunContext) -> Frame:
    name = _text_to_split(d, frame, "Column '{name}' has invalid type '{type}'. It should be of type 'String'.")
    parts = java_split(col(name), d.regex)
    ctx.multiplying.append(d.index)
    return (
        frame.repeat(F.size(parts))
        .step(d)
        .set(name, F.get(parts, F.col(COPY)))
        .fail_when(col(name).isNull(), f"Column '{name}' has null value. It should be a non-null 'String'.")
        .filter_when(col(name).isNotNull() & (F.size(parts) == 0))
        .build()
    )


@compiles(SetRecordDelim)
def set_record_delim(d: SetRecordDelim, frame: Frame, ctx: RunContext) -> Frame:
    name = _text_to_split(d, frame, "Column '{name}' has type '{type}'; set-record-delim splits text only.")
    parts = java_split(col(name), d.delimiter)
    count = F.size(parts) if d.limit is None else F.least(F.size(parts), F.lit(d.limit))
    ctx.multiplying.append(d.index)
    return (
        frame.repeat(count)
        .step(d)
        .set(name, F.get(parts, F.col(COPY)))
        .reorder([name])
        .filter_when(col(name).isNull() | (F.size(parts) == 0))
        .build()
    )


@compiles(FilterEmptyOrNull)
def filter_empty_or_null(d: FilterEmptyOrNull, frame: Frame, ctx: RunContext) -> Frame:
    present = [actual for actual in (frame.find(name.strip()) for name in d.column) if actual is not None]
    # A row is kept once when some listed column holds a value; missing columns count as null.
    has_value = reduce(lambda left, right: left | right, (col(name).isNotNull() for name in present), F.lit(False))
    return frame.step(d).filter_when(~has_value).build()


@compiles(FilterByRegex)
def filter_by_regex(d: FilterByRegex, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if not d.enabled or name is None:
        return frame  # a '' or 'null' regex disables the filter; rows without the column are kept
    data_type = frame.df.schema[name].dataType
    if isinstance(data_type, T.StructType):
        return frame  # Wrangler keeps rows whose value is a JSON object
    step = frame.step(d)
    if not isinstance(data_type, (T.StringType, *_NUMERIC)):
        return step.fail_when(
            F.lit(True), f"Column '{name}' is of invalid type '{java_type(frame, name)}'. It should be of type "
            "'String', 'JSONObject' or 'Number'."
        ).build()
    # Java's `matches()` is a full match; Spark's `rlike` finds, so anchor at the very start and end.
    matched = col(name).cast("string").rlike(f"\\A(?:{d.regex})\\z")
    return (
        step.fail_when(col(name).isNull(), f"Column '{name}' has null value. It should be a non-null 'String', "
                       "'JSONObject' or 'Number'.")
        .filter_when(matched if d.drop_matches else ~matched)
        .build()
    )
