"""Recipe text → syntax nodes, every line read as written and, where they differ, as Wrangler reads it.

Wrangler rewrites every line with its v1 → v2 migrator (`MigrateToV2`) before its grammar sees the
recipe. The parser reads each line as written (v2), and for every line that rewrite handles it also
keeps Wrangler's reading (`grammar.wrangler_lines`) when the two differ: a line that only reads one way
(`set-column :total price + tax`, `rename a b`) is taken the way it reads, and a line that reads both
ways but differently is left for the binder to settle, which knows whether the as-written reading fits
its directive.

Lines are read one by one (the fast reader first, the grammar for the rest), except the lines of
multi-line constructs — block comments, and `exp:{…}`/`prop:{…}`/`if (…) {…}` blocks spanning lines —
which the grammar reads together, as written.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from lark import Lark, Tree
from lark import Token as LarkToken
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from grammar.errors import RecipeError, RecipeSyntaxError, Span, caret_snippet, raise_collected
from grammar.fastpath import read_line
from grammar.migrate import V1_SWITCH_COMMANDS
from grammar.nodes import (
    DirectiveCall,
    Expression,
    Number,
    Pragma,
    Range,
    RecipeSyntax,
    Token,
    TokenKind,
    WranglerReading,
)
from grammar.wrangler_lines import reads_alike, rewritten_by_wrangler, wrangler_reading

#: A parse tree of recipe.lark, its leaves lark tokens.
LarkTree = Tree[LarkToken]
_GRAMMAR = Path(__file__).with_name("recipe.lark")
MAX_IF_DEPTH = 64
"""Deepest nesting of `if` blocks accepted. Each directive keeps the conditions of every block around it
as text, so the depth multiplies the size of what a recipe parses into; real recipes nest one or two."""
MAX_ELSE_IFS = 256
"""Most `else if` branches of one `if` block: a branch's condition names every branch before it."""
_RANGE = re.compile(r"(-?\d+(?:\.\d+)?):(-?\d+(?:\.\d+)?)=(.*)", re.S)


@functools.lru_cache(maxsize=1)
def get_parser() -> Lark:
    """The recipe parser, built once per process: LALR so parsing stays linear in recipe size."""
    return Lark(_GRAMMAR.read_text(), parser="lalr", propagate_positions=True, maybe_placeholders=False)


def parse_recipe(text: str) -> RecipeSyntax:
    """Parse a whole recipe; raise `RecipeSyntaxError` (all syntax errors collected) when it is not valid."""
    syntax, errors = parse_recipe_partial(text)
    if errors:
        raise_collected(errors)
    return syntax


def parse_recipe_partial(text: str) -> tuple[RecipeSyntax, list[RecipeError]]:
    """The directives of every line that parses, and the syntax errors of the others.

    So a checker can still report what is wrong with the good lines (unknown directives, argument
    types) next to the syntax errors.
    """
    lines = text.split("\n")
    constructs = _construct_lines(text, lines)
    syntax, errors = _parse_lines(text, lines, constructs)
    if not constructs:
        return syntax, errors
    return _with_constructs(text, lines, constructs, syntax, errors)


def _construct_lines(text: str, lines: list[str]) -> frozenset[int]:
    """The (1-based) lines of multi-line constructs: a block comment, or a brace block (`exp:{`, `prop:{`,
    `if (…) {`, `else {`) that does not close on the line that opens it.

    Only braces that open such a block count, and only comment markers that start a word: a v1 line's free
    text (`find-and-replace body s/{/(/g`, `split-to-rows body a/*b`) is one line, rewritten as Wrangler does.
    """
    if "/*" not in text and "{" not in text:
        return frozenset()
    inside: set[int] = set()
    depth, comment = 0, False
    for number, line in enumerate(lines, start=1):
        if not depth and not comment and ("{" not in line or line.count("{") == line.count("}")) and (
                "/*" not in line):
            continue  # the common case, decided without scanning: balanced (or no) braces, no comment
        opened_at = (depth, comment)
        depth, comment = _scan(line, depth, comment)
        if opened_at != (0, False) or (depth, comment) != (0, False):
            inside.add(number)
    return frozenset(inside)


