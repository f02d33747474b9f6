"""The binary parsers, the lookups, validate-standard, data-model-map-column and invoke-http, branch by branch, as
Wrangler's `execute()`/`initialize()` define them (io.cdap.directives.parser.ParseExcel, ParseAvroFile, ParseAvro
with io.cdap.wrangler.codec.Binary/JsonAvroDecoder, ParseProtobuf with ProtobufDecoderUsingDescriptor,
HL7Parser; lookup.TableLookup, lookup.CatalogLookup; validation.ValidateStandard; datamodel.DataModelMapColumn
with utils.ColumnConverter; external.InvokeHttp). Each test names the Java class and the branch; the happy
paths are in test_format_parsers.py, test_lookups.py, test_standards_and_models.py and test_invoke_http.py.

Where Wrangler's branch throws a DirectiveExecutionException (which stops its pipeline), the row goes to the
error output here with the reason (docs/differences/external.md); every test checks the counts reconcile.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fastavro
import openpyxl
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from pyspark.sql import SparkSession

import directives
from directives.spark.compile.column_ops import ColumnConflict
from directives.spark.compile.datamodel import DataModelError
from directives.spark.compile.format_parsers import SchemaFileError
from directives.spark.runtime.resources import ENVIRONMENT
from directives.spark.runtime.runner import RowsResult, run_rows
from grammar.errors import RecipeError
from tests.spark.http_service import JsonHandler, serve

pytestmark = pytest.mark.spark


def run(recipe: str, rows: list[dict[str, Any]], spark: SparkSession) -> RowsResult:
    """run_rows, and the counts must reconcile whatever the branch did to the rows."""
    result = run_rows(recipe, rows, spark=spark)
    assert result.counts.reconciled, result.counts
    return result


def messages(result: RowsResult) -> list[str]:
    return [error["message"] for error in result.errors]


@pytest.fixture
def resources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path))
    return tmp_path


# -- ParseExcel --------------------------------------------------------------------------------------------------------
def workbook(*rows: list[Any], title: str = "s") -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_excel_row_without_the_column_is_not_returned(spark: SparkSession) -> None:
    """ParseExcel: `idx == -1` → nothing is added to `results`, so the row is gone (a filtered row here)."""
    result = run("parse-as-excel :body", [{"other": 1}], spark)
    assert result.rows == [] and not result.errors
    assert result.counts.filtered_rows == 1


def test_excel_null_value_is_not_bytes(spark: SparkSession) -> None:
    """ParseExcel: neither byte[] nor ByteBuffer (null included) → "should be of type 'byte array'", an error row."""
    result = run("parse-as-excel :body", [{"body": None}, {"body": workbook(["a"])}], spark)
    assert [row["A"] for row in result.rows] == ["a"]
    assert messages(result) == ["parse-as-excel: Column 'body' should be of type 'byte array' or 'ByteBuffer'."]


def test_excel_sheet_index_out_of_range(spark: SparkSession) -> None:
    """ParseExcel: an integer sheet (Types.isInteger: a sign is allowed) → XSSFWorkbook.getSheetAt, whose
    IllegalArgumentException fails the row."""
    result = run("parse-as-excel :body '+1'", [{"body": workbook(["a"])}], spark)
    assert messages(result) == ["parse-as-excel: Sheet index (1) is out of range (0..0)"]


def test_excel_blank_rows_and_formula_cells(spark: SparkSession) -> None:
    """ParseExcel.checkIfRowIsEmpty: a row whose cells are all blank text is skipped (fwd does not count it);
    the cell-type switch gives '' for a FORMULA cell."""
    body = workbook(["x", 1], ["  ", " "], ["=1+2", True])
    result = run("parse-as-excel :body", [{"body": body}], spark)
    assert result.rows == [{"fwd": 0, "bkd": 1, "A": "x", "B": "1.0"}, {"fwd": 1, "bkd": 0, "A": "", "B": "true"}]


def test_excel_header_names_only_the_columns_it_has(spark: SparkSession) -> None:
    """ParseExcel, firstRowAsHeader: a cell whose column has no header cell keeps its letter name; a numeric header
    cell names its column as `String.valueOf(double)` prints it."""
    body = workbook(["id", None, 2017], ["1", "extra", "x"])
    result = run("parse-as-excel :body '0' true", [{"body": body}], spark)
    assert result.rows == [{"fwd": 1, "bkd": 0, "id": "1", "B": "extra", "2017.0": "x"}]


def test_excel_header_names_that_repeat(spark: SparkSession) -> None:
    """ParseExcel: `newRow.add(name, value)` appends, so a header name seen again (in any case, or `fwd`) is a second
    column that Row.find never reaches: the first value is the row's."""
    body = workbook(["a", "A", "fwd"], ["1", "2", "x"])
    result = run("parse-as-excel :body '0' true", [{"body": body}], spark)
    assert result.rows == [{"fwd": 1, "bkd": 0, "a": "1"}]


