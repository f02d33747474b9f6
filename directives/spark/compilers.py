"""Which Spark compiler runs each directive: one function per directive name, registered by decorator.

Compilers live in family modules under `directives/spark/compile/`, beside the declarations'
families, and are looked up by the declaration's name; a directive without one is reported
before anything runs, never silently skipped.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from directives.base import Directive
from directives.spark.runtime.frame import Compiler
from grammar.errors import RecipeError

COMPILERS: dict[str, Compiler] = {}
#: Directives that cannot run here, with the reason (external services, formats Spark cannot read).
UNSUPPORTED: dict[str, str] = {}
#: Directives whose compiler uses a Python UDF because Spark has no built-in equivalent, with the reason.
#: The README lists every one of them (a test keeps the two in step).
PYTHON_UDFS: dict[str, str] = {}

_FAMILIES = ("column_ops", "transform", "writers", "transient", "expressions", "quality", "parsers", "rows", "dates",
             "external")


class UnsupportedDirectiveError(RecipeError):
    """The directive is declared (it parses, labels and has lineage) but cannot run on Spark here."""

    rule = "unsupported"


def compiles(*names: str) -> Callable[[Compiler], Compiler]:
    def register(function: Compiler) -> Compiler:
        for name in names:
            if name in COMPILERS:
                raise TypeError(f"two Spark compilers for {name!r}")
            COMPILERS[name] = function
        return function

    return register


def unsupported(name: str, reason: str) -> None:
    UNSUPPORTED[name] = reason


def python_udf(name: str, reason: str) -> None:
    """Declare that a directive's compiler falls back to a Python UDF, and why Spark cannot do it natively."""
    PYTHON_UDFS[name] = reason


def load_all() -> None:
    for family in _FAMILIES:
        try:
            importlib.import_module(f"directives.spark.compile.{family}")
        except ModuleNotFoundError as error:
            if error.name != f"directives.spark.compile.{family}":
                raise


def compiler_for(directive: Directive) -> Compiler:
    load_all()
    compiler = COMPILERS.get(directive.name)
    if compiler is not None:
        return compiler
    span = directive.call.span
    reason = UNSUPPORTED.get(directive.name, "no Spark compiler is implemented for it yet")
    if getattr(directive, "user_defined", False):
        reason = ("it is a user-defined directive: its code is Java in a Wrangler plugin jar, and wrangler run runs "
                  "Wrangler's built-in directives only (a UDD declaration is for check and lineage)")
    raise UnsupportedDirectiveError(
        f"Directive '{directive.name}' cannot run on Spark: {reason}.",
        line=span.line,
        column=span.column,
        directive=directive.name,
    )
