"""The parser family's declarations: usage strings, argument checks with positions, labels and row effects."""

from __future__ import annotations

from typing import ClassVar

import pytest

import directives
import directives.catalog.parsers as parsers
from directives import RowEffect
from directives.logformat import LogFormatError, compile_format, log_fields
from grammar.errors import DirectiveArgumentError, RecipeError
from lineage.backtrack import Backtracker
from tests.directives.support import (
    FamilyDeclarations,
    assert_error_at,
    assert_wrangler_accepts_with_warning,
    family_names,
    step_labels,
)


def test_the_family_leaves_dates_to_their_family() -> None:
    names = family_names(parsers)
    assert "parse-as-date" not in names and "parse-timestamp" not in names


class TestDeclarations(FamilyDeclarations):
    family = parsers
    usages: ClassVar[dict[str, str]] = {
        "parse-as-csv": "parse-as-csv :col  ['delimiter'] [header (true/false)]",
        "parse-as-fixed-length": "parse-as-fixed-length :column width[,width ...]*  ['padding']",
        "parse-as-hl7": "parse-as-hl7 :column  [depth]",
        "parse-as-json": "parse-as-json :column  [depth]",
        "json-path": "json-path :source :destination 'json-path'",
        "parse-as-avro": "parse-as-avro :column schema-id encode-type  [version]",
        "parse-as-avro-file": "parse-as-avro-file :column",
        "parse-as-excel": "parse-as-excel :column  ['sheet'] [first-row-as-header (true/false)]",
        "parse-as-log": "parse-as-log :column 'format'",
        "parse-as-protobuf": "parse-as-protobuf :column schema-id 'record-name'  [version]",
        "parse-xml-to-json": "parse-xml-to-json :column  [depth] [keep-string (true/false)]",
    }


@pytest.mark.parametrize(
    ("v1", "expected"),
    [
        ("parse-as-csv body , true", {"col": "body", "delimiter": ",", "header": True}),
        ("parse-as-csv body ,", {"col": "body", "delimiter": ","}),
        ("parse-as-json body 2", {"column": "body", "depth": 2}),
        ("parse-as-fixed-length body 2,3,1", {"column": "body", "width": [2, 3, 1]}),
        ("json-path body city $.address.city", {"source": "body", "destination": "city",
                                                  "json-path": "$.address.city"}),
        ("parse-as-log line %h %l %u", {"column": "line", "format": "%h %l %u"}),
    ],
)
def test_v1_lines_bind_as_wrangler_rewrites_them(v1: str, expected: dict[str, object]) -> None:
    (step,) = directives.parse(v1).steps
    assert step.directive.args_json() == expected


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("parse-as-csv :body ''", 20, "delimiter cannot be empty"),
        ("parse-as-avro :body sid xml", 25, "Avro encoding 'xml'"),
        ("parse-as-log :line ''", 20, "log format is empty"),
    ],
)
def test_bad_arguments_point_at_the_argument(text: str, column: int, fragment: str) -> None:
    assert assert_error_at("trim :ok\n" + text, DirectiveArgumentError, 2, column, fragment).hint


@pytest.mark.parametrize(
    ("text", "column", "fragment", "runnable"),
    [
        ("parse-as-json :body 0", 21, "Depth must be a positive", False),
        ("parse-xml-to-json :body -1", 25, "Depth must be a positive", False),
        ("parse-as-fixed-length :body 2,0,3", 29, "Width '0'", False),
        ("json-path :a :b ''", 17, "JSON path is empty", False),
        ("json-path :a :b '$.a[0'", 17, "unbalanced", False),
    ],
)
def test_values_wrangler_does_not_check_are_warnings(text: str, column: int, fragment: str, runnable: bool) -> None:
    assert_wrangler_accepts_with_warning(text, column, fragment, runnable=runnable)


def test_wrong_argument_kinds_are_errors() -> None:
    with pytest.raises(RecipeError):
        directives.parse("json-path :a :b")
    with pytest.raises(RecipeError):
        directives.parse("parse-as-protobuf :body sid")


