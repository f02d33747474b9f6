"""Binding argument tokens to a directive's signature, the way Wrangler's MapArguments does.

Arity is checked first (too few or too many tokens); then a two-pointer walk binds each
token: required arguments must match their kind (a scalar is coerced into a required
list), optional arguments bind only on an exact kind match, and tokens left over when
the signature is exhausted are dropped (Wrangler drops them silently; we report a warning).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from types import MappingProxyType
from typing import Any

from directives.base import REGISTRY, Arg, Directive
from directives.udd import ACTIVE as ACTIVE_UDDS
from grammar.errors import DirectiveArgumentError, RecipeError, UnknownDirectiveError, WranglerReadsDifferently
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


@functools.lru_cache(maxsize=1024)
def _unknown_hint(name: str, registered: int) -> str:
    """The hint for an unknown directive name, remembered: a recipe repeating one bad name thousands of times
    looks for the closest names once (``registered`` keys the cache to the registry's size)."""
    close = difflib.get_close_matches(name, REGISTRY.keys(), n=3, cutoff=0.6)
    hint = (f"Did you mean {' or '.join(repr(c) for c in close)}?" if close
            else "Run `wrangler directives` for the list.")
    return hint + " A user-defined directive needs its declaration: --udd FILE (docs/udd.md)."


def lookup(name: str, call: DirectiveCall | None = None) -> type[Directive]:
    """The declaration of a directive name (built-in, else a declared user-defined one), or an error
    suggesting the closest names."""
    directive = REGISTRY.get(name) or ACTIVE_UDDS.get().get(name)
    if directive is not None:
        return directive
    hint = _unknown_hint(name, len(REGISTRY))
    span = call.span if call else None
    raise UnknownDirectiveError(
        f"Directive '{name}' not found.",
        line=span.line if span else None,
        column=span.column if span else None,
        hint=hint,
        directive=name,
    )


def bind(call: DirectiveCall, index: int, warnings: list[RecipeError] | None = None, placeholders: int = 0
         ) -> Directive:
    """Build the bound directive for one call, or raise a `RecipeError` pointing at the problem.

    ``placeholders``: how many trailing tokens are the `null` words Wrangler's v1 rewrite writes for
    absent optional values; they bind (or are dropped) as Wrangler binds them, without a warning
    unless one lands in an argument.
    """
    declaration = REGISTRY.get(call.name) or lookup(call.name, call)
    tokens = call.args
    kinds = tuple(map(_KIND, tokens))
    plan = _PLANS.get((declaration, kinds)) or _plan(declaration, kinds)
    if plan.failure is not None:
        raise _failure(declaration, call, plan.failure)
    values: dict[str, Any] = {}
    for name, position, convert in plan.slots:  # a plain loop: a comprehension is one more frame per call
        value = tokens[position].value
        values[name] = value if convert is None else convert(value)
    if warnings is not None and (plan.leftovers or placeholders):
        first_placeholder = len(tokens) - placeholders
        warnings.extend(_leftover_warning(declaration, call, tokens[position]) for position in plan.leftovers
                        if position < first_placeholder)
        warnings.extend(_placeholder_warning(call, name) for name, position, _ in plan.slots
                        if position >= first_placeholder)
    directive = declaration(call, values, index, plan.positions)
    if directive.warnings and warnings is not None:
        warnings.extend(directive.warnings)
    return directive


Convert = Callable[[Any], Any]


def _number(value: Any) -> Any:
    return value.value if isinstance(value, Number) else value


def _numbers(value: Any) -> Any:
    return tuple(item.value for item in value) if value and isinstance(value[0], Number) else value


#: How a token of each kind turns into its argument value (kinds not listed: the token's value as is).
_CONVERT: dict[TokenKind, Convert] = {TokenKind.NUMBER: _number, TokenKind.NUMBER_LIST: _numbers}


def _converter(kind: TokenKind, coerce: bool) -> Convert | None:
    """Numbers become Python numbers; a scalar where a required list is declared becomes a one-element list."""
    convert = _CONVERT.get(kind)
    if not coerce:
        return convert
    if convert is None:
        return _one
    return lambda value: (convert(value),)


def _one(value: Any) -> tuple[Any]:
    return (value,)


@dataclass(frozen=True)
class _Plan:
    """How tokens of given kinds bind to one declaration's signature; the same for every call with those kinds.

    Binding depends only on the signature and the token kinds, so the two-pointer walk runs once per
    (declaration, kinds) and each call then only converts its token values.
    """

    #: (argument name, token position, how its value is converted or None), in signature order.
    slots: tuple[tuple[str, int, Convert | None], ...]
    #: argument name → token position, shared (read-only) by every directive bound by this plan.
    positions: Mapping[str, int]
    #: token positions that fit no remaining argument (dropped, as Wrangler does, with a warning).
    leftovers: tuple[int, ...]
    #: why binding fails: ("arity",) or ("kind", argument position, token position); None when it binds.
    failure: tuple[str] | tuple[str, int, int] | None


_KIND = attrgetter("kind")
_NO_POSITIONS: Mapping[str, int] = MappingProxyType({})
_ARITY = _Plan((), _NO_POSITIONS, (), ("arity",))
_PLANS: dict[tuple[type[Directive], tuple[TokenKind, ...]], _Plan] = {}


def _plan(declaration: type[Directive], kinds: tuple[TokenKind, ...]) -> _Plan:
    """Wrangler's MapArguments walk over token kinds (see the module docstring); cached in `_PLANS`."""
    signature = declaration.signature
    required = sum(1 for arg in signature if not arg.optional)
    size = len(signature)
    if len(kinds) > size:  # not cached: the number of such token lists is unbounded
        return _ARITY
    plan = _walk(signature, kinds, required) if len(kinds) >= required else _ARITY
    _PLANS[(declaration, kinds)] = plan
    return plan


def _walk(signature: tuple[Arg, ...], kinds: tuple[TokenKind, ...], required: int) -> _Plan:
    slots: list[tuple[str, int, Convert | None]] = []
    leftovers: list[int] = []
    position, size = 0, len(signature)
    for token_position, kind in enumerate(kinds):
        while position < size:
            arg = signature[position]
            position += 1
            if arg.accepts(kind):
                slots.append((arg.name, token_position, _converter(kind, arg.kind is not kind)))
                break
            if not arg.optional:
                return _Plan((), _NO_POSITIONS, (), ("kind", position - 1, token_position))
        else:
            leftovers.append(token_position)
    bound = {name for name, _, _ in slots}
    if len(bound) < required and any(not arg.optional and arg.name not in bound for arg in signature):
        return _ARITY
    positions = MappingProxyType({name: token_position for name, token_position, _ in slots})
    return _Plan(tuple(slots), positions, tuple(leftovers), None)


def _failure(declaration: type[Directive], call: DirectiveCall, failure: tuple[str, ...]) -> DirectiveArgumentError:
    if failure[0] == "kind":
        _, arg_position, token_position = failure
        return _kind_error(declaration, call, declaration.signature[arg_position], call.args[token_position])
    return _arity_error(declaration, call, call.args, sum(1 for arg in declaration.signature if not arg.optional))


def _usage_error(declaration: type[Directive], call: DirectiveCall, at: Token | DirectiveCall, message: str,
                 severity: str = "error") -> DirectiveArgumentError:
    """An argument error (or warning) at a token or at the whole call, with the directive's usage as the hint."""
    return DirectiveArgumentError(message, line=at.span.line, column=at.span.column,
                                  hint=f"Usage: {declaration.usage()}", directive=call.name, severity=severity)


def _leftover_warning(declaration: type[Directive], call: DirectiveCall, token: Token) -> DirectiveArgumentError:
    return _usage_error(declaration, call, token, f"Argument {token.raw!r} does not fit any remaining argument of "
                        f"'{call.name}' and is ignored.", severity="warning")


def _placeholder_warning(call: DirectiveCall, argument: str) -> WranglerReadsDifferently:
    return WranglerReadsDifferently(
        f"Wrangler's v1 rewrite writes the word 'null' for an absent value, and it binds to '{argument}' "
        f"of '{call.name}'.",
        line=call.line,
        column=call.column,
        hint="Write the line in v2 syntax (:columns, 'text') to say what you mean.",
        directive=call.name,
    )


def _arity_error(declaration: type[Directive], call: DirectiveCall, tokens: tuple[Token, ...], required: int):
    total = len(declaration.signature)
    expected = f"{required}" if required == total else f"{required} to {total}"
    message = f"Improper usage of directive '{call.name}': expected {expected} argument(s), got {len(tokens)}."
    return _usage_error(declaration, call, call, message)


def _kind_error(declaration: type[Directive], call: DirectiveCall, arg: Arg, token: Token) -> DirectiveArgumentError:
    hint = f"Usage: {declaration.usage()}"
    if token.kind is TokenKind.IDENTIFIER and arg.kind in (TokenKind.COLUMN, TokenKind.COLUMN_LIST):
        hint = f"Columns start with a colon: ':{token.value}'. " + hint
    elif token.kind is TokenKind.IDENTIFIER and arg.kind is TokenKind.TEXT:
        hint = f"Text is quoted: '{token.value}'. " + hint
    error = DirectiveArgumentError(
        f"Argument '{arg.name}' of '{call.name}' must be {_KIND_NAMES[arg.kind]}, "
        f"but {token.raw!r} is {_KIND_NAMES[token.kind]}.",
        line=token.span.line,
        column=token.span.column,
        hint=hint,
        directive=call.name,
    )
    # a bare word where v2 wants a column or text: the sign of a v1 line, which Wrangler's rewrite explains better
    error.bare_word = token.kind is TokenKind.IDENTIFIER  # type: ignore[attr-defined]
    return error
