"""Spark compilers of `set-variable` and `increment-variable`: transient variables as hidden per-row columns.

Wrangler keeps one GLOBAL variable store and runs rows one after the other, so a variable holds
"the value the last row set". On Spark, rows run in parallel, so a variable is a hidden column
(`__wr_var_<name>`) that every later step carries and later expressions read for the same row:

* `set-variable v exp` — per row, the value of `exp` on that row. When `exp` reads `v` itself
  (the fill-forward idiom `fwd == 0 ? A : v`), `v` is read as null and the result is carried
  forward: each row sees the last non-null value set on it or an earlier row (a window in input
  order).
* `increment-variable v n cond` — a running total: each row sees `n` times the number of rows
  so far (itself included) on which `cond` held, plus any value `v` had before on that row.

Input order is `monotonically_increasing_id()` taken at the first variable directive; the window
runs without a partition (all rows in one task), which is the price of Wrangler's sequential
semantics. See docs/differences/expressions.md.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from directives.base import expression_tree
from directives.catalog.transient import IncrementVariable, SetVariable
from directives.spark.compilers import compiles
from directives.spark.expr.compiler import add_failures, compile_expression, output_column, variable_column
from directives.spark.expr.values import Value, constant, truthy
from directives.spark.runtime.frame import VARIABLE_PREFIX, Frame, RunContext, col
from grammar.expression import referenced_names

#: Hidden column with the input order of rows (not a variable: `#` cannot start a JEXL identifier).
ORDER = VARIABLE_PREFIX + "#order"


def with_order(frame: Frame) -> Frame:
    """The frame with the input-order column, added once (a projection Spark folds into the next one)."""
    if ORDER in frame.df.columns:
        return frame
    return frame.with_df(frame.df.withColumn(ORDER, F.monotonically_increasing_id()))


def _running() -> Any:
    return Window.orderBy(col(ORDER)).rowsBetween(Window.unboundedPreceding, Window.currentRow)


def store_variable(frame: Frame, ctx: RunContext, name: str, value: Column) -> Frame:
    """Set a transient variable for every row (its hidden column) and let later expressions see it."""
    hidden = variable_column(name)
    ctx.variables[name.lower()] = col(hidden)
    return frame.with_df(frame.df.withColumn(hidden, value))


@compiles(SetVariable)
def set_variable(d: SetVariable, frame: Frame, ctx: RunContext) -> Frame:
    name = str(d.variable)
    tree = expression_tree(d.condition)
    frame = with_order(frame)
    reads_itself = any(ref.split(".", 1)[0].lower() == name.lower() for ref in referenced_names(tree))
    bindings = {name: constant(None, "null")} if reads_itself else None
    compiled = compile_expression(tree, frame, ctx, d, bindings)
    checked = add_failures(frame.step(d), compiled).build()
    value = F.when(checked.active, output_column(compiled.value, ctx))
    if reads_itself:
        value = F.last(value, ignorenulls=True).over(_running())
    ctx.set_each_row.add(name.lower())
    return store_variable(checked, ctx, name, value)


def _condition_holds(value: Value) -> Column:
    """`ELResult.getBoolean()`: a Boolean as it is, text by `Boolean.parseBoolean` ("true" in any case).

    Wrangler's `if` on any other result (a number, null) unboxes null and crashes; JEXL's truthiness is the
    sane reading we give those (docs/differences/expressions.md)."""
    if value.kind == "string":
        return F.coalesce(F.lower(value.col) == "true", F.lit(False))
    return truthy(value)


@compiles(IncrementVariable)
def increment_variable(d: IncrementVariable, frame: Frame, ctx: RunContext) -> Frame:
    """IncrementTransientVariable: the store's Long grows by `value.longValue()` on each row whose condition
    holds; until the first such row the variable does not exist (reads as null) unless it had a value."""
    name = str(d.variable)
    frame = with_order(frame)
    compiled = compile_expression(expression_tree(d.condition), frame, ctx, d)
    checked = add_failures(frame.step(d), compiled).build()
    amount = d.value
    step = int(getattr(amount, "value", amount))
    holds = checked.active & _condition_holds(compiled.value)
    hidden = variable_column(name)
    before = col(hidden).cast("bigint") if hidden in checked.df.columns else F.lit(None).cast("bigint")
    if name.lower() in ctx.set_each_row:  # set on this very row: only this row's increment counts
        value = F.when(holds, F.coalesce(before, F.lit(0)) + F.lit(step)).otherwise(before)
        return store_variable(checked, ctx, name, value.cast("bigint"))
    running = F.sum(F.when(holds, F.lit(step)).otherwise(F.lit(0)).cast("bigint")).over(_running())
    seen = F.max(holds.cast("int")).over(_running()) == 1
    value = F.when(seen | before.isNotNull(), F.coalesce(before, F.lit(0)) + running)
    return store_variable(checked, ctx, name, value.cast("bigint"))


def transient_values(df: DataFrame) -> dict[str, Any]:
    """The value each transient variable has after the run (the last row's value), by lower-cased name.

    One aggregate over the frame's DataFrame (`RunResult.frame.df`); for tests and run reports.
    """
    hidden = [name for name in df.columns if name.startswith(VARIABLE_PREFIX) and name != ORDER]
    if not hidden or ORDER not in df.columns:
        return {}
    row = df.agg(*(F.max_by(col(name), F.when(col(name).isNotNull(), col(ORDER))).alias(name) for name in hidden)
                 ).collect()[0]
    return {name[len(VARIABLE_PREFIX):]: row[name] for name in hidden}
