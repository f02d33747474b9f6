"""Parse Wrangler's expression language (the JEXL 3.0 subset inside ``exp:{…}``) into nodes.

Why it is built this way:

* **LALR with an inline transformer.** Lark reduces each rule straight into a frozen node
  (``grammar.expression_nodes``); no parse tree is built and nothing recurses while parsing,
  so deeply nested input cannot blow the Python stack here. The parser is built once
  (``functools.lru_cache``) because building the LALR tables costs far more than a parse.
* **Recipe positions.** An expression is a slice of a recipe. Callers pass where the slice
  starts (``line``, ``column``, ``offset``) and every span and error position comes back in
  recipe coordinates, so ``wrangler check`` can put the caret under the right character.
  The per-call position lives in a ``ContextVar`` so one shared parser is thread-safe.
* **One error type.** Whatever the input, callers see an :class:`Expr` or an
  :class:`~grammar.errors.ExpressionSyntaxError` with a position and a hint; Lark's own
  exceptions never leak. Tree depth is capped at :data:`MAX_DEPTH` so that recursive code
  downstream (dataclass ``==``, the Spark compiler) is safe too.
* **Faithful to JEXL 3.0 where it matters for lineage**: ``a.b`` is one variable, ``ns:fn``
  namespaces are not variables, word operators (``eq``, ``and``, ``not`` …) and reserved
  words behave as in JEXL, string escapes follow JEXL's ``StringParser`` (only the quote,
  the backslash and ``\\uXXXX`` are escapes) and numbers get JEXL's literal classes.

Nothing is ever evaluated.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from grammar.errors import ExpressionSyntaxError, Span, caret_snippet
from grammar.expression_nodes import (
    ASSIGN_OPERATORS,
    BINARY_OPERATORS,
    NO_SPAN,
    RESERVED_WORDS,
    UNARY_OPERATORS,
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
    LiteralKind,
    MethodCall,
    Name,
    SourceRef,
    Ternary,
    Unary,
    Var,
    access_path,
    called_functions,
    children,
    expression_text,
    format_expression,
    referenced_names,
    source_text,
    walk,
)

__all__ = [
    "ASSIGN_OPERATORS",
    "BINARY_OPERATORS",
    "MAX_BRACKET_DEPTH",
    "MAX_DEPTH",
    "NO_SPAN",
    "RESERVED_WORDS",
    "UNARY_OPERATORS",
    "ArrayLiteral",
    "Assign",
    "Attribute",
    "Binary",
    "Block",
    "Call",
    "Elvis",
    "Expr",
    "If",
    "Index",
    "Literal",
    "LiteralKind",
    "MethodCall",
    "Name",
    "SourceRef",
    "Ternary",
    "Unary",
    "Var",
    "access_path",
    "called_functions",
    "children",
    "expression_names",
    "expression_text",
    "format_expression",
    "parse_expression",
    "referenced_names",
    "source_text",
    "walk",
]

MAX_DEPTH = 200
"""Deepest tree accepted. Real expressions stay far below; the cap keeps recursive consumers
(dataclass ``==``/``repr``, compilers) well inside Python's default recursion limit of 1000."""

MAX_BRACKET_DEPTH = 10_000
"""Deepest nesting of brackets accepted, checked before parsing. Parentheses alone add no tree depth, so this
is above `MAX_DEPTH`; it stops `((((…` and `(a+(a+(…` at their first ten thousand brackets instead of after a
megabyte of them."""

GRAMMAR_PATH = Path(__file__).with_name("expression.lark")

# Word and symbol spellings of the same operator become one symbol in the tree.
_OPERATOR_SPELLING: dict[str, str] = {
    "or": "||",
    "and": "&&",
    "eq": "==",
    "ne": "!=",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "div": "/",
    "mod": "%",
    "not": "!",
}

_RESERVED_HINTS: dict[str, str] = {
    "new": "Constructors ('new') are not supported in Wrangler expressions.",
    "return": "'return' is not supported; the value of the last statement is the result.",
    "for": "Loops are not supported in Wrangler expressions.",
    "while": "Loops are not supported in Wrangler expressions.",
    "function": "Functions and lambdas are not supported in Wrangler expressions.",
    "break": "'break' is only meaningful in loops, which are not supported.",
    "continue": "'continue' is only meaningful in loops, which are not supported.",
    "var": "'var' must start a statement: var x = …;",
    "if": "'if' must start a statement: if (cond) { … } else { … }",
    "else": "'else' must follow the body of an 'if'.",
}