def test_excel_workbooks_spelling_a_header_differently(spark: SparkSession) -> None:
    """ParseExcel: each workbook's header names its own rows; names that differ only in case are one column here
    (Row.find is case-insensitive; a Spark frame cannot hold both), spelt as the first record that made it."""
    rows = [{"body": workbook(["Name", "n"], ["ada", 1])}, {"body": workbook(["name"], ["alan"])}]
    result = run("parse-as-excel :body '0' true", rows, spark)
    assert [[value for key, value in row.items() if key.lower() == "name"] for row in result.rows] == \
        [["ada"], ["alan"]]


def test_excel_header_only_sheet_returns_no_row(spark: SparkSession) -> None:
    """ParseExcel, firstRowAsHeader: the header row is never added, so a sheet of only a header gives no row."""
    result = run("parse-as-excel :body 's' true", [{"body": workbook(["id", "name"])}], spark)
    assert result.rows == [] and not result.errors and result.counts.filtered_rows == 1


def test_excel_input_columns_fill_what_the_sheet_row_lacks(spark: SparkSession) -> None:
    """ParseExcel: each input column (not the parsed one) is copied when the new row holds no value of that name
    (Row.getValue, case-insensitive): a cell wins, a row without that cell gets the input's value."""
    body = workbook(["name", "city"], ["ada", "London"], ["alan"])
    rows = [{"body": body, "CITY": "Paris", "n": 7}]
    result = run("parse-as-excel :body '0' true", rows, spark)
    assert [(row["name"], row["city"], row["n"]) for row in result.rows] == [("ada", "London", 7), ("alan", "Paris", 7)]
    assert "body" not in result.columns and "CITY" not in result.columns


# -- ParseAvroFile -----------------------------------------------------------------------------------------------------
RECORD = {"type": "record", "name": "R", "fields": [
    {"name": "id", "type": "long"},
    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
    {"name": "attrs", "type": {"type": "map", "values": "int"}},
    {"name": "sub", "type": {"type": "record", "name": "Sub", "fields": [{"name": "x", "type": "int"}]}},
]}
VALUES = [{"id": 1, "kind": "B", "attrs": {"k": 1}, "sub": {"x": 5}}]


def container(records: list[dict[str, Any]]) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(RECORD), records)
    return out.getvalue()


def test_avro_file_row_without_the_column_is_not_returned(spark: SparkSession) -> None:
    """ParseAvroFile: `idx == -1` → no row for it."""
    result = run("parse-as-avro-file :body", [{"other": b"x"}], spark)
    assert result.rows == [] and result.counts.filtered_rows == 1


def test_avro_file_value_that_is_not_bytes(spark: SparkSession) -> None:
    """ParseAvroFile: not a byte[] (text, or null) → "is of invalid type" (Wrangler: DirectiveExecutionException)."""
    text = run("parse-as-avro-file :body", [{"body": "text"}], spark)
    assert messages(text) == ["Column 'body' is of invalid type. It should be of type 'byte array'."]
    null = run("parse-as-avro-file :body", [{"body": None}, {"body": container(VALUES)}], spark)
    assert messages(null) == [f"parse-as-avro-file: {messages(text)[0]}"] and len(null.rows) == 1


def test_avro_file_empty_container_gives_no_row(spark: SparkSession) -> None:
    """ParseAvroFile: `while (reader.hasNext())` over a file of no records adds nothing."""
    result = run("parse-as-avro-file :body", [{"body": container([])}, {"body": container(VALUES)}], spark)
    assert [row["id"] for row in result.rows] == [1] and result.counts.filtered_rows == 1


