"""`expression_names`: the fast reader of simple expressions agrees with the full JEXL parser.

The fast reader may give up (None) on anything; when it answers, the full parser must accept the
same text and find the same free variables in the same order. Hypothesis builds token soups from
the language's own pieces, so both valid and subtly invalid sequences are tried.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammar.errors import ExpressionSyntaxError
from grammar.expression import _simple_names, expression_names, parse_expression, referenced_names

PIECES = [
    "a", "b", "Price", "qty_2", "$x", "x$", "true", "false", "null", "var", "size", "eq", "this", "ctx",
    "0", "1", "42", "1.5", "007", "1e5", "10L", "0x1F", "'s'", '"d"', "'it''s'", "'a\\'b'", "'\n'",
    "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "(", ")", " ", "\t", "\n",
    "\u2028", "\x0b", ".", ":", "?", "=", "=~", "[", "]", ",", ";", "//", "##", "&", "|", "~", "^",
]


def full(text: str) -> tuple[str, ...] | None:
    try:
        return referenced_names(parse_expression(text))
    except ExpressionSyntaxError:
        return None


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_fast_reader_agrees_with_the_parser_whenever_it_answers(text: str) -> None:
    fast = _simple_names(text)
    if fast is not None:
        assert full(text) == fast


_operand = st.sampled_from(["a", "b", "c", "Price", "1", "2.5", "'x'", "true", "null"])
_operator = st.sampled_from(["+", "-", "*", "/", "%", "&&", "||", "==", "!=", "<", ">=", "<="])


@st.composite
def _well_formed(draw: st.DrawFn, depth: int = 0) -> str:
    parts = [draw(_operand) if depth > 2 or draw(st.booleans()) else f"({draw(_well_formed(depth + 1))})"]
    for _ in range(draw(st.integers(0, 4))):
        parts += [draw(_operator), draw(_operand)]
    prefix = draw(st.sampled_from(["", "!", "-"]))
    return prefix + " ".join(parts)


@settings(max_examples=1000, deadline=None)
@given(_well_formed())
def test_well_formed_arithmetic_and_comparisons(text: str) -> None:
    fast = _simple_names(text)
    expected = full(text)
    if fast is not None:
        assert fast == expected
    if expected is not None:
        assert expression_names(text) == expected


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("a * 2 + b", ("a", "b")),
        (" price * qty > 100 && !(flag) ", ("price", "qty", "flag")),
        ("b + a + b", ("b", "a")),
        ("x == 'y' || x == null", ("x",)),
        ("-a % 3", ("a",)),
    ],
)
def test_simple_expressions_take_the_fast_path(text: str, names: tuple[str, ...]) -> None:
    assert _simple_names(text) == names == full(text)


@pytest.mark.parametrize(
    "text",
    ["a == b == c", "a < b < c", "math:abs(a)", "a.b + c", "c ? a : b", "var x = 1; x", "a eq b", "",
     "a +", "(a", "a)", "size(a)", "'a\\'b'", "1e5 + a", "a = 1"],
)
def test_anything_else_goes_to_the_full_parser(text: str) -> None:
    assert _simple_names(text) is None


def test_errors_point_into_the_recipe_and_are_not_cached() -> None:
    for _ in range(2):
        with pytest.raises(ExpressionSyntaxError) as caught:
            expression_names("a +", line=3, column=20, offset=100)
        assert caught.value.line == 3 and caught.value.column >= 20
