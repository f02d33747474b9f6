"""The parser family on real local Spark: CSV, JSON, JSON paths, fixed widths, logs; and Wrangler's own cases."""

from __future__ import annotations

import json

import pytest

from directives.base import REGISTRY
from directives.spark.compilers import COMPILERS, UNSUPPORTED, load_all
from directives.spark.runtime.runner import RowsResult, run_rows
from grammar.errors import RecipeError

pytestmark = pytest.mark.spark

FAMILY = (
    "parse-as-csv", "parse-as-json", "json-path", "parse-as-fixed-length", "parse-xml-to-json", "parse-as-hl7",
    "parse-as-avro", "parse-as-avro-file", "parse-as-excel", "parse-as-log", "parse-as-protobuf",
)
COMMON_LOG = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326'


def reconciled(result: RowsResult) -> RowsResult:
    assert result.counts.reconciled, result.counts
    return result


def test_every_parser_compiles() -> None:
    load_all()
    for name in FAMILY:
        assert REGISTRY[name] in COMPILERS and name not in UNSUPPORTED, name


def test_binary_parsers_send_text_values_to_errors(spark) -> None:
    """ParseExcel.execute: a value that is not bytes fails the row (the formats have tests of their own)."""
    result = run_rows("parse-as-excel :body", [{"body": "x"}], spark=spark)
    assert result.rows == [] and "should be of type 'byte array'" in result.errors[0]["message"]


# -- helpers (no JVM needed) -------------------------------------------------------------------------------------------
def test_variant_schema_text_is_read_with_quoted_names_decimals_and_nesting() -> None:
    from directives.spark.compile.variant_schema import VariantSchemaError, parse_variant_schema

    tree = parse_variant_schema("OBJECT<```q```: BOOLEAN, a: DECIMAL(21,1), `d e`: ARRAY<OBJECT<x: VOID>>, b: VARIANT>")
    assert [name for name, _ in tree.fields] == ["`q`", "a", "d e", "b"]
    kinds = dict(tree.fields)
    assert kinds["a"].kind == "DECIMAL" and kinds["b"].kind == "VARIANT"
    element = kinds["d e"].element
    assert kinds["d e"].is_array and element is not None and element.is_object and element.fields[0][1].kind == "VOID"
    with pytest.raises(VariantSchemaError):
        parse_variant_schema("OBJECT<a: BIGINT")


def test_xml_schemas_merge_to_the_narrowest_common_shape() -> None:
    from pyspark.sql import types as T

    from directives.spark.compile.xmlshape import json_name, merge

    one = T.StructType([T.StructField("b", T.StringType()), T.StructField("c", T.StringType())])
    many = T.StructType([T.StructField("b", T.ArrayType(T.StringType())),
                         T.StructField("e", T.StructType([T.StructField("f", T.StringType())]))])
    merged = merge(one, many)
    assert isinstance(merged, T.StructType)
    assert [f.name for f in merged.fields] == ["b", "c", "e"]
    assert merged["b"].dataType == T.ArrayType(T.StringType(), True)
    with_text = merge(T.StringType(), T.StructType([T.StructField("_x", T.StringType())]))
    assert isinstance(with_text, T.StructType) and [f.name for f in with_text.fields] == ["_x", "_VALUE"]
    assert (json_name("_VALUE"), json_name("_id"), json_name("item")) == ("content", "id", "item")


@pytest.mark.parametrize(
    ("record", "fields"),
    [('a,"b,c",d', ["a", "b,c", "d"]), ('x,,"y""z"', ["x", "", 'y"z']), (' "q",', [' "q"', ""]), ("", [""])],
)
def test_the_header_splitter_reads_records_as_commons_csv(record: str, fields: list[str]) -> None:
    from directives.spark.compile.csvsplit import split_record

    assert split_record(record, ",") == fields


