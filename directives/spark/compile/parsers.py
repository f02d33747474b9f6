"""Spark compilers of the parser family: CSV, JSON, JSON paths, fixed widths, XML and web-server logs.

Data-dependent outputs are resolved with the least work: a width declared by the caller
(`RunContext.declared_widths`) costs nothing; otherwise one aggregate pass over the active rows
gives what the plan needs (the widest CSV record and the header row; the merged JSON shape via
`schema_of_variant_agg`; one value per distinct XML shape for `from_xml`). Everything else stays
one lazy projection per directive, and rows multiply through `Frame.repeat`. Formats a Python
library decodes (Excel, Avro, protobuf, HL7) are compiled in `format_parsers`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from directives.base import Directive
from directives.catalog.parsers import (
    JsonPath,
    ParseAsCsv,
    ParseAsFixedLength,
    ParseAsJson,
    ParseAsLog,
    ParseXmlToJson,
)
from directives.csv_records import header_names as _header_names
from directives.csv_records import split_record
from directives.logformat import LogFormatError, compile_format
from directives.spark.compile import format_parsers as _format_parsers  # noqa: F401  (registers them)
from directives.spark.compile.common import error_row_message, java_type
from directives.spark.compile.csvsplit import CsvFields, checked_guess, field_count, widest_record
from directives.spark.compile.logparts import derive
from directives.spark.compile.variant_schema import VariantType, parse_variant_schema, variant_path, variant_value
from directives.spark.compile.xmlshape import ROOT_TAG, TEXT, flatten, json_text, merge, shape
from directives.spark.compilers import compiles
from directives.spark.runtime.background import in_background
from directives.spark.runtime.frame import COPY, WIDTH_GUESS_FAILED, Frame, RunContext, WidthCheck, col
from grammar.errors import RecipeError


class ParserCompileError(RecipeError):
    """A parser argument Spark cannot honour (a JSON path feature or log directive it has no equivalent of)."""

    rule = "unsupported"


def _error(d: Directive, message: str, hint: str | None = None) -> ParserCompileError:
    span = d.call.span
    return ParserCompileError(message, line=span.line, column=span.column, hint=hint, directive=d.name)


def _text(frame: Frame, name: str) -> Column:
    """The column as text: strings as they are, structs/arrays/maps as JSON, anything else cast."""
    data_type = frame.df.schema[name].dataType
    if isinstance(data_type, (T.StructType, T.ArrayType, T.MapType)):
        return F.to_json(col(name))
    if isinstance(data_type, T.StringType):
        return col(name)
    return col(name).cast("string")


def _drop_all(d: Directive, frame: Frame) -> Frame:
    """Wrangler drops rows that lack the column these parsers read."""
    return frame.step(d).filter_when(F.lit(True)).build()


# -- parse-as-csv ------------------------------------------------------------------------------------------------------
_PARSED = "__wr_tmp_csv"

@compiles(ParseAsCsv)
def parse_as_csv(d: ParseAsCsv, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.col)
    if name is None:
        return frame  # rows without the column pass through unchanged
    value, delimiter = _text(frame, name), d.delimiter
    present = value.isNotNull() & (value != "")
    width, header, header_id = _csv_shape(d, frame, name, value, present, ctx)
    fields = CsvFields(value, delimiter, width, _PARSED)
    if width > 0:  # parse once, in hidden columns of their own projection (`Step.build` leaves them out)
        frame = frame.with_df(frame.df.select("*", *fields.columns))
    step = frame.step(d)
    for i in range(width):
        target = header[i] if header is not None and i < len(header) else f"{name}_{i + 1}"
        step.add(target, fields.present_field(i, value))
    if width > 0 and any(check.index == d.index and check.learn is not None for check in ctx.width_checks):
        # never holds: an active record wider than the guess stops the pass, which `RunResult.write` runs again
        # with the width learned (as an event, it is tested on exactly the records the width is learned from)
        step.filter_when(fields.wider_than(width, f"{WIDTH_GUESS_FAILED}: parse-as-csv (directive {d.index}) found "
                                                  f"a record of more than the {width} fields the recipe names"))
    if header_id is not None:
        step.filter_when(F.monotonically_increasing_id() == F.lit(header_id))
        ctx.header_rows.append(d.index)
    return step.build()


def _csv_shape(
    d: ParseAsCsv, frame: Frame, name: str, value: Column, present: Column, ctx: RunContext
) -> tuple[int, list[str] | None, int | None]:
    """Width, header names and the header row's id, from a declared width or one aggregate pass.

    The header is the first non-empty record in the frame's order (Wrangler: the first record
    the directive sees); row ids come from `monotonically_increasing_id` over the same plan.
    Without a header, when the recipe names every field (`referenced_width`), the compile goes on with that width
    while a job on a thread of its own learns the real one (`runner.run` checks the two when it is done), or, with
    `RunContext.widths_in_write`, while the pass that writes the output checks every record against it.
    """
    declared = ctx.declared_widths.get(d.index)
    if declared is not None and not d.header:
        return declared, None, None
    if not d.header:  # only the width of the active records, nothing else per row
        rows, active = frame.df, frame.active & present
        named = referenced_width(name, ctx.recipe[d.index:])
        if named is not None:
            # The job makes its own DataFrames on its thread: Spark analyses a new DataFrame when it is made, and
            # the compile need not wait for that.
            def exactly() -> int:
                return widest_record(rows, active, value, d.delimiter)

            def first_records() -> int:
                return checked_guess(rows, active, value, d.delimiter, named)

            # `widths_in_write`: the job reads the first records only (the pass that writes the output reads the rest)
            job, learn = (first_records, exactly) if ctx.widths_in_write else (exactly, None)
            ctx.width_checks.append(WidthCheck(d.index, named, in_background(job, f"wrangler-width-{d.index}"), learn))
            return named, None, None
        return widest_record(rows, active, value, d.delimiter), None, None
    rows = frame.df.select(F.monotonically_increasing_id().alias("id"), value.alias("v"), present.alias("p"),
                           frame.active.alias("a")).filter(F.col("a") & F.col("p"))
    row = rows.agg(
        F.max(field_count(F.col("v"), d.delimiter)).alias("width"),
        F.min_by(F.struct("id", "v"), F.col("id")).alias("first"),
    ).collect()[0]
    width = declared if declared is not None else int(row["width"] or 0)
    if not d.header or row["first"] is None:
        return width, None, None
    names = _header_names(split_record(row["first"]["v"], d.delimiter))
    if names is None:
        return width, None, None
    return width, names, int(row["first"]["id"])


def referenced_width(column: str, later: Sequence[Directive]) -> int | None:
    """How many fields the recipe expects ``column`` to split into: n when the directives after the split name each
    of ``column``_1 … ``column``_n (a rename or a drop of every field, as real recipes do) and none past it, else
    None. A guess the run checks against the data, never trusted alone."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(column)}_(\d{{1,6}})(?!\w)", re.IGNORECASE)
    numbers = {int(number) for directive in later for number in pattern.findall(directive.call.text)}
    top = max(numbers, default=0)
    return top if top and numbers == set(range(1, top + 1)) else None


