"""The parser directives, branch by branch, as Wrangler's `execute()` defines them (io.cdap.directives.parser.*,
io.cdap.directives.xml.XmlToJson). Each test names the Java class and the branch."""

from __future__ import annotations

import json

import pytest

import directives
from directives.logformat import log_fields
from grammar.errors import RecipeError

pytestmark = pytest.mark.spark

COMMON = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif?a=1?b=2#top HTTP/1.0" 200 -'


# -- ParseLog ----------------------------------------------------------------------------------------------------------
def test_log_names_are_logparser_paths_cleaned_as_parselog_does(spark: object) -> None:
    """LogLine.setValue: `TYPE:name` lower-cased, non-word characters → `_`; `%h` also fills its `.last` twin;
    `%>s` only `.last`; `%b` (BYTESCLF, skipped) reaches the row as BYTES with `-` → 0."""
    result = directives.run_rows("parse-as-log :line 'common'", [{"line": COMMON}], spark=spark)
    (row,) = result.rows
    assert (row["ip_connection_client_host"], row["ip_connection_client_host_last"]) == ("127.0.0.1", "127.0.0.1")
    assert row["string_connection_client_user_last"] == "frank"
    assert row["string_request_status_last"] == "200" and "string_request_status" not in row
    assert row["bytes_response_body_bytes"] == "0"
    assert not any(word in name for name in row for word in ("original", "bytesclf", "cookie"))


def test_log_first_line_uri_and_protocol_are_dissected(spark: object) -> None:
    """HttpFirstLineDissector, HttpFirstLineProtocolDissector, HttpUriDissector (its `?`→`&` repair of the query;
    scheme, host … only for absolute URLs)."""
    (row,) = directives.run_rows("parse-as-log :line 'common'", [{"line": COMMON}], spark=spark).rows
    assert row["http_firstline_request_firstline"] == "GET /apache_pb.gif?a=1?b=2#top HTTP/1.0"
    assert row["http_method_request_firstline_method"] == "GET"
    assert row["http_uri_request_firstline_uri"] == "/apache_pb.gif?a=1?b=2#top"
    assert row["http_path_request_firstline_uri_path"] == "/apache_pb.gif"
    assert row["http_querystring_request_firstline_uri_query"] == "&a=1&b=2"
    assert row["http_ref_request_firstline_uri_ref"] == "top"
    assert row["http_host_request_firstline_uri_host"] is None
    assert (row["http_protocol_version_request_firstline_protocol"], row["http_protocol_request_firstline_protocol"],
            row["http_protocol_version_request_firstline_protocol_version"]) == ("HTTP/1.0", "HTTP", "1.0")


def test_log_time_stamp_parts_as_written_and_in_utc(spark: object) -> None:
    """TimeStampDissector: day … epoch as the log wrote them, `_utc` ones in UTC; the `.last` twin gets them too."""
    line = '1.2.3.4 - - [31/Dec/2000:23:55:36 -0700] "GET / HTTP/1.1" 200 12'
    (row,) = directives.run_rows("parse-as-log :line 'common'", [{"line": line}], spark=spark).rows
    prefix = "request_receive_time"
    assert (row[f"time_day_{prefix}_day"], row[f"time_monthname_{prefix}_monthname"],
            row[f"time_year_{prefix}_year"], row[f"time_hour_{prefix}_hour"]) == ("31", "December", "2000", "23")
    assert (row[f"time_date_{prefix}_date_utc"], row[f"time_time_{prefix}_time_utc"]) == ("2001-01-01", "06:55:36")
    assert row[f"time_epoch_{prefix}_epoch"] == "978332136000"
    assert row[f"time_day_{prefix}_last_day"] == "31"
    assert row[f"time_week_{prefix}_weekofweekyear"] == "52" and row[f"time_year_{prefix}_weekyear"] == "2000"


def test_log_combined_and_custom_formats(spark: object) -> None:
    """`combined` adds the referer (HTTP.URI, dissected) and the user agent; custom `%{…}i` headers are lower-cased
    (`HTTP.HEADER:request.header.x-forwarded-for`), `%{…}C` cookies are dropped by Wrangler."""
    line = COMMON + ' "http://u@www.example.com:8080/start.html?q=1" "Mozilla/4.08"'
    (row,) = directives.run_rows("parse-as-log :line 'combined'", [{"line": line}], spark=spark).rows
    assert (row["http_host_request_referer_host"], row["http_port_request_referer_port"],
            row["http_path_request_referer_path"], row["http_protocol_request_referer_protocol"]) == \
        ("www.example.com", "8080", "/start.html", "http")
    assert row["http_useragent_request_user_agent"] == "Mozilla/4.08"
    custom = directives.run_rows("parse-as-log :line '%h %{X-Forwarded-For}i %{session}C %D'",
                                 [{"line": "10.0.0.1 9.9.9.9 abc 1500"}], spark=spark)
    (row,) = custom.rows
    assert row["http_header_request_header_x_forwarded_for"] == "9.9.9.9"
    assert row["microseconds_response_server_processing_time"] == "1500"
    assert row["microseconds_server_process_time"] == "1500"
    assert not any("session" in name for name in row)