def test_avro_file_values_by_kind(spark: SparkSession) -> None:
    """ParseAvroFile.add: a nested GenericRecord is flattened to `<field>_<sub>`, a Map is Gson's JSON, an enum
    its symbol; the input row's other columns are not kept (a new Row per record)."""
    result = run("parse-as-avro-file :body", [{"body": container(VALUES), "keep": 1}], spark)
    assert result.rows == [{"id": 1, "kind": "B", "attrs": '{"k":1}', "sub_x": 5}]


def test_avro_file_names_made_twice_keep_the_first(spark: SparkSession) -> None:
    """ParseAvroFile.add: `row.add` appends, so a flattened `a_b` and a field `a_b`, or fields `X` and `x`, are two
    columns of one name and Row.find (case-insensitive) sees the first (Spark cannot hold both)."""
    schema = {"type": "record", "name": "T", "fields": [
        {"name": "a", "type": {"type": "record", "name": "A", "fields": [{"name": "b", "type": "int"}]}},
        {"name": "a_b", "type": "int"}, {"name": "X", "type": "int"}, {"name": "x", "type": "int"}]}
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), [{"a": {"b": 1}, "a_b": 2, "X": 3, "x": 4}])
    result = run("parse-as-avro-file :body", [{"body": out.getvalue()}], spark)
    assert result.rows == [{"a_b": 1, "X": 3}]


# -- ParseAvro ---------------------------------------------------------------------------------------------------------
@pytest.fixture
def avro_schema(resources: Path) -> bytes:
    for name in ("r.avsc", "r.v1.avsc"):
        (resources / name).write_text(json.dumps(RECORD))
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(RECORD), VALUES[0])
    return out.getvalue()


def test_avro_encoding_must_be_json_or_binary() -> None:
    """ParseAvro.initialize: neither 'json' nor 'binary' → DirectiveParseException."""
    with pytest.raises(RecipeError, match="'xml' is not supported"):
        directives.parse("parse-as-avro :body r xml")


def test_avro_schema_that_is_not_avro(spark: SparkSession, resources: Path) -> None:
    """ParseAvro: `new Schema.Parser().parse` fails → "Unable to retrieve schema" (here before any row is read)."""
    (resources / "broken.avsc").write_text('{"type": "record"}')
    with pytest.raises(SchemaFileError, match="'broken' is not valid"):
        run_rows("parse-as-avro :body broken binary", [{"body": b""}], spark=spark)


def test_avro_row_without_the_column_is_not_returned(spark: SparkSession, avro_schema: bytes) -> None:
    """ParseAvro: `idx == -1` → the row adds nothing to `results`."""
    result = run("parse-as-avro :body r binary", [{"other": avro_schema}], spark)
    assert result.rows == [] and result.counts.filtered_rows == 1


def test_avro_value_of_another_type(spark: SparkSession, avro_schema: bytes) -> None:
    """ParseAvro: neither byte[] nor String → ErrorRowException "should be of type 'String' or 'byte array'"."""
    result = run("parse-as-avro :body r binary", [{"body": 7}], spark)
    assert messages(result) == ["Column body should be of type 'String' or 'byte array'."]


def test_avro_text_is_decoded_as_its_utf8_bytes(spark: SparkSession, avro_schema: bytes) -> None:
    """ParseAvro: a String value → `getBytes(UTF_8)`, then the JSON decoder; a null String is another type."""
    text = io.StringIO()
    fastavro.json_writer(text, fastavro.parse_schema(RECORD), VALUES)
    result = run("parse-as-avro :body r json", [{"body": text.getvalue()}, {"body": None}], spark)
    assert [(row["id"], row["kind"], json.loads(row["sub"])) for row in result.rows] == [(1, "B", {"x": 5})]
    assert messages(result) == ["parse-as-avro: Column body should be of type 'String' or 'byte array'."]


def test_avro_json_that_does_not_match_the_schema(spark: SparkSession, avro_schema: bytes) -> None:
    """JsonAvroDecoder: AvroTypeException / an unreadable document → DecoderException → "Issue decoding Avro
    record. Check schema version 'latest'." with the decoder's reason."""
    result = run("parse-as-avro :body r json", [{"body": '{"id": "one"}'}, {"body": "not json"}], spark)
    assert len(result.errors) == 2 and result.rows == []
    assert all(m.startswith("parse-as-avro: Issue decoding Avro record. Check schema version 'latest'. ")
               for m in messages(result))