_STRUCTURE_LINE = re.compile(r"\s*(?:if\b|else\b|\})")


def _after_block_keyword(line: str, position: int) -> bool:
    """Whether the `{` at ``position`` opens `exp:{` or `prop:{` (looking back over blanks only: linear overall)."""
    at = position - 1
    while at >= 0 and line[at] in " \t":
        at -= 1
    if at < 0 or line[at] != ":":
        return False
    at -= 1
    while at >= 0 and line[at] in " \t":
        at -= 1
    for keyword in ("exp", "prop"):
        start = at - len(keyword) + 1
        if start >= 0 and line[start:at + 1] == keyword and (start == 0 or not line[start - 1].isalnum()):
            return True
    return False


def _scan(line: str, depth: int, comment: bool) -> tuple[int, bool]:
    """Brace depth and block-comment state after one line, given them before it."""
    position, quote, size = 0, "", len(line)
    structure = _STRUCTURE_LINE.match(line) is not None  # `if (…) {`, `} else {`, `}`: every brace counts
    while position < size:
        char = line[position]
        if comment:
            if line.startswith("*/", position):
                comment = False
                position += 1
        elif quote:
            if char == "\\":
                position += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif line.startswith(("/*", "//", "--"), position) and (position == 0 or line[position - 1] in " \t;"):
            if char != "/" or line[position + 1] != "*":
                break  # a comment to the end of the line
            comment = True
            position += 1
        elif char == "{":
            if depth or structure or _after_block_keyword(line, position):
                depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        position += 1
    return depth, comment


# Possessive quantifiers: a line of 100,000 blanks and then a letter fails in one pass (a plain `\s*` retried
# every split of the blanks between its two `\s*`, quadratic in the line's length).
_SKIP_LINE = re.compile(r"\s*+(?:(?://|--|#(?!pragma)).*)?;*+\s*+")


def _parse_lines(
    text: str, lines: list[str], constructs: frozenset[int]
) -> tuple[RecipeSyntax, list[RecipeError]]:
    directives: list[DirectiveCall] = []
    pragmas: list[Pragma] = []
    macros: list[Span] = []
    errors: list[RecipeError] = []
    readings: dict[int, WranglerReading] = {}
    offset = 0
    append = directives.append
    for number, line in enumerate(lines, start=1):
        line_offset = offset
        offset += len(line) + 1
        if not line[:1].isalpha() and _SKIP_LINE.fullmatch(line):  # a letter first: never blank nor a comment
            continue
        if constructs and number in constructs:
            continue
        call = read_line(line, number, line_offset)
        if call is not None and (call.name not in V1_SWITCH_COMMANDS or "exp:" in line or "prop:" in line
                                 or reads_alike(call, line, _parse_directives)):
            append(call)
            continue
        try:
            syntax, reading = _read_line(line, number, line_offset, call)
        except RecipeError as error:
            errors.extend(error.errors)
            continue
        directives.extend(syntax.directives)
        pragmas.extend(syntax.pragmas)
        macros.extend(syntax.macros)
        if reading is not None:
            readings[number] = reading
    for found in errors:
        found.with_source(text)
    syntax = RecipeSyntax(text=text, directives=tuple(directives), pragmas=tuple(pragmas), macros=tuple(macros),
                          wrangler=readings)
    return syntax, errors


