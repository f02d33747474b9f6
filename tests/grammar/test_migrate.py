"""Wrangler's v1 → v2 line rewriter: every command of its switch, its quirks, its errors, and robustness.

Expected strings are what Wrangler's `MigrateToV2` produces (conformance cases verbatim; the rest
worked out from its source), so a change here means a recipe would read differently than in Wrangler.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammar.errors import RecipeSyntaxError
from grammar.migrate import V1_ONLY_COMMANDS, V1_SWITCH_COMMANDS, V1_TARGET_UNKNOWN, migrate, migrate_line
from tests.paths import CONFORMANCE


def _migrate_cases() -> list[dict[str, object]]:
    if not CONFORMANCE.exists():
        return []
    cases = [json.loads(line) for line in CONFORMANCE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [case for case in cases if case["kind"] == "migrate"]


MIGRATE_CASES = _migrate_cases()


@pytest.mark.skipif(not MIGRATE_CASES, reason="conformance corpus not available")
@pytest.mark.parametrize("case", MIGRATE_CASES, ids=[str(case["id"]) for case in MIGRATE_CASES])
def test_conformance_migrate_case(case: dict[str, object]) -> None:
    (line,) = case["directives"]  # type: ignore[misc]
    expect = case["expect"]
    assert isinstance(expect, dict)
    result = migrate_line(line)
    if "migrated" in expect:
        assert result == expect["migrated"]
    if expect.get("error") is False:
        assert result is None or isinstance(result, str)


# One row per command of Wrangler's switch (plus every `set` and `filter-rows-on` form).
SWITCH_TABLE: list[tuple[str, str]] = [
    ("rename a b", "rename :a :b;"),
    ("set-type value int", "set-type :value int null null null;"),
    ("set-type price decimal 2 HALF_UP 10", "set-type :price decimal 2 HALF_UP 10;"),
    ("drop body", "drop :body;"),
    ("drop a,b", "drop :a,:b;"),
    ("merge first last name  - ", "merge :first :last :name '-';"),
    ("uppercase name", "uppercase :name;"),
    ("lowercase name", "lowercase :name;"),
    ("titlecase name", "titlecase :name;"),
    ("indexsplit src 1 4 dst", "indexsplit :src 1 4 :dst;"),
    ("split name , fname lname", "split :name ',' :fname :lname;"),
    ("filter-row-if-matched name ^A.* b", "filter-by-regex if-matched :name '^A.* b';"),
    ("filter-row-if-not-matched name ^A", "filter-by-regex if-not-matched :name '^A';"),
    ("filter-row-if-true age < 10.0", "filter-row exp:{age < 10.0} true;"),
    ("filter-row-if-false age < 10.0", "filter-row exp:{age < 10.0} false;"),
    ("filter-rows-on condition-true age > 10", "filter-row exp:{age > 10} true;"),
    ("filter-rows-on condition-false age > 10", "filter-row exp:{age > 10} false;"),
    ("filter-rows-on empty-or-null-columns a,b", "filter-empty-or-null :a,:b;"),
    ("filter-rows-on regex-match name ^A", "filter-by-regex if-matched :name '^A';"),
    ("filter-rows-on regex-not-match name ^A", "filter-by-regex if-not-matched :name '^A';"),
    ("set column total price * qty", "set-column :total exp:{price * qty};"),
    ("set columns a,b,c", "set-headers :a,:b,:c;"),
    ("set-variable x a + 1", "set-variable x exp:{a + 1};"),
    ("increment-variable n 1 a > 0", "increment-variable n 1 exp:{a > 0};"),
    ("mask-number ssn xxx-xx-####", "mask-number :ssn 'xxx-xx-####';"),
    ("mask-shuffle ssn", "mask-shuffle :ssn;"),
    ("format-date d yyyy-MM-dd HH:mm", "format-date :d 'yyyy-MM-dd HH:mm';"),
    ("format-unix-timestamp timestamp yyyy/MM/dd", "format-unix-timestamp :timestamp 'yyyy/MM/dd';"),
    ("quantize col1 col2 1:2=test,3:4=test1", "quantize :col1 :col2 1:2=test,3:4=test1;"),
    ("find-and-replace a,b s/x/y/g", "find-and-replace :a,:b 's/x/y/g';"),
    ("parse-as-csv body , true", "parse-as-csv :body ',' true;"),
    ("parse-as-json body 2", "parse-as-json :body 2;"),
    ("parse-as-avro body sid json 3", "parse-as-avro :body sid json 3;"),
    ("parse-as-protobuf body sid Rec 1", "parse-as-protobuf :body sid 'Rec' 1;"),
    ("json-path src dst $.a.b", "json-path :src :dst '$.a.b';"),
    ("set-charset body utf-8", "set-charset :body utf-8;"),
    ("invoke-http http://x a,b h1=v", "invoke-http 'http://x' :a,:b 'h1=v';"),
    ("set-record-delim body , 10", "set-record-delim :body ',' 10;"),
    ("parse-as-fixed-length body 2,3 _", "parse-as-fixed-length :body 2,3 '_';"),
    ("split-to-rows body ,", "split-to-rows :body ',';"),
    ("split-to-columns body ,", "split-to-columns :body ',';"),
    ("parse-xml-to-json body 1", "parse-xml-to-json :body 1;"),
    ("parse-as-xml body", "parse-as-xml :body;"),
    ("xpath name fname /items/item/first_name", "xpath :name :fname '/items/item/first_name';"),
    ("xpath-array name fname /items/item/first_name", "xpath-array :name :fname '/items/item/first_name';"),
    ("flatten a,b", "flatten :a,:b;"),
    ("copy a b", "copy :a :b;"),
    ("copy a b true", "copy :a :b true;"),
    ("fill-null-or-empty a N/A value", "fill-null-or-empty :a 'N/A value';"),
    ("cut-character src dst 1-3", "cut-character :src :dst '1-3';"),
    ("generate-uuid ssn", "generate-uuid :ssn;"),
    ("url-encode url", "url-encode :url;"),
    ("url-decode url", "url-decode :url;"),
    ("parse-as-log body %h %l", "parse-as-log :body '%h %l';"),
    ("parse-as-date date UTC", "parse-as-date :date 'UTC';"),
    ("parse-as-simple-date d MM/dd/yyyy", "parse-as-simple-date :d 'MM/dd/yyyy';"),
    ("diff-date date1 date2 diffdate", "diff-date :date1 :date2 :diffdate;"),
    ("keep a,b", "keep :a,:b;"),
    ("parse-as-hl7 body 3", "parse-as-hl7 :body 3;"),
    ("split-email email", "split-email :email;"),
    ("swap col1 col2", "swap :col1 :col2;"),
    ("hash col SHA1 true", "hash :col 'SHA1' true;"),
    ("write-as-json-map output", "write-as-json-map :output;"),
    ("write-as-json-object output fname,lname,address", "write-as-json-object :output :fname,:lname,:address;"),
    ("write-as-csv output", "write-as-csv :output;"),
    ("parse-as-avro-file body", "parse-as-avro-file :body;"),
    ("send-to-error age < 0", "send-to-error exp:{age < 0};"),
    ("fail Fare < 8.06", "fail exp:{Fare < 8.06};"),
    ("text-distance block a b d", "text-distance 'block' :a :b :d;"),
    ("text-metric abc col1 col2 output", "text-metric 'abc' :col1 :col2 :output;"),
    ("catalog-lookup ICD-10 code", "catalog-lookup 'ICD-10' :code;"),
    ("table-lookup value mylookup-table", "table-lookup :value 'mylookup-table';"),
    ("stemming words", "stemming :words;"),
    ("columns-replace s/^x_//", "columns-replace 's/^x_//';"),
    ("extract-regex-groups body (\\d+)", "extract-regex-groups :body '(\\d+)';"),
    ("split-url url", "split-url :url;"),
    ("cleanse-column-names", "cleanse-column-names;"),
    ("change-column-case upper", "change-column-case upper;"),
    ("set-column total price * qty", "set-column :total exp:{price * qty};"),
    ("encode base64 binary", "encode 'base64' :binary;"),
    ("decode base64 binary", "decode 'base64' :binary;"),
    ("trim name", "trim :name;"),
    ("ltrim name", "ltrim :name;"),
    ("rtrim name", "rtrim :name;"),
]


@pytest.mark.parametrize(("v1", "v2"), SWITCH_TABLE, ids=[v1 for v1, _ in SWITCH_TABLE])
def test_switch_command_rewrite(v1: str, v2: str) -> None:
    assert migrate_line(v1) == v2


def test_every_switch_command_is_in_the_table() -> None:
    covered = {v1.split(" ", 1)[0] for v1, _ in SWITCH_TABLE}
    assert covered == V1_SWITCH_COMMANDS
    assert len(V1_SWITCH_COMMANDS) == 76  # the `case` labels of Wrangler's switch
    options = {v1.split(" ")[1] for v1, _ in SWITCH_TABLE if v1.startswith("filter-rows-on ")}
    assert options == {"condition-true", "condition-false", "empty-or-null-columns", "regex-match", "regex-not-match"}


# Wrangler's observable quirks, reproduced on purpose.
QUIRKS: list[tuple[str, str | None]] = [
    # Lines dropped or passed through before the switch.
    ("", None),
    ("   \t ", None),
    ("// rename a b", None),
    ("# a comment", None),
    ("set foo bar", None),
    ("set column-x a", None),
    ("#pragma version 2.0", "#pragma version 2.0"),
    ("  #pragma load-directives my-udd;  ", "#pragma load-directives my-udd;"),
    ("#pragma load exp:{x}", "#pragma load exp:{x};"),
    ("set-column :a exp:{ b + 1 }", "set-column :a exp:{ b + 1 };"),
    ("set-column :a exp:{ b + 1 };", "set-column :a exp:{ b + 1 };"),
    ("set-type :x decimal prop:{precision=10}", "set-type :x decimal prop:{precision=10};"),
    ("// exp: in a comment", None),
    # Default branch: `;` appended unless already there (after one was removed) or a `$` macro.
    ("no-such-directive a b", "no-such-directive a b;"),
    ("foo;;", "foo;"),
    (";;", ";"),
    ("${macro}", "${macro}"),
    ("${macro};", "${macro}"),
    ("rename\ta b", "rename\ta b;"),  # a tab is not a word separator, so the command is `rename\ta`
    ("\t rename a b \r", "rename :a :b;"),
    # Already-v2 text survives col()/quote().
    ("rename :a :b;", "rename :a :b;"),
    ("mask-number :ssn 'xxx-xx-####';", "mask-number :ssn 'xxx-xx-####';"),
    ('merge :a :b :c "x y"', 'merge :a :b :c "x y";'),
    # quote(): text containing `'` gets double quotes; a lone quote char counts as already quoted.
    ("fill-null-or-empty a it's", 'fill-null-or-empty :a "it\'s";'),
    ("mask-number ssn 'x", "mask-number :ssn \"'x\";"),
    ("mask-number ssn '", "mask-number :ssn ';"),
    # Words after the last field are discarded.
    ("rename a b c", "rename :a :b;"),
    ("cleanse-column-names now please", "cleanse-column-names;"),
    # Absent optionals print `null` (String.format), or nothing where quote() is applied.
    ("set-type a decimal 2", "set-type :a decimal 2 null null;"),
    ("parse-as-json body", "parse-as-json :body null;"),
    ("hash col SHA-256", "hash :col 'SHA-256' null;"),
    ("set-charset body", "set-charset :body null;"),
    ("set-record-delim body ,", "set-record-delim :body ',' null;"),
    ("parse-as-date date", "parse-as-date :date ;"),
    ("invoke-http u a,b", "invoke-http 'u' :a,:b ;"),
    ("parse-as-fixed-length body 2,3", "parse-as-fixed-length :body 2,3 ;"),
    ("parse-as-csv body ,", "parse-as-csv :body ',' ;"),
    ("parse-as-avro body sid json", "parse-as-avro :body sid json null;"),
    # parse-as-csv drops one `;` from its delimiter word (after the line's own `;` was removed).
    ("parse-as-csv body ;;", "parse-as-csv :body '' ;"),
    ("parse-as-csv body \\t false;", "parse-as-csv :body '\\t' false;"),
    # copy omits an absent or empty force.
    ("copy a b ", "copy :a :b;"),
    # split-to-rows / split-to-columns: last argument truncated to one word.
    ("split-to-rows body a b", "split-to-rows :body 'a';"),
    ("split-to-columns body \\s+ x", "split-to-columns :body '\\s+';"),
    # … but set-record-delim and parse-as-fixed-length read their last argument to the end of the line.
    ("parse-as-fixed-length :body 1,9,20 ' '", "parse-as-fixed-length :body 1,9,20 ' ';"),
    ("set-record-delim body , 10 x", "set-record-delim :body ',' 10 x;"),
    # Rest-of-line fields keep inner spaces and are trimmed at both ends.
    ("merge a b c   , ", "merge :a :b :c ',';"),
    ("quantize a b  1:2=x, 3:4=y", "quantize :a :b 1:2=x, 3:4=y;"),
    # Look-ahead is space-delimited, so a lone tab before the `;` is an (empty) value, not a missing one.
    ("fail \t;", "fail exp:{};"),
    ("copy a b \t;", "copy :a :b;"),
    ("parse-as-json body \t;", "parse-as-json :body ;"),
    # Column lists split like Java's String.split(","): trailing empties vanish, inner ones stay.
    ("drop a,,b,,", "drop :a,:,:b;"),
    ("drop ,", "drop ;"),
    ("drop a, b,c", "drop :a;"),  # a one-word field: ` b,c` is discarded
    ("keep :a,b", "keep :a,:b;"),
    ("set columns a, b ,c,", "set-headers :a,:b,:c;"),
    # filter-rows-on options are case-insensitive (Java equalsIgnoreCase, including ı → i).
    ("filter-rows-on CONDITION-TRUE x > 1", "filter-row exp:{x > 1} true;"),
    ("filter-rows-on Regex-Match c a b", "filter-by-regex if-matched :c 'a b';"),
    ("filter-rows-on condıtion-false x", "filter-row exp:{x} false;"),
    # set-variable / increment-variable keep the variable name as a bare word.
    ("set-variable :x 1", "set-variable :x exp:{1};"),
    # Unknown-to-v2 targets are still rewritten.
    ("parse-as-xml :body", "parse-as-xml :body;"),
]


@pytest.mark.parametrize(("line", "expected"), QUIRKS, ids=[repr(line) for line, _ in QUIRKS])
def test_quirk(line: str, expected: str | None) -> None:
    assert migrate_line(line) == expected


ERRORS: list[tuple[str, str]] = [
    ("rename a", "Missing field 'new'"),
    ("rename", "Missing field 'old'"),
    ("rename;", "Missing field 'old'"),
    ("parse-as-csv :body", "Missing field 'delimiter'"),
    ("set column", "Missing field 'column-name'"),
    ("set column c", "Missing field 'jexl-expression'"),
    ("set columns", "Missing field 'name1,name2,...'"),
    ("set-type a", "Missing field 'type'"),
    ("filter-row-if-true", "Missing field 'condition'"),
    ("fail \t ", "Missing field 'condition'"),
    ("fail ;", "Missing field 'condition'"),
    ("quantize a b", "Missing field 'ranges'"),
    ("format-date", "Missing field 'column'"),
    ("split-to-rows body", "Missing field 'separator'"),
    ("text-metric m a b", "Missing field 'destination'"),
    ("filter-rows-on", "Missing field 'option'"),
    ("filter-rows-on regex-match c", "Missing field 'regex'"),
    ("filter-rows-on condition-maybe x", "Unknown option 'condition-maybe'"),
    ("set", "Incomplete v1 directive 'set'"),
    ("set;", "Incomplete v1 directive 'set'"),
    (";", "Empty directive"),
]


@pytest.mark.parametrize(("line", "message"), ERRORS, ids=[line for line, _ in ERRORS])
def test_error(line: str, message: str) -> None:
    with pytest.raises(RecipeSyntaxError) as caught:
        migrate_line(line, 42)
    error = caught.value
    assert error.message.startswith(message)
    assert error.line == 42
    assert error.column is not None and error.column >= 1
    assert error.hint


def test_missing_field_hint_shows_v1_usage_and_points_after_the_line() -> None:
    with pytest.raises(RecipeSyntaxError) as caught:
        migrate_line("  rename a", 3)
    assert caught.value.hint == "v1 usage: rename <old> <new>"
    assert caught.value.column == 11
    assert caught.value.directive == "rename"


def test_unknown_option_points_at_the_option_and_lists_the_valid_ones() -> None:
    with pytest.raises(RecipeSyntaxError) as caught:
        migrate_line(" filter-rows-on nope x", 5)
    assert caught.value.column == 17
    assert caught.value.hint is not None and "condition-true" in caught.value.hint


def test_optional_fields_appear_as_optional_in_the_usage() -> None:
    with pytest.raises(RecipeSyntaxError) as caught:
        migrate_line("hash col")
    assert caught.value.hint == "v1 usage: hash <column> <algorithm> [<encode>]"


def test_migrate_joins_kept_lines_and_reports_physical_line_numbers() -> None:
    text = "\n  \n// comment\nrename a b\r\nset foo\n#pragma version 2.0;\ndrop c\n"
    assert migrate(text) == "rename :a :b;\n#pragma version 2.0;\ndrop :c;"
    with pytest.raises(RecipeSyntaxError) as caught:
        migrate("rename a b\n\n# x\nmerge a b")
    assert caught.value.line == 4


def test_migrate_of_nothing_is_empty() -> None:
    assert migrate("") == ""
    assert migrate("\n// only a comment\n") == ""


def test_exported_command_sets() -> None:
    assert {"set", "filter-rows-on", "filter-row-if-matched", "filter-row-if-not-matched", "filter-row-if-true",
            "filter-row-if-false"} == V1_ONLY_COMMANDS
    assert {"format-unix-timestamp", "parse-as-xml", "xpath", "xpath-array"} == V1_TARGET_UNKNOWN
    assert V1_ONLY_COMMANDS <= V1_SWITCH_COMMANDS
    assert V1_TARGET_UNKNOWN <= V1_SWITCH_COMMANDS


def test_a_large_recipe_migrates_line_for_line() -> None:
    """Speed is bench_parse's job; here, ~10,000 lines come out as many lines, each as migrated alone."""
    lines = [v1 for v1, _ in SWITCH_TABLE] * 125
    out = migrate("\n".join(lines)).split("\n")
    assert len(out) == len(lines)
    assert out[: len(SWITCH_TABLE)] == [migrate(line) for line, _ in SWITCH_TABLE]


_SPECIAL_WORDS = ["column", "columns", "condition-true", "regex-match", "empty-or-null-columns", "exp:", "prop:",
                  "#pragma", "//", "#", "$", ";", ",", "'", '"', ":a", "a,b", "\t", "\n", "\r", " ", "ı"]
_WORDS = st.sampled_from([*sorted(V1_SWITCH_COMMANDS), *_SPECIAL_WORDS])
_LINES = st.one_of(
    st.text(),
    st.lists(st.one_of(_WORDS, st.text(max_size=4)), max_size=8).map(" ".join),
)


@settings(max_examples=400, deadline=None)
@given(_LINES)
def test_any_text_gives_text_none_or_syntax_error(line: str) -> None:
    try:
        result = migrate_line(line)
    except RecipeSyntaxError as error:
        assert error.line == 1
        return
    assert result is None or isinstance(result, str)
    if result is not None:
        stripped = line.strip("".join(chr(c) for c in range(0x21)))
        assert result.endswith(";") or stripped.startswith(("$", "#pragma"))


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINES, max_size=6).map("\n".join))
def test_any_recipe_gives_text_or_syntax_error(text: str) -> None:
    try:
        result = migrate(text)
    except RecipeSyntaxError:
        return
    assert isinstance(result, str)
