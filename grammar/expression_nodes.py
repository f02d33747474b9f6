"""Syntax nodes of Wrangler's expression language (the JEXL 3.0 subset inside ``exp:{…}``).

The nodes are plain frozen dataclasses so later layers (the Spark compiler, lineage) can
pattern-match on them without knowing anything about Lark. Two design choices matter:

* ``span`` (and the hidden link to the source text) are excluded from ``==``: two trees
  are equal when they *mean* the same syntax, wherever it was written. Tests and the
  compiler can therefore build expected trees by hand without inventing positions.
* The parser caps tree depth (see ``grammar.expression.MAX_DEPTH``), so the recursive
  dataclass ``==``/``repr``/``hash`` and any recursive visitor downstream are safe. The
  helpers in this module walk iteratively anyway.

Operators are normalised to their symbolic spelling (``eq`` → ``==``, ``and`` → ``&&``,
``not`` → ``!``, ``div`` → ``/``, ``mod`` → ``%``); the original spelling stays
available through :func:`expression_text`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal as TypingLiteral

from grammar.errors import Span

LiteralKind = TypingLiteral["string", "int", "long", "bigint", "double", "float", "bigdecimal", "bool", "null"]
"""JEXL's literal classes: Integer/Long/BigInteger, Double/Float/BigDecimal, String, Boolean, null.

JEXL types an unsuffixed integer as Integer, widening to Long then BigInteger when it does not
fit; ``L`` forces Long and ``H`` BigInteger. An unsuffixed decimal is a Double; ``f`` makes it
Float, ``d`` Double and ``b`` BigDecimal. The Spark compiler needs this to pick column types.
"""

NO_SPAN = Span(0, 0, 0, 0, 0, 0)
"""Placeholder span for nodes built by hand (tests, rewrites); the parser always sets a real one."""


@dataclass(frozen=True, slots=True)
class SourceRef:
    """The text one parse was given and where it sits in the recipe.

    Shared by every node of one parse (one object, no copies) so that any sub-node can give
    back the exact text it was written as, e.g. for lineage descriptions.
    """

    text: str
    offset: int = 0


@dataclass(frozen=True)
class Expr:
    """Base of every node. JEXL makes no difference between statements and expressions."""

    span: Span = field(default=NO_SPAN, kw_only=True, compare=False, repr=False)
    source: SourceRef | None = field(default=None, kw_only=True, compare=False, repr=False)


@dataclass(frozen=True)
class Literal(Expr):
    """A constant. ``raw`` keeps the spelling (``10L``, ``'a'``) for messages and exact decimals."""

    value: str | int | float | Decimal | bool | None
    kind: LiteralKind
    raw: str = field(default="", kw_only=True, compare=False, repr=False)


@dataclass(frozen=True)
class Name(Expr):
    """A variable reference; ``a.b.c`` is one reference with parts ``("a", "b", "c")``.

    JEXL resolves a dotted path as one context variable first and only then as property
    access, and ``script.getVariables()`` reports it joined with dots, which is what lineage
    needs.
    """

    parts: tuple[str, ...]

    @property
    def dotted(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True)
class Unary(Expr):
    """``-x``, ``!x`` (also written ``not x``) and ``~x``."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """Arithmetic, comparison, logical, bitwise and match (``=~ !~ =^ !^ =$ !$``) operators."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Ternary(Expr):
    """``cond ? then : otherwise``."""

    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True)
class Elvis(Expr):
    """``value ?: default``: ``value`` when it is truthy, otherwise ``default``."""

    value: Expr
    default: Expr


@dataclass(frozen=True)
class Call(Expr):
    """A function call: ``ns:fn(args)``, a bare ``fn(args)`` (namespace ``None``), or the
    ``empty x`` / ``size x`` operators, which are calls of ``empty`` / ``size``."""

    namespace: str | None
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class MethodCall(Expr):
    """``target.name(args)``, e.g. ``name.trim()`` or ``this.width()``."""

    target: Expr
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Attribute(Expr):
    """Property access on something that is not a plain name: ``f(x).y``, ``a[0].b``, ``(a).b``.

    ``a.b`` on a plain name is a :class:`Name` with two parts instead.
    """

    target: Expr
    name: str


@dataclass(frozen=True)
class Index(Expr):
    """``target[index]``."""

    target: Expr
    index: Expr


