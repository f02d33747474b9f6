"""Which Spark compiler runs each directive: found from the directive's declaration class.

A declaration in `directives.catalog.<family>` has its compiler in `directives.spark.compile.<family>`,
registered for the class itself (`@compiles(Rename)`), so a compiler is typed by the declaration it
compiles and reads its arguments as that class's attributes. A declaration without a compiler is
reported before anything runs, never silently skipped, and a family module that is missing fails the
import loudly.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import TypeVar, cast

from directives.base import Directive
from directives.spark.runtime.frame import Compiler, Frame, RunContext
from grammar.errors import RecipeError

D = TypeVar("D", bound=Directive)

#: Declaration class → its compiler.
COMPILERS: dict[type[Directive], Compiler] = {}
#: Declaration classes whose compilers may compile against a pending frame (`runtime.frame.Frame`): they read columns
#: only through `col` and the frame, and their values are deterministic, so those values can be composed into the next
#: projection instead of getting one of their own.
COMPOSABLE: set[type[Directive]] = set()
#: Declaration classes composable only for some of their directives (a digest Spark has, not a Python UDF's), with
#: the test.
COMPOSABLE_IF: dict[type[Directive], Callable[[Directive], bool]] = {}
#: Declaration classes whose compilers need their input frame built (they read its DataFrame) but whose own step may
#: stay pending, composed into the next projection (deterministic values, columns read through `col` and the frame).
PENDING_RESULT: set[type[Directive]] = set()
#: Directives that cannot run here, by name, with the reason (external services, formats Spark cannot read).
UNSUPPORTED: dict[str, str] = {}
#: Directives whose compiler uses a Python UDF because Spark has no built-in equivalent, by name, with the reason.
#: The README lists every one of them (a test keeps the two in step).
PYTHON_UDFS: dict[str, str] = {}


class UnsupportedDirectiveError(RecipeError):
    """The directive is declared (it parses, labels and has lineage) but cannot run on Spark here."""

    rule = "unsupported"


class Finished(Exception):
    """Raised by a compiler's helper that has finished the compiler's work: ``frame`` is its result.

    Compilers of one family open alike (find the column, check its type): a helper doing that raises this when the
    column is absent or every row fails, so that each compiler goes on with the column and need not test what came
    back. `compiles` turns it into the compiler's return value.
    """

    def __init__(self, frame: Frame) -> None:
        super().__init__("compiled early")
        self.frame = frame


def compiles(*declarations: type[D], composable: bool | Callable[[D], bool] = False, pending_result: bool = False
             ) -> Callable[[Callable[[D, Frame, RunContext], Frame]], Callable[[D, Frame, RunContext], Frame]]:
    """Register the decorated function as the Spark compiler of these declaration classes (``composable``: see
    `COMPOSABLE`, or a test of the directive, see `COMPOSABLE_IF`; ``pending_result``: see `PENDING_RESULT`)."""

    def register(function: Callable[[D, Frame, RunContext], Frame]) -> Callable[[D, Frame, RunContext], Frame]:
        @functools.wraps(function)
        def compiler(directive: D, frame: Frame, ctx: RunContext) -> Frame:
            try:
                return function(directive, frame, ctx)
            except Finished as finished:
                return finished.frame

        for declaration in declarations:
            if declaration in COMPILERS:
                raise TypeError(f"two Spark compilers for {declaration.name!r}")
            COMPILERS[declaration] = cast(Compiler, compiler)
            if callable(composable):
                COMPOSABLE_IF[declaration] = cast(Callable[[Directive], bool], composable)
            elif composable:
                COMPOSABLE.add(declaration)
            if pending_result:
                PENDING_RESULT.add(declaration)
        return compiler

    return register


def is_composable(directive: Directive) -> bool:
    """Whether this directive's compiler may compile against a pending frame (`COMPOSABLE`, `COMPOSABLE_IF`)."""
    declaration = type(directive)
    test = COMPOSABLE_IF.get(declaration)
    return declaration in COMPOSABLE if test is None else test(directive)


def unsupported(declaration: type[Directive], reason: str) -> None:
    UNSUPPORTED[declaration.name] = reason


def python_udf(declaration: type[Directive], reason: str) -> None:
    """Declare that a directive's compiler falls back to a Python UDF, and why Spark cannot do it natively."""
    PYTHON_UDFS[declaration.name] = reason


def family_module(declaration: type[Directive]) -> str:
    """The module holding a built-in declaration's compiler: `directives.catalog.X` → `directives.spark.compile.X`."""
    package, _, family = declaration.__module__.rpartition(".")
    if package != "directives.catalog":
        raise ValueError(f"{declaration.__qualname__} is not a built-in directive ({declaration.__module__})")
    return f"directives.spark.compile.{family}"


def load_all() -> None:
    """Import every family's compilers; a family without its module is an ImportError, not a skipped family."""
    from directives.catalog import FAMILIES

    for family in FAMILIES:
        importlib.import_module(f"directives.spark.compile.{family}")


def compiler_for(directive: Directive) -> Compiler:
    """The compiler registered for the directive's declaration class (its family module imported first)."""
    declaration = type(directive)
    if declaration.__module__.startswith("directives.catalog."):
        importlib.import_module(family_module(declaration))
    compiler = COMPILERS.get(declaration)
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