def test_avro_binary_empty_value_gives_no_row(spark: SparkSession, avro_schema: bytes) -> None:
    """BinaryAvroDecoder: EOFException at the first read → `break` with no record: the row adds nothing."""
    result = run("parse-as-avro :body r binary", [{"body": b""}], spark)
    assert result.rows == [] and not result.errors and result.counts.filtered_rows == 1


def test_avro_binary_truncated_record_fails_the_row(spark: SparkSession, avro_schema: bytes) -> None:
    """BinaryAvroDecoder: an EOFException inside a record also `break`s, so Wrangler keeps the complete records and
    silently drops the cut one. Here the row fails, naming the cut (docs/differences/external.md)."""
    result = run("parse-as-avro :body r binary 1", [{"body": avro_schema + avro_schema[:2]}], spark)
    assert result.rows == []
    assert messages(result) == ["parse-as-avro: Issue decoding Avro record. Check schema version '1'. The value ends "
                                "inside a record, after 1 complete record(s)."]


# -- ParseProtobuf -----------------------------------------------------------------------------------------------------
def descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    file = descriptor_pb2.FileDescriptorProto(name="m.proto", package="p", syntax="proto3")
    message = file.message_type.add(name="M")
    message.field.add(name="name", number=1, type=9, label=1)
    message.field.add(name="count", number=2, type=5, label=1)
    message.field.add(name="kinds", number=3, type=14, label=3, type_name=".p.Kind")
    kind = file.enum_type.add(name="Kind")
    for number, name in enumerate(["ZERO", "ONE", "TWO"]):
        kind.value.add(name=name, number=number)
    return descriptor_pb2.FileDescriptorSet(file=[file])


@pytest.fixture
def proto(resources: Path) -> Any:
    files = descriptor_set()
    (resources / "m.desc").write_bytes(files.SerializeToString())
    pool = descriptor_pool.DescriptorPool()
    pool.Add(files.file[0])
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("p.M"))


def test_protobuf_descriptor_bytes_that_do_not_parse(spark: SparkSession, resources: Path) -> None:
    """ProtobufDecoderUsingDescriptor: FileDescriptorSet.parseFrom throws → "Unable to retrieve protobuf
    descriptor" (here before any row is read)."""
    (resources / "junk.desc").write_bytes(b"\xff\xff\xff")
    with pytest.raises(SchemaFileError, match="'junk' cannot decode 'M'"):
        run_rows("parse-as-protobuf :body junk 'M'", [{"body": b""}], spark=spark)


def test_protobuf_first_file_with_an_import_it_cannot_resolve(spark: SparkSession, resources: Path) -> None:
    """ProtobufDecoderUsingDescriptor: `FileDescriptor.buildFrom(getFile(0), no dependencies)` throws a
    DescriptorValidationException when the set's first file imports another; here the pool cannot build it."""
    main = descriptor_pb2.FileDescriptorProto(name="main.proto", package="p", syntax="proto3",
                                              dependency=["dep.proto"])
    main.message_type.add(name="M").field.add(name="d", number=1, type=11, label=1, type_name=".p.D")
    dep = descriptor_pb2.FileDescriptorProto(name="dep.proto", package="p", syntax="proto3")
    dep.message_type.add(name="D")
    (resources / "imports.desc").write_bytes(descriptor_pb2.FileDescriptorSet(file=[main, dep]).SerializeToString())
    with pytest.raises(SchemaFileError, match="'imports' cannot decode 'M'"):
        run_rows("parse-as-protobuf :body imports 'M'", [{"body": b""}], spark=spark)


def test_protobuf_row_without_the_column_is_not_returned(spark: SparkSession, proto: Any) -> None:
    """ParseProtobuf: `idx == -1` → the row adds nothing to `results`."""
    result = run("parse-as-protobuf :body m 'M'", [{"other": b""}], spark)
    assert result.rows == [] and result.counts.filtered_rows == 1


def test_protobuf_value_that_is_not_bytes(spark: SparkSession, proto: Any) -> None:
    """ParseProtobuf: not a byte[] → ErrorRowException "should be of type 'byte array'" (text, and null bytes)."""
    text = run("parse-as-protobuf :body m 'M'", [{"body": "x"}], spark)
    assert messages(text) == ["Column body should be of type 'byte array'"]
    null = run("parse-as-protobuf :body m 'M'", [{"body": None}, {"body": b""}], spark)
    assert messages(null) == ["parse-as-protobuf: Column body should be of type 'byte array'"]