# -- parse-as-json -----------------------------------------------------------------------------------------------------
def _flatten(shape: VariantType, prefix: tuple[str, ...], level: int, depth: int | None,
             out: list[tuple[tuple[str, ...], VariantType]]) -> None:
    """Wrangler's jsonFlatten: nested objects are walked while ``level < depth``; deeper ones are kept whole."""
    for key, child in shape.fields:
        path = (*prefix, key)
        if child.is_object and (depth is None or level < depth):
            _flatten(child, path, level + 1, depth, out)
        else:
            out.append((path, child))


@compiles(ParseAsJson)
def parse_as_json(d: ParseAsJson, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return _drop_all(d, frame)
    if not isinstance(frame.df.schema[name].dataType, (T.StringType, T.StructType, T.ArrayType, T.MapType)):
        message = f"Column '{d.column}' is of invalid type '{java_type(frame, name)}'. It should be of type " \
                  "'String' or 'JsonObject' or 'JsonArray'."
        return frame.step(d).filter_when(col(name).isNull()).fail_when(col(name).isNotNull(), message).build()
    text = _text(frame, name)
    variant = F.try_parse_json(text)
    kind = F.schema_of_variant(variant)
    is_object = F.coalesce(kind.startswith("OBJECT"), F.lit(False))
    is_array = F.coalesce(kind.startswith("ARRAY"), F.lit(False))
    learned = ctx.json_shapes.pop(d.index, None)
    if learned is not None and learned[0] == name:
        objects, arrays = learned[1], None
    else:
        chain = _chain(d, ctx, name)
        shapes = frame.df.filter(frame.active).agg(
            F.schema_of_variant_agg(F.when(is_object, variant)).alias("objects"),
            F.schema_of_variant_agg(F.when(is_array, variant)).alias("arrays"),
            *_chain_aggregates(variant, is_object, chain),
        ).collect()[0]
        objects = _shape(shapes["objects"])
        arrays = _shape(shapes["arrays"])
        if arrays is None and objects is not None:
            _learn_chain(ctx, name, objects, chain, shapes)
    if arrays is not None:
        elements = F.variant_get(variant, "$", "array<variant>")
        frame = frame.repeat(F.when(is_array, F.size(elements)))
        ctx.multiplying.append(d.index)
    step = frame.step(d)
    if objects is not None:
        flat: list[tuple[tuple[str, ...], VariantType]] = []
        _flatten(objects, (), 1, d.depth, flat)
        for path, shape in flat:
            step.add(f"{name}_{'_'.join(path)}", F.when(is_object, variant_value(variant, variant_path(path), shape)))
    if arrays is not None:
        element_shape = arrays.element or VariantType("VARIANT")
        element = F.get(elements, F.col(COPY))
        value = variant_value(element, "$", element_shape)
        step.set(name, F.when(is_array, value))  # an empty array keeps its row, without the value (JsParser)
    elif objects is not None:
        step.drop(name)
    step.fail_when(text.isNotNull() & variant.isNull(), F.concat(F.lit(f"Column '{name}' is not valid JSON: "),
                                                                  F.substring(text, 1, 80)))
    step.filter_when(~(is_object | is_array))  # primitives, JSON null, null values: Wrangler drops the row
    return step.build()


def _chain(d: ParseAsJson, ctx: RunContext, name: str) -> list[tuple[int, str]]:
    """The `parse-as-json` directives right after this one (depth 1) that each parse one of the columns it makes of
    a top-level key, as (directive index, key): real recipes unnest a document level by level this way (the
    quickstart pipeline has eight in a row), and each would otherwise learn its keys with a pass over the data."""
    if d.depth != 1:
        return []
    position = next((i for i, directive in enumerate(ctx.recipe) if directive is d), None)
    if position is None:
        return []
    prefix, chain = f"{name}_", []
    for later in ctx.recipe[position + 1:]:
        if not isinstance(later, ParseAsJson) or not later.column.startswith(prefix) or later.column == prefix:
            break
        key = later.column[len(prefix):]
        # an earlier link makes `<name>_<its key>_…` columns: one of them could be this one's column
        if any(key.startswith(f"{earlier}_") for _, earlier in chain):
            break
        chain.append((later.index, key))
    return chain


def _chain_aggregates(variant: Column, is_object: Column, chain: list[tuple[int, str]]) -> list[Column]:
    """For the k-th directive of the chain, the shape of its key's objects over the rows it will see: rows this
    directive keeps as objects whose earlier links' keys all hold objects too (each link drops the rows whose
    column is not a JSON object), in the same pass as this directive's own shape."""
    aggregates, rows = [], is_object
    for position, (_, key) in enumerate(chain):
        value = F.variant_get(variant, variant_path((key,)), "variant")
        holds_object = F.coalesce(F.schema_of_variant(value).startswith("OBJECT"), F.lit(False))
        rows = rows & holds_object
        aggregates.append(F.schema_of_variant_agg(F.when(rows, value)).alias(f"link_{position}"))
    return aggregates


def _learn_chain(ctx: RunContext, name: str, objects: VariantType, chain: list[tuple[int, str]], shapes: Any) -> None:
    """Keep the chain's shapes for its directives while each link's column is exactly what this directive makes of
    an object-valued key: JSON text of an object, or null (then the link drops the row). A key that is missing, or
    holds anything but objects in some row, ends the chain: from there each directive learns its own keys."""
    children = dict(objects.fields)
    for position, (index, key) in enumerate(chain):
        child = children.get(key)
        if child is None or not child.is_object:
            return
        ctx.json_shapes[index] = (f"{name}_{key}", _shape(shapes[f"link_{position}"]))


def _shape(text: str | None) -> VariantType | None:
    if text is None or text == "VOID":
        return None
    return parse_variant_schema(text)


# -- json-path ---------------------------------------------------------------------------------------------------------
_UNSUPPORTED_PATH = re.compile(r"\.\.|\[\?|\(|\[-|:")
#: Quoted member names (`['a:b']`) may hold any character; they are removed before looking for features.
_QUOTED_MEMBER = re.compile(r"\['(?:[^'\\]|\\.)*'\]")


@compiles(JsonPath)
def json_path(d: JsonPath, frame: Frame, ctx: RunContext) -> Frame:
    path = d.path
    if _UNSUPPORTED_PATH.search(_QUOTED_MEMBER.sub("", path)):
        raise _error(d, f"JSON path '{d.json_path}' uses a feature Spark's get_json_object lacks "
                        "(deep scan '..', filters, slices or functions).",
                     "Use plain member and index steps such as '$.items[0].name'.")
    source = frame.find(d.source)
    destination = d.destination
    step = frame.step(d)
    if source is None:
        step.set(destination, F.lit(None).cast("string"))
        return step.filter_when(F.lit(True)).build()
    if not isinstance(frame.df.schema[source].dataType, (T.StringType, T.StructType, T.ArrayType, T.MapType)):
        message = f"Column '{d.source}' is of invalid type '{java_type(frame, source)}'. It should be of type " \
                  "'String' or 'JsonObject' or 'JsonArray'."
        step.set(destination, F.lit(None).cast("string"))
        return step.filter_when(col(source).isNull()).fail_when(col(source).isNotNull(), message).build()
    text = _text(frame, source)
    step.set(destination, F.get_json_object(text, path))
    step.filter_when(text.isNull())  # Wrangler: a null source adds a null destination, then drops the row
    return step.build()


# -- parse-as-fixed-length ---------------------------------------------------------------------------------------------
@compiles(ParseAsFixedLength)
def parse_as_fixed_length(d: ParseAsFixedLength, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return _drop_all(d, frame)
    widths, padding = d.widths, d.padding
    record = sum(widths)
    if frame.type_of(name) != "string":
        message = f"Column '{d.column}' has invalid type '{java_type(frame, name)}'. It should be of type 'String'."
        return frame.step(d).fail_when(F.lit(True), message).build()
    text = _text(frame, name)
    length = F.length(text)
    repeated = frame.repeat(F.when(length >= record, F.floor(length / record).cast("int")))
    ctx.multiplying.append(d.index)
    step = repeated.step(d)
    offset = F.col(COPY) * record
    position = 1
    for i, width in enumerate(widths, start=1):
        field = F.substring(text, offset + position, F.lit(width))
        if padding is not None:
            field = F.regexp_replace(field, padding, "")
        step.add(f"{name}_{i}", field)
        position += width
    step.fail_when(text.isNull(), f"Column '{d.column}' has null value. It should be a non-null 'String'.")
    step.fail_when(length < record, F.concat(
        F.lit(f"Column '{d.column}' contains a value with fewer characters than the specified length of row. "
              f"Expected at least {record} characters but found "), length.cast("string"),
        F.lit(error_row_message(d.name, " characters.", 2)),
    ))
    return step.build()


# -- parse-as-log ------------------------------------------------------------------------------------------------------
@compiles(ParseAsLog)
def parse_as_log(d: ParseAsLog, frame: Frame, ctx: RunContext) -> Frame:
    """ParseLog: a missing column is skipped; null → DirectiveExecutionException; a match fills every column of
    `directives.logformat`; a line the format does not match is an error row (a documented difference)."""
    try:
        fmt = compile_format(str(d.format))
    except LogFormatError as error:
        hint = "Use Apache LogFormat directives such as %h %l %u %t \"%r\" %>s %b, or 'common'/'combined'."
        raise _error(d, f"Log format '{d.format}' cannot run on Spark: {error}.", hint) from None
    name = frame.find(d.column)
    if name is None:
        return frame
    kind = frame.type_of(name)
    if kind not in ("string", "binary"):
        message = f"Column '{d.column}' is of invalid type '{java_type(frame, name)}'. It should be of type " \
                  "'String' or 'byte array'."
        return frame.step(d).fail_when(col(name).isNotNull(), message).build()
    text = col(name) if kind == "string" else F.decode(col(name), "UTF-8")
    matched = text.rlike(fmt.regex)
    step = frame.step(d)
    added: set[str] = set()
    for group, columns in enumerate(fmt.groups, start=1):
        value = F.when(matched, F.regexp_extract(text, fmt.regex, group))
        for column in columns:
            if column.name not in added:  # a later path of the same name overwrites (addOrSet): same value here
                added.add(column.name)
                step.add(column.name, derive(value, column.steps))
    step.fail_when(text.isNull(), f"Column '{d.column}' has null value. It should be a non-null 'String' or "
                                  "'byte array'.")
    # Wrangler keeps such a line and sets `log.parse.error` = 1; here it goes to the error output (parsers.md)
    step.fail_when(text.isNotNull() & ~matched, F.concat(
        F.lit(f"Column '{name}' does not match the log format '{d.format}': "), F.substring(text, 1, 80)))
    return step.build()


# -- parse-xml-to-json -------------------------------------------------------------------------------------------------
#: At most this many distinct XML shapes are read to build the schema (each costs one `schema_of_xml`).
XML_SHAPES = 500


@compiles(ParseXmlToJson)
def parse_xml_to_json(d: ParseXmlToJson, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame  # nothing to convert; Wrangler leaves such rows alone
    if frame.type_of(name) != "string":
        message = f"Column '{d.column}' has invalid type '{java_type(frame, name)}'. It should be of type 'String'."
        return frame.step(d).fail_when(F.lit(True), message).build()
    text = _text(frame, name)
    is_xml = F.coalesce(text.rlike(ROOT_TAG), F.lit(False))
    samples = (frame.df.filter(frame.active & is_xml).groupBy(shape(text).alias("shape"))
               .agg(F.first(text).alias("value")).limit(XML_SHAPES).collect())
    step = frame.step(d).drop(name)
    message = F.concat(F.lit(f"Column '{name}' is not XML: "), F.substring(text, 1, 80))
    step.fail_when(text.isNotNull() & ~is_xml, message)
    step.fail_when(text.isNull(), f"Column '{d.column}' does not exist.")  # XmlToJson's message for a null value
    if not samples:
        return step.build()
    root = re.match(ROOT_TAG, samples[0]["value"])
    assert root is not None
    schema = _xml_schema(ctx, [row["value"] for row in samples])
    parsed = F.from_xml(text, schema, {"inferSchema": "false", "mode": "PERMISSIVE"})
    prefix = f"{name}_{root.group(1)}"
    if [field.name for field in schema.fields] == [TEXT]:
        step.add(prefix, F.when(is_xml, parsed[TEXT]))
    elif d.depth == 1:
        step.add(prefix, F.when(is_xml, json_text(parsed, schema)))
    else:
        for leaf in flatten(parsed, schema, d.depth):
            step.add("_".join((prefix, *leaf.path)), F.when(is_xml, leaf.value))
    return step.build()


def _xml_schema(ctx: RunContext, values: list[str]) -> T.StructType:
    """One schema for all shapes: `schema_of_xml` of each representative (text leaves), merged."""
    from pyspark.sql import SparkSession
    from pyspark.sql.types import _parse_datatype_string

    spark = ctx.spark if isinstance(ctx.spark, SparkSession) else SparkSession.getActiveSession()
    assert spark is not None
    options = {"inferSchema": "false"}
    texts: list[str] = []
    for start in range(0, len(values), 100):
        batch = values[start:start + 100]
        row = spark.range(1).select(*(F.schema_of_xml(F.lit(v), options).alias(f"s{i}")
                                      for i, v in enumerate(batch))).collect()[0]
        texts += [row[f"s{i}"] for i in range(len(batch))]
    merged: T.DataType = _parse_datatype_string(texts[0])
    for text in texts[1:]:
        merged = merge(merged, _parse_datatype_string(text))
    assert isinstance(merged, T.StructType)
    return T.StructType([field for field in merged.fields if field.name != "_corrupt_record"])
