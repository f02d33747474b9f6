"""Excel, Avro, protobuf and HL7 parsers on real Spark, with files made here by the formats' own libraries.

Expected rows follow each directive's `execute()` in Wrangler's source (ParseExcel, ParseAvroFile, ParseAvro
with Binary/JsonAvroDecoder, ParseProtobuf with ProtobufDecoderUsingDescriptor, HL7Parser).
"""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path

import fastavro
import openpyxl
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from pyspark.sql import SparkSession

from directives.spark.compile.format_parsers import SchemaFileError
from directives.spark.compile.formats import excel_column_name, excel_date_text, java_double
from directives.spark.runtime.resources import ENVIRONMENT
from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark


def test_helpers_follow_java() -> None:
    assert [excel_column_name(i) for i in (0, 25, 26, 27, 701, 702)] == ["A", "Z", "AA", "AB", "ZZ", "AAA"]
    assert [java_double(v) for v in (1.0, 2.5, 1e7, 0.0001, -12.0)] == ["1.0", "2.5", "1.0E7", "1.0E-4", "-12.0"]
    assert excel_date_text(dt.datetime(2017, 3, 5), "mm-dd-yy") == "3/5/17"
    assert excel_date_text(dt.datetime(2017, 3, 5, 14, 7), "yyyy-mm-dd hh:mm") == "2017-03-05 14:07"


# -- parse-as-excel ----------------------------------------------------------------------------------------------------
def _workbook() -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "people"
    sheet.append(["name", "age", "member", "joined"])
    sheet.append(["ada", 36, True, dt.datetime(2017, 3, 5)])
    sheet.append([None, None, None, None])  # an empty row: skipped
    sheet.append(["alan", 41.5, False, None])
    sheet["D2"].number_format = "mm-dd-yy"
    other = book.create_sheet("totals")
    other.append(["sum", 77.5])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_parse_as_excel_with_header(spark: SparkSession) -> None:
    result = run_rows("parse-as-excel :body 'people' true", [{"id": 7, "body": _workbook()}], spark=spark)
    assert result.columns == ["fwd", "bkd", "name", "age", "member", "joined", "id"]
    assert result.rows == [
        {"fwd": 1, "bkd": 1, "name": "ada", "age": "36.0", "member": "true", "joined": "3/5/17", "id": 7},
        {"fwd": 2, "bkd": 0, "name": "alan", "age": "41.5", "member": "false", "joined": None, "id": 7},
    ]


def test_parse_as_excel_by_index_without_header(spark: SparkSession) -> None:
    result = run_rows("parse-as-excel :body '1'", [{"body": _workbook()}], spark=spark)
    assert result.rows == [{"fwd": 0, "bkd": 0, "A": "sum", "B": "77.5"}]
    result = run_rows("parse-as-excel :body", [{"body": _workbook()}], spark=spark)
    assert [r["A"] for r in result.rows] == ["name", "ada", "alan"] and [r["bkd"] for r in result.rows] == [2, 1, 0]


def test_parse_as_excel_errors(spark: SparkSession) -> None:
    result = run_rows("parse-as-excel :body 'nope'", [{"body": _workbook()}, {"body": b"not a zip"}], spark=spark)
    assert result.rows == []
    messages = [e["message"] for e in result.errors]
    assert "Sheet 'nope' does not exist." in messages[0]
    assert messages[1].startswith("parse-as-excel: Failed to read the Excel workbook")
    text = run_rows("parse-as-excel :body", [{"body": "text"}], spark=spark)
    assert [e["message"] for e in text.errors] == ["Column 'body' should be of type 'byte array' or 'ByteBuffer'."]


# -- Avro --------------------------------------------------------------------------------------------------------------
SCHEMA = {
    "type": "record", "name": "Customer", "namespace": "shop", "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "address", "type": ["null", {"type": "record", "name": "Address", "fields": [
            {"name": "city", "type": "string"}, {"name": "zip", "type": ["null", "int"]}]}]},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "score", "type": "double"},
    ],
}
RECORDS = [
    {"id": 1, "name": "ada", "address": {"city": "London", "zip": 12}, "tags": ["a", "b"], "score": 1.5},
    {"id": 2, "name": "alan", "address": None, "tags": [], "score": 2.0},
]


def test_parse_as_avro_file(spark: SparkSession) -> None:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(SCHEMA), RECORDS)
    result = run_rows("parse-as-avro-file :body", [{"body": out.getvalue(), "other": "x"}, {"body": b"junk"}],
                      spark=spark)
    # a null nested record is one column, a present one flattens: both kinds of row, in one column order
    assert result.columns == ["id", "name", "address", "address_city", "address_zip", "tags", "score"]
    assert result.rows == [
        {"id": 1, "name": "ada", "address_city": "London", "address_zip": 12, "address": None,
         "tags": '["a","b"]', "score": 1.5},
        {"id": 2, "name": "alan", "address_city": None, "address_zip": None, "address": None, "tags": "[]",
         "score": 2.0},
    ]
    assert result.errors[0]["message"].startswith("parse-as-avro-file: Failed to parse Avro data file.")
    assert result.counts.reconciled and result.counts.rows_added == 1  # two rows in, two records of one of them


@pytest.fixture
def schema_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path))
    (tmp_path / "customer.avsc").write_text(json.dumps(SCHEMA))
    (tmp_path / "customer.v2.avsc").write_text(json.dumps(SCHEMA))
    return tmp_path


