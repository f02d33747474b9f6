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
from directives.spark.compile.common import existing_column, java_type, split_width, wrangler_string
from directives.spark.compilers import compiles, python_udf
from directives.spark.internals import column, reference_text
from directives.spark.runtime.frame import Frame, RunContext, Step, col, quote
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
    check_rename(d, frame, source, d.source, target)
    return frame.step(d).rename(source, target).build()


def check_rename(d: Directive, frame: Frame, source: str, spelt: str, target: str) -> None:
    """ColumnConverter.rename (rename, data-model-map-column): onto another existing column fails every row."""
    existing = frame.find(target)
    if existing is not None and existing != source:
        raise _conflict(d, f"Column '{target}' already exists. Apply the 'drop {target}' directive before renaming "
                           f"'{spelt}' to '{target}'.")


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
            raise _conflict(d, f"Column '{wanted}' does not exist.")
    assert left is not None and right is not None
    # Swap.execute renames in place: the columns take the names as the directive spells them
    order = [d.right if name == left else d.left if name == right else name for name in frame.columns]
    return frame.step(d).reorder(order).place({d.right: col(left), d.left: col(right)}).build()


@compiles(Copy, composable=True)
def copy(d: Copy, frame: Frame, ctx: RunContext) -> Frame:
    source, destination = frame.find(d.source), d.destination
    if source is None:
        raise _conflict(d, f"Column '{d.source}' does not exist.")
    existing = frame.find(destination)
    if existing is not None and existing.lower() == source.lower():
        return frame
    if existing is not None and not d.force:
        raise _conflict(d, f"Destination column '{destination}' already exists in the row. Use 'force' option to "
                           "overwrite the column.")
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
_NUMBERS = ("smallint", "int", "bigint", "float", "double")
#: Source types each target converts (the `instanceof` branches of ColumnConverter.convertType); a value of any
#: other type fails with "has value of type …". Decimal sources are accepted wherever this holds "decimal".
_ACCEPTS = {
    **dict.fromkeys(("int", "short", "long", "float", "double"), ("string", *_NUMBERS, "decimal", "binary")),
    "boolean": ("boolean", "string", *_NUMBERS, "decimal", "binary"),
    "decimal": ("string", *_NUMBERS, "decimal", "binary"),
    "bytes": ("string", *_NUMBERS, "decimal", "binary"),
}
#: `Integer.parseInt` and friends: an optional sign and ASCII digits, nothing else (no blanks, no point).
_INTEGER_TEXT = r"^[+-]?[0-9]+$"
#: `new BigDecimal(String)`: no blanks, no NaN or Infinity.
_DECIMAL_TEXT = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
#: Spark's float casts also read these spellings (any case); `Double.parseDouble` only NaN and [+-]Infinity.
_SPARK_ONLY_SPECIALS = ("inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan")
_JAVA_SPECIALS = ("NaN", "Infinity", "+Infinity", "-Infinity")
#: What `String.trim` removes (every char up to the space), for the special words' check.
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))


python_udf(SetType, "only for float/double to or from bytes: Java's IEEE-754 bit patterns have no Spark "
                       "function (every other conversion is native)")


_CONVERTED = "__wr_tmp_set_type"
#: Targets whose conversion of text is a `when` of a cast (`_converted`).
_NUMBER_TARGETS = ("int", "short", "long", "float", "double")
#: The Spark type of set-type's result by target, where the cast alone decides it (not from bytes, not a decimal).
_RESULT_TYPES: dict[str, T.DataType] = {
    "int": T.IntegerType(), "short": T.ShortType(), "long": T.LongType(), "float": T.FloatType(),
    "double": T.DoubleType(), "boolean": T.BooleanType(), "string": T.StringType()}


@compiles(SetType, composable=True)
def set_type(d: SetType, frame: Frame, ctx: RunContext) -> Frame:
    name = existing_column(frame, d.column)
    return conversion_step(d, d, frame, name, str(d.type), d.column, ctx).build()