# -- parse-as-csv ------------------------------------------------------------------------------------------------------
def test_csv_quotes_empty_fields_and_ragged_records(spark) -> None:
    rows = [{"body": 'a,"b,c",d'}, {"body": 'x,,"y""z"'}, {"body": "p"}, {"body": ""}, {"body": None}]
    result = reconciled(run_rows("parse-as-csv :body ','", rows, spark=spark))
    assert result.columns == ["body", "body_1", "body_2", "body_3"]
    values = [[row[f"body_{i}"] for i in (1, 2, 3)] for row in result.rows]
    assert values == [["a", "b,c", "d"], ["x", "", 'y"z'], ["p", None, None], [None] * 3, [None] * 3]
    assert [row["body"] for row in result.rows] == [row["body"] for row in rows]  # the source is kept


def test_csv_quote_only_opens_at_a_field_start_and_spaces_are_kept(spark) -> None:
    result = run_rows("parse-as-csv :body ','", [{"body": '1, "Archil", ,x"y'}], spark=spark)
    assert [result.rows[0][f"body_{i}"] for i in (1, 2, 3, 4)] == ["1", ' "Archil"', " ", 'x"y']


def test_csv_other_delimiters_and_escapes(spark) -> None:
    result = run_rows("parse-as-csv :body '\\t'", [{"body": "a\tb|c"}], spark=spark)
    assert (result.rows[0]["body_1"], result.rows[0]["body_2"]) == ("a", "b|c")
    piped = run_rows("parse-as-csv :body '|'", [{"body": "a|b.c|"}], spark=spark)
    assert [piped.rows[0][f"body_{i}"] for i in (1, 2, 3)] == ["a", "b.c", ""]


_PLAIN_RECORDS = ["a,b,c", "a,,c", ",,", "a,b,", ",", "x", " a , b ", "a.b,c|d", "\u00e9t\u00e9,na\u00efve,\u00fc",
                  "a\nb,c", "x,\r\ny", "\n", "a\u0000,b", "a\rb,c"]
_QUOTED_RECORDS = ['a,"b,c",d', '"",x', 'x,""', '"a""b",', 'p,"q\nr",s', 'x"y,z']


@pytest.mark.parametrize("delimiter", [",", "|", ".", "\t", "*", ";", " ", "^"])
def test_csv_plain_and_quoted_records_agree_with_commons_csv(spark, delimiter: str) -> None:
    """Plain records (split on the delimiter) and quoted ones (`from_csv`) with several delimiters (regex
    metacharacters, a tab, a space) read as the Commons-CSV splitter reads them, with empty fields "" and
    missing ones null; line breaks are ordinary characters inside a value."""
    from directives.spark.compile.csvsplit import split_record

    records = [r.replace(",", delimiter) for r in _PLAIN_RECORDS + _QUOTED_RECORDS]
    escaped = delimiter.replace("\t", "\\t")
    result = run_rows(f"parse-as-csv :body '{escaped}'", [{"body": r} for r in records], spark=spark)
    width = max(len(split_record(r, delimiter)) for r in records)
    assert len(result.columns) == width + 1
    for record, row in zip(records, result.rows, strict=True):
        fields = split_record(record, delimiter)
        assert [row[f"body_{i}"] for i in range(1, width + 1)] == fields + [None] * (width - len(fields)), record


def test_only_quote_free_records_take_the_split_path(spark) -> None:
    from pyspark.sql import functions as F

    from directives.spark.compile.csvsplit import is_plain

    records = _PLAIN_RECORDS + _QUOTED_RECORDS + ["\u0000a,b"]
    plain = spark.createDataFrame([(r,) for r in records], "body string").select(is_plain(F.col("body"))).collect()
    assert [row[0] for row in plain] == ['"' not in r and not r.startswith("\u0000") for r in records]
    assert sum(row[0] for row in plain) == len(_PLAIN_RECORDS)


def test_csv_header_names_the_columns_and_drops_the_header_row(spark) -> None:
    rows = [{"body": "first name, last  \t  name"}, {"body": "alice,zed"}, {"body": "bob,yo,extra"}]
    result = reconciled(run_rows("parse-as-csv :body ',' true", rows, spark=spark))
    assert result.columns == ["body", "first_name", "last_name", "body_3"]
    assert [(r["first_name"], r["last_name"], r["body_3"]) for r in result.rows] == [
        ("alice", "zed", None), ("bob", "yo", "extra")]
    # Issue 20: the header line is consumed, not filtered by anyone; the counts say so and still reconcile.
    assert (result.counts.filtered_rows, result.counts.header_rows) == (0, 1)