def test_protobuf_unset_fields_and_repeated_enums(spark: SparkSession, proto: Any) -> None:
    """ProtobufDecoderUsingDescriptor.decodeMessage: getAllFields holds set fields only (proto3 `count = 0` is not
    one); a repeated enum is cast to one EnumValueDescriptor in Wrangler (ClassCastException), here the list of
    names (docs/differences/external.md)."""
    message = proto(name="a", count=0, kinds=[1, 2]).SerializeToString()
    result = run("parse-as-protobuf :body m 'M'", [{"body": message, "other": 1}], spark)
    assert result.rows == [{"name": "a", "kinds": '["ONE","TWO"]'}]


def test_protobuf_empty_message_is_a_row_without_columns(spark: SparkSession, proto: Any) -> None:
    """ProtobufDecoderUsingDescriptor.decode: empty bytes parse to a message with no field set → one empty Row."""
    result = run("parse-as-protobuf :body m 'M'", [{"body": b"", "other": 1}], spark)
    assert result.rows == [{}] and result.counts.rows_out == 1


def test_protobuf_bytes_that_are_not_the_message(spark: SparkSession, proto: Any) -> None:
    """ProtobufDecoderUsingDescriptor: InvalidProtocolBufferException → DecoderException → "Issue decoding Protobuf
    record. Check schema version 'latest'."."""
    result = run("parse-as-protobuf :body m 'M'", [{"body": b"\x0a\x05ab"}], spark)
    assert messages(result)[0].startswith("parse-as-protobuf: Issue decoding Protobuf record. Check schema version "
                                          "'latest'. ")


# -- HL7Parser ---------------------------------------------------------------------------------------------------------
def test_hl7_row_without_the_column_is_left_alone(spark: SparkSession) -> None:
    """HL7Parser: `idx == -1` → the row is returned as it was (the directive adds to rows in place)."""
    result = run("parse-as-hl7 :body", [{"other": "x"}], spark)
    assert result.rows == [{"other": "x"}]


def test_hl7_value_of_another_type(spark: SparkSession) -> None:
    """HL7Parser: not a String → "has invalid type '<Java simple class name>'"."""
    result = run("parse-as-hl7 :body", [{"body": 5}], spark)
    assert messages(result) == ["Column 'body' has invalid type 'Integer'. It should be of type 'String'."]


def test_hl7_text_that_is_not_a_message(spark: SparkSession) -> None:
    """HL7Parser: PipeParser.parse throws HL7Exception → DirectiveExecutionException with its message; here an
    error row with the hl7 library's reason."""
    result = run("parse-as-hl7 :body", [{"body": "hello"}], spark)
    assert result.rows == [] and messages(result)[0].startswith("parse-as-hl7: Failed to parse the HL7 message: ")


def test_hl7_columns_are_named_after_the_column_as_written(spark: SparkSession) -> None:
    """HL7MessageVisitor(row, column + "_hl7", depth): the prefix is the directive's argument, not the row's name."""
    result = run("parse-as-hl7 :BODY 1", [{"body": "MSH|^~\\&|A|B|C|D|2000||ADT^A01||P|2.3"}], spark)
    assert json.loads(result.rows[0]["BODY_hl7_MSH"])["9"] == {"1": "ADT", "2": "A01"}  # depth 1: one level


# -- TableLookup -------------------------------------------------------------------------------------------------------
@pytest.fixture
def zip_view(spark: SparkSession) -> str:
    spark.createDataFrame([("94105", "San Francisco", 1)], "zip string, city string, rank int") \
        .createOrReplaceTempView("zip_branches")
    return "zip_branches"


def test_table_lookup_row_without_the_column_is_skipped(spark: SparkSession, zip_view: str) -> None:
    """TableLookup: `idx == -1` → continue: no looked-up column is added."""
    result = run(f"table-lookup :zip '{zip_view}'", [{"other": "94105"}], spark)
    assert result.rows == [{"other": "94105"}]


def test_table_lookup_value_of_another_type(spark: SparkSession, zip_view: str) -> None:
    """TableLookup: not a String → "is of invalid type '<Java simple class name>'"."""
    result = run(f"table-lookup :zip '{zip_view}'", [{"zip": 94105}], spark)
    assert messages(result) == ["Column 'zip' is of invalid type 'Integer'. It should be of type 'String'."]