def test_log_unmatched_null_missing_and_wrong_type(spark: object) -> None:
    """null → DirectiveExecutionException; a missing column is skipped; a non-string non-bytes value → 'is of
    invalid type'. An unparsable line: Wrangler keeps it with `log.parse.error` = 1, here an error row
    (documented difference, docs/differences/parsers.md)."""
    result = directives.run_rows("parse-as-log :line 'common'", [{"line": "garbage"}, {"line": None}], spark=spark)
    assert result.rows == []
    assert sorted(e["message"] for e in result.errors) == [
        "Column 'line' does not match the log format 'common': garbage",
        "Column 'line' has null value. It should be a non-null 'String' or 'byte array'."]
    assert directives.run_rows("parse-as-log :nope 'common'", [{"a": 1}], spark=spark).rows == [{"a": 1}]
    typed = directives.run_rows("parse-as-log :line 'common'", [{"line": 5}], spark=spark)
    assert "Column 'line' is of invalid type 'Integer'" in typed.errors[0]["message"]


def test_log_field_names_cover_the_names_real_recipes_use() -> None:
    """Names Wrangler users wrote after `parse-as-log … common/combined` (../shared/realworld recipes)."""
    used = {"number_connection_client_logname_last", "http_querystring_request_firstline_uri_query",
            "http_ref_request_firstline_uri_ref", "string_connection_client_user_last",
            "http_firstline_request_firstline", "time_day_request_receive_time_last_day",
            "time_stamp_request_receive_time", "http_uri_request_referer", "http_useragent_request_user_agent",
            "http_path_request_referer_path", "http_protocol_request_referer_protocol",
            "time_date_request_receive_time_date", "time_time_request_receive_time_time", "bytes_response_body_bytes"}
    assert used <= set(log_fields("combined"))


# -- JsParser ----------------------------------------------------------------------------------------------------------
def test_json_top_level_arrays(spark: object) -> None:
    """A non-empty array: one row per element in the column; an empty array keeps the row without the value;
    numbers of an all-number array are numbers (getValue: Long)."""
    rows = [{"k": 1, "b": "[10, 20]"}, {"k": 2, "b": "[]"}, {"k": 3, "b": " [30] "}]
    result = directives.run_rows("parse-as-json :b", rows, spark=spark)
    assert [(r["k"], r["b"]) for r in result.rows] == [(1, 10), (1, 20), (2, None), (3, 30)]
    objects = directives.run_rows("parse-as-json :b", [{"b": '[{"x": 1}, [2]]'}], spark=spark)
    assert [json.loads(r["b"]) for r in objects.rows] == [{"x": 1}, [2]]


def test_json_rows_wrangler_drops(spark: object) -> None:
    """null → `continue` before `results.add`; a primitive or JSON null is set but never added; a missing column is
    never added: all those rows leave the output (counted as filtered)."""
    rows = [{"b": None}, {"b": "7"}, {"b": "null"}, {"b": '"text"'}, {"b": '{"a": true}'}]
    result = directives.run_rows("parse-as-json :b", rows, spark=spark)
    assert result.rows == [{"b_a": True}] and result.counts.filtered_rows == 4
    missing = directives.run_rows("parse-as-json :nope", [{"b": "{}"}], spark=spark)
    assert missing.rows == [] and missing.counts.filtered_rows == 1


def test_json_wrong_type_and_depth(spark: object) -> None:
    """A value neither String nor JSON → 'is of invalid type'; `depth` stops flattening (deeper objects whole)."""
    typed = directives.run_rows("parse-as-json :b", [{"b": 5}], spark=spark)
    assert [e["message"] for e in typed.errors] == \
        ["Column 'b' is of invalid type 'Integer'. It should be of type 'String' or 'JsonObject' or 'JsonArray'."]
    deep = directives.run_rows("parse-as-json :b 1", [{"b": '{"a": {"c": 1}, "d": 2}'}], spark=spark)
    (row,) = deep.rows
    assert json.loads(row["b_a"]) == {"c": 1} and row["b_d"] == 2