def test_csv_delimiter_is_its_first_character_java_unescaped() -> None:
    def delimiter(text: str) -> str:
        (step,) = directives.parse(text).steps
        directive = step.directive
        assert isinstance(directive, parsers.ParseAsCsv)
        return directive.delimiter

    assert delimiter("parse-as-csv :body") == ","
    assert delimiter("parse-as-csv :body '\\t'") == "\t"
    assert delimiter("parse-as-csv :body ';;'") == ";"
    assert delimiter("parse-as-csv :body '\\u0009'") == "\t"


def test_csv_labels_are_a_numbered_pattern_or_the_header_names() -> None:
    assert step_labels("parse-as-csv :body ','") == [
        {"column": "body", "label": "READ"},
        {"column": "body_<n>", "label": "ADD", "sources": ["body"], "pattern": True},
    ]
    header = step_labels("parse-as-csv :body ',' true")
    assert header[1] == {"column": "<header>", "label": "ADD", "sources": ["body"], "pattern": True}


def test_csv_members_resolve_through_later_directives_with_a_schema() -> None:
    recipe = directives.parse("parse-as-csv :body ','\ndrop :body\nrename :body_1 :id\nrename :body_2 :name",
                              ["body", "other"])
    assert recipe.findings == ()
    assert recipe.final_columns.names() == ["other", "id", "name"]
    lineage = Backtracker(recipe).lineage("id").tree
    assert lineage.label == "RENAME" and lineage.before == "body_1"
    (parsed,) = lineage.upstream
    assert parsed.label == "ADD" and parsed.directive is not None and parsed.directive.name == "parse-as-csv"
    assert [node.column for node in parsed.upstream] == ["body"]


def test_csv_header_flag_makes_the_directive_a_filter_and_only_then() -> None:
    (plain,) = directives.parse("parse-as-csv :body ','").steps
    (header,) = directives.parse("parse-as-csv :body ',' true").steps
    assert plain.directive.row_effect is RowEffect.NONE
    assert header.directive.row_effect is RowEffect.FILTER


def test_json_labels_read_generate_and_keep_the_source_inexactly() -> None:
    # An object removes the source, an array keeps it holding one element per row (JsParser.execute): the label
    # says MODIFY, not exact, so a run that keeps it is explained by the lineage.
    labels = step_labels("parse-as-json :event", ["event", "id"])
    assert labels == [
        {"column": "event", "label": "READ"},
        {"column": "event_<key>", "label": "ADD", "sources": ["event"], "pattern": True},
        {"column": "event", "label": "MODIFY", "sources": ["event"], "exact": False},
    ]
    recipe = directives.parse("parse-as-json :event\nrename :event_name_first :first", ["event", "id"])
    assert recipe.findings == ()
    assert "event" in recipe.final_columns.names()
    assert "first" in recipe.final_columns.names()


def test_json_array_of_objects_parsed_twice_is_not_flagged() -> None:
    # Flattening an array of objects takes two parses of the same column; the first one keeps it.
    assert directives.parse("parse-as-json :body\nparse-as-json :body", ["body"]).findings == ()


def test_json_path_labels_a_conditional_copy() -> None:
    assert step_labels("json-path :body :city '$.city'", ["body"]) == [
        {"column": "body", "label": "READ"},
        {"column": "city", "label": "ADD", "sources": ["body"]},
    ]
    assert step_labels("json-path :body :city '$.city'", ["body", "city"])[1]["label"] == "MODIFY"
    assert step_labels("json-path :body :body '$.inner'") == [
        {"column": "body", "label": "MODIFY", "sources": ["body"]}]


def test_json_path_gets_jaywys_implicit_root() -> None:
    def path(text: str) -> str:
        (step,) = directives.parse(text).steps
        assert isinstance(step.directive, parsers.JsonPath)
        return step.directive.path

    assert path("json-path :a :b 'x.y'") == "$.x.y"
    assert path("json-path :a :b '[0].y'") == "$[0].y"
    assert path("json-path :a :b '$.x'") == "$.x"