@pytest.mark.parametrize("first", ["a,a", "a,", "name,42", "x,true"])
def test_csv_first_record_that_is_not_a_header_is_data(spark, first: str) -> None:
    result = reconciled(run_rows("parse-as-csv :body ',' true", [{"body": first}, {"body": "p,q"}], spark=spark))
    assert len(result.rows) == 2
    assert result.rows[0]["body_1"] == first.split(",")[0]


def test_csv_header_is_the_first_row_even_after_rows_multiplied(spark) -> None:
    rows = [{"body": json.dumps(["h1,h2", "a,b", "h1,h2", "c,d"])}]
    result = reconciled(run_rows("parse-as-json :body\nparse-as-csv :body ',' true", rows, spark=spark))
    assert [(r["h1"], r["h2"]) for r in result.rows] == [("a", "b"), ("h1", "h2"), ("c", "d")]


def test_csv_declared_width_skips_the_pass_and_bounds_the_columns(spark) -> None:
    result = run_rows("parse-as-csv :body ','", [{"body": "a,b,c"}], spark=spark, declared_widths={1: 2})
    assert result.columns == ["body", "body_1", "body_2"]


def test_csv_width_ignores_rows_already_in_error_or_dropped(spark) -> None:
    rows = [{"body": '{"t": "a,b"}'}, {"body": "[]"}, {"body": "not json,1,2,3,4"}]
    result = reconciled(run_rows("json-path :body :t '$.t'\nparse-as-csv :t ','", rows, spark=spark))
    assert "t_3" not in result.columns and result.rows[0]["t_2"] == "b"


def test_csv_missing_column_is_a_no_op(spark) -> None:
    result = reconciled(run_rows("parse-as-csv :nothere ','", [{"a": "x,y"}], spark=spark))
    assert result.rows == [{"a": "x,y"}]


# -- parse-as-json -----------------------------------------------------------------------------------------------------
def test_json_objects_flatten_and_drop_the_source(spark) -> None:
    rows = [{"id": 1, "body": json.dumps({"a": 1, "b": {"c": "x", "d": [1, 2]}, "n": None})},
            {"id": 2, "body": json.dumps({"a": 7, "e": True})}]
    result = reconciled(run_rows("parse-as-json :body", rows, spark=spark))
    assert "body" not in result.columns
    assert set(result.columns) == {"id", "body_a", "body_b_c", "body_b_d", "body_e", "body_n"}
    first, second = result.rows
    assert (first["body_a"], first["body_b_c"], first["body_b_d"], first["body_n"]) == (1, "x", "[1,2]", None)
    assert (second["body_a"], second["body_e"], second["body_b_c"]) == (7, True, None)


def test_json_depth_keeps_deeper_objects_as_json_text(spark) -> None:
    body = json.dumps({"id": 1, "name": {"first": {"n": "Root"}, "last": "Joltie"}})
    one = run_rows("parse-as-json :body 1", [{"body": body}], spark=spark)
    assert json.loads(one.rows[0]["body_name"]) == {"first": {"n": "Root"}, "last": "Joltie"}
    two = run_rows("parse-as-json :body 2", [{"body": body}], spark=spark)
    assert json.loads(two.rows[0]["body_name_first"]) == {"n": "Root"} and two.rows[0]["body_name_last"] == "Joltie"
    deep = run_rows("parse-as-json :body", [{"body": body}], spark=spark)
    assert deep.rows[0]["body_name_first_n"] == "Root"