@dataclass(frozen=True)
class ArrayLiteral(Expr):
    """``[a, b, c]``."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Assign(Expr):
    """``target = value`` or a compound ``+=``, ``-=`` … (``op`` keeps which)."""

    target: Expr
    op: str
    value: Expr


@dataclass(frozen=True)
class Var(Expr):
    """``var x`` or ``var x = value``: declares a script-local variable (not a column)."""

    name: str
    value: Expr | None


@dataclass(frozen=True)
class If(Expr):
    """``if (cond) then [else otherwise]``; its value is the value of the branch taken."""

    cond: Expr
    then: Expr
    otherwise: Expr | None


@dataclass(frozen=True)
class Block(Expr):
    """Statements run in order, the last one giving the value: a ``{ … }`` block, or the
    whole script when it has more than one statement (``var x; x = f(a); x + 1``)."""

    statements: tuple[Expr, ...]


# ------------------------------------------------------------------------- traversal


def children(expr: Expr) -> tuple[Expr, ...]:
    """Direct sub-nodes in source order (the order JEXL visits them)."""
    match expr:
        case Literal() | Name():
            return ()
        case Unary(operand=operand):
            return (operand,)
        case Binary(left=left, right=right):
            return (left, right)
        case Ternary(cond=cond, then=then, otherwise=otherwise):
            return (cond, then, otherwise)
        case Elvis(value=value, default=default):
            return (value, default)
        case Call(args=args) | ArrayLiteral(items=args) | Block(statements=args):
            return args
        case MethodCall(target=target, args=args):
            return (target, *args)
        case Attribute(target=target):
            return (target,)
        case Index(target=target, index=index):
            return (target, index)
        case Assign(target=target, value=value):
            return (target, value)
        case Var(value=value):
            return () if value is None else (value,)
        case If(cond=cond, then=then, otherwise=otherwise):
            return (cond, then) if otherwise is None else (cond, then, otherwise)
    raise TypeError(f"not an expression node: {expr!r}")


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node, pre-order and left to right, without recursion."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def access_path(expr: Expr) -> tuple[str, ...] | None:
    """The variable path an expression reads as a whole, or ``None`` when it is not one.

    ``a.b`` → ``("a", "b")``; JEXL treats ``a['b']`` and ``a[0]`` as the same kind of access,
    so a constant index extends the path (``("a", "0")``); ``(a).b`` and ``a.b`` agree.
    A computed index (``a[i]``) ends the path: ``i`` is a separate variable.
    """
    suffix: list[str] = []
    node = expr
    while True:
        match node:
            case Name(parts=parts):
                return parts + tuple(reversed(suffix))
            case Attribute(target=target, name=name):
                suffix.append(name)
                node = target
            case Index(target=target, index=Literal(kind=kind, value=value, raw=raw)) if kind != "null":
                suffix.append(_index_image(kind, value, raw))
                node = target
            case _:
                return None


def _index_image(kind: str, value: object, raw: str) -> str:
    if kind == "string":
        return str(value)
    if kind == "bool":
        return "true" if value else "false"
    return raw or str(value)


def referenced_names(expr: Expr) -> tuple[str, ...]:
    """Free variables in first-seen order, deduplicated, as JEXL's ``getVariables()`` reports them.

    Dotted paths are one variable (``a.b``); a method call reads its target (``name.trim()``
    reads ``name``); function names and namespaces (``math:abs``) are not variables; names
    declared with ``var`` are script locals from their declaration on and are not free
    (a use *before* the declaration still reads the context variable, as in JEXL).
    """
    seen: dict[str, None] = {}
    local: set[str] = set()
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        path = access_path(node)
        if path is not None:
            if path[0] not in local:
                seen.setdefault(".".join(path), None)
            continue
        if isinstance(node, Var):
            # JEXL declares the register before it parses the initialiser.
            local.add(node.name)
        stack.extend(reversed(children(node)))
    return tuple(seen)


def called_functions(expr: Expr) -> tuple[tuple[str | None, str], ...]:
    """``(namespace, name)`` of every function call, first-seen order, deduplicated.

    Bare calls (``concat(a, b)``) and the ``empty``/``size`` operators have namespace ``None``.
    Method calls are not functions: they are looked up on the value at run time.
    """
    seen: dict[tuple[str | None, str], None] = {}
    for node in walk(expr):
        if isinstance(node, Call):
            seen.setdefault((node.namespace, node.name), None)
    return tuple(seen)


def source_text(expr: Expr) -> str:
    """The whole text given to the parse that produced ``expr`` (any node of the tree)."""
    if expr.source is None:
        raise ValueError("this node was not produced by parse_expression; use format_expression()")
    return expr.source.text


def expression_text(expr: Expr) -> str:
    """The exact text ``expr`` was written as (original spelling, spacing and comments).

    The Spark compiler and lineage descriptions quote user text, not a re-rendering.
    """
    ref = expr.source
    if ref is None:
        raise ValueError("this node was not produced by parse_expression; use format_expression()")
    return ref.text[expr.span.start - ref.offset : expr.span.end - ref.offset]


# ------------------------------------------------------------------------- formatting

# Binding strength of each operator; larger binds tighter. Mirrors the grammar.
_PREC_ASSIGN = 1
_PREC_TERNARY = 2
_BINARY_PREC: dict[str, int] = {
    "||": 3,
    "&&": 4,
    "|": 5,
    "^": 6,
    "&": 7,
    "==": 8,
    "!=": 8,
    "<": 9,
    "<=": 9,
    ">": 9,
    ">=": 9,
    "=~": 9,
    "!~": 9,
    "=^": 9,
    "!^": 9,
    "=$": 9,
    "!$": 9,
    "+": 10,
    "-": 10,
    "*": 11,
    "/": 11,
    "%": 11,
}
_NON_ASSOCIATIVE = {8, 9}
_PREC_UNARY = 12
_PREC_ATOM = 13

BINARY_OPERATORS = frozenset(_BINARY_PREC)
UNARY_OPERATORS = frozenset({"-", "!", "~"})
ASSIGN_OPERATORS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="})
RESERVED_WORDS = frozenset(
    {
        "or", "and", "eq", "ne", "lt", "le", "gt", "ge", "div", "mod", "not", "empty", "size",
        "true", "false", "null", "var", "if", "else", "new", "return", "for", "while",
        "function", "break", "continue",
    }
)  # fmt: skip
"""Words JEXL 3.0 reserves; none can be a variable, function or namespace name."""


def _precedence(expr: Expr) -> int:
    match expr:
        case Assign() | Var():
            return _PREC_ASSIGN
        case Ternary() | Elvis():
            return _PREC_TERNARY
        case Binary(op=op):
            return _BINARY_PREC[op]
        case Unary() | Call(namespace=None, name="empty" | "size", args=(_,)):
            return _PREC_UNARY
        case If() | Block():
            return 0
    return _PREC_ATOM


def format_expression(expr: Expr) -> str:
    """Render a tree as JEXL text that parses back to an equal tree.

    Minimal parentheses, symbolic operators, single-quoted strings. Used where no original
    text exists (rewritten or hand-built trees); for user-facing text prefer
    :func:`expression_text`. Raises ``ValueError`` for trees no JEXL text can express
    (non-finite floats, negative literals, names that are not identifiers).
    """
    if isinstance(expr, Block) and len(expr.statements) > 1:
        return "; ".join(_format_statement(statement) for statement in expr.statements)
    return _format_statement(expr)


def _format_statement(expr: Expr) -> str:
    match expr:
        case Block(statements=statements):
            inner = "; ".join(_format_statement(statement) for statement in statements)
            return "{ " + inner + " }" if inner else "{ }"
        case Var(name=name, value=value):
            _check_identifier(name)
            return f"var {name}" if value is None else f"var {name} = {_format(value)}"
        case If(cond=cond, then=then, otherwise=otherwise):
            text = f"if ({_format(cond)}) {_format_body(then)}"
            if otherwise is not None:
                text += f" else {_format_body(otherwise)}"
            return text
    return _format(expr)


def _format_body(expr: Expr) -> str:
    if isinstance(expr, Block):
        return _format_statement(expr)
    # Wrap simple bodies so a following `else` or statement can never re-associate.
    return "{ " + _format_statement(expr) + " }" if isinstance(expr, If) else _format_statement(expr)


def _wrap(expr: Expr, needs: bool) -> str:
    text = _format(expr)
    return f"({text})" if needs else text


def _format(expr: Expr) -> str:
    match expr:
        case Literal():
            return _format_literal(expr)
        case Name(parts=parts):
            _check_identifier(parts[0])
            return parts[0] + "".join("." + _format_member(part) for part in parts[1:])
        case Unary(op=op, operand=operand):
            text = _wrap(operand, _precedence(operand) < _PREC_UNARY)
            return f"{op} {text}" if op == "-" and text.startswith("-") else op + text
        case Call(namespace=None, name="empty" | "size" as name, args=(operand,)):
            return f"{name} " + _wrap(operand, _precedence(operand) < _PREC_UNARY)
        case Binary(op=op, left=left, right=right):
            prec = _BINARY_PREC[op]
            left_text = _wrap(
                left, _precedence(left) < prec or (prec in _NON_ASSOCIATIVE and _precedence(left) == prec)
            )
            right_text = _wrap(right, _precedence(right) <= prec)
            return f"{left_text} {op} {right_text}"
        case Ternary(cond=cond, then=then, otherwise=otherwise):
            cond_text = _wrap(cond, _precedence(cond) <= _PREC_TERNARY)
            then_text = _wrap(then, _precedence(then) < _PREC_ASSIGN)
            return f"{cond_text} ? {then_text} : {_format_else_branch(otherwise)}"
        case Elvis(value=value, default=default):
            value_text = _wrap(value, _precedence(value) <= _PREC_TERNARY)
            return f"{value_text} ?: {_wrap(default, _precedence(default) < _PREC_ASSIGN)}"
        case Call(namespace=namespace, name=name, args=args):
            _check_identifier(name)
            prefix = name
            if namespace is not None:
                _check_identifier(namespace)
                prefix = f"{namespace}:{name}"
            return f"{prefix}({_format_args(args)})"
        case MethodCall(target=target, name=name, args=args):
            return f"{_wrap(target, _needs_parens_before_dot(target))}.{_format_member(name)}({_format_args(args)})"
        case Attribute(target=target, name=name):
            # A plain name as target must keep its parentheses, or it would read as one Name.
            needs = _needs_parens_before_dot(target) or isinstance(target, Name)
            return f"{_wrap(target, needs)}.{_format_member(name)}"
        case Index(target=target, index=index):
            return f"{_wrap(target, _precedence(target) < _PREC_ATOM)}[{_format(index)}]"
        case ArrayLiteral(items=items):
            return f"[{_format_args(items)}]"
        case Assign(target=target, op=op, value=value):
            return f"{_wrap(target, _precedence(target) <= _PREC_TERNARY)} {op} {_format(value)}"
        case Var() | If() | Block():
            return _format_statement(expr)
    raise TypeError(f"not an expression node: {expr!r}")


def _needs_parens_before_dot(target: Expr) -> bool:
    # `1.5` is a number, so an integer literal followed by `.member` must be parenthesised.
    numeric = isinstance(target, Literal) and target.kind not in ("string", "bool", "null")
    return numeric or _precedence(target) < _PREC_ATOM


def _format_else_branch(expr: Expr) -> str:
    """JEXL reads `c ? a : f(x)` as a namespaced call `a:f(...)`; parenthesise such branches."""
    node = expr
    while True:
        match node:
            case Call(namespace=None, name=name) if name not in ("empty", "size"):
                return f"({_format(expr)})"
            case Binary(left=node) | MethodCall(target=node) | Attribute(target=node) | Index(target=node):
                continue
            case Ternary(cond=node) | Elvis(value=node) | Assign(target=node):
                continue
            case _:
                return _wrap(expr, _precedence(expr) < _PREC_ASSIGN)


def _format_args(args: tuple[Expr, ...]) -> str:
    return ", ".join(_format(arg) for arg in args)


def _format_member(name: str) -> str:
    if name and all(ch.isascii() and (ch.isalnum() or ch in "_$") for ch in name) and name not in RESERVED_WORDS:
        return name
    return _quote(name)


def _check_identifier(name: str) -> None:
    if (
        not name
        or not (name[0].isascii() and (name[0].isalpha() or name[0] in "_$"))
        or not all(ch.isascii() and (ch.isalnum() or ch in "_$") for ch in name)
        or name in RESERVED_WORDS
    ):
        raise ValueError(f"{name!r} cannot be written as a JEXL identifier")


def _format_literal(expr: Literal) -> str:
    value, kind = expr.value, expr.kind
    match kind:
        case "null":
            return "null"
        case "bool":
            return "true" if value else "false"
        case "string":
            return _quote(str(value))
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"literal of kind {kind!r} has a non-numeric value {value!r}")
    if value < 0:
        raise ValueError("negative literals have no JEXL spelling; use Unary('-', …)")
    if kind in ("int", "long", "bigint"):
        suffix = {"int": "", "long": "L", "bigint": "H"}[kind]
        return f"{int(value)}{suffix}"
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("non-finite numbers have no JEXL spelling")
    text = format(Decimal(str(value)), "f") if kind == "bigdecimal" else repr(float(value))
    if "e" in text or "E" in text:
        mantissa, exponent = text.lower().split("e")
        text = (mantissa if "." in mantissa else mantissa + ".0") + "e" + exponent
    elif "." not in text:
        text += ".0"
    suffix = {"double": "", "float": "f", "bigdecimal": "b"}[kind]
    return text + suffix


def _quote(text: str) -> str:
    """Single-quote a string the way JEXL reads it back: only ``\\``, ``'`` and ``\\uXXXX`` are escapes."""
    out = ["'"]
    for ch in text:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch in "\n\r\u2028\u2029" or ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append("'")
    return "".join(out)