def test_fixed_length_labels_exact_names_from_the_widths() -> None:
    labels = step_labels("parse-as-fixed-length :body 2,4,1 ' '", ["body"])
    assert labels == [{"column": "body", "label": "READ"}] + [
        {"column": f"body_{i}", "label": "ADD", "sources": ["body"]} for i in (1, 2, 3)
    ]
    recipe = directives.parse("parse-as-fixed-length :body 2,4 ' '\nrename :body_3 :x", ["body"])
    assert next(finding.rule for finding in recipe.findings) == "column-not-found"
    assert directives.parse("parse-as-fixed-length :body 2,4\nrename :body_2 :x", ["body"]).findings == ()
    (step,) = directives.parse("parse-as-fixed-length :body 2,4").steps
    assert step.directive.row_effect is RowEffect.MULTIPLY
    assert isinstance(step.directive, parsers.ParseAsFixedLength) and step.directive.padding is None


def test_xml_drops_the_source_exactly() -> None:
    labels = step_labels("parse-xml-to-json :doc 2", ["doc"])
    assert labels[-1] == {"column": "doc", "label": "DROP"}
    assert labels[1]["column"] == "doc_<key>" and labels[1]["pattern"] is True


def test_hl7_keeps_the_source_and_generates_hl7_columns() -> None:
    labels = step_labels("parse-as-hl7 :msg", ["msg"])
    assert [label["label"] for label in labels] == ["READ", "ADD"]
    assert labels[1]["column"] == "msg_hl7_<key>"


def test_replacing_parsers_drop_every_column_exactly_with_a_schema() -> None:
    for text in ("parse-as-avro :body sid binary", "parse-as-avro-file :body", "parse-as-protobuf :body sid 'P'"):
        with_schema = step_labels(text, ["body", "a", "b"])
        assert {"column": "a", "label": "DROP"} in with_schema and {"column": "body", "label": "DROP"} in with_schema
        without = step_labels(text)
        assert {"column": "*", "label": "DROP", "pattern": True, "exact": False} in without
        assert without[-1]["column"] == "<field>" and without[-1]["pattern"] is True
        # Any later name may be a decoded field, so reading one is not "column not found" with a schema.
        recipe = directives.parse(text + "\nuppercase :anything", ["body", "a"])
        assert recipe.findings == ()
        assert "a" not in recipe.final_columns.names()


def test_excel_drops_the_source_and_adds_row_numbers_and_cells() -> None:
    labels = step_labels("parse-as-excel :sheet", ["sheet"])
    assert [(label["column"], label["label"]) for label in labels] == [
        ("sheet", "READ"), ("sheet", "DROP"), ("fwd", "ADD"), ("bkd", "ADD"), ("<cell>", "ADD")]


def test_log_labels_name_each_field_of_the_format() -> None:
    labels = step_labels("parse-as-log :line '%h %u [%t] \"%r\" %>s'", ["line"])
    columns = [label["column"] for label in labels]
    assert columns[:5] == ["line", "ip_connection_client_host", "ip_connection_client_host_last",
                           "string_connection_client_user", "string_connection_client_user_last"]
    assert {"time_day_request_receive_time_last_day", "http_method_request_firstline_method",
            "http_querystring_request_firstline_uri_query", "string_request_status_last"} <= set(columns)
    assert columns[-1] == "string_request_status_last"
    assert all(label["label"] == "ADD" for label in labels[1:])
    unknown = step_labels("parse-as-log :line '%h %Z'")
    assert unknown[1] == {"column": "<field>", "label": "ADD", "sources": ["line"], "pattern": True}


def test_log_formats_compile_to_anchored_regexes() -> None:
    common = compile_format("common")
    assert common.regex.startswith("^") and common.regex.endswith("$")
    assert common.groups == compile_format('%h %l %u %t "%r" %>s %b').groups
    assert "http_useragent_request_user_agent" in log_fields("combined")
    with pytest.raises(LogFormatError):
        compile_format("no directives")
    with pytest.raises(LogFormatError):
        compile_format("%h %h")


def test_descriptions_follow_wrangler() -> None:
    def describe(text: str) -> str:
        (step,) = directives.parse(text).steps
        return step.directive.describe()

    assert describe("parse-as-csv :body ','") == "Parsed column 'body' as CSV with delimiter ','"
    assert describe("parse-as-json :body") == "Parsed column 'body' as Json"
    assert describe("parse-xml-to-json :x") == "Converted xml in column 'x' to json"
    assert describe("json-path :a :b '$.c'") == (
        "Extracted value from column 'a' represented as Json to destination column 'b' using path '$.c'")