def conversion_step(d: SetType, owner: Directive, frame: Frame, name: str, type_name: str, spelt: str,
                    ctx: RunContext) -> Step:
    """ColumnConverter.convertType (set-type, data-model-map-column): a null or blank value is left alone, a value
    of a type the target does not convert fails with "has value of type", one that does not parse with "cannot be
    converted". `owner` is the directive whose step it is; `type_name` and `spelt` (the column as the
    recipe wrote it) are the names Wrangler's messages use."""
    value = col(name)
    source_type = frame.type_of(name)
    target = d.target_type
    blank = _blank(value, source_type)
    kind = "decimal" if source_type.startswith("decimal") else source_type
    if target != "string" and kind not in _ACCEPTS[target]:
        message = (f"Column '{spelt}' has value of type '{java_type(frame, name)}' and cannot be converted "
                   f"to a '{type_name.upper()}'.")
        return frame.step(owner).set(name, F.lit(None).cast(_CASTS.get(target, "decimal(38,18)"))).fail_when(
            ~blank, message)
    # Hidden columns named for the directive (a pending frame may carry several); `Step.build` leaves them out.
    hidden = f"{_CONVERTED}_{owner.index}"
    deferred = frame.defers_hidden
    if deferred and frame.composes(name):
        # A pending frame's value of the column is its composed expression: the conversion, the blank test and the
        # error check each read it several times, so it is computed once, in a deferred hidden column, and they
        # read that (a pending frame's projections are analysed by their text, which this keeps small).
        frame = frame.with_hidden(f"{hidden}_in", value, frame.data_type(name))
        value = column(quote(f"{hidden}_in"))
        blank = _blank(value, source_type)
    failures: list[tuple[Column, Column]] = []
    if target == "decimal":
        converted = _decimal(d, _decimal_source(value, source_type), value, failures)
    else:
        converted = _converted(d, value, source_type, frame.data_type(name), ctx)
    known = _RESULT_TYPES.get(target) if source_type != "binary" else None
    if deferred:
        # The result, in one more deferred hidden column: it is the conversion wherever the value is not blank, so
        # the error check reads it too, and later directives composed over the column read its name.
        result = converted
        if target != "string":
            frame = frame.with_hidden(f"{hidden}_value", F.when(blank, F.lit(None)).otherwise(converted), known)
            result = F.col(f"{hidden}_value")
        unconverted = result.isNull()
    else:
        # Converted once, in a hidden column of its own: the value and the error check both read it (Spark would
        # otherwise parse every value twice).
        # (text to a number: `_converted` is a `when` without `otherwise`, so its type is the target's and it may be
        # null)
        typed = _RESULT_TYPES[target] if source_type == "string" and target in _NUMBER_TARGETS else None
        frame = frame.with_hidden(hidden, converted, typed)
        converted = F.col(hidden)
        result = F.when(blank, F.lit(None)).otherwise(converted) if target != "string" else converted
        unconverted = converted.isNull()
    step = frame.step(owner).set(name, result, known)
    for condition, message in failures:
        step.fail_when(~blank & condition, message)
    return step.fail_when(~blank & unconverted, f"Column '{spelt}' cannot be converted to a '{type_name}'.")


def _blank(value: Column, source_type: str) -> Column:
    """Wrangler leaves a null value alone, and a blank text too."""
    if source_type != "string":
        return value.isNull()
    name = reference_text(value)
    if name is not None:  # the same expression as one SQL text: one round trip, not eight
        return F.expr(f"({name} IS NULL OR trim({name}) = '')")
    return value.isNull() | (F.trim(value) == "")