def test_json_arrays_give_one_row_per_element(spark) -> None:
    rows = [{"k": "a", "body": "[1,2,3]"}, {"k": "b", "body": "[]"}, {"k": "c", "body": "[4]"}]
    result = reconciled(run_rows("parse-as-json :body", rows, spark=spark))
    # JsParser: an empty array keeps its row, without the value (`results.add(row)` after `row.remove(idx)`)
    assert [(r["k"], r["body"]) for r in result.rows] == [("a", 1), ("a", 2), ("a", 3), ("b", None), ("c", 4)]
    assert (result.counts.rows_added, result.counts.filtered_rows) == (2, 0)


def test_json_array_of_objects_then_objects(spark) -> None:
    rows = [{"body": json.dumps([{"a": 1}, {"a": 2, "b": "q"}])}]
    result = reconciled(run_rows("parse-as-json :body\nparse-as-json :body", rows, spark=spark))
    assert [(r["body_a"], r["body_b"]) for r in result.rows] == [(1, None), (2, "q")]


def test_json_primitives_nulls_and_missing_drop_rows_and_bad_json_is_an_error(spark) -> None:
    rows = [{"body": "5"}, {"body": "null"}, {"body": None}, {"body": '"s"'}, {"body": "{oops"}, {"body": '{"a":1}'}]
    result = reconciled(run_rows("parse-as-json :body", rows, spark=spark))
    assert result.rows == [{"body_a": 1}]
    assert result.counts.filtered_rows == 4
    (error,) = result.errors
    assert error["row"] == {"body": "{oops"} and "not valid JSON" in error["message"]
    missing = reconciled(run_rows("parse-as-json :other", [{"body": "{}"}], spark=spark))
    assert missing.rows == [] and missing.counts.filtered_rows == 1


def test_json_from_a_struct_column(spark) -> None:
    result = run_rows("parse-as-json :body", [{"body": {"a": 1, "b": "x"}}], spark=spark)
    assert result.rows == [{"body_a": 1, "body_b": "x"}]


# -- json-path ---------------------------------------------------------------------------------------------------------
def test_json_path_extracts_and_drops_rows_with_a_null_source(spark) -> None:
    body = json.dumps({"a": {"b": [10, {"c": "deep"}]}, "s": "t"})
    rows = [{"body": body, "s": "old"}, {"body": None, "s": "gone"}, {"body": "{}", "s": "kept"}]
    result = reconciled(run_rows("json-path :body :s '$.s'\njson-path :body :c 'a.b[1].c'", rows, spark=spark))
    assert [(r["s"], r["c"]) for r in result.rows] == [("t", "deep"), (None, None)]
    assert result.columns == ["body", "s", "c"]
    assert result.counts.filtered_rows == 1


def test_json_path_quoted_members_may_hold_any_character(spark) -> None:
    result = run_rows("json-path :body :x \"$['a:b'].c\"", [{"body": '{"a:b": {"c": 5}}'}], spark=spark)
    assert result.rows[0]["x"] == "5"


def test_json_path_with_a_missing_source_drops_every_row(spark) -> None:
    result = reconciled(run_rows("json-path :nope :x '$.a'", [{"a": 1}, {"a": 2}], spark=spark))
    assert result.rows == [] and result.counts.filtered_rows == 2


def test_json_path_features_spark_lacks_are_reported_at_compile_time(spark) -> None:
    with pytest.raises(RecipeError) as caught:
        run_rows("json-path :body :x '$..name'", [{"body": "{}"}], spark=spark)
    assert "deep scan" in caught.value.message and caught.value.line == 1


# -- parse-as-fixed-length ---------------------------------------------------------------------------------------------
def test_fixed_length_cuts_fields_and_repeats_records(spark) -> None:
    rows = [{"body": "AABBCDEEEFFFF"}, {"body": "ab cd12345xy"}, {"body": "x"}, {"body": None}]
    one = reconciled(run_rows("parse-as-fixed-length :body 2,2,1,1,3,4", rows[:1], spark=spark))
    assert [one.rows[0][f"body_{i}"] for i in range(1, 7)] == ["AA", "BB", "C", "D", "EEE", "FFFF"]
    result = reconciled(run_rows("parse-as-fixed-length :body 2,3 ' '", rows[1:], spark=spark))
    assert [(r["body_1"], r["body_2"]) for r in result.rows] == [("ab", "cd"), ("12", "345")]  # "xy" is too short
    assert [e["row"]["body"] for e in result.errors] == ["x", None]
    assert "Expected at least 5 characters but found 1 characters" in result.errors[0]["message"]
    assert result.counts.rows_added == 1


