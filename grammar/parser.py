"""Recipe text → syntax nodes, with v1 lines rewritten to v2 the way Wrangler does.

Wrangler rewrites every line with its v1→v2 migrator before parsing. Doing that
blindly mangles valid v2 lines (several directives on one line, a `parse-as-csv`
without a delimiter), so we only rewrite a line when it cannot be v2: its command
exists only in v1, or the line does not parse as v2 on its own. A line that parses
as v2 but does not fit its directive (`drop body`: a bare word where a column is
expected) is re-read through the migrator lazily, by the binder (`v1_reading`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path

from lark import Lark, Tree
from lark import Token as LarkToken
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from grammar.errors import RecipeError, RecipeSyntaxError, Span, caret_snippet, raise_collected
from grammar.fastpath import read_line
from grammar.migrate import V1_ONLY_COMMANDS, V1_SWITCH_COMMANDS, migrate_line
from grammar.nodes import DirectiveCall, Expression, Number, Pragma, Range, RecipeSyntax, Token, TokenKind

_GRAMMAR = Path(__file__).with_name("recipe.lark")
_RANGE = re.compile(r"(-?\d+(?:\.\d+)?):(-?\d+(?:\.\d+)?)=(.*)", re.S)


@functools.lru_cache(maxsize=1)
def get_parser() -> Lark:
    """The recipe parser, built once per process: LALR so parsing stays linear in recipe size."""
    return Lark(_GRAMMAR.read_text(), parser="lalr", propagate_positions=True, maybe_placeholders=False)


def parse_recipe(text: str) -> RecipeSyntax:
    """Parse a whole recipe; raise `RecipeSyntaxError` (all syntax errors collected) when it is not valid.

    A recipe without multi-line constructs is read line by line (the common case): simple lines
    by the fast reader, others by the grammar, v1 lines through the rewriter. One with block
    comments, multi-line expressions or `if` blocks is parsed whole by the grammar.
    """
    syntax, errors = parse_recipe_partial(text)
    if errors:
        raise_collected(errors)
    return syntax


def parse_recipe_partial(text: str) -> tuple[RecipeSyntax, list[RecipeError]]:
    """The directives of every line that parses, and the syntax errors of the others.

    So a checker can still report what is wrong with the good lines (unknown directives, argument
    types) next to the syntax errors. A recipe with multi-line constructs is one grammar parse: when
    it fails there are no good lines to give, only the errors.
    """
    lines = text.split("\n")
    if _has_multiline_constructs(text, lines):
        try:
            return _parse_whole(text), []
        except RecipeError as error:
            return RecipeSyntax(text=text, directives=()), list(error.errors)
    return _parse_lines(text, lines)


def _has_multiline_constructs(text: str, lines: list[str]) -> bool:
    if "/*" in text:
        return True
    if "{" not in text and "(" not in text:
        return False
    return any(line.count("{") != line.count("}") or line.count("(") != line.count(")")
               for line in lines if "{" in line or "}" in line or "(" in line or ")" in line)


def _parse_whole(text: str) -> RecipeSyntax:
    try:
        tree = _parse_tree(text)
    except RecipeSyntaxError:
        return _parse_with_v1_lines(text)
    syntax = _SyntaxBuilder(text).build(tree)
    if any(call.name in V1_ONLY_COMMANDS for call in syntax.directives):
        return _parse_with_v1_lines(text)
    return syntax


_SKIP_LINE = re.compile(r"\s*(?:(?://|--|#(?!pragma)).*)?;*\s*")


def _parse_lines(text: str, lines: list[str]) -> tuple[RecipeSyntax, list[RecipeError]]:
    directives: list[DirectiveCall] = []
    pragmas: list[Pragma] = []
    macros: list[Span] = []
    errors: list[RecipeError] = []
    offset = 0
    for number, line in enumerate(lines, start=1):
        line_offset = offset
        offset += len(line) + 1
        if not line[:1].isalpha() and _SKIP_LINE.fullmatch(line):  # a letter first: never blank nor a comment
            continue
        call = read_line(line, number, line_offset)
        if call is not None and call.name not in V1_ONLY_COMMANDS:
            directives.append(call)
            continue
        try:
            syntax = _parse_one_line(line, number, line_offset)
        except RecipeError as error:
            errors.extend(error.errors)
            continue
        directives.extend(syntax.directives)
        pragmas.extend(syntax.pragmas)
        macros.extend(syntax.macros)
    for error in errors:
        error.with_source(text)
    syntax = RecipeSyntax(text=text, directives=tuple(directives), pragmas=tuple(pragmas), macros=tuple(macros))
    return syntax, errors


def _parse_one_line(line: str, number: int, line_offset: int) -> RecipeSyntax:
    """One line through the grammar, or through the v1 rewriter when it can only be v1."""
    first_word = line.strip().split(" ", 1)[0].rstrip(";")
    v2_error: RecipeSyntaxError | None = None
    if first_word not in V1_ONLY_COMMANDS:
        try:
            syntax = _SyntaxBuilder(line).build(_parse_tree(line))
        except RecipeSyntaxError as error:
            v2_error = error
        else:
            return _shift(syntax, number - 1, line_offset)
    if not _is_v1_candidate(line):
        if v2_error is None:
            # A v1-only command on a line the rewriter passes through (it holds exp:, prop: or #pragma).
            try:
                syntax = _SyntaxBuilder(line).build(_parse_tree(line))
            except RecipeSyntaxError as error:
                raise _at_line(error, number) from None
            return _shift(syntax, number - 1, line_offset)
        raise _at_line(v2_error, number)
    migrated = migrate_line(line, number)
    if migrated is None:
        return RecipeSyntax(text=line, directives=())
    try:
        syntax = _SyntaxBuilder(migrated).build(_parse_tree(migrated))
    except RecipeSyntaxError as error:
        raise _at_line(v2_error or error, number) from None
    calls = tuple(_relocate(call, number, line) for call in syntax.directives)
    return RecipeSyntax(text=line, directives=calls)


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


def v1_reading(call: DirectiveCall, text: str) -> DirectiveCall | None:
    """The directive read as a v1 line, for a v2 reading that does not fit its directive.

    Only a directive alone on its line can have a v1 reading, since v1 is line-based.
    """
    if call.original is not None or call.span.line != call.span.end_line:
        return None
    line_text = _line(text, call.span.line)
    if line_text.strip().rstrip(";").strip() != call.text.strip():
        return None
    try:
        migrated = migrate_line(line_text, call.span.line)
    except RecipeError:
        return None
    if migrated is None or migrated.rstrip(";").strip() == line_text.strip().rstrip(";").strip():
        return None
    try:
        directives = _SyntaxBuilder(migrated).build(_parse_tree(migrated)).directives
    except RecipeSyntaxError:
        return None
    if len(directives) != 1:
        return None
    return _relocate(directives[0], call.span.line, line_text)


def _parse_tree(text: str) -> Tree:
    try:
        return get_parser().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(error, text) from None


def _parse_with_v1_lines(text: str) -> RecipeSyntax:
    """Rewrite every line that can only be v1, then parse; collect one error per bad line."""
    lines = text.split("\n")
    rewritten: list[str] = []
    originals: dict[int, str] = {}
    errors: list[RecipeError] = []
    for number, line in enumerate(lines, start=1):
        if not _is_v1_candidate(line) or _parses_alone(line):
            rewritten.append(line)
            continue
        try:
            migrated = migrate_line(line, number)
        except RecipeSyntaxError as error:
            errors.append(error)
            rewritten.append("")
            continue
        rewritten.append(migrated or "")
        if migrated:
            originals[number] = line
    normalised = "\n".join(rewritten)
    try:
        tree = _parse_tree(normalised)
    except RecipeSyntaxError:
        errors.extend(_errors_per_line(text, rewritten, originals))
        raise_collected(sorted(errors, key=lambda e: (e.line or 0, e.column or 0)))
        raise
    raise_collected(errors)
    syntax = _SyntaxBuilder(normalised).build(tree)
    directives = tuple(
        _relocate(call, call.span.line, originals[call.span.line]) if call.span.line in originals else call
        for call in syntax.directives
    )
    return RecipeSyntax(text=text, directives=directives, pragmas=syntax.pragmas, macros=syntax.macros)


def _errors_per_line(text: str, rewritten: list[str], originals: dict[int, str]) -> list[RecipeError]:
    """One error per failing line, so that a CI run shows every bad line at once."""
    if any(marker in text for marker in ("/*", "{", "}")):
        try:
            _parse_tree("\n".join(rewritten))
        except RecipeSyntaxError as error:
            return [error.with_source(text)]
        return []
    errors: list[RecipeError] = []
    for number, line in enumerate(rewritten, start=1):
        try:
            _parse_tree(line)
        except RecipeSyntaxError as error:
            shown = originals.get(number, line)
            column = error.column if number not in originals else len(shown) - len(shown.lstrip()) + 1
            errors.append(
                RecipeSyntaxError(
                    error.message,
                    line=number,
                    column=column,
                    hint=error.hint,
                    snippet=caret_snippet(text, number, column),
                )
            )
    return errors


_V2_COLUMN = re.compile(r"(?:^|[\s,]):[A-Za-z_\-]")


_V1_PASS_THROUGH = ("exp:", "exp :", "prop:", "#pragma")


def _is_v1_candidate(line: str) -> bool:
    """Whether a line may be v1: a line that writes `:columns` means v2, and its errors are v2 errors.

    Wrangler's migrator rewrites every line without `exp:`/`prop:` whose first word is a v1 command,
    so a command that exists only in v1 (`set column x var a; a + 1`) is always v1, and a v1 command
    whose free-text argument holds balanced braces (`extract-regex-groups body (\\d{2})`) may be.
    """
    stripped = line.strip()
    if not stripped or stripped.startswith(("//", "--", "#", "$", "if", "}")):
        return False
    if any(marker in stripped for marker in _V1_PASS_THROUGH):
        return False
    first_word = stripped.split(" ", 1)[0].rstrip(";")
    if first_word in V1_ONLY_COMMANDS:
        return True
    if first_word not in V1_SWITCH_COMMANDS and ("/*" in stripped or "*/" in stripped):
        return False  # part of a block comment; a v1 regex argument may hold '*/' (`\\s*/?>`)
    if _V2_COLUMN.search(stripped):
        return False
    if ("{" in stripped or "}" in stripped) and (
        first_word not in V1_SWITCH_COMMANDS or stripped.count("{") != stripped.count("}")
    ):
        return False
    return ";" not in stripped.rstrip(";")


def _parses_alone(line: str) -> bool:
    first_word = line.strip().split(" ", 1)[0].rstrip(";")
    if first_word in V1_ONLY_COMMANDS:
        return False
    try:
        get_parser().parse(line)
    except UnexpectedInput:
        return False
    return True


def _line(text: str, number: int) -> str:
    lines = text.split("\n")
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _relocate(call: DirectiveCall, line: int, original_line: str) -> DirectiveCall:
    """Point a directive read from rewritten text back at the line the user wrote."""
    indent = len(original_line) - len(original_line.lstrip())
    stripped = original_line.strip()
    span = Span(line, indent + 1, line, indent + 1 + len(stripped), 0, 0)
    args = tuple(Token.at(arg.kind, arg.value, _relocate_span(arg.span, span), arg.raw) for arg in call.args)
    return DirectiveCall.at(
        name=call.name,
        args=args,
        span=span,
        text=stripped.rstrip(";").rstrip(),
        original=stripped,
        condition=call.condition,
    )


def _relocate_span(arg_span: Span, line_span: Span) -> Span:
    return Span(line_span.line, line_span.column, line_span.end_line, line_span.end_column, 0, 0)


class _SyntaxBuilder:
    """Turns the Lark tree into `RecipeSyntax`: a hand-written walk, cheaper than a Transformer."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.directives: list[DirectiveCall] = []
        self.pragmas: list[Pragma] = []
        self.macros: list[Span] = []

    def build(self, tree: Tree) -> RecipeSyntax:
        self._statements(tree.children, condition=None)
        return RecipeSyntax(
            text=self.text, directives=tuple(self.directives), pragmas=tuple(self.pragmas), macros=tuple(self.macros)
        )

    def _statements(self, nodes: list[Tree | LarkToken], condition: str | None) -> None:
        for node in nodes:
            if not isinstance(node, Tree):
                continue
            kind = node.data
            if kind == "directive":
                self.directives.append(self._directive(node, condition))
            elif kind == "if_block":
                self._if_block(node, condition)
            elif kind == "macro":
                self.macros.append(_token_span(node.children[0]))  # type: ignore[arg-type]
            elif kind in ("pragma_load", "pragma_version"):
                values = tuple(str(token) for token in node.children[1:])
                span = _tree_span(node)
                self.pragmas.append(Pragma("load-directives" if kind == "pragma_load" else "version", values, span))

    def _if_block(self, node: Tree, outer: str | None) -> None:
        conditions: list[str] = []
        for child in node.children:
            if isinstance(child, LarkToken) and child.type == "CONDITION":
                conditions.append(str(child)[1:-1].strip())
            elif isinstance(child, Tree) and child.data == "if_body":
                self._statements(child.children, _join_condition(outer, conditions[-1]))
            elif isinstance(child, Tree) and child.data == "else_if":
                condition = str(child.children[0])[1:-1].strip()
                negated = " && ".join(f"!({c})" for c in conditions)
                conditions.append(condition)
                self._statements(child.children[1].children, _join_condition(outer, f"{negated} && ({condition})"))
            elif isinstance(child, Tree) and child.data == "else_part":
                negated = " && ".join(f"!({c})" for c in conditions)
                self._statements(child.children[0].children, _join_condition(outer, negated))

    def _directive(self, node: Tree, condition: str | None) -> DirectiveCall:
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

    def _argument(self, node: Tree) -> Token | None:
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
            return Token.at(TokenKind.RANGES, tuple(_range(str(t)) for t in tokens), span, raw)
        if kind == "properties":
            return Token.at(TokenKind.PROPERTIES, _properties(node), span, raw)
        if kind == "macro":
            self.macros.append(span)
            return None
        raise AssertionError(f"unhandled argument rule {kind}")


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


def _properties(node: Tree) -> dict[str, object]:
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


def _tree_span(node: Tree) -> Span:
    meta = node.meta
    return Span(meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos)


_EXP_START = re.compile(r"\b(?:exp|prop)\s*:\s*\{")


def _unclosed_block(text: str) -> RecipeSyntaxError | None:
    """An `exp:{`/`prop:{` whose braces never balance: point at its start, not where the lexer gave up."""
    expression = get_parser().get_terminal("EXPRESSION").pattern.to_regexp()
    whole = re.compile(expression)
    for match in _EXP_START.finditer(text):
        if match.group(0).startswith("prop") and "}" in text[match.end():]:
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
    if isinstance(error, UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
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


def iter_directive_lines(text: str) -> Iterator[tuple[int, str]]:
    """Non-empty physical lines with their numbers: what `wrangler check` shows in text output."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line