def test_table_lookup_names_columns_after_the_column_as_written(spark: SparkSession, zip_view: str) -> None:
    """TableLookup: `column + "_" + key` with the directive's spelling; cells are Bytes.toString text."""
    result = run(f"table-lookup :ZIP '{zip_view}'", [{"zip": "94105"}], spark)
    assert result.rows == [{"zip": "94105", "ZIP_city": "San Francisco", "ZIP_rank": "1"}]


# -- CatalogLookup -----------------------------------------------------------------------------------------------------
def test_catalog_lookup_name_is_case_insensitive_and_names_the_column(spark: SparkSession) -> None:
    """CatalogLookup.initialize: the catalogue is matched ignoring case and lower-cased into
    `<column>_<catalog with - as _>_description`; StaticCatalog.lookup is an exact map get."""
    result = run("catalog-lookup 'Icd-9' :Dx", [{"dx": "0010"}, {"dx": "0010 "}], spark)
    assert [row["Dx_icd_9_description"] for row in result.rows] == ["Cholera due to vibrio cholerae", None]


# -- ValidateStandard --------------------------------------------------------------------------------------------------
def test_validate_standard_unknown_standard() -> None:
    """ValidateStandard.initialize: a spec the manifest does not list → "Unknown standard"."""
    with pytest.raises(RecipeError, match="Unknown standard 'fhir-r5'"):
        directives.parse("validate-standard :c fhir-r5")


def test_validate_standard_row_without_the_column_or_with_null(spark: SparkSession) -> None:
    """ValidateStandard: `idx < 0` → continue; a null value → continue."""
    assert run("validate-standard :c hl7-fhir-r4", [{"other": "x"}], spark).rows == [{"other": "x"}]


def test_validate_standard_value_that_is_not_an_object(spark: SparkSession) -> None:
    """ValidateStandard: not a JsonObject → DirectiveExecutionException "Column c is not a JsonObject". Here text
    is read as JSON (docs/differences/external.md): text that is no JSON object fails the row; so does a number."""
    result = run("validate-standard :c hl7-fhir-r4", [{"c": "not json"}, {"c": "[1]"}, {"c": None}], spark)
    assert result.rows == [{"c": None}]
    assert messages(result)[0].startswith("The value is not JSON") and messages(result)[1] == \
        "The value is not a JSON object."
    number = run("validate-standard :c hl7-fhir-r4", [{"c": 5}], spark)
    assert messages(number) == ["Column c is not a JSON object (it's int)"]


# -- DataModelMapColumn ------------------------------------------------------------------------------------------------
@pytest.fixture
def glossary(resources: Path) -> str:
    models = resources / "models"
    models.mkdir()
    (models / "manifest.json").write_text(json.dumps({"standards": {"cdm": {"format": "avsc"}}}))
    person = {"type": "record", "name": "person", "fields": [
        {"name": "person_id", "type": ["null", "long"]}, {"name": "flag", "type": ["null", "boolean"]},
        {"name": "n", "type": ["null", "int"]}, {"name": "label", "type": ["null", "string"]},
        {"name": "nothing", "type": ["null"]}]}
    bare = {"type": "record", "name": "bare", "fields": [{"name": "v", "type": "long"}]}
    (models / "cdm.avsc").write_text(json.dumps({"type": "record", "name": "CDM", "namespace": "g", "_revision": "1",
                                                 "fields": [{"name": "person", "type": ["null", person]},
                                                            {"name": "flat", "type": ["null", "string"]},
                                                            {"name": "bare", "type": bare}]}))
    return f"data-model-map-column '{models}' 'g.CDM' 1"


def test_data_model_url_without_a_glossary(spark: SparkSession, resources: Path) -> None:
    """DataModelMapColumn.initialize: `glossary.configure()` fails → "Unable to load data models from <url>"."""
    with pytest.raises(DataModelError, match="Unable to load data models from"):
        run_rows(f"data-model-map-column '{resources}/none' 'g.CDM' 1 'person' 'n' :x", [{"x": "1"}], spark=spark)


@pytest.mark.parametrize(("model", "field", "message"), [
    ("flat", "n", "Model flat has no schema."),  # no RECORD among the model field's types
    ("person", "nothing", " Field nothing of model person in data model g.CDM is missing type information."),
])
def test_data_model_model_without_schema_and_field_without_type(spark: SparkSession, glossary: str, model: str,
                                                                field: str, message: str) -> None:
    """DataModelMapColumn.initialize: the model's union has no record; the target field's union only null."""
    with pytest.raises(DataModelError, match=message.replace(".", r"\.")):
        run_rows(f"{glossary} '{model}' '{field}' :x", [{"x": "1"}], spark=spark)