def test_fixed_length_padding_is_a_regex_and_missing_column_drops(spark) -> None:
    result = run_rows("parse-as-fixed-length :body 4,4 '^0+'", [{"body": "0012000x"}], spark=spark)
    assert (result.rows[0]["body_1"], result.rows[0]["body_2"]) == ("12", "x")
    missing = reconciled(run_rows("parse-as-fixed-length :other 1", [{"body": "a"}], spark=spark))
    assert missing.rows == [] and missing.counts.filtered_rows == 1


# -- parse-as-log ------------------------------------------------------------------------------------------------------
def test_log_common_format_fields_and_unmatched_lines(spark) -> None:
    rows = [{"line": COMMON_LOG}, {"line": "not a log line"}]
    result = reconciled(run_rows("parse-as-log :line 'common'", rows, spark=spark))
    (row,) = result.rows
    assert row["ip_connection_client_host"] == "127.0.0.1" and row["string_connection_client_user"] == "frank"
    assert row["time_stamp_request_receive_time"] == "10/Oct/2000:13:55:36 -0700"
    assert (row["http_method_request_firstline_method"], row["http_uri_request_firstline_uri"]) == \
        ("GET", "/apache_pb.gif")
    assert (row["string_request_status_last"], row["bytes_response_body_bytes"]) == ("200", "2326")
    (error,) = result.errors  # ParseLog keeps the row with log.parse.error = 1: a documented difference
    assert "does not match the log format" in error["message"]


def test_log_combined_format_reads_quoted_headers(spark) -> None:
    line = COMMON_LOG + ' "http://x/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"'
    result = run_rows("parse-as-log :line 'combined'", [{"line": line}], spark=spark)
    assert result.rows[0]["http_uri_request_referer"] == "http://x/start.html"
    assert result.rows[0]["http_useragent_request_user_agent"] == "Mozilla/4.08 [en] (Win98; I ;Nav)"


# -- parse-xml-to-json -------------------------------------------------------------------------------------------------
XML_ROWS = [
    {"id": 1, "doc": '<?xml version="1.0"?><a><b>1</b><c x="2">t</c><d/></a>'},
    {"id": 2, "doc": "<a><b>x</b><b>y</b><e><f>3</f></e></a>"},
    {"id": 3, "doc": "not xml"},
]


def test_xml_flattens_every_shape_into_root_prefixed_columns_and_drops_the_source(spark) -> None:
    result = reconciled(run_rows("parse-xml-to-json :doc", XML_ROWS, spark=spark))
    assert result.columns == ["id", "doc_a_b", "doc_a_c_content", "doc_a_c_x", "doc_a_d", "doc_a_e_f"]
    first, second = result.rows
    assert (first["doc_a_c_content"], first["doc_a_c_x"], first["doc_a_d"], first["doc_a_e_f"]) == ("t", "2", "", None)
    assert json.loads(second["doc_a_b"]) == ["x", "y"] and second["doc_a_e_f"] == "3"
    (error,) = result.errors
    assert error["row"]["id"] == 3 and "is not XML" in error["message"]


def test_xml_depth_keeps_deeper_elements_as_json_with_org_json_names(spark) -> None:
    two = run_rows("parse-xml-to-json :doc 2", XML_ROWS[:1], spark=spark)
    assert json.loads(two.rows[0]["doc_a_c"]) == {"content": "t", "x": "2"}
    one = run_rows("parse-xml-to-json :doc 1", XML_ROWS[:1], spark=spark)
    assert json.loads(one.rows[0]["doc_a"]) == {"b": "1", "c": {"content": "t", "x": "2"}, "d": ""}
    text = run_rows("parse-xml-to-json :doc", [{"doc": "<note>hello</note>"}], spark=spark)
    assert text.rows == [{"doc_note": "hello"}]
