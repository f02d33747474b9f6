"""Issue 21, bugs 3 and 4: inputs that crashed the parser or made it quadratic end in a result or a `RecipeError`.

Every case here once raised something other than a `RecipeError` (a traceback from `wrangler check`, a 500
from the API) or took time quadratic in its size. Speed itself is measured in
`bench/bench_parse_adversarial.py`; these tests pin what each input now gives: the directives it holds, or
an error with a line and a column.
"""

from __future__ import annotations

import pytest

import directives
from directives.catalog.dates import is_zone_id
from directives.java_text import charset_codec, java_unescape
from grammar.errors import SNIPPET_WIDTH, RecipeError, caret_snippet
from grammar.expression import MAX_BRACKET_DEPTH, MAX_DEPTH
from grammar.parser import MAX_ELSE_IFS, MAX_IF_DEPTH


def _error(text: str) -> RecipeError:
    with pytest.raises(RecipeError) as caught:
        directives.parse(text)
    for error in caught.value.errors:
        assert error.line is not None and error.column is not None, error
    return caught.value.errors[0]


def _warnings(text: str) -> list[str]:
    return [finding.message for finding in directives.parse(text).findings]


# ------------------------------------------------------------------ bug 4: crashes


@pytest.mark.parametrize("charset", ["\ud800", "a\x00", "utf\udfff8", "", " utf-8", "utf-8\n"])
def test_a_charset_name_python_cannot_look_up_is_a_warning(charset: str) -> None:
    text = f"set-charset :a '{charset}'" if "\n" not in charset else "set-charset :a 'utf-8\\n'"
    assert any("is not a character set" in message for message in _warnings(text))


def test_a_real_charset_still_passes() -> None:
    assert _warnings("set-charset :a 'utf-8'") == []
    assert charset_codec("ISO-8859-1") is not None and charset_codec("\ud800") is None


@pytest.mark.parametrize("directive", ["current-datetime :c", "datetime-to-timestamp :c"])
@pytest.mark.parametrize("zone", ["US", "America", "Etc", "zoneinfo", "../US", "US/"])
def test_a_folder_of_the_tz_database_is_not_a_zone(directive: str, zone: str) -> None:
    error = _error(f"{directive} '{zone}'")
    assert "is not a time zone" in error.message and error.line == 1 and error.column == len(directive) + 2


def test_parse_as_date_warns_on_a_folder_zone_as_wrangler_reads_it_in_gmt() -> None:
    assert any("is not a time zone" in message for message in _warnings("parse-as-date :c 'US'"))


@pytest.mark.parametrize("zone", ["US/Pacific", "Europe/Paris", "UTC", "Z", "+05:30", "GMT+2", "Etc/GMT-3"])
def test_real_zones_still_pass(zone: str) -> None:
    assert is_zone_id(zone)
    assert _warnings(f"current-datetime :c '{zone}'") == []


@pytest.mark.parametrize("zone", ["\ud800", "Europe/\x00Paris", "US\\Pacific"])
def test_zones_with_characters_no_zone_has_are_errors(zone: str) -> None:
    assert not is_zone_id(zone)


@pytest.mark.parametrize("delimiter", ["\\\ud800", "\\t\u20ac", "\\\\", "\\u12", "\\N{x}"])
def test_a_delimiter_escape_never_raises(delimiter: str) -> None:
    assert len(directives.parse(f"parse-as-csv :body '{delimiter}' false").steps) == 1
    assert java_unescape("\\t\u20ac") == "\t\u20ac"  # not the euro sign's UTF-8 bytes read as Latin-1
    assert java_unescape("\\u0041\\t") == "A\t"


# ------------------------------------------------------------------ bug 3: the quadratic shapes, parsed right


def test_a_line_of_leading_blanks_reads_its_directive_at_the_right_column() -> None:
    error = _error(" " * 20_000 + "x")
    assert (error.line, error.column) == (1, 20_001) and "'x' not found" in error.message
    assert len(error.snippet.split("\n")[0]) <= SNIPPET_WIDTH + 2  # the snippet is cut around the caret
    line, caret = error.snippet.split("\n")
    assert line[len(caret) - 1] == "x"


def test_blank_and_comment_lines_are_still_skipped() -> None:
    recipe = directives.parse(" \t \n// c\n-- c\n# c\n;;\n  ;  \ndrop :a")
    assert [step.directive.name for step in recipe.steps] == ["drop"]


def test_a_dotted_name_longer_than_the_cap_is_an_error_at_its_place() -> None:
    ok = directives.parse("set-column :a exp:{a" + ".b" * (MAX_DEPTH - 2) + "}")
    assert len(ok.steps) == 1
    error = _error("set-column :a exp:{a" + ".b" * 20_000 + "}")
    assert "more than" in error.message and error.line == 1 and error.column == 20