_OPERAND_STARTS = frozenset(
    {
        "NAME", "NS_FUNCTION", "INT", "FLOAT", "STRING", "TRUE_KW", "FALSE_KW", "NULL_KW",
        "LPAR", "LSQB", "MINUS", "BANG", "NOT_KW", "TILDE", "EMPTY_KW", "SIZE_KW",
    }
)  # fmt: skip
_OPERAND_TOKENS = frozenset({"NAME", "NS_FUNCTION", "INT", "FLOAT", "STRING", "TRUE_KW", "FALSE_KW", "NULL_KW"})
_OPERATOR_TOKENS = frozenset(
    {
        "OROR", "OR_KW", "ANDAND", "AND_KW", "PIPE", "CARET", "AMP", "EQEQ", "NOTEQ", "EQ_KW", "NE_KW",
        "LT", "LE", "GT", "GE", "LT_KW", "LE_KW", "GT_KW", "GE_KW", "MATCH", "NOT_MATCH", "STARTS",
        "NOT_STARTS", "ENDS", "NOT_ENDS", "PLUS", "MINUS", "STAR", "SLASH", "PERCENT", "DIV_KW", "MOD_KW",
        "BANG", "NOT_KW", "TILDE", "EMPTY_KW", "SIZE_KW", "QMARK", "COLON", "ELVIS", "ASSIGN",
        "PLUS_ASSIGN", "MINUS_ASSIGN", "STAR_ASSIGN", "SLASH_ASSIGN", "PERCENT_ASSIGN", "AMP_ASSIGN",
        "PIPE_ASSIGN", "CARET_ASSIGN",
    }
)  # fmt: skip
_TERMINAL_WORDS: dict[str, str] = {
    "RPAR": "')'",
    "RSQB": "']'",
    "RBRACE": "'}'",
    "LPAR": "'('",
    "COLON": "':'",
    "SEMI": "';'",
    "COMMA": "','",
    "DOT_NAME": "a property name",
    "ELSE_KW": "'else'",
    "$END": "the end of the expression",
}
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_NEWLINE = re.compile("\n")
_IF_WORD = re.compile(r"(?<![A-Za-z0-9_$])if(?![A-Za-z0-9_$])")
_COMPARISON_TOKENS = frozenset(
    {
        "EQEQ", "NOTEQ", "EQ_KW", "NE_KW", "LT", "LE", "GT", "GE", "LT_KW", "LE_KW", "GT_KW", "GE_KW",
        "MATCH", "NOT_MATCH", "STARTS", "NOT_STARTS", "ENDS", "NOT_ENDS",
    }
)  # fmt: skip


# ------------------------------------------------------------------------- per-parse state


@dataclass
class _ParseState:
    """Where the expression sits in the recipe, plus bookkeeping that must not live on nodes."""

    text: str
    line: int
    column: int
    offset: int
    source: SourceRef
    depth: dict[int, int] = field(default_factory=dict)
    # Span including any wrapping parentheses, keyed by node id (nodes stay alive during a parse).
    outer: dict[int, Span] = field(default_factory=dict)

    def position(self, local_line: int, local_column: int) -> tuple[int, int]:
        """Local 1-based position → recipe position (only the first line is shifted right)."""
        if local_line == 1:
            return self.line, self.column + local_column - 1
        return self.line + local_line - 1, local_column

    def token_span(self, token: Token) -> Span:
        line, column = self.position(token.line or 1, token.column or 1)
        end_line, end_column = self.position(token.end_line or 1, token.end_column or 1)
        start = token.start_pos or 0
        end = token.end_pos if token.end_pos is not None else start + len(token)
        return Span(line, column, end_line, end_column, self.offset + start, self.offset + end)

    def extent(self, item: Expr | Token) -> Span:
        if isinstance(item, Token):
            return self.token_span(item)
        return self.outer.get(id(item), item.span)

    def span(self, first: Expr | Token, last: Expr | Token) -> Span:
        a, b = self.extent(first), self.extent(last)
        return Span(a.line, a.column, b.end_line, b.end_column, a.start, b.end)

    def error(self, message: str, span: Span, hint: str | None = None) -> ExpressionSyntaxError:
        local_line = span.line - self.line + 1
        local_column = span.column - self.column + 1 if local_line == 1 else span.column
        return _error(self, message, span.line, span.column, local_line, local_column, hint)


_STATE: ContextVar[_ParseState] = ContextVar("wrangler_expression_parse_state")


def _error(
    state: _ParseState,
    message: str,
    line: int,
    column: int,
    local_line: int,
    local_column: int,
    hint: str | None,
) -> ExpressionSyntaxError:
    # A caret snippet of the expression alone is only right when the expression *is* the
    # whole text; inside a recipe the recipe layer fills it in with `with_source(recipe)`.
    standalone = state.line == 1 and state.column == 1 and state.offset == 0
    snippet = caret_snippet(state.text, local_line, local_column) if standalone else ""
    return ExpressionSyntaxError(message, line=line, column=column, snippet=snippet, hint=hint)


# ------------------------------------------------------------------------- tree building


def _nodes(items: Sequence[object]) -> list[Expr]:
    return [item for item in items if isinstance(item, Expr)]


