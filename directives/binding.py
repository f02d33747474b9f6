"""Binding argument tokens to a directive's signature, the way Wrangler's MapArguments does.

Arity is checked first (too few or too many tokens); then a two-pointer walk binds each
token: required arguments must match their kind (a scalar is coerced into a required
list), optional arguments bind only on an exact kind match, and tokens left over when
the signature is exhausted are dropped (Wrangler drops them silently; we report a warning).
"""

from __future__ import annotations

import difflib

from directives.base import REGISTRY, Arg, BoundArg, Directive
from grammar.errors import DirectiveArgumentError, RecipeError, UnknownDirectiveError
from grammar.nodes import DirectiveCall, Number, Token, TokenKind

_KIND_NAMES = {
    TokenKind.COLUMN: "a column (:name)",
    TokenKind.COLUMN_LIST: "a column list (:a,:b)",
    TokenKind.TEXT: "a quoted text ('…')",
    TokenKind.TEXT_LIST: "a list of quoted texts",
    TokenKind.NUMBER: "a number",
    TokenKind.NUMBER_LIST: "a list of numbers",
    TokenKind.BOOL: "true or false",
    TokenKind.BOOL_LIST: "a list of true/false",
    TokenKind.IDENTIFIER: "a bare name",
    TokenKind.EXPRESSION: "an expression exp:{…}",
    TokenKind.PROPERTIES: "properties prop:{k=v}",
    TokenKind.RANGES: "ranges lo:hi=value",
}


def lookup(name: str, call: DirectiveCall | None = None) -> type[Directive]:
    """The declaration of a directive name, or an error suggesting the closest names."""
    directive = REGISTRY.get(name)
    if directive is not None:
        return directive
    close = difflib.get_close_matches(name, REGISTRY.keys(), n=3, cutoff=0.6)
    hint = (f"Did you mean {' or '.join(repr(c) for c in close)}?" if close
            else "Run `wrangler directives` for the list.")
    span = call.span if call else None
    raise UnknownDirectiveError(
        f"Directive '{name}' not found.",
        line=span.line if span else None,
        column=span.column if span else None,
        hint=hint,
        directive=name,
    )


def bind(call: DirectiveCall, index: int, warnings: list[RecipeError] | None = None) -> Directive:
    """Build the bound directive for one call, or raise a `RecipeError` pointing at the problem."""
    declaration = REGISTRY.get(call.name) or lookup(call.name, call)
    signature = declaration.signature
    tokens = call.args
    required = _required_count(declaration)
    size = len(signature)
    if len(tokens) < required or len(tokens) > size:
        raise _arity_error(declaration, call, tokens, required)
    bound: dict[str, BoundArg] = {}
    position = 0
    for token in tokens:
        while position < size:
            arg = signature[position]
            position += 1
            if arg.kind is token.kind:
                value = token.value
                if isinstance(value, Number):
                    value = value.value
                elif type(value) is tuple and value and isinstance(value[0], Number):
                    value = tuple(item.value for item in value)
                bound[arg.name] = BoundArg(value, token)
                break
            if arg.accepts(token.kind):
                bound[arg.name] = BoundArg(_value(arg, token), token)
                break
            if not arg.optional:
                raise _kind_error(declaration, call, arg, token)
        else:
            if warnings is not None:
                warnings.append(
                    DirectiveArgumentError(
                        f"Argument {token.raw!r} does not fit any remaining argument of '{call.name}' and is ignored.",
                        line=token.span.line,
                        column=token.span.column,
                        hint=f"Usage: {declaration.usage()}",
                        directive=call.name,
                        severity="warning",
                    )
                )
    if len(bound) < required and any(not arg.optional and arg.name not in bound for arg in signature):
        raise _arity_error(declaration, call, tokens, required)
    return declaration(call, bound, index)


_REQUIRED: dict[type[Directive], int] = {}


def _required_count(declaration: type[Directive]) -> int:
    count = _REQUIRED.get(declaration)
    if count is None:
        count = _REQUIRED[declaration] = sum(1 for arg in declaration.signature if not arg.optional)
    return count


def _value(arg: Arg, token: Token) -> object:
    value = token.value
    if isinstance(value, Number):
        value = value.value
    elif isinstance(value, tuple) and value and isinstance(value[0], Number):
        value = tuple(item.value for item in value)
    if arg.kind is not token.kind:  # a scalar coerced into a one-element list
        value = (value,)
    return value


def _arity_error(declaration: type[Directive], call: DirectiveCall, tokens: tuple[Token, ...], required: int):
    total = len(declaration.signature)
    expected = f"{required}" if required == total else f"{required} to {total}"
    return DirectiveArgumentError(
        f"Improper usage of directive '{call.name}': expected {expected} argument(s), got {len(tokens)}.",
        line=call.span.line,
        column=call.span.column,
        hint=f"Usage: {declaration.usage()}",
        directive=call.name,
    )


def _kind_error(declaration: type[Directive], call: DirectiveCall, arg: Arg, token: Token) -> DirectiveArgumentError:
    hint = f"Usage: {declaration.usage()}"
    if token.kind is TokenKind.IDENTIFIER and arg.kind in (TokenKind.COLUMN, TokenKind.COLUMN_LIST):
        hint = f"Columns start with a colon: ':{token.value}'. " + hint
    elif token.kind is TokenKind.IDENTIFIER and arg.kind is TokenKind.TEXT:
        hint = f"Text is quoted: '{token.value}'. " + hint
    return DirectiveArgumentError(
        f"Argument '{arg.name}' of '{call.name}' must be {_KIND_NAMES[arg.kind]}, "
        f"but {token.raw!r} is {_KIND_NAMES[token.kind]}.",
        line=token.span.line,
        column=token.span.column,
        hint=hint,
        directive=call.name,
    )