def test_deep_parentheses_are_an_error_not_a_recursion_error() -> None:
    depth = "set-column :a exp:{" + "(" * MAX_BRACKET_DEPTH + "a" + ")" * MAX_BRACKET_DEPTH + "}"
    assert len(directives.parse(depth).steps) == 1  # parentheses alone add no depth to the tree
    error = _error("set-column :a exp:{" + "(" * 20_000 + "a" + ")" * 20_000 + "}")
    assert "nested too deeply" in error.message and (error.line, error.column) == (1, 20 + MAX_BRACKET_DEPTH)
    error = _error("set-column :a exp:{" + "(a+" * 5_000 + "a" + ")" * 5_000 + "}")
    assert "nested too deeply" in error.message and error.line == 1
    quoted = "set-column :a exp:{'" + "(" * 5_000 + "' + a}"  # brackets in a string do not nest
    assert len(directives.parse(quoted).steps) == 1
    error = _error("set-column :a exp:{" + "(" * 20_000 + "}")
    assert error.line == 1


def test_deeply_nested_if_blocks_are_an_error_with_a_position() -> None:
    inside = directives.parse("if (a) {\n" * MAX_IF_DEPTH + "drop :a\n" + "}\n" * MAX_IF_DEPTH)
    assert len(inside.steps) == 1
    error = _error("if (a) {\n" * 7_000 + "drop :a\n" + "}\n" * 7_000)
    assert "nested more than" in error.message and (error.line, error.column) == (MAX_IF_DEPTH + 1, 1)


def test_an_if_with_too_many_else_if_branches_is_an_error() -> None:
    branches = "".join(" else if (b) { drop :a }" for _ in range(MAX_ELSE_IFS + 1))
    error = _error("if (a) { drop :a }" + branches)
    assert "else if" in error.message and error.line == 1


def test_many_directives_on_one_line_all_parse() -> None:
    recipe = directives.parse("drop :a;" * 5_000)
    assert len(recipe.steps) == 5_000 and recipe.steps[-1].directive.call.column == 8 * 4_999 + 1


def test_a_property_number_of_thousands_of_digits_parses() -> None:
    # the fuzz campaign's first finding: int() refuses more than 4,300 digits (ValueError)
    from grammar.parser import parse_recipe

    call = parse_recipe("v prop:{ue=" + "9" * 5_000 + "}").directives[0]
    assert call.args[0].value == {"ue": float("inf")}
    directives.validate("v prop:{ue=" + "9" * 5_000 + "}")


@pytest.mark.parametrize("depth", ["9" * 5_000, "9" * 400 + ".5"])
def test_a_depth_too_large_for_a_float_is_a_warning(depth: str) -> None:
    recipe = directives.parse(f"parse-as-json :a {depth}")
    assert any("positive whole number" in finding.message for finding in recipe.findings)


def test_a_rewritten_command_with_many_quoted_words_is_one_arity_error() -> None:
    error = _error("rename" + " 'x'" * 20_000)
    assert "expected 2 argument(s), got 20000" in error.message and (error.line, error.column) == (1, 1)


def test_many_errors_on_one_long_line_each_carry_a_short_snippet() -> None:
    with pytest.raises(RecipeError) as caught:
        directives.parse("nosuch :a;" * 3_000)
    errors = caught.value.errors
    assert len(errors) == 3_000
    assert all(len(error.snippet) < 2 * SNIPPET_WIDTH + 10 for error in errors)
    assert errors[-1].column == 10 * 2_999 + 1


def test_caret_snippet_of_a_short_line_is_unchanged() -> None:
    assert caret_snippet("drop :a\nrename :b :c", 2, 8) == "rename :b :c\n       ^"
    assert caret_snippet("a\r\nbb", 1, 1) == "a\n^"


@pytest.mark.parametrize("recipe", [
    "parse-as-fixed-length :a {big}", "parse-as-fixed-length :a 2,{big}", "set-record-delim :a ',' {big}",
    "indexsplit :a {big} 2 :b", "indexsplit :a 1 {big} :b", "parse-as-fixed-length :h 2{mid}", "parse-as-json :a {mid}",
    "set-record-delim :a ',' {mid}", "indexsplit :a 1 {mid} :b",
])
def test_a_number_of_thousands_of_digits_is_a_finding_not_an_overflow(recipe: str) -> None:
    # the second campaign's finding (seed 2027): int(inf) raised OverflowError while labelling
    # {mid}: an int no float holds (math.isfinite of it raises), found right after the first fix
    text = recipe.format(big="9" * 5_000, mid="9" * 400)
    for finding in directives.validate(text):
        assert isinstance(finding, RecipeError) and finding.line == 1
    directives.parse(text)


@pytest.mark.parametrize("url", ["p://[ a", "http://[::1", "https://[zz]/x"])
def test_a_malformed_url_is_a_warning_not_a_value_error(url: str) -> None:
    # the third campaign's finding (input 901754): urlsplit raised ValueError ("Invalid IPv6 URL")
    findings = directives.validate(f"invoke-http '{url}' :a")
    assert all(isinstance(finding, RecipeError) for finding in findings)
    assert any("not an http(s) URL" in str(finding) for finding in findings)