def _tokens(items: Sequence[object], *types: str) -> list[Token]:
    return [item for item in items if isinstance(item, Token) and item.type in types]


class _Builder(Transformer):  # type: ignore[type-arg]
    """Inline LALR callbacks: one method per grammar rule alias, each returning a node."""

    def _make(self, factory: Callable[..., Expr], first: Expr | Token, last: Expr | Token, *args: object) -> Expr:
        state = _STATE.get()
        node = factory(*args, span=state.span(first, last), source=state.source)
        depth = 1 + max((state.depth.get(id(child), 1) for child in children(node)), default=0)
        if depth > 1:
            if depth > MAX_DEPTH:
                raise state.error(
                    f"Expression is nested too deeply (more than {MAX_DEPTH} levels).",
                    node.span,
                    "Split it into several directives, or use fewer nested parentheses and operators.",
                )
            state.depth[id(node)] = depth
        return node

    # -- statements ----------------------------------------------------------------------

    def start(self, items: list[object]) -> Expr:
        state = _STATE.get()
        statements = _nodes(items)
        if not statements:
            local = Span(1, 1, 1, 1, 0, 0)
            semis = _tokens(items, "SEMI")
            span = state.token_span(semis[0]) if semis else _span_of_local(state, local)
            raise state.error("Empty expression.", span, "Write an expression, e.g. exp:{price * qty}.")
        if len(statements) == 1:
            root = statements[0]
            outer = state.outer.get(id(root))
            return dataclasses.replace(root, span=outer) if outer is not None else root
        return self._make(Block, statements[0], statements[-1], tuple(statements))

    def block(self, items: list[object]) -> Expr:
        return self._make(Block, items[0], items[-1], tuple(_nodes(items)))  # type: ignore[arg-type]

    def if_stmt(self, items: list[object]) -> Expr:
        nodes = _nodes(items)
        cond, then = nodes[0], nodes[1]
        otherwise = nodes[2] if len(nodes) > 2 else None
        return self._make(If, items[0], nodes[-1], cond, then, otherwise)  # type: ignore[arg-type]

    def var_decl(self, items: list[object]) -> Expr:
        name_token = _tokens(items, "NAME")[0]
        _check_name(name_token)
        nodes = _nodes(items)
        value = nodes[0] if nodes else None
        last = value if value is not None else name_token
        return self._make(Var, items[0], last, str(name_token), value)  # type: ignore[arg-type]

    # -- operators -----------------------------------------------------------------------

    def assign(self, items: list[object]) -> Expr:
        target, op, value = items
        assert isinstance(target, Expr) and isinstance(op, Token) and isinstance(value, Expr)
        if not isinstance(target, Name | Index | Attribute):
            state = _STATE.get()
            raise state.error(
                f"Cannot assign to this expression with '{op}'.",
                state.extent(target),
                "Only a variable, a property (a.b) or an element (a[0]) can be assigned.",
            )
        return self._make(Assign, target, value, target, str(op), value)

    def ternary(self, items: list[object]) -> Expr:
        cond, then, otherwise = _nodes(items)
        return self._make(Ternary, cond, otherwise, cond, then, otherwise)

    def elvis(self, items: list[object]) -> Expr:
        value, default = _nodes(items)
        return self._make(Elvis, value, default, value, default)

    def binary(self, items: list[object]) -> Expr:
        left, op, right = items
        assert isinstance(left, Expr) and isinstance(op, Token) and isinstance(right, Expr)
        symbol = _OPERATOR_SPELLING.get(str(op), str(op))
        return self._make(Binary, left, right, symbol, left, right)

    def unary(self, items: list[object]) -> Expr:
        op, operand = items
        assert isinstance(op, Token) and isinstance(operand, Expr)
        if op.type in ("EMPTY_KW", "SIZE_KW"):
            return self._make(Call, op, operand, None, str(op), (operand,))
        return self._make(Unary, op, operand, _OPERATOR_SPELLING.get(str(op), str(op)), operand)

    # -- postfix -------------------------------------------------------------------------

    def attribute(self, items: list[object]) -> Expr:
        target, _dot, member = items
        assert isinstance(target, Expr) and isinstance(member, Token)
        name = _member_name(member)
        state = _STATE.get()
        if isinstance(target, Name) and id(target) not in state.outer:
            if len(target.parts) >= MAX_DEPTH:  # each part copies the ones before it: capped, so parsing stays linear
                raise state.error(
                    f"A dotted name has more than {MAX_DEPTH} parts.",
                    state.span(target, member),
                    "No column or record path is that deep; check the expression.",
                )
            return self._make(Name, target, member, (*target.parts, name))
        return self._make(Attribute, target, member, target, name)

    def method(self, items: list[object]) -> Expr:
        target, member = items[0], items[2]
        assert isinstance(target, Expr) and isinstance(member, Token)
        args = tuple(_nodes(items[3:]))
        return self._make(MethodCall, target, items[-1], target, _member_name(member), args)  # type: ignore[arg-type]

    def index(self, items: list[object]) -> Expr:
        target, _open, index, _close = items
        assert isinstance(target, Expr) and isinstance(index, Expr)
        return self._make(Index, target, items[-1], target, index)  # type: ignore[arg-type]

    # -- primaries -----------------------------------------------------------------------

    def name(self, items: list[object]) -> Expr:
        (token,) = items
        assert isinstance(token, Token)
        _check_name(token)
        return self._make(Name, token, token, (str(token),))

    def call(self, items: list[object]) -> Expr:
        head = items[0]
        assert isinstance(head, Token)
        args = tuple(_nodes(items))
        if head.type == "NS_FUNCTION":
            namespace, _, name = str(head).partition(":")
            namespace, name = namespace.strip(), name.strip()
        else:
            _check_name(head)
            namespace, name = None, str(head)
        return self._make(Call, head, items[-1], namespace, name, args)  # type: ignore[arg-type]

    def paren(self, items: list[object]) -> Expr:
        open_token, inner, close_token = items
        assert isinstance(inner, Expr) and isinstance(open_token, Token) and isinstance(close_token, Token)
        state = _STATE.get()
        state.outer[id(inner)] = state.span(open_token, close_token)
        return inner

    def array(self, items: list[object]) -> Expr:
        return self._make(ArrayLiteral, items[0], items[-1], tuple(_nodes(items)))  # type: ignore[arg-type]

    def literal(self, items: list[object]) -> Expr:
        (token,) = items
        assert isinstance(token, Token)
        value, kind = _literal_value(token)
        state = _STATE.get()
        return Literal(value, kind, raw=str(token), span=state.token_span(token), source=state.source)


