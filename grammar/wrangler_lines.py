"""Wrangler's own reading of a recipe line: its v1 → v2 rewrite, applied to every line as Wrangler does.

Wrangler runs `MigrateToV2` over every line that holds no `exp:`/`prop:` before its grammar sees the
recipe, v2 lines included: `set-column :total price + tax` becomes `set-column :total exp:{price + tax}`,
`keep :a,b` becomes `keep :a,:b`, and `cut-character body one -c 1-3` becomes
`cut-character :body :one '-c'` (the rest of the line is dropped). The parser reads each line as written
*and* the way Wrangler reads it, and keeps Wrangler's reading (`WranglerReading`) wherever the two
differ, with its directives placed on the words the user wrote; the binder then decides which one runs.

Most lines read the same both ways (`rename :a :b`, `set-type :x int`): those are recognised by their
*shape* (the command, the kinds of its arguments, and whether the last one holds a space), which decides
the outcome of Wrangler's rewrite on its own; one rewrite per shape is done and remembered, so the common
case costs a dictionary lookup instead of a rewrite and a second parse.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from grammar.errors import RecipeError, RecipeSyntaxError
from grammar.migrate import V1_SWITCH_COMMANDS, Migration, migrate_line_mapped
from grammar.nodes import DirectiveCall, Expression, Token, TokenKind, WranglerReading

ParseDirectives = Callable[[str], tuple[DirectiveCall, ...]]
"""Parses one line of v2 text into its directives (positions relative to that text), or raises."""

_JAVA_TRIM = "".join(chr(code) for code in range(0x21))
_AFTER_NAME = frozenset({"", " ", ";"})
_TEXT, _COLUMN_LIST = TokenKind.TEXT, TokenKind.COLUMN_LIST
_ALIKE: dict[tuple[object, ...], bool] = {}
#: What the rewrite may throw away without changing the line: a comment after the directive.
_COMMENT = re.compile(r"(?://|--).*|/\*.*?\*/\s*", re.S)
_ALIKE_LIMIT = 4096


def rewritten_by_wrangler(line: str) -> bool:
    """Whether Wrangler's rewrite handles the line itself: no `exp:`/`prop:` in it, and its first word
    (words are separated by spaces only, as `StringTokenizer(line, " ")` splits them) is a command of
    the rewrite. Every other line reaches Wrangler's grammar as written."""
    if "exp:" in line or "prop:" in line:
        return False
    stripped = line.strip(_JAVA_TRIM)
    body = stripped[:-1] if stripped.endswith(";") else stripped
    return body.split(" ", 1)[0] in V1_SWITCH_COMMANDS


def reads_alike(call: DirectiveCall, line: str, parse: ParseDirectives) -> bool:
    """Whether Wrangler's reading of ``line`` is ``call`` itself (the same arguments), from its shape.

    Only for a line the fast reader took as one directive whose name is a command of the rewrite.
    Within one shape — the name, the kinds of the arguments, and a space inside the last one — every
    line is rewritten alike: each argument is one of Wrangler's space-separated words (only the last
    may hold spaces), and whether the rewrite keeps a word as it is depends only on its kind (a
    `:column` stays, a `'text'` stays quoted, a bare word gets a `:` or quotes).
    """
    key = _shape(call, line)
    if key is None:
        return False
    verdict = _ALIKE.get(key)
    if verdict is None:
        verdict = wrangler_reading(line, call.line, call.start - call.column + 1, parse).reads_like((call,))
        if len(_ALIKE) >= _ALIKE_LIMIT:
            _ALIKE.clear()
        _ALIKE[key] = verdict
    return verdict