# -- JsPath ------------------------------------------------------------------------------------------------------------
def test_json_path_branches(spark: object) -> None:
    """A null source adds a null destination and drops the row; a non-JSON type is an error; a path not found
    gives null."""
    rows = [{"s": '{"a": {"b": "x"}}'}, {"s": '{"z": 1}'}, {"s": None}]
    result = directives.run_rows("json-path :s :d '$.a.b'", rows, spark=spark)
    assert [r["d"] for r in result.rows] == ["x", None] and result.counts.filtered_rows == 1
    typed = directives.run_rows("json-path :s :d '$.a'", [{"s": 5}], spark=spark)
    assert [e["message"] for e in typed.errors] == \
        ["Column 's' is of invalid type 'Integer'. It should be of type 'String' or 'JsonObject' or 'JsonArray'."]


# -- FixedLengthParser -------------------------------------------------------------------------------------------------
def test_fixed_length_branches(spark: object) -> None:
    """Shorter than the record → ErrorRowException code 2 with the lengths; null → 'has null value'; a non-string
    → 'has invalid type'; several records in one value → one row each."""
    rows = [{"b": "ab"}, {"b": "abcdef"}, {"b": None}]
    result = directives.run_rows("parse-as-fixed-length :b 2,1", rows, spark=spark)
    assert [(r["b_1"], r["b_2"]) for r in result.rows] == [("ab", "c"), ("de", "f")]
    assert sorted(e["message"] for e in result.errors) == [
        "Column 'b' contains a value with fewer characters than the specified length of row. Expected at least 3 "
        "characters but found 2 characters. (ecode: 2, directive: parse-as-fixed-length)",
        "Column 'b' has null value. It should be a non-null 'String'."]
    typed = directives.run_rows("parse-as-fixed-length :b 2", [{"b": 12345}], spark=spark)
    assert [e["message"] for e in typed.errors] == ["Column 'b' has invalid type 'Integer'. It should be of type "
                                                    "'String'."]


# -- CsvParser ---------------------------------------------------------------------------------------------------------
def test_csv_null_and_empty_values_are_left_alone(spark: object) -> None:
    """`line == null || line.isEmpty()` → continue: the row stays, with no parsed fields."""
    rows = [{"b": ""}, {"b": None}, {"b": "x,y"}]
    result = directives.run_rows("parse-as-csv :b ','", rows, spark=spark)
    assert [(r["b"], r["b_1"], r["b_2"]) for r in result.rows] == [("", None, None), (None, None, None),
                                                                  ("x,y", "x", "y")]


# -- XmlToJson ---------------------------------------------------------------------------------------------------------
def test_xml_numbers_stay_text_as_documented(spark: object) -> None:
    """org.json's XML.toJSONObject types `12` as a number and `true` as a boolean (keep-string false); here every
    leaf is text (docs/differences/parsers.md), digits and leading zeros kept as written."""
    doc = "<a><n>12</n><f>1.50</f><z>007</z><b>true</b></a>"
    (row,) = directives.run_rows("parse-xml-to-json :x", [{"x": doc}], spark=spark).rows
    assert (row["x_a_n"], row["x_a_f"], row["x_a_z"], row["x_a_b"]) == ("12", "1.50", "007", "true")


def test_xml_missing_and_null(spark: object) -> None:
    """A missing column is skipped; a null value throws DirectiveExecutionException (error row here)."""
    assert directives.run_rows("parse-xml-to-json :nope", [{"a": 1}], spark=spark).rows == [{"a": 1}]
    result = directives.run_rows("parse-xml-to-json :x", [{"x": None}, {"x": "<a>1</a>"}], spark=spark)
    assert result.rows == [{"x_a": "1"}]
    assert [e["message"] for e in result.errors] == ["Column 'x' does not exist."]
    typed = directives.run_rows("parse-xml-to-json :x", [{"x": 5}], spark=spark)
    assert [e["message"] for e in typed.errors] == ["Column 'x' has invalid type 'Integer'. It should be of type "
                                                    "'String'."]


# -- bad arguments: DirectiveParseException at compile time ------------------------------------------------------------
@pytest.mark.parametrize("recipe", ["parse-as-log :line ''", "parse-as-fixed-length :b 'x'", "parse-as-csv"])
def test_bad_parser_arguments_fail_the_recipe(recipe: str) -> None:
    with pytest.raises(RecipeError):
        directives.parse(recipe)
