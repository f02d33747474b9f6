"""`wrangler check`'s look at the functions an `exp:{…}` calls: do they exist in Wrangler, with that many arguments?

Wrangler compiles an expression without resolving its functions: JEXL looks `math:sqrtt` up only when
a row runs, so a misspelt function passes Wrangler's compile and fails the run. Checked against
`expression_catalogue` (every function Wrangler's JEXL engine registers, with the argument counts of
each overload), without Spark, so the mistake shows in CI with its position and the closest names.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from directives.base import Directive
from directives.expression_catalogue import FUNCTIONS, NAMESPACES, Arity
from grammar.errors import ExpressionFunctionError, RecipeError
from grammar.nodes import Expression, TokenKind

#: JEXL operators the expression grammar writes as calls (`empty x`, `size(x)`): not functions.
_OPERATORS = frozenset({"empty", "size"})


def function_findings(directive: Directive) -> list[RecipeError]:
    """One finding per call of an unknown namespace or function, or with a count of arguments no
    overload of that function takes."""
    findings: list[RecipeError] = []
    for expression in _expressions(directive):
        if "(" not in expression.text:
            continue  # nothing is called
        from grammar.expression import Call, parse_expression, walk

        try:
            tree = parse_expression(expression.text, line=expression.line, column=expression.column)
        except RecipeError:
            continue  # reported by binding already
        for node in walk(tree):
            if isinstance(node, Call) and (node.namespace is not None or node.name not in _OPERATORS):
                finding = _check_call(node.namespace, node.name, len(node.args), node.span.line, node.span.column,
                                      directive.name)
                if finding is not None:
                    findings.append(finding)
    return findings


def _expressions(directive: Directive) -> Iterator[Expression]:
    for token in directive.call.args:
        if token.kind is TokenKind.EXPRESSION and isinstance(token.value, Expression):
            yield token.value


def _check_call(namespace: str | None, name: str, count: int, line: int, column: int,
                directive: str) -> RecipeError | None:
    shown = f"{namespace}:{name}" if namespace is not None else name
    if namespace not in NAMESPACES:
        close = difflib.get_close_matches(namespace or "", [ns for ns in NAMESPACES if ns], n=3, cutoff=0.5)
        return _finding(f"Unknown function namespace '{namespace}' in '{shown}(…)'.", line, column, directive,
                        _did_you_mean([f"{ns}:{name}" for ns in close])
                        + f"Wrangler's namespaces: {', '.join(sorted(ns for ns in NAMESPACES if ns))}.")
    functions = FUNCTIONS[namespace]
    arities = functions.get(name)
    if arities is None:
        return _finding(f"Unknown function '{shown}': Wrangler's {_where(namespace)} has no '{name}'.", line, column,
                        directive, _did_you_mean(_close_functions(namespace, name)) or _listing(namespace))
    if any(low <= count and (high is None or count <= high) for low, high in arities):
        return None
    return _finding(f"'{shown}' takes {_arity_text(arities)}, not {count}.", line, column, directive,
                    f"Wrangler's {NAMESPACES[namespace]} has '{name}' with {_arity_text(arities)}.")


def _where(namespace: str | None) -> str:
    return "bare functions (io.cdap.functions.Global)" if namespace is None else f"'{namespace}:' namespace"


def _close_functions(namespace: str | None, name: str) -> list[str]:
    """The closest names in that namespace (case-insensitively first), then the same name elsewhere."""
    functions = FUNCTIONS[namespace]
    prefix = "" if namespace is None else f"{namespace}:"
    by_lower = {function.lower(): function for function in functions}
    close = [by_lower[name.lower()]] if name.lower() in by_lower else []
    close += [match for match in difflib.get_close_matches(name, functions, n=3, cutoff=0.7) if match not in close]
    found = [prefix + match for match in close[:3]]
    for other, names in FUNCTIONS.items():
        if other != namespace and name in names and other is not None:
            found.append(f"{other}:{name}")
    return found[:4]


def _listing(namespace: str | None) -> str:
    names = sorted(FUNCTIONS[namespace])
    shown = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
    return f"{NAMESPACES[namespace]} has: {shown}."


def _did_you_mean(candidates: list[str]) -> str:
    return f"Did you mean {' or '.join(repr(c) for c in candidates)}? " if candidates else ""


def _arity_text(arities: tuple[Arity, ...]) -> str:
    parts: list[str] = []
    for low, high in arities:
        if high is None:
            parts.append(f"{low} or more")
        elif low == high:
            parts.append(str(low))
        else:
            parts.append(f"{low} to {high}")
    unique = list(dict.fromkeys(parts))
    text = ", ".join(unique[:-1]) + (" or " if len(unique) > 1 else "") + unique[-1]
    return f"{text} argument{'' if unique == ['1'] else 's'}"


def _finding(message: str, line: int, column: int, directive: str, hint: str) -> RecipeError:
    return ExpressionFunctionError(message, line=line, column=column, hint=hint.strip() or None, directive=directive)