def test_data_model_types_that_are_not_unions(spark: SparkSession, glossary: str) -> None:
    """DataModelMapColumn.initialize: `modelField.schema().getTypes()` and `targetField.schema().getTypes()` throw
    "Not a union" for a bare type; here a bare record or type is a union of one (docs/differences/external.md)."""
    assert run(f"{glossary} 'bare' 'v' :x", [{"x": "5"}], spark).rows == [{"v": 5}]


def test_data_model_row_without_the_column_is_left_alone(spark: SparkSession, glossary: str) -> None:
    """ColumnConverter.convertType and rename: `idx == -1` → nothing."""
    assert run(f"{glossary} 'person' 'person_id' :id", [{"other": "1"}], spark).rows == [{"other": "1"}]


def test_data_model_null_and_blank_are_not_converted(spark: SparkSession, glossary: str) -> None:
    """ColumnConverter.convertType: null or blank text → return before converting (the rename still happens).
    Wrangler keeps the blank text in the long column; here it is null (docs/differences/columns.md, set-type)."""
    result = run(f"{glossary} 'person' 'person_id' :id", [{"id": None}, {"id": "  "}, {"id": "7"}], spark)
    assert result.rows == [{"person_id": None}, {"person_id": None}, {"person_id": 7}] and not result.errors


def test_data_model_conversions_as_java_parses(spark: SparkSession, glossary: str) -> None:
    """ColumnConverter.convertType: Boolean.parseBoolean (never fails: anything but 'true' in any case is false),
    Integer.parseInt (no decimals, no overflow), `toString` for STRING."""
    flags = run(f"{glossary} 'person' 'flag' :x", [{"x": "TRUE"}, {"x": "yes"}, {"x": "1"}], spark)
    assert [row["flag"] for row in flags.rows] == [True, False, False]
    ints = run(f"{glossary} 'person' 'n' :x", [{"x": "12"}, {"x": "1.5"}, {"x": "2147483648"}], spark)
    assert ints.rows == [{"n": 12}] and messages(ints) == ["Column 'x' cannot be converted to a 'int'."] * 2
    text = run(f"{glossary} 'person' 'label' :x", [{"x": 1.5}], spark)
    assert text.rows == [{"label": "1.5"}]
    wrong = run(f"{glossary} 'person' 'person_id' :x", [{"x": True}], spark)  # LONG has no Boolean case: `break`
    assert messages(wrong) == ["Column 'x' has value of type 'Boolean' and cannot be converted to a 'LONG'."]


def test_data_model_rename_onto_an_existing_column(spark: SparkSession, glossary: str) -> None:
    """ColumnConverter.rename: the target field already names another column → DirectiveExecutionException for
    every row, as `rename` (the run stops before reading data)."""
    with pytest.raises(ColumnConflict, match=re.escape("Column 'person_id' already exists. Apply the 'drop "
                                                       "person_id' directive before renaming 'id' to 'person_id'.")):
        run_rows(f"{glossary} 'person' 'person_id' :id", [{"id": "1", "person_id": 2}], spark=spark)
    same = run(f"{glossary} 'person' 'person_id' :PERSON_ID", [{"person_id": "3"}], spark)
    assert same.rows == [{"person_id": 3}]  # the column itself (find is case-insensitive): no conflict


# -- InvokeHttp --------------------------------------------------------------------------------------------------------
class _Branches(JsonHandler):
    """One path per branch of InvokeHttp.ServiceResponseHandler; /echo answers the body it was sent."""

    def do_POST(self) -> None:
        body = self.read_json()
        path = self.path
        if path == "/echo":
            return self.answer(200, {"sent": json.dumps(body, sort_keys=True)})
        if path == "/moved":
            return self.answer(302, {}, headers={"Location": "/echo"})
        if path == "/see-other":
            return self.answer(303, None, headers={"Location": "/got"})
        if path == "/no-content":
            return self.answer(204)
        if path == "/text":
            return self.answer(200, raw=b"<html>no</html>")
        if path == "/null":
            return self.answer(200, raw=b"null")
        if path == "/slow":
            time.sleep(2)
            with contextlib.suppress(OSError):  # the caller has given up by now
                self.answer(200, {"late": True})
            return None
        self.answer(200, {"name": "from service", "nested": {"a": 1}, "list": [1, "x"]})

    def do_GET(self) -> None:
        self.answer(200, {"via": "GET"} if self.path == "/got" else {})


