"""Spark compilers of fail, filter-row, send-to-error and send-to-error-and-continue.

Each is one projection: the condition is compiled to a Column (directives.spark.expr.compiler),
and the Step marks rows as filtered (`filter_when`), as errors (`fail_when`) or as aborting the
run (`abort_when`, which `RunResult.check_aborted`/`run_rows` turn into RecipeExecutionError).
A row whose condition cannot be evaluated (null operand, text that is not a number) goes to the
error output with the reason, as in Wrangler.
"""

from __future__ import annotations

from pyspark.sql import functions as F

from directives.base import Directive, expression_text, expression_tree
from directives.catalog.quality import Fail, FilterRow, SendsToError, SendToError, SendToErrorAndContinue
from directives.spark.compile.common import error_row_message
from directives.spark.compile.transient import store_variable
from directives.spark.compilers import compiles
from directives.spark.expr.compiler import add_failures, compile_expression
from directives.spark.expr.values import truthy
from directives.spark.runtime.frame import Frame, RunContext

#: Wrangler's ErrorRowException code for these directives; the error record reads "<message> (ecode: 1, …)".
ERROR_CODE = 1


def error_message(d: Directive, text: str) -> str:
    """The message of the error record, formatted as Wrangler's error collector shows it."""
    return error_row_message(d.name, text, ERROR_CODE)


@compiles(Fail)
def fail(d: Fail, frame: Frame, ctx: RunContext) -> Frame:
    compiled = compile_expression(expression_tree(d.condition), frame, ctx, d)
    step = add_failures(frame.step(d), compiled)
    message = f"Condition '{expression_text(d.condition)}' evaluated to true. Terminating processing."
    return step.abort_when(truthy(compiled.value), message).build()


@compiles(FilterRow, composable=True)
def filter_row(d: FilterRow, frame: Frame, ctx: RunContext) -> Frame:
    compiled = compile_expression(expression_tree(d.condition), frame, ctx, d)
    step = add_failures(frame.step(d), compiled)
    test = truthy(compiled.value)
    return step.filter_when(test if d.drops_when else ~test).build()


def _send_to_error(d: SendsToError, frame: Frame, ctx: RunContext) -> Frame:
    compiled = compile_expression(expression_tree(d.condition), frame, ctx, d)
    step = add_failures(frame.step(d), compiled)
    return step.fail_when(truthy(compiled.value), error_message(d, d.message)).build()


@compiles(SendToError, composable=True)
def send_to_error(d: SendToError, frame: Frame, ctx: RunContext) -> Frame:
    return _send_to_error(d, frame, ctx)


@compiles(SendToErrorAndContinue)
def send_to_error_and_continue(d: SendToErrorAndContinue, frame: Frame, ctx: RunContext) -> Frame:
    """As send-to-error; rows that pass see `dq_total` = checks so far on the row and `dq_failure` = 0.

    Wrangler keeps both in the row-local transient scope; a row that fails a check leaves the
    output, so a row still going on has never failed one.
    """
    result = _send_to_error(d, frame, ctx)
    total = ctx.variables.get("dq_total")
    counted = (F.coalesce(total.cast("bigint"), F.lit(0)) + 1) if total is not None else F.lit(1)
    result = store_variable(result, ctx, "dq_total", counted.cast("bigint"))
    return store_variable(result, ctx, "dq_failure", F.lit(0).cast("bigint"))
