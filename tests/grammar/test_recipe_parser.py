"""The recipe grammar: every token form, positions, statements, blocks, and clear syntax errors."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar.errors import RecipeError, RecipeSyntaxError
from grammar.nodes import Expression, TokenKind
from grammar.parser import parse_recipe


def kinds(text: str) -> list[list[str]]:
    return [[arg.kind.name for arg in call.args] for call in parse_recipe(text).directives]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rename :a :b", [["COLUMN", "COLUMN"]]),
        ("drop :a,:b, :c", [["COLUMN_LIST"]]),
        ("parse-as-csv :body ',' true", [["COLUMN", "TEXT", "BOOL"]]),
        ('merge :a :b :c "x y"', [["COLUMN", "COLUMN", "COLUMN", "TEXT"]]),
        ("parse-as-fixed-length :body 2,3,4 ' '", [["COLUMN", "NUMBER_LIST", "TEXT"]]),
        ("x 'a','b'", [["TEXT_LIST"]]),
        ("x true,false", [["BOOL_LIST"]]),
        ("filter-by-regex if-matched :c '.*'", [["IDENTIFIER", "COLUMN", "TEXT"]]),
        ("set-column :t exp:{ a * b }", [["COLUMN", "EXPRESSION"]]),
        ("set-type :x decimal 2 'HALF_UP' prop:{precision=10}", [["COLUMN", "IDENTIFIER", "NUMBER", "TEXT",
                                                              "PROPERTIES"]]),
        ("quantize :a :b 1:2='x',3.5:4=5,-10:-5=:c,6:7=true", [["COLUMN", "COLUMN", "RANGES"]]),
        ("cleanse-column-names", [[]]),
        ("a :x; b :y\nc :z;", [["COLUMN"], ["COLUMN"], ["COLUMN"]]),
    ],
)
def test_argument_token_kinds(text: str, expected: list[list[str]]) -> None:
    assert kinds(text) == expected


def test_values_are_unquoted_but_not_unescaped() -> None:
    (call,) = parse_recipe(r"merge :a :b :c '\t' ").directives
    assert call.args[3].value == r"\t"
    assert call.args[3].raw == r"'\t'"


def test_numbers_keep_their_text_and_value() -> None:
    (call,) = parse_recipe("x 10 -5 1.5 10L 0").directives
    assert [arg.value.value for arg in call.args] == [10, -5, 1.5, 10, 0]
    assert call.args[3].value.text == "10L"


def test_ranges_strip_single_quotes_only() -> None:
    (call,) = parse_recipe("""quantize :a :b 1:2='x',3:4="y",5:6=:z""").directives
    values = [item.value for item in call.args[2].value]
    assert values == ["x", '"y"', ":z"]
    assert call.args[2].value[0].low == 1.0 and call.args[2].value[0].high == 2.0


def test_properties_are_typed() -> None:
    (call,) = parse_recipe("x prop:{a=1, b='two', c=true d=2.5}").directives
    assert call.args[0].kind is TokenKind.PROPERTIES
    assert call.args[0].value == {"a": 1, "b": "two", "c": True, "d": 2.5}


def test_directives_keep_text_line_and_column() -> None:
    syntax = parse_recipe("// header\n  rename :a :b ;\n\ndrop :c;  uppercase :d")
    assert [(c.text, c.span.line, c.span.column) for c in syntax.directives] == [
        ("rename :a :b", 2, 3),
        ("drop :c", 4, 1),
        ("uppercase :d", 4, 11),
    ]


def test_expression_blocks_balance_braces_and_keep_position() -> None:
    (call,) = parse_recipe("set-column :x exp:{ if (a) { m = {} } ; '}' }").directives
    expression = call.args[1].value
    assert isinstance(expression, Expression)
    assert expression.text == " if (a) { m = {} } ; '}' "
    assert (expression.line, expression.column) == (1, 20)


def test_multiline_expression_positions() -> None:
    (call,) = parse_recipe("set-column :x exp:{\n  a +\n  b }").directives
    expression = call.args[1].value
    assert expression.text == "\n  a +\n  b "
    assert (expression.line, expression.column) == (1, 20)


@pytest.mark.parametrize(
    "text",
    ["// c\nrename :a :b", "/* multi\nline */ rename :a :b", "-- c\nrename :a :b", "# c\nrename :a :b",
     "rename :a :b // trailing", "rename :a :b -- trailing"],
)
def test_comments_are_skipped(text: str) -> None:
    assert [c.name for c in parse_recipe(text).directives] == ["rename"]


def test_pragmas() -> None:
    syntax = parse_recipe("#pragma version 2.0;\n#pragma load-directives text-reverse, my-udd;\nrename :a :b")
    assert syntax.version == "2.0"
    assert syntax.load_directives == ("text-reverse", "my-udd")
    assert len(syntax.directives) == 1


def test_macros_are_ignored_as_statements_and_arguments() -> None:
    syntax = parse_recipe("${macro1}\n${macro${number}}\nparse-as-csv :body ${d} true")
    assert [c.name for c in syntax.directives] == ["parse-as-csv"]
    assert [a.kind for a in syntax.directives[0].args] == [TokenKind.COLUMN, TokenKind.BOOL]
    assert len(syntax.macros) == 3


def test_if_blocks_flatten_and_keep_conditions() -> None:
    syntax = parse_recipe("if (a > 1) {\n  rename :a :b\n} else if (c) { drop :c } else { drop :d }\nlowercase :e")
    names = [(c.name, c.condition) for c in syntax.directives]
    assert names == [
        ("rename", "a > 1"),
        ("drop", "!(a > 1) && (c)"),
        ("drop", "!(a > 1) && !(c)"),
        ("lowercase", None),
    ]


def test_empty_and_comment_only_recipes() -> None:
    assert parse_recipe("").directives == ()
    assert parse_recipe("// test").directives == ()
    assert parse_recipe("\n;;\n").directives == ()


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("rename :a :b\nrename :a & :b", 2, 11, "Unexpected character '&'"),
        ("rename :a 'unclosed", 1, 11, "Unexpected character"),
        ("set-column :a exp:{ a + ", 1, 15, ""),
        ("set-headers :a,", 1, 16, "Unexpected"),
    ],
)
def test_syntax_errors_point_at_the_problem(text: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(RecipeSyntaxError) as caught:
        parse_recipe(text)
    error = caught.value.errors[0]
    assert (error.line, error.column) == (line, column)
    assert fragment in error.message
    assert "^" in error.snippet


def test_every_bad_line_is_reported() -> None:
    with pytest.raises(RecipeError) as caught:
        parse_recipe("rename :a & :b\nrename :c :d\nrename :e | :f")
    assert [e.line for e in caught.value.errors] == [1, 3]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([*":;,'\"{}()$#/-*=! \n\tabcxyz019_.", "exp:{", "prop:{", "if", "true"]),
               max_size=40).map("".join))
def test_arbitrary_text_only_raises_recipe_errors(text: str) -> None:
    with contextlib.suppress(RecipeError):
        parse_recipe(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_unicode_only_raises_recipe_errors(text: str) -> None:
    with contextlib.suppress(RecipeError):
        parse_recipe(text)