def test_parse_as_avro_binary_and_json(spark: SparkSession, schema_dir: Path) -> None:
    parsed = fastavro.parse_schema(SCHEMA)
    binary = io.BytesIO()
    for record in RECORDS:  # back to back, as Wrangler's decoder reads until the buffer ends
        fastavro.schemaless_writer(binary, parsed, record)
    result = run_rows("parse-as-avro :body customer binary 2", [{"body": binary.getvalue(), "k": 1}], spark=spark)
    assert result.columns == ["id", "name", "address", "tags", "score"]
    assert [r["id"] for r in result.rows] == [1, 2]
    assert json.loads(result.rows[0]["address"]) == {"city": "London", "zip": 12}  # a nested record stays whole
    assert result.rows[0]["tags"] == '["a","b"]'  # as Gson writes it
    text = io.StringIO()
    fastavro.json_writer(text, parsed, RECORDS)
    as_json = run_rows("parse-as-avro :body customer json", [{"body": text.getvalue()}], spark=spark)
    assert [(r["id"], r["name"], r["score"]) for r in as_json.rows] == [(1, "ada", 1.5), (2, "alan", 2.0)]
    bad = run_rows("parse-as-avro :body customer binary", [{"body": b"\x02"}], spark=spark)
    assert bad.errors[0]["message"].startswith(
        "parse-as-avro: Issue decoding Avro record. Check schema version 'latest'.")


def test_parse_as_avro_names_the_missing_schema_file(spark: SparkSession, schema_dir: Path) -> None:
    with pytest.raises(SchemaFileError, match=r"customer\.v3\.avsc"):
        run_rows("parse-as-avro :body customer binary 3", [{"body": b""}], spark=spark)


# -- parse-as-protobuf -------------------------------------------------------------------------------------------------
def _descriptor_set() -> bytes:
    file = descriptor_pb2.FileDescriptorProto(name="addressbook.proto", package="tutorial", syntax="proto3")
    phone = file.message_type.add(name="PhoneNumber")
    phone.field.add(name="number", number=1, type=9, label=1)
    phone.field.add(name="type", number=2, type=14, label=1, type_name=".tutorial.PhoneType")
    person = file.message_type.add(name="Person")
    person.field.add(name="name", number=1, type=9, label=1)
    person.field.add(name="id", number=2, type=5, label=1)
    person.field.add(name="phones", number=4, type=11, label=3, type_name=".tutorial.PhoneNumber")
    person.field.add(name="emails", number=5, type=9, label=3)
    kind = file.enum_type.add(name="PhoneType")
    for number, name in enumerate(["MOBILE", "HOME", "WORK"]):
        kind.value.add(name=name, number=number)
    return descriptor_pb2.FileDescriptorSet(file=[file]).SerializeToString()


def test_parse_as_protobuf(spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    descriptors = _descriptor_set()
    (tmp_path / "addressbook.v1.desc").write_bytes(descriptors)
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(descriptor_pb2.FileDescriptorSet.FromString(descriptors).file[0])
    person = message_factory.GetMessageClass(pool.FindMessageTypeByName("tutorial.Person"))
    message = person(name="ada", id=7, emails=["a@x", "b@x"])
    message.phones.add(number="555", type=2)
    result = run_rows("parse-as-protobuf :body addressbook 'Person' 1",
                      [{"body": message.SerializeToString()}, {"body": b"\xff\xff"}], spark=spark)
    assert result.rows == [{"name": "ada", "id": 7, "phones_number": "555", "phones_type": "WORK",
                            "emails": '["a@x","b@x"]'}]
    assert "Issue decoding Protobuf record. Check schema version '1'." in result.errors[0]["message"]
    with pytest.raises(SchemaFileError, match="Nobody"):
        run_rows("parse-as-protobuf :body addressbook 'Nobody' 1", [{"body": b""}], spark=spark)


# -- parse-as-hl7 ------------------------------------------------------------------------------------------------------
MESSAGE = "\r".join([
    "MSH|^~\\&|HIS|RIH|EKG|EKG|199904140038||ADT^A01||P|2.2",
    "PID|0001|00009874|00001122|A00977|SMITH^JOHN^M|MOM|19581119|F|NOTREAL^LINDA^M|C|"
    "564 SPRING ST^^NEEDHAM^MA^02494^US",
    "NK1|1|SMITH^MARY|WI",
    "NK1|2|SMITH^ALAN|SO",
    "NK1|3|SMITH^EVE|DA",
])


def test_parse_as_hl7(spark: SparkSession) -> None:
    result = run_rows("parse-as-hl7 :body", [{"body": MESSAGE, "n": 1}], spark=spark)
    row = result.rows[0]
    assert result.columns[:2] == ["body", "n"]
    assert row["body_hl7_MSH_1"] == "|" and row["body_hl7_MSH_2"] == "^~\\&"
    assert row["body_hl7_MSH_9_1"] == "ADT" and row["body_hl7_MSH_9_2"] == "A01"
    assert row["body_hl7_PID_5_1"] == "SMITH" and row["body_hl7_PID_5_2"] == "JOHN"
    assert row["body_hl7_PID_11_3"] == "NEEDHAM" and "body_hl7_PID_11_2" not in row  # empty: not populated
    next_of_kin = json.loads(row["body_hl7_NK1"])  # seen twice: a list of both; a third time is not kept
    assert [kin["2"]["2"] for kin in next_of_kin] == ["MARY", "ALAN"]


def test_parse_as_hl7_depth_and_errors(spark: SparkSession) -> None:
    result = run_rows("parse-as-hl7 :body 2", [{"body": MESSAGE}, {"body": None}], spark=spark)
    assert json.loads(result.rows[0]["body_hl7_MSH_9"]) == {"1": "ADT", "2": "A01"}
    assert [e["message"] for e in result.errors] == [
        "parse-as-hl7: Column 'body' has null value. It should be a non-null 'String'."]