def _span_of_local(state: _ParseState, local: Span) -> Span:
    line, column = state.position(local.line, local.column)
    return Span(line, column, line, column, state.offset, state.offset)


def _check_name(token: Token) -> None:
    word = str(token)
    if word in RESERVED_WORDS:
        state = _STATE.get()
        hint = _RESERVED_HINTS.get(word, f"'{word}' is a JEXL keyword; it cannot name a variable or function.")
        raise state.error(f"'{word}' is a reserved word and cannot be used here.", state.token_span(token), hint)


def _member_name(token: Token) -> str:
    if token.type == "STRING":
        return _decode_string(str(token))
    word = str(token)
    # JEXL lexes keywords even after a dot; only size() and empty() are methods by those names.
    if word in RESERVED_WORDS and word not in ("size", "empty"):
        state = _STATE.get()
        raise state.error(
            f"'{word}' is a reserved word and cannot be used as a property name.",
            state.token_span(token),
            f"Quote it: .'{word}'",
        )
    return word


def _literal_value(token: Token) -> tuple[str | int | float | Decimal | bool | None, LiteralKind]:
    text = str(token)
    match token.type:
        case "STRING":
            return _decode_string(text), "string"
        case "TRUE_KW":
            return True, "bool"
        case "FALSE_KW":
            return False, "bool"
        case "NULL_KW":
            return None, "null"
        case "INT":
            return _integer(token, text)
    return _real(text)


_INT_MAX = 2**31 - 1
_LONG_MAX = 2**63 - 1


def _integer(token: Token, text: str) -> tuple[int, LiteralKind]:
    """JEXL's natural literals: Integer, widening to Long then BigInteger; ``L``/``H`` force the class."""
    suffix = text[-1].lower() if text[-1] in "lLhH" else ""
    digits = text[:-1] if suffix else text
    try:
        if digits[:2].lower() == "0x":
            value = int(digits[2:], 16)
        elif len(digits) > 1 and digits[0] == "0":
            value = int(digits, 8)
        else:
            value = int(digits)
    except ValueError:  # Python refuses decimal strings of more than 4300 digits
        state = _STATE.get()
        raise state.error(
            "Integer literal is too long.", state.token_span(token), "No column value needs thousands of digits."
        ) from None
    if suffix == "h":
        return value, "bigint"
    if suffix == "l":
        if value > _LONG_MAX:
            state = _STATE.get()
            raise state.error(
                f"Integer literal {text} does not fit in a long.",
                state.token_span(token),
                "Drop the L suffix or use H for a BigInteger.",
            )
        return value, "long"
    if value <= _INT_MAX:
        return value, "int"
    return value, "long" if value <= _LONG_MAX else "bigint"


def _real(text: str) -> tuple[float | Decimal, LiteralKind]:
    """JEXL's real literals: Double by default, ``f`` Float, ``d`` Double, ``b`` BigDecimal."""
    suffix = text[-1].lower()
    if suffix == "b":
        try:
            return Decimal(text[:-1]), "bigdecimal"
        except InvalidOperation:  # pragma: no cover - the token regex only admits valid decimals
            return Decimal(0), "bigdecimal"
    if suffix == "f":
        return float(text[:-1]), "float"
    if suffix == "d":
        return float(text[:-1]), "double"
    return float(text), "double"