def _converted(d: SetType, value: Column, source_type: str, data_type: object, ctx: RunContext) -> Column:
    """The value in the (non-decimal) target type, or null when it cannot be converted (the row then fails)."""
    target = d.target_type
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
        return typeconv.bytes_to_boolean(value)
    if target == "boolean":
        if source_type == "string":
            return F.lower(value) == "true"  # Boolean.parseBoolean: anything else is false, never an error
        if source_type in ("float", "double"):
            return ~F.isnan(value) & (value > 0)  # Spark orders NaN above every number; Java's NaN > 0 is false
        return value > 0 if source_type != "boolean" else value
    if source_type == "string":
        name = reference_text(value)
        if name is not None:
            return F.expr(_text_to_number(name, target))
        if target in typeconv.INTEGER_WIDTHS:
            return F.when(value.rlike(_INTEGER_TEXT), value.cast(_CASTS[target]))
        # Spark's cast tries Java's own parse first and reads its special words only when that fails, so a result
        # that is a number is Java's result: only NaN and the infinities need the words checked (which lower-cases
        # and trims a copy of the text, a fifth of set-type's cost per row when done for every value).
        # (A `CASE` branch, not `unusual AND special`: Spark's subexpression elimination treats both sides of an AND
        # as always evaluated, and hoisted the words' trim out of it into every row.)
        number = value.cast(_CASTS[target])
        unusual = F.isnan(number) | (F.abs(number) == F.lit(float("inf")))
        trimmed = F.trim(value, F.lit(_JAVA_TRIMMED))  # both Java and Spark's word reader trim every char <= ' '
        special = F.lower(trimmed).isin(*_SPARK_ONLY_SPECIALS) & ~trimmed.isin(*_JAVA_SPECIALS)
        return F.when(unusual, F.when(special, F.lit(None)).otherwise(number)).otherwise(number)
    return value.cast(_CASTS[target])


def _text_to_number(name: str, target: str) -> str:
    """`_converted` of the text column ``name`` (quoted) to a number, as one SQL text: the same expression, made in one
    round trip where its Column operations take two dozen (and long recipes convert many columns)."""
    cast = _CASTS[target]
    if target in typeconv.INTEGER_WIDTHS:
        return f"CASE WHEN {name} RLIKE '{_INTEGER_TEXT}' THEN CAST({name} AS {cast}) END"
    number = f"CAST({name} AS {cast})"
    trimmed = f"trim(BOTH '{_JAVA_TRIMMED}' FROM {name})"
    words = ", ".join(f"'{word}'" for word in _SPARK_ONLY_SPECIALS)
    java_words = ", ".join(f"'{word}'" for word in _JAVA_SPECIALS)
    special = f"lower({trimmed}) IN ({words}) AND NOT ({trimmed} IN ({java_words}))"
    unusual = f"isnan({number}) OR abs({number}) = CAST('Infinity' AS DOUBLE)"
    return f"CASE WHEN {unusual} THEN CASE WHEN {special} THEN NULL ELSE {number} END ELSE {number} END"


def _decimal_source(value: Column, source_type: str) -> Column:
    """The `BigDecimal` Wrangler starts from: `new BigDecimal(text)`, `valueOf(number)` or `Bytes.toBigDecimal`."""
    if source_type.startswith("decimal"):
        return value
    if source_type == "string":
        return F.when(value.rlike(_DECIMAL_TEXT), value.cast("decimal(38,18)"))
    if source_type == "binary":
        return typeconv.bytes_to_decimal(value)
    return value.cast("decimal(38,18)")


def _decimal(d: SetType, number: Column, original: Column, failures: list[tuple[Column, Column]]) -> Column:
    """ColumnConverter.setDecimalScaleAndPrecision: `setScale(scale)` and/or `round(MathContext(precision))`.

    Failures it raises are appended to `failures` as (condition, message), in Wrangler's words."""
    precision, scale = d.precision, None if d.scale is None else int(d.scale)
    if precision is None and scale is None:
        return number  # the value as it is (a decimal column keeps its own scale)
    mode = str(d.rounding_mode or "HALF_EVEN")
    text = original.cast("string")
    if precision is not None and scale is not None:
        too_wide = F.lit(precision - scale) < typeconv.integer_digits(number)
        failures.append((number.isNotNull() & too_wide, F.concat(
            F.lit(f"Cannot set scale as '{scale}' and precision as '{precision}' for value '"), text,
            F.lit("' whengiven precision - scale is less than number of digits before decimal point "))))
    if scale is not None:
        rounded = typeconv.round_decimal(number, scale, mode)
    else:
        assert precision is not None
        rounded = _significant(number.cast("decimal(38,18)"), precision, mode)
    if mode == "UNNECESSARY":
        failures.append((number.isNotNull() & rounded.isNull(), F.concat(
            F.lit(f"Cannot set scale as '{'null' if scale is None else scale}' and precision "
                  f"'{'null' if precision is None else precision}' for value '"), text,
            F.lit("' when rounding-mode is 'UNNECESSARY'"))))
    return rounded