def _read_line(
    line: str, number: int, line_offset: int, call: DirectiveCall | None
) -> tuple[RecipeSyntax, WranglerReading | None]:
    """One line as written and as Wrangler reads it: the directives to use and Wrangler's differing reading.

    A line that does not read as written is taken the way Wrangler reads it (or fails the way Wrangler
    fails on it); a line that reads both ways keeps its as-written directives and, when Wrangler reads it
    differently, Wrangler's reading beside them.
    """
    written: RecipeSyntax | None = None
    error: RecipeSyntaxError | None = None
    if call is not None:
        written = RecipeSyntax(text=line, directives=(call,))
    else:
        try:
            written = _shift(_SyntaxBuilder(line).build(_parse_tree(line)), number - 1, line_offset)
        except RecipeSyntaxError as caught:
            error = _at_line(caught, number)
    if not rewritten_by_wrangler(line):
        if written is None:
            assert error is not None
            raise error
        return written, None
    reading = wrangler_reading(line, number, line_offset, _parse_directives)
    if written is not None:
        return written, None if reading.reads_like(written.directives) else reading
    if reading.error is not None:
        raise reading.error
    return RecipeSyntax(text=line, directives=reading.calls), reading


def _parse_directives(text: str) -> tuple[DirectiveCall, ...]:
    """The directives of one line of v2 text (Wrangler's rewrite of a line), positions relative to it."""
    call = read_line(text, 1, 0)
    if call is not None:
        return (call,)
    return _SyntaxBuilder(text).build(_parse_tree(text)).directives


def _with_constructs(
    text: str, lines: list[str], constructs: frozenset[int], syntax: RecipeSyntax, errors: list[RecipeError]
) -> tuple[RecipeSyntax, list[RecipeError]]:
    """Add the directives of the multi-line constructs, read by the grammar from the recipe with every
    other line blanked out (so their positions stay those of the recipe)."""
    masked = "\n".join(line if number in constructs else "" for number, line in enumerate(lines, start=1))
    try:
        blocks = _SyntaxBuilder(masked).build(_parse_tree(masked))
    except RecipeSyntaxError as error:
        found = [*errors, *(item.with_source(text) for item in error.errors)]
        found.sort(key=lambda item: (item.line or 0, item.column or 0))
        return syntax, found
    key = _position
    merged = RecipeSyntax(
        text=text,
        directives=tuple(sorted((*syntax.directives, *blocks.directives), key=key)),
        pragmas=tuple(sorted((*syntax.pragmas, *blocks.pragmas), key=lambda p: (p.span.line, p.span.column))),
        macros=tuple(sorted((*syntax.macros, *blocks.macros))),
        wrangler=syntax.wrangler,
    )
    return merged, errors


def _position(call: DirectiveCall) -> tuple[int, int]:
    return call.line, call.column


def _at_line(error: RecipeSyntaxError, number: int) -> RecipeSyntaxError:
    return RecipeSyntaxError(error.message, line=number, column=error.column, hint=error.hint)


def _shift(syntax: RecipeSyntax, lines: int, chars: int) -> RecipeSyntax:
    """Move positions of a line parsed on its own to where the line sits in the recipe."""

    def span(s: Span) -> Span:
        return Span(s.line + lines, s.column, s.end_line + lines, s.end_column, s.start + chars, s.end + chars)

    def token(t: Token) -> Token:
        value = t.value
        if isinstance(value, Expression):
            value = Expression(value.text, value.line + lines, value.column)
        return Token.at(t.kind, value, span(t.span), t.raw)

    directives = tuple(
        DirectiveCall.at(c.name, tuple(token(a) for a in c.args), span(c.span), c.text, c.original, c.condition)
        for c in syntax.directives
    )
    pragmas = tuple(Pragma(p.kind, p.values, span(p.span)) for p in syntax.pragmas)
    return RecipeSyntax(syntax.text, directives, pragmas, tuple(span(m) for m in syntax.macros))


def _parse_tree(text: str) -> LarkTree:
    try:
        return get_parser().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(error, text) from None


