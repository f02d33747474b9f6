"""Tests for the Wrangler/JEXL expression parser (grammar/expression.py).

They pin the behaviour later layers rely on: JEXL precedence, the node shapes the Spark
compiler pattern-matches, the free variables lineage reports, recipe-relative positions in
spans and errors, and the promise that arbitrary input yields a tree or an
ExpressionSyntaxError and nothing else.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar.errors import ExpressionSyntaxError, Span
from grammar.expression import (
    MAX_DEPTH,
    ArrayLiteral,
    Assign,
    Attribute,
    Binary,
    Block,
    Call,
    Elvis,
    Expr,
    If,
    Index,
    Literal,
    MethodCall,
    Name,
    Ternary,
    Unary,
    Var,
    called_functions,
    expression_text,
    format_expression,
    parse_expression,
    referenced_names,
    source_text,
    walk,
)
from tests.paths import CONFORMANCE


def n(*parts: str) -> Name:
    return Name(parts)


def i(value: int) -> Literal:
    return Literal(value, "int")


def s(value: str) -> Literal:
    return Literal(value, "string")


def b(op: str, left: Expr, right: Expr) -> Binary:
    return Binary(op, left, right)


# ------------------------------------------------------------------------- precedence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a + b * c", b("+", n("a"), b("*", n("b"), n("c")))),
        ("a * b + c", b("+", b("*", n("a"), n("b")), n("c"))),
        ("a - b - c", b("-", b("-", n("a"), n("b")), n("c"))),
        ("a / b / c", b("/", b("/", n("a"), n("b")), n("c"))),
        ("a % b * c", b("*", b("%", n("a"), n("b")), n("c"))),
        ("(a + b) * c", b("*", b("+", n("a"), n("b")), n("c"))),
        ("a + b < c * d", b("<", b("+", n("a"), n("b")), b("*", n("c"), n("d")))),
        ("a < b == c > d", b("==", b("<", n("a"), n("b")), b(">", n("c"), n("d")))),
        ("a == b && c != d", b("&&", b("==", n("a"), n("b")), b("!=", n("c"), n("d")))),
        ("a || b && c", b("||", n("a"), b("&&", n("b"), n("c")))),
        ("a && b || c", b("||", b("&&", n("a"), n("b")), n("c"))),
        ("a || b || c", b("||", b("||", n("a"), n("b")), n("c"))),
        ("a | b ^ c & d", b("|", n("a"), b("^", n("b"), b("&", n("c"), n("d"))))),
        ("a & b == c", b("&", n("a"), b("==", n("b"), n("c")))),
        ("a && b | c", b("&&", n("a"), b("|", n("b"), n("c")))),
        ("a =~ b + c", b("=~", n("a"), b("+", n("b"), n("c")))),
        ("a =~ 'x' && b !~ 'y'", b("&&", b("=~", n("a"), s("x")), b("!~", n("b"), s("y")))),
        ("-a * b", b("*", Unary("-", n("a")), n("b"))),
        ("!a && b", b("&&", Unary("!", n("a")), n("b"))),
        ("- -a", Unary("-", Unary("-", n("a")))),
        ("!!a", Unary("!", Unary("!", n("a")))),
        ("-a.b", Unary("-", n("a", "b"))),
        ("-f(x)[0]", Unary("-", Index(Call(None, "f", (n("x"),)), i(0)))),
        ("a ? b : c ? d : e", Ternary(n("a"), n("b"), Ternary(n("c"), n("d"), n("e")))),
        ("a ? b ? c : d : e", Ternary(n("a"), Ternary(n("b"), n("c"), n("d")), n("e"))),
        ("a || b ? c : d", Ternary(b("||", n("a"), n("b")), n("c"), n("d"))),
        ("a ?: b ?: c", Elvis(n("a"), Elvis(n("b"), n("c")))),
        ("a ?: b || c", Elvis(n("a"), b("||", n("b"), n("c")))),
        ("x = a ? b : c", Assign(n("x"), "=", Ternary(n("a"), n("b"), n("c")))),
        ("x = y = 1", Assign(n("x"), "=", Assign(n("y"), "=", i(1)))),
        ("x += 2 * y", Assign(n("x"), "+=", b("*", i(2), n("y")))),
        ("a ? b : c = 1", Ternary(n("a"), n("b"), Assign(n("c"), "=", i(1)))),
    ],
)
def test_precedence_and_associativity(text: str, expected: Expr) -> None:
    assert parse_expression(text) == expected


@pytest.mark.parametrize("text", ["a == b == c", "a < b < c", "a =~ b =~ c", "a != b eq c", "a lt b gt c"])
def test_comparisons_do_not_chain(text: str) -> None:
    # JEXL's equality and relational levels are non-associative.
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression(text)
    assert info.value.hint is not None and "chain" in info.value.hint


@pytest.mark.parametrize(
    ("text", "op"),
    [
        ("a + b", "+"), ("a - b", "-"), ("a * b", "*"), ("a / b", "/"), ("a % b", "%"),
        ("a div b", "/"), ("a mod b", "%"),
        ("a == b", "=="), ("a != b", "!="), ("a eq b", "=="), ("a ne b", "!="),
        ("a < b", "<"), ("a <= b", "<="), ("a > b", ">"), ("a >= b", ">="),
        ("a lt b", "<"), ("a le b", "<="), ("a gt b", ">"), ("a ge b", ">="),
        ("a && b", "&&"), ("a || b", "||"), ("a and b", "&&"), ("a or b", "||"),
        ("a =~ b", "=~"), ("a !~ b", "!~"), ("a =^ b", "=^"), ("a !^ b", "!^"), ("a =$ b", "=$"), ("a !$ b", "!$"),
        ("a & b", "&"), ("a | b", "|"), ("a ^ b", "^"),
    ],
)  # fmt: skip
def test_every_binary_operator(text: str, op: str) -> None:
    assert parse_expression(text) == b(op, n("a"), n("b"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-a", Unary("-", n("a"))),
        ("!a", Unary("!", n("a"))),
        ("not a", Unary("!", n("a"))),
        ("~a", Unary("~", n("a"))),
        ("empty(x)", Call(None, "empty", (n("x"),))),
        ("empty x", Call(None, "empty", (n("x"),))),
        ("size(x)", Call(None, "size", (n("x"),))),
        ("!empty(x.y)", Unary("!", Call(None, "empty", (n("x", "y"),)))),
        (
            "not empty(a) and size(b) > 0",
            b("&&", Unary("!", Call(None, "empty", (n("a"),))), b(">", Call(None, "size", (n("b"),)), i(0))),
        ),
    ],
)
def test_unary_operators(text: str, expected: Expr) -> None:
    assert parse_expression(text) == expected


def test_word_operators_need_a_word_boundary() -> None:
    # `equal`, `order`, `andy`, `notes` are names, not `eq`/`or`/`and`/`not` plus a suffix.
    assert parse_expression("equal or order") == b("||", n("equal"), n("order"))
    assert parse_expression("andy and notes") == b("&&", n("andy"), n("notes"))
    assert parse_expression("empty_count + sizes") == b("+", n("empty_count"), n("sizes"))
    assert parse_expression("trueish || nullable") == b("||", n("trueish"), n("nullable"))


# ------------------------------------------------------------------------- literals


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("0", 0, "int"),
        ("42", 42, "int"),
        ("2147483647", 2147483647, "int"),
        ("2147483648", 2147483648, "long"),
        ("9223372036854775808", 9223372036854775808, "bigint"),
        ("10L", 10, "long"),
        ("10l", 10, "long"),
        ("2454614L", 2454614, "long"),
        ("10H", 10, "bigint"),
        ("0x1F", 31, "int"),
        ("017", 15, "int"),
        ("1.5", 1.5, "double"),
        ("10.0", 10.0, "double"),
        ("1.5f", 1.5, "float"),
        ("1.5d", 1.5, "double"),
        ("1.5b", Decimal("1.5"), "bigdecimal"),
        ("1.0e3", 1000.0, "double"),
        ("2.5E-2", 0.025, "double"),
        ("true", True, "bool"),
        ("false", False, "bool"),
        ("null", None, "null"),
        ("'abc'", "abc", "string"),
        ('"abc"', "abc", "string"),
        ("''", "", "string"),
        ("'it\\'s'", "it's", "string"),
        ('"say \\"hi\\""', 'say "hi"', "string"),
        ("'a\\\\b'", "a\\b", "string"),
        ("'\\u0041\\u00e9'", "Aé", "string"),
        # JEXL only unescapes its own quote, the backslash and \uXXXX; other backslashes stay.
        ("'a\\nb'", "a\\nb", "string"),
        ('"it\\\'s"', "it\\'s", "string"),
        ("'\\uZZZZ'", "\\uZZZZ", "string"),
        ("'{braces} and \"quotes\"'", '{braces} and "quotes"', "string"),
        ("'%s-%s'", "%s-%s", "string"),
    ],
)
def test_literals(text: str, value: object, kind: str) -> None:
    node = parse_expression(text)
    assert isinstance(node, Literal)
    assert node.kind == kind
    assert node.value == value
    assert type(node.value) is type(value)
    assert node.raw == text


@pytest.mark.parametrize(
    "text", ["1e5", "08", "1.", ".5", "'abc", '"abc', "'a\nb'", "99999999999999999999L", "0x", "1" * 5000]
)
def test_invalid_literals(text: str) -> None:
    with pytest.raises(ExpressionSyntaxError):
        parse_expression(text)


def test_array_literal() -> None:
    assert parse_expression("[1, 'a', x]") == ArrayLiteral((i(1), s("a"), n("x")))
    assert parse_expression("[]") == ArrayLiteral(())
    assert parse_expression("a =~ ['x', 'y']") == b("=~", n("a"), ArrayLiteral((s("x"), s("y"))))


# ------------------------------------------------------------------------- names, calls, members


def test_dotted_names_are_one_reference() -> None:
    assert parse_expression("a.b.c") == n("a", "b", "c")
    assert parse_expression("ctx.name") == n("ctx", "name")
    assert parse_expression("a . b") == n("a", "b")  # Wrangler re-joins tokens with spaces
    assert parse_expression("row.0") == n("row", "0")
    assert parse_expression("a.'b c'") == n("a", "b c")
    assert parse_expression("$x + _y") == b("+", n("$x"), n("_y"))


def test_namespaced_and_bare_calls() -> None:
    assert parse_expression("math:abs(x)") == Call("math", "abs", (n("x"),))
    assert parse_expression("math : abs ( x )") == Call("math", "abs", (n("x"),))
    assert parse_expression("datetime:GetDate('1958-08-18')") == Call("datetime", "GetDate", (s("1958-08-18"),))
    assert parse_expression("concat(last, ', ', first)") == Call(None, "concat", (n("last"), s(", "), n("first")))
    assert parse_expression("coalesce()") == Call(None, "coalesce", ())
    assert parse_expression("f(g(h(1)))") == Call(None, "f", (Call(None, "g", (Call(None, "h", (i(1),)),)),))


def test_method_calls() -> None:
    assert parse_expression("a.trim()") == MethodCall(n("a"), "trim", ())
    assert parse_expression("name.substring(0, 3)") == MethodCall(n("name"), "substring", (i(0), i(3)))
    assert parse_expression("s.toUpperCase()") == MethodCall(n("s"), "toUpperCase", ())
    assert parse_expression("a.b.c(1)") == MethodCall(n("a", "b"), "c", (i(1),))
    assert parse_expression("a.trim().toLowerCase()") == MethodCall(MethodCall(n("a"), "trim", ()), "toLowerCase", ())
    assert parse_expression("'abc'.length()") == MethodCall(s("abc"), "length", ())
    assert parse_expression("(a + b).length()") == MethodCall(b("+", n("a"), n("b")), "length", ())
    assert parse_expression("this.width()") == MethodCall(n("this"), "width", ())
    assert parse_expression("x.size()") == MethodCall(n("x"), "size", ())
    assert parse_expression("x.empty()") == MethodCall(n("x"), "empty", ())


def test_index_and_attribute() -> None:
    assert parse_expression("a[0]") == Index(n("a"), i(0))
    assert parse_expression("a.b[i + 1]") == Index(n("a", "b"), b("+", n("i"), i(1)))
    assert parse_expression("a[0][1]") == Index(Index(n("a"), i(0)), i(1))
    assert parse_expression("a[0].b") == Attribute(Index(n("a"), i(0)), "b")
    assert parse_expression("f(x).y") == Attribute(Call(None, "f", (n("x"),)), "y")
    assert parse_expression("(a).b") == Attribute(n("a"), "b")


def test_statements_blocks_and_if() -> None:
    assert parse_expression("var x; x = math:ceil(toFloat(h)); x + 1") == Block(
        (
            Var("x", None),
            Assign(n("x"), "=", Call("math", "ceil", (Call(None, "toFloat", (n("h"),)),))),
            b("+", n("x"), i(1)),
        )
    )
    assert parse_expression("var y = a * 2; y") == Block((Var("y", b("*", n("a"), i(2))), n("y")))
    assert parse_expression("a;") == n("a")
    assert parse_expression(";;a;;") == n("a")
    assert parse_expression("if (a) { b } else { 'c' }") == If(n("a"), Block((n("b"),)), Block((s("c"),)))
    assert parse_expression("if (a) b else c") == If(n("a"), n("b"), n("c"))
    assert parse_expression("if (a) b; else c;") == If(n("a"), n("b"), n("c"))
    assert parse_expression("if (a) { b } else if (c) { d }") == If(
        n("a"), Block((n("b"),)), If(n("c"), Block((n("d"),)), None)
    )
    # The dangling else binds to the nearest if, as in JEXL.
    assert parse_expression("if (a) if (b) c else d") == If(n("a"), If(n("b"), n("c"), n("d")), None)
    assert parse_expression("if (a) { b } c") == Block((If(n("a"), Block((n("b"),)), None), n("c")))
    assert parse_expression("{ a; b }") == Block((n("a"), n("b")))


def test_assignment_needs_an_lvalue() -> None:
    for text in ("1 = 2", "f(x) = 1", "a + b = c", "a.b() = 1"):
        with pytest.raises(ExpressionSyntaxError, match="Cannot assign"):
            parse_expression(text)
    assert parse_expression("a.b = 1") == Assign(n("a", "b"), "=", i(1))
    assert parse_expression("a[0] = 1") == Assign(Index(n("a"), i(0)), "=", i(1))


@pytest.mark.parametrize(
    "text", ["new('java.lang.String')", "return 1", "for (x : y) x", "while (a) b", "x.if", "a + var", "eq"]
)
def test_reserved_words(text: str) -> None:
    with pytest.raises(ExpressionSyntaxError, match="reserved word"):
        parse_expression(text)


def test_ternary_namespace_trap_is_reported_like_jexl() -> None:
    # JEXL's four-token lookahead reads `x : f(` as the namespaced call x:f(...).
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression("c ? x : f(1)")
    assert info.value.hint is not None and "namespaced function call" in info.value.hint
    assert parse_expression("c ? x : (f(1))") == Ternary(n("c"), n("x"), Call(None, "f", (i(1),)))
    assert parse_expression("c ? true : f(1)") == Ternary(n("c"), Literal(True, "bool"), Call(None, "f", (i(1),)))
    assert parse_expression("c ? x : ns:f(1)") == Ternary(n("c"), n("x"), Call("ns", "f", (i(1),)))


def test_comments_are_ignored() -> None:
    assert parse_expression("a /* first */ + b // trailing") == b("+", n("a"), n("b"))
    assert parse_expression("a ## jexl comment\n+ b") == b("+", n("a"), n("b"))


# ------------------------------------------------------------------------- referenced names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("a+1", ("a",)),  # set-column :a exp:{a+1}
        ("'const'", ()),  # set-column :x exp:{'const'}
        ("math:abs(x) + y.z", ("x", "y.z")),
        ("a + b + c ", ("a", "b", "c")),
        ("b + a + b", ("b", "a")),
        ("name.trim()", ("name",)),
        ("a.b.trim()", ("a.b",)),
        ("name.substring(0, len)", ("name", "len")),
        ("this.width() == 5 ? (last_name + ',' + first_name) : last_name", ("this", "last_name", "first_name")),
        ("ctx.name", ("ctx.name",)),
        ("concat(last, ', ', first)", ("last", "first")),
        ("empty(x) || size(y) > 0", ("x", "y")),
        ("var x; x = math:ceil(toFloat(hrlywage)); x + 1", ("hrlywage",)),
        ("x + 1; var x = 2; x", ("x",)),  # a use before the declaration reads the context variable
        ("var t = a; t.b + c", ("a", "c")),
        ("total = price * qty", ("total", "price", "qty")),
        ("a[0] + a['k'] + b[i]", ("a.0", "a.k", "b", "i")),
        ("f(x).y + (p).q", ("x", "p.q")),
        ("if (json:IsValid(m)) { json:Parse(m) } else { 'Invalid Json' }", ("m",)),
        ("fwd == 0 ? A : test", ("fwd", "A", "test")),
        ("true && null == x", ("x",)),
    ],
)
def test_referenced_names(text: str, names: tuple[str, ...]) -> None:
    assert referenced_names(parse_expression(text)) == names


def test_called_functions() -> None:
    expr = parse_expression("math:abs(x) + concat(a, string:reverse(b)) + math:abs(y) + empty(z) + s.trim()")
    assert called_functions(expr) == (("math", "abs"), (None, "concat"), ("string", "reverse"), (None, "empty"))


# ------------------------------------------------------------------------- spans and source text


def test_spans_are_recipe_relative() -> None:
    recipe = "set-column :total exp:{price * qty}"
    start = recipe.index("{") + 1
    text = recipe[start : recipe.index("}")]
    expr = parse_expression(text, line=4, column=start + 1, offset=100 + start)
    assert isinstance(expr, Binary)
    assert expr.span == Span(4, start + 1, 4, start + 1 + len(text), 100 + start, 100 + start + len(text))
    assert expr.left.span == Span(4, start + 1, 4, start + 6, 100 + start, 100 + start + 5)
    assert expr.right.span.column == recipe.index("qty") + 1


def test_multiline_spans() -> None:
    text = "a +\n  foo(x,\n      y)"
    expr = parse_expression(text, line=7, column=20)
    assert isinstance(expr, Binary)
    call = expr.right
    assert call.span.line == 8 and call.span.column == 3  # later lines are not shifted right
    assert call.span.end_line == 9 and call.span.end_column == 9
    assert expr.span.line == 7 and expr.span.column == 20


def test_expression_text_and_source() -> None:
    text = "  a  +  b.trim( )  // note"
    expr = parse_expression(text, line=2, column=5, offset=40)
    assert expression_text(expr) == "a  +  b.trim( )"
    assert source_text(expr) == text
    assert isinstance(expr, Binary)
    assert expression_text(expr.right) == "b.trim( )"
    assert expression_text(parse_expression("(a + b)")) == "(a + b)"
    assert expression_text(parse_expression("x eq 1")) == "x eq 1"  # original spelling is kept
    with pytest.raises(ValueError):
        expression_text(n("a"))


def test_parenthesised_operand_extends_parent_span() -> None:
    expr = parse_expression("(a + b).length()")
    assert expression_text(expr) == "(a + b).length()"
    assert isinstance(expr, MethodCall)
    assert expression_text(expr.target) == "a + b"


# ------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "line", "column", "hint_part"),
    [
        ("a +", 1, 4, "operand after '+'"),
        ("(a + b", 1, 7, "Unclosed '('"),
        ("f(a,", 1, 5, "argument after ','"),
        ("a b", 1, 3, "Missing an operator"),
        ("a)", 1, 2, "Unmatched ')'"),
        ("'abc", 1, 1, "closing '"),
        ("a # b", 1, 3, "comments start with"),
        ("a ? b", 1, 6, "ternary"),
        ("x = ", 1, 4, "operand after '='"),
        ("a\n  + ", 2, 4, "operand after '+'"),
        ("1e5", 1, 2, "decimal point"),
        ("a.b.", 1, 5, "property or method name"),
        ("/* open", 1, 1, "*/"),
        ("é", 1, 1, "ASCII"),
    ],
)
def test_error_positions_and_hints(text: str, line: int, column: int, hint_part: str) -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression(text)
    error = info.value
    assert (error.line, error.column) == (line, column)
    assert error.hint is not None and hint_part in error.hint
    assert error.rule == "expression-syntax"
    # Standalone parses carry a caret snippet of the expression itself.
    assert error.snippet.endswith("^")


def test_error_positions_with_recipe_offsets() -> None:
    recipe = "parse-as-csv :body ',';\nset-column :total exp:{price * }"
    start = recipe.index("{") + 1
    text = recipe[start : recipe.rindex("}")]
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression(text, line=2, column=recipe.split("\n")[1].index("{") + 2)
    error = info.value
    assert error.line == 2
    assert error.column == recipe.split("\n")[1].index("*") + 2  # just after the '*'
    assert error.snippet == ""  # the recipe layer fills it in from the whole recipe
    error.with_source(recipe)
    assert error.snippet.splitlines()[0] == "set-column :total exp:{price * }"


def test_error_on_second_line_of_expression_is_not_shifted() -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression("a +\n  # b", line=10, column=30)
    assert (info.value.line, info.value.column) == (11, 3)


def test_hint_positions_are_recipe_relative() -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression("f(a", line=3, column=12)
    assert info.value.hint is not None and "line 3, column 13" in info.value.hint


@pytest.mark.parametrize(
    ("text", "hint_part"),
    [
        ("'abc", "Add the closing '"),
        ("'abc\\'", "backslash escapes the closing"),
        ("'ab\ncd'", "cannot span lines"),
        ("a\u00a0+ b", "ASCII spaces"),
        ("a \\ b", "only valid inside a string"),
    ],
)
def test_lexical_error_hints(text: str, hint_part: str) -> None:
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression(text)
    assert info.value.hint is not None and hint_part in info.value.hint


def test_parses_are_isolated_between_threads() -> None:
    # One shared parser; each call's recipe position lives in a ContextVar.
    def parse_at(line: int) -> tuple[int, int]:
        expr = parse_expression("a +\n b * c", line=line, column=line + 1, offset=line * 10)
        return expr.span.line, expr.span.start

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(parse_at, range(1, 400)))
    assert results == [(line, line * 10) for line in range(1, 400)]


@pytest.mark.parametrize("text", ["", "   ", ";", "/* only a comment */"])
def test_empty_expression(text: str) -> None:
    with pytest.raises(ExpressionSyntaxError, match="Empty expression"):
        parse_expression(text)


def test_nesting_depth_is_capped() -> None:
    deep = "(" * (MAX_DEPTH + 50) + "a" + ")" * (MAX_DEPTH + 50)
    assert parse_expression(deep) == n("a")  # parentheses alone add no tree depth
    with pytest.raises(ExpressionSyntaxError, match="nested too deeply"):
        parse_expression("-" * (MAX_DEPTH + 1) + "a")
    with pytest.raises(ExpressionSyntaxError, match="nested too deeply"):
        parse_expression("+".join(["a"] * (MAX_DEPTH + 2)))
    with pytest.raises(ExpressionSyntaxError, match="nested too deeply"):
        parse_expression("f(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(ExpressionSyntaxError, match="nested too deeply"):
        parse_expression("(" * 5000 + "a + " * 300 + "a" + ")" * 5000)
    # At the cap, the recursive dataclass methods still work.
    at_cap = parse_expression("+".join(["a"] * MAX_DEPTH))
    assert at_cap == parse_expression("+".join(["a"] * MAX_DEPTH))
    assert repr(at_cap)
    hash(at_cap)
    assert referenced_names(at_cap) == ("a",)


def test_never_evaluates() -> None:
    # Looks like code, but is only parsed: nothing runs, no names are resolved.
    expr = parse_expression("__import__('os').system('echo pwned')")
    assert isinstance(expr, MethodCall)
    assert referenced_names(expr) == ()


# ------------------------------------------------------------------------- conformance corpus

# v1 forms whose remaining text is a JEXL expression (MigrateToV2 wraps it in exp:{…}),
# with the number of words before the expression.
V1_EXPRESSION_FORMS = {
    "set column": 3,
    "set-column": 2,
    "filter-row-if-true": 1,
    "filter-row-if-false": 1,
    "filter-rows-on condition-true": 2,
    "filter-rows-on condition-false": 2,
    "send-to-error": 1,
    "send-to-error-and-continue": 1,
    "fail": 1,
    "set-variable": 2,
    "increment-variable": 3,
}


def _expressions_in(directive: str) -> list[tuple[str, int]]:
    """Expressions in one directive line with the 1-based column where each starts."""
    found: list[tuple[str, int]] = []
    position = directive.find("exp:")
    while position >= 0:
        open_brace = directive.index("{", position)
        depth, cursor = 0, open_brace
        while cursor < len(directive):
            char = directive[cursor]
            if char in "'\"":
                end = directive.find(char, cursor + 1)
                cursor = len(directive) if end < 0 else end
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    break
            cursor += 1
        found.append((directive[open_brace + 1 : cursor], open_brace + 2))
        position = directive.find("exp:", cursor)
    if found:
        return found
    stripped = directive.strip()
    for prefix, words in sorted(V1_EXPRESSION_FORMS.items(), key=lambda item: -len(item[0])):
        if re.match(re.escape(prefix) + r"(\s|$)", stripped):
            match = re.match(rf"\s*(?:\S+\s+){{{words}}}(.*?);?\s*$", directive)
            if match and match.group(1).strip():
                return [(match.group(1), match.start(1) + 1)]
            return []
    return []


def _conformance_expressions() -> list[tuple[str, str, int, bool]]:
    cases: list[tuple[str, str, int, bool]] = []
    if not CONFORMANCE.exists():
        return cases
    for line in CONFORMANCE.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        expects_error = bool(case.get("expect", {}).get("error"))
        for directive in case.get("directives") or []:
            for text, column in _expressions_in(directive):
                cases.append((case["id"], text, column, expects_error))
    return cases


CONFORMANCE_EXPRESSIONS = _conformance_expressions()


@pytest.mark.skipif(not CONFORMANCE_EXPRESSIONS, reason="conformance corpus not available")
def test_conformance_corpus_has_expressions() -> None:
    assert len(CONFORMANCE_EXPRESSIONS) >= 50


@pytest.mark.parametrize(
    ("case_id", "text", "column", "expects_error"),
    CONFORMANCE_EXPRESSIONS,
    ids=[f"{case_id}:{text.strip()[:40]}" for case_id, text, _, _ in CONFORMANCE_EXPRESSIONS],
)
def test_every_conformance_expression_parses(case_id: str, text: str, column: int, expects_error: bool) -> None:
    # Cases that expect an error (e.g. a malformed geo fence) fail at run time, not in the
    # syntax, so every expression in the corpus must parse.
    expr = parse_expression(text, line=1, column=column)
    assert expr.span.line == 1 and expr.span.column >= column
    assert expression_text(expr) == text.strip()
    for name in referenced_names(expr):
        assert name and ":" not in name


def test_conformance_lineage_examples() -> None:
    cases = {
        "this.width() == 5 ? (last_name + ',' + first_name) : last_name": ("this", "last_name", "first_name"),
        "datetime:DaysSinceFromDate(a,datetime:GetDate('1958-08-18'))": ("a",),
        "var x; x = math:ceil(toFloat(hrlywage)); x + 1": ("hrlywage",),
        "NullToZero(b == 'value' ? a : b)": ("b", "a"),
        "datetime:DateFromJulianDay(2454614L)": (),
        'A =~ "Was.*"': ("A",),
    }
    for text, names in cases.items():
        assert referenced_names(parse_expression(text)) == names


@pytest.mark.parametrize(
    ("wrangler_text", "original"),
    [
        ("a + b + c ", "a+b+c"),
        ("math :abs ( x ) + y . z ", "math:abs(x) + y.z"),
        ("body_4 == '1' ", "body_4=='1'"),
        ("this . width ( ) < 4 ", "this.width() < 4"),
        (
            "if ( json :IsValid ( m ) ) {json:Parse(m)} else {'Invalid Json'} ",
            "if(json:IsValid(m)) { json:Parse(m) } else { 'Invalid Json'}",
        ),
    ],
)
def test_wrangler_rejoined_token_text_parses_the_same(wrangler_text: str, original: str) -> None:
    # Wrangler hands JEXL the exp:{…} tokens joined by single spaces (spec §1.5).
    assert parse_expression(wrangler_text) == parse_expression(original)


# ------------------------------------------------------------------------- properties

EXPRESSION_ALPHABET = "abcxyz_$019 .,:;?!=<>+-*/%&|^~()[]{}'\"\\#\n\tLfeEdn"
TOKENS = [
    "a", "b", "x.y", "f", "ns:f", "math:abs", "(", ")", "[", "]", "{", "}", ",", ";", ".", "?", ":", "?:",
    "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "=~", "!~", "=^", "!^", "=$", "!$", "&&", "||",
    "&", "|", "^", "!", "~", "=", "+=", "and", "or", "not", "eq", "ne", "lt", "div", "mod", "empty", "size",
    "true", "false", "null", "var", "if", "else", "new", "return", "1", "10L", "1.5", "1.5f", "0x1F", "'s'",
    '"t"', "'", "//c\n", "/*", "*/", "##", "trim()", "#", "é",
]  # fmt: skip


def _parse_or_syntax_error(text: str) -> None:
    try:
        result = parse_expression(text, line=3, column=7, offset=11)
    except ExpressionSyntaxError as error:
        assert error.line is not None and error.line >= 3
        assert error.column is not None and error.column >= 1
        assert error.message
        return
    assert isinstance(result, Expr)
    for node in walk(result):
        assert node.span.line >= 3
        assert 11 <= node.span.start <= node.span.end <= 11 + len(text)
    referenced_names(result)
    called_functions(result)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=80))
def test_arbitrary_text_yields_tree_or_syntax_error(text: str) -> None:
    _parse_or_syntax_error(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=EXPRESSION_ALPHABET, max_size=60))
def test_expression_alphabet_yields_tree_or_syntax_error(text: str) -> None:
    _parse_or_syntax_error(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=25), st.sampled_from([" ", ""]))
def test_token_soup_yields_tree_or_syntax_error(tokens: list[str], separator: str) -> None:
    _parse_or_syntax_error(separator.join(tokens))


# Trees built from the node vocabulary: formatting them and parsing back must give the same
# tree, which checks the formatter and, through it, every precedence rule of the grammar.
_IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,5}", fullmatch=True).filter(
    lambda word: word not in {"or", "and", "eq", "ne", "lt", "le", "gt", "ge", "div", "mod", "not", "empty", "size",
                              "true", "false", "null", "var", "if", "else", "new", "return", "for", "while",
                              "function", "break", "continue"}
)  # fmt: skip
_LITERALS = st.one_of(
    st.integers(0, 2**31 - 1).map(lambda value: Literal(value, "int")),
    st.integers(0, 2**63 - 1).map(lambda value: Literal(value, "long")),
    st.floats(0, 1e12, allow_nan=False, allow_infinity=False).map(lambda value: Literal(value, "double")),
    st.text(max_size=6).map(lambda value: Literal(value, "string")),
    st.booleans().map(lambda value: Literal(value, "bool")),
    st.just(Literal(None, "null")),
)
_LEAVES = st.one_of(_LITERALS, st.lists(_IDENT, min_size=1, max_size=3).map(lambda parts: Name(tuple(parts))))
_BINARY_OPS = sorted({"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "=~", "!~", "=^", "!^", "=$", "!$",
                      "&&", "||", "&", "|", "^"})  # fmt: skip


def _extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    args = st.lists(children, max_size=3).map(tuple)
    return st.one_of(
        st.builds(Binary, st.sampled_from(_BINARY_OPS), children, children),
        st.builds(Unary, st.sampled_from(["-", "!", "~"]), children),
        st.builds(Ternary, children, children, children),
        st.builds(Elvis, children, children),
        st.builds(Call, st.one_of(st.none(), _IDENT), _IDENT, args),
        st.builds(lambda x: Call(None, "empty", (x,)), children),
        st.builds(MethodCall, children, _IDENT, args),
        st.builds(Index, children, children),
        st.builds(ArrayLiteral, args),
        st.builds(Attribute, children.filter(lambda node: not isinstance(node, Name)), _IDENT),
        st.builds(Assign, _LEAVES.filter(lambda node: isinstance(node, Name)), st.sampled_from(["=", "+="]), children),
    )


TREES = st.recursive(_LEAVES, _extend, max_leaves=12)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES)
def test_format_then_parse_round_trips(tree: Expr) -> None:
    text = format_expression(tree)
    parsed = parse_expression(text)
    assert parsed == tree, text
    assert format_expression(parsed) == text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES)
def test_every_node_span_covers_its_own_text(tree: Expr) -> None:
    # Each node's source slice parses back to that very node: spans are exact.
    parsed = parse_expression(format_expression(tree), line=5, column=9, offset=30)
    for node in walk(parsed):
        assert parse_expression(expression_text(node)) == node


def test_parsing_does_not_recurse_with_input_nesting() -> None:
    # LALR plus inline callbacks: 2000 nested parentheses need no more stack than one pair.
    depth = len(inspect.stack(0))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 80)
    try:
        assert parse_expression("(" * 2000 + "a" + ")" * 2000) == n("a")
    finally:
        sys.setrecursionlimit(limit)
