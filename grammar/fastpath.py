"""A fast reader for the common one-line directive forms; the Lark grammar stays the authority.

Most recipe lines are a directive name followed by simple arguments (`rename :a :b`,
`parse-as-csv :body ',' true`, `set-column :t exp:{a * b}`). Building a Lark tree for each
costs ~50 µs; this reader tokenises such a line with one precompiled regex in a few µs and
returns `None` for anything it is not sure about, which then goes to the Lark parser. A
property test checks that both readers agree on every line this one accepts.
"""

from __future__ import annotations

import re

from grammar.nodes import DirectiveCall, Expression, Number, Token, TokenKind

_COLUMN = r":[A-Za-z_\-][A-Za-z0-9_:\-]*"
_TOKEN = re.compile(
    r"[ \t\f\r]*(?:"
    rf"(?P<column_list>{_COLUMN}(?:[ \t\f\r]*,[ \t\f\r]*{_COLUMN})+)"
    rf"|(?P<column>{_COLUMN})"
    r"""|(?P<text>'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+")"""
    r"""|(?P<expression>exp[ \t]*:[ \t]*\{"""
    r"""(?:[^{}'"\n]++|'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+")*\})"""
    r"|(?P<bool>(?:true|false)(?![A-Za-z0-9_\-]))"
    r"|(?P<number>-?(?:[1-9][0-9]*L*|0)(?:\.[0-9]*)?(?![A-Za-z0-9_\-.:,]))"
    r"|(?P<name>[A-Za-z_\-][A-Za-z0-9_\-]*)"
    r")"
)
_NAME = re.compile(r"[ \t\f\r]*([A-Za-z_\-][A-Za-z0-9_\-]*)")
_END = re.compile(r"[ \t\f\r]*;?[ \t\f\r]*$")
_KEYWORDS = frozenset({"exp", "prop", "if", "else", "for", "version", "load-directives", "true", "false"})
_COLUMN_SPLIT = re.compile(r"[ \t\f\r]*,[ \t\f\r]*")


_SPACE = " \t\f\r"
_TOKEN_END = frozenset(" \t\f\r;")
#: Builds a named-tuple node from a tuple of all its fields, skipping the generated ``__new__`` (~3x cheaper).
_make = tuple.__new__
_COLUMN_KIND = TokenKind.COLUMN
_match_name, _match_token = _NAME.match, _TOKEN.match


def read_line(line: str, number: int, offset: int) -> DirectiveCall | None:
    """The directive on one physical line, or None when the line needs the full grammar.

    ``number`` is the 1-based line number and ``offset`` the position of the line's first
    character in the recipe text, so spans point into the whole recipe.
    """
    head = _match_name(line)
    if head is None:
        return None
    name_start, position = head.span(1)  # the name ends the match
    name = line[name_start:position]
    if name in _KEYWORDS or name.startswith("--"):
        return None  # `--` starts a comment, even where a name could start
    # where the arguments end: before trailing blanks and one optional `;` (what `_END` accepts)
    body = line.rstrip(_SPACE)
    if body.endswith(";"):
        body = body[:-1].rstrip(_SPACE)
    limit = len(body)
    if position > limit:  # only blanks / `;` after the name (the name itself cannot end in them)
        position = limit
    args: list[Token] = []
    length = len(line)
    while position < limit:
        match = _match_token(line, position)
        if match is None:
            return None
        kind = match.lastgroup
        start, stop = match.span(kind)  # type: ignore[arg-type]  # never empty: every alternative is non-empty
        if stop < length and kind != "text" and line[stop] not in _TOKEN_END:
            return None
        if kind == "column":  # most arguments are one column: built here, without a call
            raw = line[start:stop]
            args.append(_make(Token, (_COLUMN_KIND, raw[1:], raw, number, start + 1, number, stop + 1,
                                      offset + start, offset + stop)))
        else:
            span = (number, start + 1, number, stop + 1, offset + start, offset + stop)
            token = _token(kind, line[start:stop], span, number, start)
            if token is None:
                return None
            args.append(token)
        position = stop
    # every token (and the name) ends in a non-blank character, so the directive's text ends here
    return _make(DirectiveCall, (name, tuple(args), line[name_start:position], number, name_start + 1, number,
                                 position + 1, offset + name_start, offset + position, None, None))


def _token(kind: str | None, raw: str, span: tuple[int, ...], number: int, start: int) -> Token | None:
    """A token of any kind but a single column; ``span`` holds the six numbers of its `Span`."""
    if kind == "column":
        value: object = raw[1:]
        token_kind = TokenKind.COLUMN
    elif kind == "text":
        value, token_kind = raw[1:-1], TokenKind.TEXT
    elif kind == "column_list":
        value, token_kind = tuple(part[1:] for part in _COLUMN_SPLIT.split(raw)), TokenKind.COLUMN_LIST
    elif kind == "number":
        value, token_kind = Number(raw), TokenKind.NUMBER
    elif kind == "bool":
        value, token_kind = raw == "true", TokenKind.BOOL
    elif kind == "name":
        if raw in _KEYWORDS or raw.startswith("--"):
            return None
        value, token_kind = raw, TokenKind.IDENTIFIER
    elif kind == "expression":
        brace = raw.index("{")
        value, token_kind = Expression(raw[brace + 1 : -1], number, start + brace + 2), TokenKind.EXPRESSION
    else:
        return None
    return _make(Token, (token_kind, value, raw, *span))