class _SyntaxBuilder:
    """Turns the Lark tree into `RecipeSyntax`: a hand-written walk, cheaper than a Transformer."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.directives: list[DirectiveCall] = []
        self.pragmas: list[Pragma] = []
        self.macros: list[Span] = []

    def build(self, tree: LarkTree) -> RecipeSyntax:
        self._statements(tree.children, condition=None)
        return RecipeSyntax(
            text=self.text, directives=tuple(self.directives), pragmas=tuple(self.pragmas), macros=tuple(self.macros)
        )

    def _statements(self, nodes: list[LarkTree | LarkToken], condition: str | None, depth: int = 0) -> None:
        for node in nodes:
            if not isinstance(node, Tree):
                continue
            kind = node.data
            if kind == "directive":
                self.directives.append(self._directive(node, condition))
            elif kind == "if_block":
                self._if_block(node, condition, depth + 1)
            elif kind == "macro":
                self.macros.append(_token_span(node.children[0]))  # type: ignore[arg-type]
            elif kind in ("pragma_load", "pragma_version"):
                values = tuple(str(token) for token in node.children[1:])
                span = _tree_span(node)
                self.pragmas.append(Pragma("load-directives" if kind == "pragma_load" else "version", values, span))

    def _if_block(self, node: LarkTree, outer: str | None, depth: int) -> None:
        if depth > MAX_IF_DEPTH:
            raise _limit_error(node, self.text, f"if blocks are nested more than {MAX_IF_DEPTH} deep.",
                               "Flatten the blocks: Wrangler runs every directive in them anyway.")
        branches = sum(1 for child in node.children if isinstance(child, Tree) and child.data == "else_if")
        if branches > MAX_ELSE_IFS:
            raise _limit_error(node, self.text, f"An if block has more than {MAX_ELSE_IFS} 'else if' branches.",
                               "Split it into several if blocks.")
        conditions: list[str] = []
        for child in node.children:
            if isinstance(child, LarkToken) and child.type == "CONDITION":
                conditions.append(str(child)[1:-1].strip())
            elif isinstance(child, Tree) and child.data == "if_body":
                self._statements(child.children, _join_condition(outer, conditions[-1]), depth)
            elif isinstance(child, Tree) and child.data == "else_if":
                condition = str(child.children[0])[1:-1].strip()
                negated = " && ".join(f"!({c})" for c in conditions)
                conditions.append(condition)
                self._statements(_body(child.children[1]), _join_condition(outer, f"{negated} && ({condition})"),
                                 depth)
            elif isinstance(child, Tree) and child.data == "else_part":
                negated = " && ".join(f"!({c})" for c in conditions)
                self._statements(_body(child.children[0]), _join_condition(outer, negated), depth)

    def _directive(self, node: LarkTree, condition: str | None) -> DirectiveCall:
        name_token = node.children[0]
        assert isinstance(name_token, LarkToken)
        args = tuple(self._argument(child) for child in node.children[1:] if isinstance(child, Tree))
        span = _tree_span(node)
        return DirectiveCall.at(
            name=str(name_token),
            args=tuple(arg for arg in args if arg is not None),
            span=span,
            text=self.text[span.start : span.end],
            condition=condition,
        )

    def _argument(self, node: LarkTree) -> Token | None:
        kind = node.data
        tokens = [child for child in node.children if isinstance(child, LarkToken)]
        span = _tree_span(node) if kind == "properties" else _span_of(tokens)
        raw = self.text[span.start : span.end]
        if kind == "column":
            return Token.at(TokenKind.COLUMN, str(tokens[0])[1:], span, raw)
        if kind == "column_list":
            return Token.at(TokenKind.COLUMN_LIST, tuple(str(t)[1:] for t in tokens), span, raw)
        if kind == "text":
            return Token.at(TokenKind.TEXT, str(tokens[0])[1:-1], span, raw)
        if kind == "text_list":
            return Token.at(TokenKind.TEXT_LIST, tuple(str(t)[1:-1] for t in tokens), span, raw)
        if kind == "number":
            return Token.at(TokenKind.NUMBER, Number(str(tokens[0])), span, raw)
        if kind == "number_list":
            return Token.at(TokenKind.NUMBER_LIST, tuple(Number(str(t)) for t in tokens), span, raw)
        if kind == "boolean":
            return Token.at(TokenKind.BOOL, str(tokens[0]) == "true", span, raw)
        if kind == "bool_list":
            return Token.at(TokenKind.BOOL_LIST, tuple(str(t) == "true" for t in tokens), span, raw)
        if kind == "identifier":
            return Token.at(TokenKind.IDENTIFIER, str(tokens[0]), span, raw)
        if kind == "expression":
            return Token.at(TokenKind.EXPRESSION, _expression(tokens[0]), span, raw)
        if kind == "ranges":
            for token in tokens:
                if token.type == "BAD_RANGE":
                    raise _bad_range(token, self.text)
            return Token.at(TokenKind.RANGES, tuple(_range(str(t)) for t in tokens), span, raw)
        if kind == "properties":
            return Token.at(TokenKind.PROPERTIES, _properties(node), span, raw)
        if kind == "macro":
            self.macros.append(span)
            return None
        raise AssertionError(f"unhandled argument rule {kind}")


def _body(node: LarkTree | LarkToken) -> list[LarkTree | LarkToken]:
    """The statements of a block (the grammar makes a block's body a tree)."""
    assert isinstance(node, Tree)
    return node.children


def _limit_error(node: LarkTree, text: str, message: str, hint: str) -> RecipeSyntaxError:
    meta = node.meta
    return RecipeSyntaxError(message, line=meta.line, column=meta.column, hint=hint,
                             snippet=caret_snippet(text, meta.line, meta.column))


def _join_condition(outer: str | None, condition: str) -> str:
    return condition if outer is None else f"({outer}) && ({condition})"


def _expression(token: LarkToken) -> Expression:
    text = str(token)
    open_at = text.index("{")
    inner = text[open_at + 1 : -1]
    before = text[: open_at + 1]
    newlines = before.count("\n")
    line = (token.line or 1) + newlines
    column = (len(before) - before.rfind("\n")) if newlines else (token.column or 1) + len(before)
    return Expression(inner, line, column)


def _range(text: str) -> Range:
    match = _RANGE.fullmatch(text)
    assert match is not None
    value = match.group(3)
    if len(value) >= 2 and value[0] == "'" and value[-1] == "'":
        value = value[1:-1]
    return Range(float(match.group(1)), float(match.group(2)), value)


def _bad_range(token: LarkToken, text: str) -> RecipeSyntaxError:
    """A quantize range whose value is a bare word, which Wrangler's grammar rejects (`5:10=max`)."""
    value = str(token).split("=", 1)[1]
    line = token.line or 1
    column = (token.column or 1) + str(token).index("=") + 1
    return RecipeSyntaxError(
        f"Unexpected name '{value}' as a quantize range value.",
        line=line,
        column=column,
        hint=f"A range value is quoted text, a number, a :column or true/false: write {str(token).split('=')[0]}"
             f"='{value}'.",
        snippet=caret_snippet(text, line, column),
    )


def _properties(node: LarkTree) -> dict[str, object]:
    values: dict[str, object] = {}
    for prop in node.children:
        if not isinstance(prop, Tree):
            continue
        key, value = prop.children
        token = str(value)
        if value.type == "STRING":  # type: ignore[union-attr]
            values[str(key)] = token[1:-1]
        elif value.type == "BOOL":  # type: ignore[union-attr]
            values[str(key)] = token == "true"
        else:
            values[str(key)] = Number(token).value
    return values


def _token_span(token: LarkToken) -> Span:
    return Span(
        token.line or 1,
        token.column or 1,
        token.end_line or token.line or 1,
        token.end_column or token.column or 1,
        token.start_pos or 0,
        token.end_pos or 0,
    )


def _span_of(tokens: list[LarkToken]) -> Span:
    first, last = tokens[0], tokens[-1]
    return Span(
        first.line or 1,
        first.column or 1,
        last.end_line or 1,
        last.end_column or 1,
        first.start_pos or 0,
        last.end_pos or 0,
    )


def _tree_span(node: LarkTree) -> Span:
    meta = node.meta
    return Span(meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos)


_EXP_START = re.compile(r"\b(?:exp|prop)\s*:\s*\{")


def _unclosed_block(text: str) -> RecipeSyntaxError | None:
    """An `exp:{`/`prop:{` whose braces never balance: point at its start, not where the lexer gave up."""
    expression = get_parser().get_terminal("EXPRESSION").pattern.to_regexp()
    whole = re.compile(expression)
    last_close = text.rfind("}")  # one look, not a copy of the rest of the text per `prop:{`
    for match in _EXP_START.finditer(text):
        if match.group(0).startswith("prop") and last_close >= match.end():
            continue
        if match.group(0).startswith("exp") and whole.match(text, match.start()):
            continue
        line = text.count("\n", 0, match.start()) + 1
        column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        kind = match.group(0).split(":")[0].strip()
        return RecipeSyntaxError(
            f"Unclosed {kind}:{{…}} block.",
            line=line,
            column=column,
            hint="Every '{' needs a matching '}' (quoted braces do not count).",
            snippet=caret_snippet(text, line, column),
        )
    return None


def _syntax_error(error: UnexpectedInput, text: str) -> RecipeSyntaxError:
    unclosed = _unclosed_block(text)
    if unclosed is not None:
        return unclosed
    line = getattr(error, "line", None) or 1
    column = getattr(error, "column", None) or 1
    hint: str | None
    if isinstance(error, UnexpectedCharacters):
        position = error.pos_in_stream if error.pos_in_stream is not None else len(text)
        char = text[position] if position < len(text) else ""
        message, hint = f"Unexpected character {char!r}.", _character_hint(char)
    elif isinstance(error, UnexpectedEOF):
        message, hint = "Unexpected end of recipe.", "Check for an unclosed block or quote."
        line, column = _end_position(text)
    elif isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            message = "Unexpected end of recipe."
            line, column = _end_position(text)
        else:
            message = f"Unexpected {_describe(token)}."
        hint = _expected_hint(error.expected)
    else:  # pragma: no cover - lark has no other UnexpectedInput kinds today
        message, hint = str(error), None
    return RecipeSyntaxError(message, line=line, column=column, hint=hint, snippet=caret_snippet(text, line, column))


def _character_hint(char: str) -> str:
    if char in "'\"":
        return "A quoted text is not closed on this line."
    if char == "{":
        return "Braces belong to exp:{…} and prop:{…} blocks."
    if char == "}":
        return "This closing brace has no matching opening brace."
    return (
        "Outside quotes and exp:{…}, a directive takes only :columns, 'text', numbers, true/false, "
        "names and lo:hi=value ranges."
    )


_TERMINAL_NAMES = {
    "COLUMN": ":column",
    "STRING": "'text'",
    "NUMBER": "a number",
    "BOOL": "true/false",
    "NAME": "a name",
    "EXPRESSION": "exp:{…}",
    "RANGE": "a lo:hi=value range",
    "_SEP": "';' or a new line",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "MACRO": "${macro}",
    "PRAGMA": "#pragma",
    "CONDITION": "(condition)",
}


def _describe(token: LarkToken) -> str:
    if token.type == "_SEP":
        return "end of directive"
    return f"{_TERMINAL_NAMES.get(token.type, token.type.lower())} {str(token)!r}"


def _expected_hint(expected: set[str] | frozenset[str]) -> str | None:
    names = sorted({_TERMINAL_NAMES.get(name, name.lower().strip('"')) for name in expected})
    if not names:
        return None
    if len(names) > 6:
        names = [*names[:6], "…"]
    return "Expected " + ", ".join(names) + "."


def _end_position(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1