def _shape(call: DirectiveCall, line: str) -> tuple[object, ...] | None:
    """The shape of a line whose words are exactly its tokens, or None when the words are not the tokens."""
    if "\t" in line or "\f" in line or "\r" in line:
        inner = line.strip(" \t\f\r")
        if "\t" in inner or "\f" in inner or "\r" in inner:
            return None  # Wrangler does not split words on those
    name = call.name
    after = call.column - 1 + len(name)
    if line[after:after + 1] not in _AFTER_NAME:
        return None  # the command word runs on (`rename:a`): not the name Wrangler switches on
    args = call.args
    if not args:
        return (name,)
    # Only text and column lists hold spaces, and only a text can touch the next token (`'a'b` is one word).
    last = args[-1]
    for token in args:
        kind = token[0]
        if kind is _TEXT:
            following = token[8] - call.start + after - len(name)  # just past the token, in the line
            if token is not last and (" " in token[2] or line[following:following + 1] != " "):
                return None
        elif kind is _COLUMN_LIST and token is not last and " " in token[2]:
            return None
    # Wrangler's quote() keeps a rest-of-line text that already starts and ends with a single quote and wraps any
    # other in double quotes, so the quote characters a text is written with are part of its shape.
    return (name, *(_text_shape(token) if token[0] is _TEXT else token[0] for token in args), " " in last[2])


def _text_shape(token: Token) -> tuple[TokenKind, str, str]:
    raw = token[2]
    return (_TEXT, raw[:1], raw[-1:])


def wrangler_reading(line: str, number: int, offset: int, parse: ParseDirectives) -> WranglerReading:
    """What Wrangler makes of one line: the rewritten text, its directives placed on the user's words,
    or why Wrangler fails on it. ``offset`` is where the line starts in the recipe text."""
    try:
        migration = migrate_line_mapped(line, number)
    except RecipeSyntaxError as error:
        return WranglerReading(line=number, text=None, error=error)
    if migration is None:
        return WranglerReading(line=number, text=None)
    ignored = None
    if migration.ignored is not None and not _COMMENT.fullmatch(migration.ignored[0]):
        ignored = (migration.ignored[0], migration.ignored[1] + 1)
    try:
        calls = parse(migration.text)
    except RecipeError as error:
        return WranglerReading(line=number, text=migration.text, error=_placed_error(error, migration, line, number),
                               placeholders=migration.placeholders, ignored=ignored)
    placed = tuple(_placed_call(call, migration, line, number, offset) for call in calls)
    return WranglerReading(line=number, text=migration.text, calls=placed, placeholders=migration.placeholders,
                           ignored=ignored)


def _placed_call(call: DirectiveCall, migration: Migration, line: str, number: int, offset: int) -> DirectiveCall:
    """A directive read from the rewritten text, with every position moved onto the user's line."""
    stripped = line.strip(_JAVA_TRIM)
    indent = len(line) - len(line.lstrip(_JAVA_TRIM))
    args = tuple(_placed_token(token, migration, number, offset) for token in call.args)
    text = stripped[:-1].rstrip(_JAVA_TRIM) if stripped.endswith(";") else stripped
    return DirectiveCall(call.name, args, text, number, indent + 1, number, indent + 1 + len(stripped),
                         offset + indent, offset + indent + len(stripped), stripped, call.condition)


def _placed_token(token: Token, migration: Migration, number: int, offset: int) -> Token:
    start = migration.source_offset(token.column - 1)
    last = migration.source_offset(max(token.end_column - 2, token.column - 1))
    end = max(last + 1, start + 1)
    value = token.value
    if isinstance(value, Expression):
        value = Expression(value.text, number, migration.source_offset(value.column - 1) + 1)
    return Token(token.kind, value, token.raw, number, start + 1, number, end + 1, offset + start, offset + end)


def _placed_error(error: RecipeError, migration: Migration, line: str, number: int) -> RecipeSyntaxError:
    """Wrangler's grammar error on the rewritten text, pointing at what the user wrote."""
    at = (error.column or 1) - 1
    column = migration.source_offset(at) + 1
    message = error.message
    if column <= len(line) and (message.startswith("Unexpected character") or not migration.copied(at)):
        message = f"Unexpected character {line[column - 1]!r}."  # what the user wrote there, not the rewrite
    hint = error.hint or ""
    if migration.rewritten and migration.text.rstrip(";") != line.strip(_JAVA_TRIM).rstrip(";"):
        hint = (hint + " " if hint else "") + f"Wrangler rewrites this line to `{migration.text}` before reading it."
    return RecipeSyntaxError(message, line=number, column=column, hint=hint or None, directive=error.directive)
