"""Spark compiler of `set-column`: the expression becomes one Column; rows where it fails go to the error output.

The expression compiler itself lives in `directives.spark.expr.compiler` (nodes → Columns) and
`directives.spark.expr.functions` (the function table); see docs/expressions.md.
"""

from __future__ import annotations

from directives.base import Directive
from directives.spark.compilers import compiles
from directives.spark.expr.compiler import Compiled, ExpressionError, compile_expression, output_column
from directives.spark.runtime.frame import Frame, RunContext, Step

__all__ = ["ExpressionError", "add_failures", "set_column"]


def add_failures(step: Step, compiled: Compiled) -> Step:
    """Send the rows on which evaluating the expression failed to the error output, with the reason."""
    failed = compiled.failed()
    if failed is not None:
        step.fail_when(failed, compiled.message())
    return step


@compiles("set-column")
def set_column(d: Directive, frame: Frame, ctx: RunContext) -> Frame:
    compiled = compile_expression(d.expression("expression"), frame, ctx, d)
    step = frame.step(d).set(d.column("column"), output_column(compiled.value, ctx))
    return add_failures(step, compiled).build()