@pytest.fixture(scope="module")
def branches() -> Iterator[str]:
    with serve(_Branches) as base:
        yield base


def test_invoke_http_header_pairs_are_checked_when_the_recipe_compiles() -> None:
    """InvokeHttp.initialize: `split(",")`, then `split("=")` must give two parts (Java drops trailing empty
    parts: 'a=' is one), each non-empty once trimmed."""
    for header, reason in [("a=", "not written key=value"), ("a=b=c", "not written key=value"),
                           ("a=b,,c=d", "not written key=value"), (" =b", "empty key or value"),
                           ("a= ", "empty key or value")]:
        with pytest.raises(RecipeError, match=reason):
            directives.parse(f"invoke-http 'http://h/' :a '{header}'")
    assert directives.parse("invoke-http 'http://h/' :a 'a=b,'").steps  # a trailing comma: one pair


def test_invoke_http_sends_only_the_columns_the_row_has(spark: SparkSession, branches: str) -> None:
    """InvokeHttp.execute: `row.find(column) != -1` → the column is a parameter; Gson leaves nulls out, so a row
    without any of them sends `{}`."""
    result = run(f"invoke-http '{branches}/echo' :a,:b", [{"a": 1, "c": 2}, {"c": 3}], spark)
    assert [row["sent"] for row in result.rows] == ['{"a": 1}', "{}"]


def test_invoke_http_answer_keys_replace_existing_columns(spark: SparkSession, branches: str) -> None:
    """InvokeHttp.execute: `row.addOrSet(key, value)` → a key the row has (Row.find: any case) replaces the value in
    place, under the row's name; nested objects and lists are Gson maps and lists (here their JSON)."""
    result = run(f"invoke-http '{branches}/answer' :Name", [{"Name": "ada", "n": 1}], spark)
    assert result.columns == ["Name", "n", "nested", "list"]
    row = result.rows[0]
    assert row["Name"] == "from service" and row["n"] == 1
    assert json.loads(row["nested"]) == {"a": 1.0} and json.loads(row["list"]) == [1.0, "x"]


def test_invoke_http_redirects_of_a_post(spark: SparkSession, branches: str) -> None:
    """HttpClient's DefaultRedirectStrategy: a POST is not redirected on 302 (status >= 300 → HttpResponseException,
    the row fails); 303 See Other is followed as a GET."""
    moved = run(f"invoke-http '{branches}/moved' :a", [{"a": 1}], spark)
    assert messages(moved) == ["invoke-http: status code: 302, reason phrase: Found"]
    other = run(f"invoke-http '{branches}/see-other' :a", [{"a": 1}], spark)
    assert other.rows == [{"a": 1, "via": "GET"}]


@pytest.mark.parametrize(("path", "reason"), [
    ("/no-content", "invoke-http: Response contains no content"),  # `entity == null`
    ("/text", "invoke-http: The response is not JSON: "),  # Gson's JsonSyntaxException
    ("/null", "invoke-http: The response is not a JSON object."),  # Gson gives null: a NullPointerException
])
def test_invoke_http_answers_that_are_not_an_object(spark: SparkSession, branches: str, path: str,
                                                    reason: str) -> None:
    """InvokeHttp.ServiceResponseHandler: every exception → ErrorRowException(NAME, message, 500)."""
    result = run(f"invoke-http '{branches}{path}' :a", [{"a": 1}], spark)
    assert result.rows == [] and messages(result)[0].startswith(reason)


def test_invoke_http_timeout_fails_the_row(spark: SparkSession, branches: str) -> None:
    """Wrangler's default client waits for ever; here a call has a timeout (spark.wrangler.http.timeout) and the
    row fails when every attempt times out (docs/differences/external.md)."""
    spark.conf.set("spark.wrangler.http.timeout", "0.5")
    spark.conf.set("spark.wrangler.http.retries", "0")
    try:
        result = run(f"invoke-http '{branches}/slow' :a", [{"a": 1}], spark)
    finally:
        spark.conf.unset("spark.wrangler.http.timeout")
        spark.conf.unset("spark.wrangler.http.retries")
    assert result.rows == [] and messages(result) == ["invoke-http: timed out (after 1 attempts)"]
