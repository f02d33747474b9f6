"""Plain syntax nodes of a recipe: what the user wrote, with where they wrote it.

The grammar layer stops here: no directive lookup, no argument typing beyond the
token kind. Binding these nodes to directive declarations is `directives/`' job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from grammar.errors import RecipeError, Span

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

    # Hashed as the text it equals (Enum's own hash is a Python call): kinds are dictionary keys on every
    # directive of a recipe (binding plans, the shapes of lines Wrangler reads alike).
    __hash__ = str.__hash__


@dataclass(frozen=True)
class Number:
    """A numeric literal; keeps its text because Wrangler reads numbers lazily (`10L`, `1.`)."""

    text: str

    @property
    def value(self) -> int | float:
        digits = self.text.rstrip("L")
        if "." in digits:
            return float(digits)
        try:
            return int(digits)
        except ValueError:  # more than 4,300 digits: Python refuses to read them as an int (found by bench/fuzz.py)
            return float(digits)


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
class WranglerReading:
    """What Wrangler makes of one line that it rewrites differently from how the line reads as written.

    Wrangler runs its v1 → v2 rewriter (`MigrateToV2`) over every line without `exp:`/`prop:` before
    parsing. Where that changes what a line says, the parser keeps both readings and the binder decides
    (a line that is valid as written stays as written, with a warning naming what Wrangler runs instead).
    ``text`` is the rewritten line (None: Wrangler drops the line), ``calls`` its directives with positions
    in the user's line, ``error`` Wrangler's failure on it (its rewrite or its grammar), ``placeholders``
    the trailing `null` words the rewrite adds for absent optional values, and ``ignored`` the text of the
    line the rewrite reads past and throws away, with its 1-based column.
    """

    line: int
    text: str | None
    calls: tuple[DirectiveCall, ...] = ()
    error: RecipeError | None = None
    placeholders: int = 0
    ignored: tuple[str, int] | None = None

    def reads_like(self, calls: tuple[DirectiveCall, ...] | list[DirectiveCall]) -> bool:
        """Whether Wrangler's reading is the same directive with the same arguments as ``calls``."""
        if self.error is not None or self.text is None or self.ignored is not None:
            return False
        if len(calls) != 1 or len(self.calls) != 1:
            return False
        (mine,), (theirs,) = self.calls, calls
        args = mine.args[: len(mine.args) - self.placeholders]
        if mine.name != theirs.name or len(args) != len(theirs.args):
            return False
        return all(a.kind is b.kind and _same_value(a.value, b.value) for a, b in zip(args, theirs.args, strict=True))


def _same_value(left: object, right: object) -> bool:
    if isinstance(left, Expression) and isinstance(right, Expression):
        return left.text == right.text
    return left == right


@dataclass(frozen=True)
class RecipeSyntax:
    """A whole parsed recipe: its directives in order, pragmas, and the text it came from.

    ``wrangler`` holds, by line number, Wrangler's own reading of each line it rewrites differently
    (see `WranglerReading`); a directive read that way instead of as written has ``original`` set.
    """

    text: str
    directives: tuple[DirectiveCall, ...]
    pragmas: tuple[Pragma, ...] = ()
    macros: tuple[Span, ...] = ()
    notes: tuple[str, ...] = field(default=())
    wrangler: Mapping[int, WranglerReading] = field(default_factory=dict)

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