def _significant(number: Column, precision: int, mode: str) -> Column:
    """`round(new MathContext(precision, mode))`: the scale to round at depends on each value's size, so one
    branch per scale a decimal(38,18) value can need (18 fraction digits down to rounding 20-digit integers)."""
    needed = typeconv.significant_scale(number, precision)
    rounded: Column = number  # needs more than 18 places: nothing to round
    for scale in range(max(-19, precision - 20), min(18, precision + 17) + 1):
        rounded = F.when(needed == scale, typeconv.round_decimal(number, scale, mode).cast("decimal(38,18)")
                         ).otherwise(rounded)
    return rounded


@compiles(SplitToColumns)
def split_to_columns(d: SplitToColumns, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame.step(d).filter_when(F.lit(True)).build()  # Wrangler drops rows without the column
    if frame.type_of(name) != "string":
        return frame.step(d).fail_when(col(name).isNotNull(), f"Column '{d.column}' has invalid type "
                                       f"'{java_type(frame, name)}'. It should be of type 'String'.").fail_when(
            col(name).isNull(), f"Column '{d.column}' has null value. It should be a non-null 'String'.").build()
    # String.split: trailing empty strings are removed
    parts = F.split(F.regexp_replace(col(name), f"(?:{d.regex})+$", ""), d.regex)
    width = ctx.declared_widths.get(d.index) or split_width(frame, parts)
    step = frame.step(d)
    for position in range(width):
        step.set(f"{d.column}_{position + 1}", parts.getItem(position))  # "%s_%d" of the column as written
    return step.fail_when(col(name).isNull(),
                          f"Column '{d.column}' has null value. It should be a non-null 'String'.").build()


@compiles(CreateRecord)
def create_record(d: CreateRecord, frame: Frame, ctx: RunContext) -> Frame:
    """CreateRecord.execute: a record of the listed columns that exist, keyed as the directive spells them
    (`addOrSet`, so a name listed twice in any case is one field); a null value is a null field here."""
    fields: dict[str, tuple[str, str]] = {}
    for wanted in d.columns:
        actual = frame.find(wanted)
        if actual is not None:
            key = fields.get(wanted.lower(), (wanted, actual))[0]
            fields[wanted.lower()] = (key, actual)
    record = F.struct(*(col(actual).alias(key) for key, actual in fields.values()))
    return frame.step(d).set(d.target_column, record).build()


@compiles(FlattenRecord)
def flatten_record(d: FlattenRecord, frame: Frame, ctx: RunContext) -> Frame:
    """FlattenRecord.execute: `<column>_<field>` (the column as the directive spells it) for each field of a
    record; a missing column or a null value is skipped, any other value fails the row."""
    step = frame.step(d)
    for wanted in d.columns:
        name = frame.find(wanted)
        if name is None:
            continue
        data_type = frame.df.schema[name].dataType
        if not isinstance(data_type, T.StructType):
            step.fail_when(col(name).isNotNull(), f"Column '{wanted}' has invalid type "
                           f"'{java_type(frame, name)}'. It should be of type 'Record'.")
            continue
        for field in data_type.fields:
            step.set(f"{wanted}_{field.name}", col(name).getField(field.name))
    return step.build()
