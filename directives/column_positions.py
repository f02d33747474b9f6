"""Where a directive names a column: the caret of a column finding goes under the name, not the directive.

A column comes from a `:column` token, one item of a `:a,:b` list, or a name an `exp:{…}` reads; the
first place it is written (case-insensitively, as Wrangler looks columns up) is the one shown.
"""

from __future__ import annotations

import re

from grammar.errors import RecipeError
from grammar.nodes import DirectiveCall, Expression, TokenKind


def column_position(call: DirectiveCall, name: str) -> tuple[int, int]:
    """The (line, column) of the first place ``call`` names ``name``; the directive's own when it names it
    nowhere (a column a whole-schema directive touches)."""
    wanted = name.lower()
    for token in call.args:
        kind = token.kind
        if kind is TokenKind.COLUMN and str(token.value).lower() == wanted:
            return token.line, token.column
        if kind is TokenKind.COLUMN_LIST and token.line == token.end_line:
            match = re.search(r":" + re.escape(name) + r"(?![A-Za-z0-9_:\-])", token.raw, re.IGNORECASE)
            if match is not None and token.end_column - token.column == len(token.raw):
                return token.line, token.column + match.start()
        if kind is TokenKind.EXPRESSION and isinstance(token.value, Expression):
            found = _in_expression(token.value, wanted)
            if found is not None:
                return found
    return call.line, call.column


def _in_expression(expression: Expression, wanted: str) -> tuple[int, int] | None:
    from grammar.expression import Name, parse_expression, walk

    try:
        tree = parse_expression(expression.text, line=expression.line, column=expression.column)
    except RecipeError:
        return None
    for node in walk(tree):
        if isinstance(node, Name) and wanted in (node.dotted.lower(), node.parts[0].lower()):
            return node.span.line, node.span.column
    return None