def _decode_string(token_text: str) -> str:
    """JEXL's ``StringParser.buildString``: only the enclosing quote, ``\\`` and ``\\uXXXX`` are
    escapes; any other backslash is kept as written (``'\\n'`` is a backslash and an ``n``)."""
    quote = token_text[0]
    body = token_text[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "u" and i + 6 <= n and all(c in "0123456789abcdefABCDEF" for c in body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
            continue
        if nxt != quote and nxt != "\\":
            out.append("\\")
        out.append(nxt)
        i += 2
    return "".join(out)


# ------------------------------------------------------------------------- parser


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser, built once per process from ``expression.lark``."""
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        # Spans are computed by _Builder from token positions (Lark only propagates positions
        # onto Tree results, and the inline callbacks return nodes); kept on as the documented
        # parser configuration, and so any Tree that Lark builds internally carries positions.
        propagate_positions=True,
        maybe_placeholders=False,
        transformer=_Builder(),
        # Reserved words reach NAME only where their keyword is not allowed: report them as
        # soon as they are read, before the parser trips over what follows (`for (x : y)`).
        lexer_callbacks={"NAME": _reserved_name_check},
    )


def _reserved_name_check(token: Token) -> Token:
    _check_name(token)
    return token


def parse_expression(text: str, *, line: int = 1, column: int = 1, offset: int = 0) -> Expr:
    """Parse one Wrangler/JEXL expression (or ``;``-separated script) into a node tree.

    ``line``/``column`` (1-based) and ``offset`` (0-based) say where ``text`` starts inside
    the recipe; every span and error position is reported in recipe coordinates. A single
    statement comes back as itself; several come back as a :class:`Block`.

    Raises :class:`~grammar.errors.ExpressionSyntaxError` for any input that is not a valid
    expression, and nothing else.
    """
    if not isinstance(text, str):
        raise TypeError(f"expression text must be str, not {type(text).__name__}")
    state = _ParseState(text, line, column, offset, SourceRef(text, offset))
    if text.count("(") + text.count("[") + text.count("{") > MAX_BRACKET_DEPTH:
        _check_bracket_depth(state)
    token = _STATE.set(state)
    try:
        result = _parser().parse(text)
    except ExpressionSyntaxError:
        raise
    except UnexpectedInput as exc:
        raise _translate(exc, state) from None
    except (LarkError, RecursionError) as exc:  # pragma: no cover - defensive, never seen
        raise state.error(f"Invalid expression ({type(exc).__name__}).", _span_of_local(state, NO_SPAN)) from None
    finally:
        _STATE.reset(token)
    assert isinstance(result, Expr)
    return result


def _check_bracket_depth(state: _ParseState) -> None:
    """Refuse brackets nested deeper than `MAX_BRACKET_DEPTH` before parsing: the parser only sees the depth when
    the innermost bracket closes, after shifting every one of them (`((((…` of 1 MiB took seconds to refuse)."""
    text = state.text
    depth, position, end = 0, 0, len(text)
    while position < end:
        char = text[position]
        if char in "'\"":  # a string: its brackets do not count (an unclosed one is the parser's to report)
            position = _STRING_END[char].match(text, position + 1).end()  # type: ignore[union-attr]  # always matches
            continue
        if char in "([{":
            depth += 1
            if depth > MAX_BRACKET_DEPTH:
                local_line = text.count("\n", 0, position) + 1
                local_column = position - (text.rfind("\n", 0, position) + 1) + 1
                raise _local_error(state, f"Expression is nested too deeply (more than {MAX_BRACKET_DEPTH} brackets).",
                                   local_line, local_column,
                                   "Split it into several directives, or use fewer nested parentheses and operators.")
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif text.startswith(("//", "/*", "##"), position):
            close = text.find("\n" if text[position + 1] != "*" else "*/", position + 2)
            position = end if close < 0 else close + 1
            continue
        position += 1


#: From just after an opening quote to just after its closing quote (or to where the string stops without one).
_STRING_END = {quote: re.compile(rf"[^{quote}\\\n]*+(?:\\.[^{quote}\\\n]*+)*+{quote}?") for quote in "'\""}


# ------------------------------------------------------------------------- free variables, fast

# Tokens of the simple expressions most recipes hold: names, plain numbers and strings, arithmetic,
# comparisons, && || ! and parentheses. Anything else (calls, dots, namespaces, ternaries, word
# operators, escapes, exotic numbers) makes the fast reader give up and the full parser decide.
_SIMPLE_TOKEN = re.compile(
    r"""(?:(?P<name>[A-Za-z_$][A-Za-z0-9_$]*)"""
    r"""|(?P<number>(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?![A-Za-z0-9_$.]))"""
    r"""|(?P<string>'[^'\\\n\r\u2028\u2029]*'|"[^"\\\n\r\u2028\u2029]*")"""
    r"""|(?P<equality>==|!=)|(?P<relational><=|>=|<|>)|(?P<logical>&&|\|\|)"""
    r"""|(?P<arithmetic>[+*/%-])|(?P<bang>!)|(?P<open>\()|(?P<close>\)))"""
)
_LITERAL_WORDS = frozenset({"true", "false", "null"})
_SPACE = frozenset(" \t\f\r\n")  # the grammar's WS, exactly (not str.isspace)
_SIMPLE_LIMIT = 60  # operands; far below MAX_DEPTH, whose check only the full parser makes


def _simple_names(text: str) -> tuple[str, ...] | None:
    """Free variables of a simple expression in first-seen order, or None when the full parser must decide.

    Only sequences the grammar certainly accepts pass: operands and binary operators alternate,
    parentheses balance, and the non-associative operators (`==`, `<` …) appear at most once per
    operand of `&&`/`||`. For such an expression pre-order of the tree is left-to-right order, so
    the names come out in the order `referenced_names` gives.
    """
    names: dict[str, None] = {}
    position, end = 0, len(text)
    expect_operand, operands = True, 0
    # per parenthesis level: [equality operators, relational operators] since the last && / ||
    levels: list[list[int]] = [[0, 0]]
    while True:
        while position < end and text[position] in _SPACE:
            position += 1
        if position == end:
            break
        match = _SIMPLE_TOKEN.match(text, position)
        if match is None:
            return None
        kind, value = match.lastgroup, match.group(match.lastgroup or 0)
        position = match.end()
        if expect_operand:
            if kind == "open":
                levels.append([0, 0])
                if len(levels) > 30:
                    return None
                continue
            if kind in ("bang", "arithmetic") and value in ("!", "-"):
                following = _SIMPLE_TOKEN.match(text, position)
                if following is None or following.lastgroup in ("bang", "arithmetic"):
                    return None  # `--a`, `!!a`: leave unusual unary chains to the grammar
                continue
            if kind == "name":
                if value in RESERVED_WORDS and value not in _LITERAL_WORDS:
                    return None
                if value not in _LITERAL_WORDS:
                    names.setdefault(value, None)
            elif kind not in ("number", "string"):
                return None
            operands += 1
            if operands > _SIMPLE_LIMIT:
                return None
            expect_operand = False
            continue
        if kind == "close":
            if len(levels) == 1:
                return None
            levels.pop()
            continue
        if kind == "logical":
            levels[-1] = [0, 0]
        elif kind in ("equality", "relational"):
            counts = levels[-1]
            slot = 0 if kind == "equality" else 1
            if counts[slot] or (slot == 1 and counts[0]):
                return None  # `a == b == c`, `a < b < c`: non-associative, the grammar reports them
            counts[slot] += 1
        elif kind != "arithmetic":
            return None
        expect_operand = True
    if expect_operand or len(levels) != 1:
        return None
    return tuple(names)


@functools.lru_cache(maxsize=8192)
def _names_of(text: str) -> tuple[str, ...]:
    simple = _simple_names(text)
    return simple if simple is not None else referenced_names(parse_expression(text))


def expression_names(text: str, *, line: int = 1, column: int = 1, offset: int = 0) -> tuple[str, ...]:
    """``referenced_names(parse_expression(text))``, fast: a reader for simple expressions, and a cache by text.

    Labelling a recipe needs only an expression's free variables, and recipes repeat expressions,
    so the names are cached by text alone; a bad expression is not cached and raises the parser's
    `ExpressionSyntaxError` at its place in the recipe (``line``, ``column``, ``offset``).
    """
    try:
        return _names_of(text)
    except ExpressionSyntaxError:
        parse_expression(text, line=line, column=column, offset=offset)
        raise


# ------------------------------------------------------------------------- error messages


def _translate(exc: UnexpectedInput, state: _ParseState) -> ExpressionSyntaxError:
    text = state.text
    if isinstance(exc, UnexpectedCharacters):
        local_line, local_column = exc.line, exc.column
        message, hint = _character_message(text, exc.pos_in_stream if exc.pos_in_stream is not None else len(text))
        return _local_error(state, message, local_line, local_column, hint)
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        previous = _previous_item(exc)
        expected = set(exc.expected)
        # LALR merges the states of blocks, if-bodies and the top level, so `expected` also names
        # tokens only valid elsewhere; keep the hint to what can really follow here.
        before = text[: token.start_pos or 0] if token.type != "$END" else text
        if not any(char == "{" for char, _, _ in _unclosed_brackets(before)):
            expected.discard("RBRACE")
        if not _IF_WORD.search(before):
            expected.discard("ELSE_KW")
        if _ends_operand(previous):
            expected -= _OPERAND_STARTS - _OPERATOR_TOKENS
        if token.type == "$END":
            end_line, end_column = _end_position(text)
            message = "Unexpected end of expression."
            hint = _end_hint(state, previous, expected)
            return _local_error(state, message, end_line, end_column, hint)
        message = f"Unexpected {_describe_token(token)}."
        hint = _token_hint(text, token, previous, expected)
        return _local_error(state, message, token.line or 1, token.column or 1, hint)
    return _local_error(state, "Invalid expression.", exc.line or 1, exc.column or 1, None)  # pragma: no cover


def _local_error(
    state: _ParseState, message: str, local_line: int, local_column: int, hint: str | None
) -> ExpressionSyntaxError:
    line, column = state.position(local_line, local_column)
    return _error(state, message, line, column, local_line, local_column, hint)


def _previous_item(exc: UnexpectedToken) -> object | None:
    """What the parser had just read: a Token (operator, bracket …) or a finished node."""
    parser_state = getattr(exc, "state", None)
    stack = getattr(parser_state, "value_stack", None)
    if stack:
        item: object = stack[-1]
        # Inlined rules (`_simple`, `_arguments` …) sit on the stack as temporary trees.
        while isinstance(item, Tree) and item.children:
            item = item.children[-1]
        return item
    history = getattr(exc, "token_history", None)
    if history:
        last: object = history[-1]
        return last
    return None


def _end_position(text: str) -> tuple[int, int]:
    """Local position just after the last non-blank character."""
    stripped = text.rstrip()
    line = stripped.count("\n") + 1
    column = len(stripped) - (stripped.rfind("\n") + 1) + 1
    return line, column


def _describe_token(token: Token) -> str:
    value = str(token)
    if token.type == "NAME":
        return f"name '{value}'"
    if token.type in ("INT", "FLOAT"):
        return f"number {value}"
    if token.type == "STRING":
        return f"string {value}"
    return f"'{value}'"


def _describe_expected(expected: set[str] | frozenset[str]) -> str:
    words: list[str] = []
    if expected & (_OPERAND_STARTS - _OPERATOR_TOKENS):
        words.append("an operand")
    if expected & _OPERATOR_TOKENS:
        words.append("an operator")
    for name in ("RPAR", "RSQB", "RBRACE", "COLON", "COMMA", "SEMI", "DOT_NAME", "ELSE_KW", "$END"):
        if name in expected and name in _TERMINAL_WORDS:
            words.append(_TERMINAL_WORDS[name])
    if not words:
        return ""
    return "Expected " + (", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]) + "."


def _integer_text(previous: object) -> str | None:
    if isinstance(previous, Token) and previous.type == "INT":
        return str(previous)
    if isinstance(previous, Literal) and previous.kind in ("int", "long", "bigint") and previous.raw.isdigit():
        return previous.raw
    return None


def _ends_operand(previous: object) -> bool:
    """Whether the parser had just finished reading an operand (so an operator must follow)."""
    if isinstance(previous, Token):
        return previous.type in _OPERAND_TOKENS or previous.type in ("RPAR", "RSQB", "DOT_NAME")
    return isinstance(previous, Expr)


def _operand_hint(previous: object) -> str | None:
    if isinstance(previous, Token):
        if previous.type == "VAR_KW":
            return "Expected a variable name after 'var': var x = …"
        if previous.type == "IF_KW":
            return "Expected '(' after 'if': if (cond) { … } else { … }"
        if previous.type in _OPERATOR_TOKENS:
            return f"Expected an operand after '{previous}'."
        if previous.type == "COMMA":
            return "Expected an argument after ','."
        if previous.type in ("LPAR", "LSQB"):
            return f"Expected an expression after '{previous}'."
    return None


def _end_hint(state: _ParseState, previous: object, expected: set[str]) -> str | None:
    operand = _operand_hint(previous)
    if operand and not (isinstance(previous, Token) and previous.type in ("LPAR", "LSQB")):
        return operand
    if "COLON" in expected and _ternary_namespace_trap(previous):
        return _NAMESPACE_TRAP_HINT
    unclosed = _unclosed_brackets(state.text)
    if unclosed:
        char, local_line, local_column = unclosed[-1]
        line, column = state.position(local_line, local_column)
        closer = {"(": ")", "[": "]", "{": "}"}[char]
        return f"Unclosed '{char}' at line {line}, column {column}: add the matching '{closer}'."
    if "COLON" in expected:
        return "A ternary needs both branches: cond ? then : otherwise."
    if expected and expected <= {"DOT_NAME", "STRING"}:
        return "Expected a property or method name after '.'."
    return operand or _describe_expected(expected) or None


def _token_hint(text: str, token: Token, previous: object, expected: set[str]) -> str | None:
    value = str(token)
    position = token.start_pos if token.start_pos is not None else -1
    if value in _CLOSERS and _unmatched_closer(text, position):
        return f"Unmatched '{value}': there is no '{_CLOSERS[value]}' to close."
    if token.type == "SLASH" and text.startswith("/*", position):
        return "Unterminated comment: close it with */."
    if token.type == "NAME" and value in RESERVED_WORDS:
        return _RESERVED_HINTS.get(value, f"'{value}' is a JEXL keyword.")
    if token.type in _COMPARISON_TOKENS and "$END" in expected:
        return "Comparisons do not chain: write a == b && b == c, or add parentheses."
    if expected and expected <= {"DOT_NAME", "STRING"}:
        return "Expected a property or method name after '.'."
    operand = _operand_hint(previous)
    if operand and (token.type not in _OPERAND_STARTS or getattr(previous, "type", None) in ("VAR_KW", "IF_KW")):
        return operand
    if _ends_operand(previous) and token.type in _OPERAND_STARTS:
        digits = _integer_text(previous)
        if digits and token.type == "NAME" and value[:1] in "eE" and value[1:].isdigit():
            return f"JEXL numbers need a decimal point before an exponent: write {digits}.0{value}."
        return f"Missing an operator (or ';' between statements) before {_describe_token(token)}."
    if "COLON" in expected and _ternary_namespace_trap(previous):
        return _NAMESPACE_TRAP_HINT
    return _describe_expected(expected) or None


_NAMESPACE_TRAP_HINT = (
    "JEXL reads 'x : f(…)' in a ternary as the namespaced function call 'x:f(…)'; "
    "put parentheses around the else branch: cond ? x : (f(…))."
)


def _ternary_namespace_trap(previous: object) -> bool:
    return isinstance(previous, Call) and previous.namespace is not None


def _character_message(text: str, pos: int) -> tuple[str, str | None]:
    char = text[pos] if 0 <= pos < len(text) else ""
    if char in ("'", '"'):
        return _string_message(text, pos, char)
    if text.startswith("/*", pos):
        return "Unterminated comment.", "Close it with */."
    shown = f"'{char}'" if char.isprintable() and char else f"U+{ord(char):04X}" if char else "end"
    message = f"Unexpected character {shown}."
    if char == "#":
        return message, "'#' is not a JEXL operator; comments start with ## or //."
    if char == "`":
        return message, "Template strings (`…`) are not supported; use '…' or \"…\"."
    if char == "\\":
        return message, "A backslash is only valid inside a string literal."
    if char == "@":
        return message, "Annotations (@…) are not supported in Wrangler expressions."
    if char.isspace():
        return message, "Only ASCII spaces, tabs and line breaks may separate tokens."
    if char and not char.isascii():
        return message, "Names must be ASCII; non-ASCII text is only allowed inside string literals."
    return message, None


_LINE_BREAKS = "\n\r\u2028\u2029"


def _string_message(text: str, pos: int, quote: str) -> tuple[str, str | None]:
    """Explain why the string starting at ``pos`` did not lex (it has no closing quote on its line)."""
    line_end = min(
        (index for index in (text.find(ch, pos + 1) for ch in _LINE_BREAKS) if index >= 0), default=len(text)
    )
    body = text[pos + 1 : line_end]
    if line_end < len(text) and quote in text[line_end:]:
        return "Unterminated string literal.", "Strings cannot span lines; write \\u000a for a line break."
    last = body.rfind(quote)
    if last >= 0 and (last - len(body[:last].rstrip("\\"))) % 2 == 1:
        return "Unterminated string literal.", f"The backslash escapes the closing {quote}; write \\\\ for a backslash."
    return "Unterminated string literal.", f"Add the closing {quote}."


def _scan_brackets(text: str) -> tuple[list[tuple[str, int]], list[int]]:
    """Open brackets left unclosed and positions of unmatched closers, skipping strings/comments."""
    stack: list[tuple[str, int]] = []
    unmatched: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if text.startswith(("//", "##"), i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        if text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            continue
        if ch in "([{":
            stack.append((ch, i))
        elif ch in _CLOSERS:
            if stack and stack[-1][0] == _CLOSERS[ch]:
                stack.pop()
            else:
                unmatched.append(i)
        i += 1
    return stack, unmatched


def _unclosed_brackets(text: str) -> list[tuple[str, int, int]]:
    stack, _ = _scan_brackets(text)
    if not stack:
        return []
    # where each line starts, once: counting newlines before every bracket was quadratic in `((((…`
    starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
    out = []
    for char, pos in stack:
        line = bisect.bisect_right(starts, pos)
        out.append((char, line, pos - starts[line - 1] + 1))
    return out


def _unmatched_closer(text: str, pos: int) -> bool:
    _, unmatched = _scan_brackets(text)
    return pos in unmatched
