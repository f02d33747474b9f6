"""Spark compilers of the parsers whose formats a Python library decodes: Excel, Avro, protobuf and HL7.

`parse-as-avro` and `parse-as-protobuf` name a schema in Wrangler's schema registry (schema-id and an
optional version). Here the schema-id names a file in a resource directory (`directives.spark.runtime.resources`):
`<schema-id>.avsc` (Avro schema JSON) or `<schema-id>.desc` (a protobuf FileDescriptorSet, as
`protoc --include_imports --descriptor_set_out=<schema-id>.desc` writes it), and with a version
`<schema-id>.v<version>.avsc` / `.desc`. The file is read when the recipe compiles.
"""

from __future__ import annotations

import json

from directives.base import Directive
from directives.catalog.parsers import ParseAsAvro, ParseAsAvroFile, ParseAsExcel, ParseAsHl7, ParseAsProtobuf
from directives.spark.compile.common import java_type
from directives.spark.compile.decoded import decode_rows, fail_all
from directives.spark.compile.formats import AvroDecoder, AvroFileDecoder, ExcelDecoder, Hl7Decoder, ProtobufDecoder
from directives.spark.compilers import compiles, python_udf
from directives.spark.runtime.frame import Frame, RunContext, col
from directives.spark.runtime.resources import ResourceNotFound, find_resource
from grammar.errors import RecipeError

python_udf(ParseAsExcel, "Spark has no Excel reader for bytes held in a column; openpyxl reads each workbook")
python_udf(ParseAsAvroFile, "Spark's Avro reader reads files, not container bytes held in a column; fastavro "
                            "decodes each one")
python_udf(ParseAsAvro, "from_avro needs the spark-avro package on the JVM and has no JSON encoding; fastavro "
                        "decodes with the named schema file")
python_udf(ParseAsProtobuf, "from_protobuf needs the spark-protobuf package on the JVM; the protobuf library "
                            "decodes with the named descriptor set")
python_udf(ParseAsHl7, "Spark has no HL7 v2 parser; the hl7 library splits each message")


class SchemaFileError(RecipeError):
    """The schema or descriptor file a directive names cannot be found or read."""

    rule = "resource"


def _schema_file(d: Directive, suffix: str, what: str) -> bytes:
    schema_id = str(d.bound("schema-id"))
    name = f"{schema_id}{suffix}" if not d.has("version") else f"{schema_id}.v{_version(d)}{suffix}"
    span = d.call.span
    try:
        return find_resource(name, [name]).read_bytes()
    except (ResourceNotFound, OSError) as error:
        raise SchemaFileError(f"The {what} of schema '{schema_id}' cannot be read: {error}.", line=span.line,
                              column=span.column, directive=d.name,
                              hint=f"Put {name} in a resource directory (WRANGLER_RESOURCES).") from None


def _version(d: Directive) -> str:
    return str(int(float(str(d.bound("version"))))) if d.has("version") else "latest"


@compiles(ParseAsExcel)
def parse_as_excel(d: ParseAsExcel, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame.step(d).filter_when(frame.active).build()  # Wrangler returns no row without the column
    if frame.type_of(name) != "binary":
        return fail_all(d, frame, f"Column '{d.column}' should be of type 'byte array' or 'ByteBuffer'.")
    sheet = str(d.sheet) if d.has("sheet") else "0"
    header = bool(d.first_row_as_header) if d.has("first-row-as-header") else False
    decoder = ExcelDecoder(d.column, sheet, header)
    keep = [c for c in frame.columns if c != name]
    return decode_rows(d, frame, ctx, col(name), decoder, lead=("fwd", "bkd"), keep=keep, fallback=True)


@compiles(ParseAsAvroFile)
def parse_as_avro_file(d: ParseAsAvroFile, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame.step(d).filter_when(frame.active).build()
    if frame.type_of(name) != "binary":
        return fail_all(d, frame, f"Column '{d.column}' is of invalid type. It should be of type "
                                  "'byte array'.")
    return decode_rows(d, frame, ctx, col(name), AvroFileDecoder(d.column))


@compiles(ParseAsAvro)
def parse_as_avro(d: ParseAsAvro, frame: Frame, ctx: RunContext) -> Frame:
    schema = _schema_file(d, ".avsc", "Avro schema").decode("utf-8")
    try:
        import fastavro

        fastavro.parse_schema(json.loads(schema))
    except Exception as error:
        span = d.call.span
        raise SchemaFileError(f"The Avro schema of '{d.bound('schema-id')}' is not valid: {error}.", line=span.line,
                              column=span.column, directive=d.name) from None
    name = frame.find(d.column)
    if name is None:
        return frame.step(d).filter_when(frame.active).build()
    if frame.type_of(name) not in ("binary", "string"):
        return fail_all(d, frame, f"Column {d.column} should be of type 'String' or 'byte array'.")
    decoder = AvroDecoder(d.column, schema, str(d.encode_type).lower(), _version(d))
    return decode_rows(d, frame, ctx, col(name), decoder)


@compiles(ParseAsProtobuf)
def parse_as_protobuf(d: ParseAsProtobuf, frame: Frame, ctx: RunContext) -> Frame:
    descriptor = ProtobufDecoder(d.column, _schema_file(d, ".desc", "protobuf descriptor set"),
                                 str(d.record_name), _version(d))
    try:
        descriptor.message_class()
    except Exception as error:
        span = d.call.span
        raise SchemaFileError(f"The descriptor set of '{d.bound('schema-id')}' cannot decode '{d.record_name}':"
                              f" {error}", line=span.line, column=span.column, directive=d.name) from None
    name = frame.find(d.column)
    if name is None:
        return frame.step(d).filter_when(frame.active).build()
    if frame.type_of(name) != "binary":
        return fail_all(d, frame, f"Column {d.column} should be of type 'byte array'")
    return decode_rows(d, frame, ctx, col(name), descriptor)


@compiles(ParseAsHl7)
def parse_as_hl7(d: ParseAsHl7, frame: Frame, ctx: RunContext) -> Frame:
    name = frame.find(d.column)
    if name is None:
        return frame  # Wrangler leaves rows without the column alone
    if frame.type_of(name) != "string":
        return fail_all(d, frame, f"Column '{d.column}' has invalid type '{java_type(frame, name)}'. It should be "
                                  "of type 'String'.")
    decoder = Hl7Decoder(d.column, d.depth)
    return decode_rows(d, frame, ctx, col(name), decoder, keep=list(frame.columns), multiply=False)
