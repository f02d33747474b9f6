"""Plain syntax nodes of a recipe: what the user wrote, with where they wrote it.

The grammar layer stops here: no directive lookup, no argument typing beyond the
token kind. Binding these nodes to directive declarations is `directives/`' job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from grammar.errors import Span

_make = tuple.__new__  # a named tuple from all its fields, without the generated ``__new__``


class TokenKind(StrEnum):
    """Wrangler's token types (spec §1.5), the vocabulary argument specs are written in."""

    COLUMN = "COLUMN_NAME"
    COLUMN_LIST = "COLUMN_NAME_LIST"
    TEXT = "TEXT"
    TEXT_LIST = "TEXT_LIST"
    NUMBER = "NUMERIC"
    NUMBER_LIST = "NUMERIC_LIST"
    BOOL = "BOOLEAN"
    BOOL_LIST = "BOOLEAN_LIST"
    IDENTIFIER = "IDENTIFIER"
    EXPRESSION = "EXPRESSION"
    PROPERTIES = "PROPERTIES"
    RANGES = "RANGES"


@dataclass(frozen=True)
class Number:
    """A numeric literal; keeps its text because Wrangler reads numbers lazily (`10L`, `1.`)."""

    text: str

    @property
    def value(self) -> int | float:
        digits = self.text.rstrip("L")
        if "." in digits:
            return float(digits)
        return int(digits)


@dataclass(frozen=True)
class Range:
    """One `lo:hi=value` entry of a quantize range list."""

    low: float
    high: float
    value: str


@dataclass(frozen=True)
class Expression:
    """The text inside `exp:{…}`, with where that text starts (for expression error positions)."""

    text: str
    line: int
    column: int


class Token(NamedTuple):
    """One argument as written: its kind, its value and its position.

    A flat named tuple holding its span's six numbers inline (``span`` gives the `Span`): the parse
    tree of a long recipe is mostly tokens, and one flat tuple each is the cheapest immutable record
    to build, to collect and to free. Build one with `Token.at`.
    """

    kind: TokenKind
    value: object
    raw: str
    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int

    @classmethod
    def at(cls, kind: TokenKind, value: object, span: Span, raw: str) -> Token:
        return _make(cls, (kind, value, raw, *span))

    @property
    def span(self) -> Span:
        return _make(Span, self[3:])

    def to_json(self) -> object:
        value = self.value
        if isinstance(value, Number):
            return value.value
        if isinstance(value, Expression):
            return value.text
        if isinstance(value, tuple):
            return [item.value if isinstance(item, Number) else _range_json(item) for item in value]
        return value


def _range_json(item: object) -> object:
    if isinstance(item, Range):
        return {"low": item.low, "high": item.high, "value": item.value}
    return item


class DirectiveCall(NamedTuple):
    """A directive as written: its name, its argument tokens, its source text and position.

    ``original`` is the line as the user wrote it when a v1 line was rewritten to v2
    before parsing. ``condition`` is the enclosing `if (…)` condition: Wrangler runs such
    directives unconditionally, we keep the condition so lineage can show it. Like `Token`, it
    holds its span's numbers inline (``span`` gives the `Span`); build one with `DirectiveCall.at`.
    """

    name: str
    args: tuple[Token, ...]
    text: str
    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int
    original: str | None = None
    condition: str | None = None

    @classmethod
    def at(
        cls, name: str, args: tuple[Token, ...], span: Span, text: str, original: str | None = None,
        condition: str | None = None,
    ) -> DirectiveCall:
        return _make(cls, (name, args, text, *span, original, condition))

    @property
    def span(self) -> Span:
        return _make(Span, self[3:9])


@dataclass(frozen=True)
class Pragma:
    """`#pragma version N;` or `#pragma load-directives a,b;`."""

    kind: str
    values: tuple[str, ...]
    span: Span


@dataclass(frozen=True)
class RecipeSyntax:
    """A whole parsed recipe: its directives in order, pragmas, and the text it came from."""

    text: str
    directives: tuple[DirectiveCall, ...]
    pragmas: tuple[Pragma, ...] = ()
    macros: tuple[Span, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def version(self) -> str:
        for pragma in self.pragmas:
            if pragma.kind == "version" and pragma.values:
                return pragma.values[0]
        return "2.0"

    @property
    def load_directives(self) -> tuple[str, ...]:
        names: list[str] = []
        for pragma in self.pragmas:
            if pragma.kind == "load-directives":
                names.extend(pragma.values)
        return tuple(names)
