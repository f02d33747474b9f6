"""Spark compilers of the column family: renames and drops are pure projections, no data touched."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.base import Directive
from directives.catalog.column_ops import (
    ChangeColumnCase,
    CleanseColumnNames,
    ColumnsReplace,
    Copy,
    CreateRecord,
    Drop,
    FlattenRecord,
    Keep,
    Merge,
    Rename,
    SetHeaders,
    SetType,
    SplitToColumns,
    Swap,
    WholeSchemaRename,
    unique_headers,
)
from directives.java_text import java_unescape
from directives.spark.compile import typeconv
from directives.spark.compile.common import split_width, wrangler_string
from directives.spark.compilers import compiles, python_udf
from directives.spark.runtime.frame import Frame, RunContext, col
from grammar.errors import RecipeError


class ColumnConflict(RecipeError):
    """A schema-level failure Wrangler raises for every row (so the whole run stops)."""

    rule = "execution"


def _conflict(directive: Directive, message: str) -> ColumnConflict:
    span = directive.call.span
    return ColumnConflict(message, line=span.line, column=span.column, directive=directive.name)


@compiles(Rename, composable=True)
def rename(d: Rename, frame: Frame, ctx: RunContext) -> Frame:
    source, target = frame.find(d.source), d.target
    if source is None:
        return frame  # Wrangler: renaming a missing column does nothing
    existing = frame.find(target)
    if existing is not None and existing != source:
        raise _conflict(d, f"Column '{target}' already exists; apply the 'drop :{target}' directive first.")
    return frame.step(d).rename(source, target).build()


@compiles(Drop, composable=True)
def drop(d: Drop, frame: Frame, ctx: RunContext) -> Frame:
    step = frame.step(d)
    for name in d.column:
        step.drop(name.strip())
    return step.build()


@compiles(Keep, composable=True)
def keep(d: Keep, frame: Frame, ctx: RunContext) -> Frame:
    kept = set(d.column)
    return frame.step(d).reorder([name for name in frame.columns if name in kept]).build()


@compiles(Swap, composable=True)
def swap(d: Swap, frame: Frame, ctx: RunContext) -> Frame:
    left, right = frame.find(d.left), frame.find(d.right)
    for wanted, found in ((d.left, left), (d.right, right)):
        if found is None:
            raise _conflict(d, f"Column '{wanted}' does not exist; swap needs both columns.")
    assert left is not None and right is not None
    order = [right if name == left else left if name == right else name for name in frame.columns]
    return frame.step(d).reorder(order).place({right: col(left), left: col(right)}).build()


@compiles(Copy, composable=True)
def copy(d: Copy, frame: Frame, ctx: RunContext) -> Frame:
    source, destination = frame.find(d.source), d.destination
    if source is None:
        raise _conflict(d, f"Column '{d.source}' does not exist; nothing to copy.")
    existing = frame.find(destination)
    if existing is not None and existing.lower() == source.lower():
        return frame
    if existing is not None and not d.force:
        raise _conflict(d, f"Column '{destination}' already exists; use force (copy … true) to overwrite it.")
    return frame.step(d).set(existing or destination, col(source)).build()


@compiles(Merge, composable=True)
def merge(d: Merge, frame: Frame, ctx: RunContext) -> Frame:
    first, second = frame.find(d.column1), frame.find(d.column2)
    if first is None or second is None:
        return frame  # Wrangler merges only when both columns exist
    separator = java_unescape(d.separator)
    value = F.concat(wrangler_string(col(first)), F.lit(separator), wrangler_string(col(second)))
    return frame.step(d).set(d.destination, value, T.StringType()).build()


@compiles(SetHeaders, composable=True)
def set_headers(d: SetHeaders, frame: Frame, ctx: RunContext) -> Frame:
    current = list(frame.columns)
    names = [name.strip() for name in d.column][: len(current)]  # extra names are ignored
    final = unique_headers(names, current[len(names):])  # never two columns of one name (see unique_headers)
    return frame.step(d).reorder(final).place({new: col(old) for old, new in zip(current, final, strict=True)}).build()


@compiles(ChangeColumnCase, CleanseColumnNames, ColumnsReplace, composable=True)
def rename_all(d: WholeSchemaRename, frame: Frame, ctx: RunContext) -> Frame:
    step = frame.step(d)
    for old in list(frame.columns):
        step.rename(old, d.new_name(old))
    return step.build()


_CASTS = {"int": "int", "short": "short", "long": "bigint", "float": "float", "double": "double",
          "boolean": "boolean", "string": "string", "bytes": "binary"}


python_udf(SetType, "only for float/double to or from bytes: Java's IEEE-754 bit patterns have no Spark "
                       "function (every other conversion is native)")


_CONVERTED = "__wr_tmp_set_type"
#: The Spark type of set-type's result by target, where the cast alone decides it (not from bytes, not a decimal).
_RESULT_TYPES: dict[str, T.DataType] = {
    "int": T.IntegerType(), "short": T.ShortType(), "long": T.LongType(), "float": T.FloatType(),
    "double": T.DoubleType(), "boolean": T.BooleanType(), "string": T.StringType()}


@compiles(SetType, pending_result=True)
def set_type(d: SetType, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame
    value = col(name)
    source_type = frame.type_of(name)
    converted = _converted(d, value, source_type, frame.df.schema[name].dataType, ctx)
    # Converted once, in a hidden column of its own projection: the value and the error check both read it
    # (Spark would otherwise parse every value twice); `Step.build` leaves the column out.
    frame = frame.with_df(frame.df.select("*", converted.alias(_CONVERTED)))
    converted = F.col(_CONVERTED)
    blank = value.isNull() | (F.trim(value) == "") if source_type == "string" else value.isNull()
    bad = ~blank & converted.isNull()
    result = F.when(blank, F.lit(None)).otherwise(converted) if d.target_type != "string" else converted
    known = _RESULT_TYPES.get(d.target_type) if source_type != "binary" else None
    return (
        frame.step(d)
        .set(name, result, known)
        .fail_when(bad, F.concat(F.lit(f"Column '{name}' value '"), value.cast("string"),
                                 F.lit(f"' cannot be converted to {d.type}")))
        .build()
    )


def _converted(d: SetType, value: Column, source_type: str, data_type: object, ctx: RunContext) -> Column:
    """The value in the target type, or null when it cannot be converted (the row then goes to errors)."""
    target = d.target_type
    text = F.trim(value.cast("string"))
    if target == "decimal":
        return _decimal(d, value if source_type.startswith("decimal") else text.cast("decimal(38,18)"))
    if target == "string":
        if source_type == "timestamp_ntz":
            return typeconv.local_datetime_text(value)
        if source_type == "timestamp":
            return typeconv.zoned_datetime_text(value)
        return value.cast("string")
    if target == "bytes":
        if source_type in typeconv.SPARK_INTEGER_WIDTHS:
            return typeconv.integer_to_bytes(value, typeconv.SPARK_INTEGER_WIDTHS[source_type])
        if source_type in ("float", "double"):
            ctx.udf_directives.append(d.name)
            return typeconv.float_to_bytes(value, 4 if source_type == "float" else 8)
        if source_type.startswith("decimal"):
            return typeconv.decimal_to_bytes(value, getattr(data_type, "scale", 0))
        return value.cast("string").cast("binary") if source_type != "binary" else value
    if source_type == "binary":
        if target in typeconv.INTEGER_WIDTHS:
            return typeconv.bytes_to_integer(value, target)
        if target in ("float", "double"):
            ctx.udf_directives.append(d.name)
            return typeconv.bytes_to_float(value, target)
        value = value.cast("string")
    if target == "boolean":
        lowered = F.lower(text)
        return F.when(lowered == "true", F.lit(True)).when(lowered == "false", F.lit(False))
    if source_type in ("float", "double") or source_type.startswith("decimal"):
        return value.cast(_CASTS[target])
    return (text if source_type in ("string", "binary") else value).cast(_CASTS[target])


def _decimal(d: SetType, number: Column) -> Column:
    """`new BigDecimal(v)`, rounded to `precision` significant digits, then set to `scale` (Java's order)."""
    mode = str(d.rounding_mode or "HALF_EVEN").upper()
    precision = (d.bound("precision") or {}).get("precision")
    if precision is not None:
        digits = int(precision)
        scale_needed = typeconv.significant_scale(number, digits)
        rounded: Column = F.lit(None).cast("decimal(38,18)")
        for scale in range(18, -1, -1):
            rounded = F.when(scale_needed == scale, typeconv.round_decimal(number, scale, mode).cast("decimal(38,18)")
                             ).otherwise(rounded)
        number = F.when(scale_needed < 0, number.cast("decimal(38,18)")).otherwise(rounded)
    if d.scale is not None:
        return typeconv.round_decimal(number, int(d.scale), mode)
    return number.cast("decimal(38,18)")


@compiles(SplitToColumns)
def split_to_columns(d: SplitToColumns, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame.step(d).filter_when(F.lit(True)).build()  # Wrangler drops rows without the column
    parts = F.split(F.regexp_replace(col(name).cast("string"), f"(?:{d.regex})+$", ""), d.regex)
    width = ctx.declared_widths.get(d.index) or split_width(frame, parts)
    step = frame.step(d)
    for position in range(width):
        step.set(f"{name}_{position + 1}", parts.getItem(position))
    return step.fail_when(col(name).isNull(), f"Column '{name}' has null value; cannot split it.").build()


@compiles(CreateRecord)
def create_record(d: CreateRecord, frame: Frame, ctx: RunContext) -> Frame:
    fields = [(frame.find(c), c) for c in d.columns]
    record = F.struct(*(col(actual).alias(actual) for actual, _ in fields if actual is not None))
    return frame.step(d).set(d.target_column, record).build()


@compiles(FlattenRecord)
def flatten_record(d: FlattenRecord, frame: Frame, ctx: RunContext) -> Frame:
    step = frame.step(d)
    for wanted in d.columns:
        name = frame.find(wanted)
        if name is None:
            continue
        data_type = frame.df.schema[name].dataType
        for field in getattr(data_type, "fields", []):
            step.set(f"{name}_{field.name}", col(name).getField(field.name))
    return step.build()
