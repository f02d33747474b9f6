"""A line of Wrangler stages on one DataFrame: a plain recipe is one stage, a pipeline export one per Wrangler stage.

Each stage is one `directives.run` on the previous stage's output, with what a pipeline stage adds to a recipe
(`directives.pipeline_export`): the input ``field`` setting, the ``precondition``, the output ``schema`` and the
``on-error`` strategy. The strategies, as Wrangler's transform applies them to a failed row:

* ``send-to-error``: the row goes to the error output (what a plain `wrangler run` always does);
* ``skip-error``: the row is dropped without a trace in the error output; rows a `send-to-error` directive
  sent there still go (Wrangler emits those error records whatever the strategy), and the counts keep every row;
* ``fail-pipeline``: any failed row fails the run (`failed_stage` names the stage and the first reason).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import directives as _directives
from directives.pipeline_export import StageSpec
from directives.recipe import Recipe
from directives.spark.runtime.frame import quote, user_column_names
from directives.spark.runtime.runner import RunCounts, RunResult, run

T_ = TypeVar("T_")
ON_ERROR = ("send-to-error", "skip-error", "fail-pipeline")


class StageInputError(ValueError):
    """A stage's ``field`` names a column its input does not have."""


def stage_input(df: DataFrame, spec: StageSpec) -> DataFrame:
    """The rows a stage's recipe sees: every column (``*``), the record as one struct (``#``), or one column."""
    if spec.field == "*":
        return df
    hidden = [c for c in df.columns if c not in user_column_names(df)]
    if spec.field == "#":
        record = F.struct(*(F.col(quote(c)) for c in user_column_names(df))).alias(spec.record_name)
        return df.select(record, *(F.col(quote(c)) for c in hidden))
    wanted = {c.lower(): c for c in user_column_names(df)}.get(spec.field.lower())
    if wanted is None:
        raise StageInputError(f"stage {spec.name!r} wrangles field {spec.field!r}, which its input does not have "
                              f"(it has: {', '.join(user_column_names(df))})")
    return df.select(F.col(quote(wanted)), *(F.col(quote(c)) for c in hidden))


def _from_send_to_error(errors: DataFrame) -> DataFrame:
    return errors.filter(F.col("directive").startswith("send-to-error"))


@dataclass
class StagedRun:
    stages: list[tuple[StageSpec, RunResult]]

    @property
    def last(self) -> RunResult:
        return self.stages[-1][1]

    @property
    def df(self) -> DataFrame:
        return self.last.df

    @property
    def frame(self) -> Any:
        return self.last.frame

    @property
    def recipes(self) -> list[Recipe]:
        return [result.recipe for _, result in self.stages]

    @property
    def errors(self) -> DataFrame:
        """Every stage's error rows that its strategy sends to the error output."""
        frames = []
        for spec, result in self.stages:
            frames.append(_from_send_to_error(result.errors) if spec.on_error == "skip-error" else result.errors)
        combined = frames[0]
        for other in frames[1:]:
            combined = combined.unionByName(other)
        return combined

    @property
    def all_errors(self) -> DataFrame:
        """Every failed row, whatever the strategies (for the summary's reasons)."""
        combined = self.stages[0][1].errors
        for _, result in self.stages[1:]:
            combined = combined.unionByName(result.errors)
        return combined

    def check_aborted(self) -> None:
        for _, result in self.stages:
            result.check_aborted()

    def write(self, action: Callable[[DataFrame], T_]) -> T_:
        for _, result in self.stages[:-1]:
            result.check_aborted()
        value = self.last.write(action)
        for _, result in self.stages[:-1]:
            result.fed(self.last)
        return value

    def stage_counts(self) -> list[tuple[StageSpec, RunCounts]]:
        """Per stage; after `write`, every stage's come with it (each earlier stage's output is read through its own
        counted filters inside the written plan), else an aggregate pass each."""
        return [(spec, result.counts()) for spec, result in self.stages]

    def counts(self) -> RunCounts:
        per_stage = [counts for _, counts in self.stage_counts()]
        if len(per_stage) == 1:
            return per_stage[0]
        multiplying = tuple(i for counts in per_stage for i in counts.multiplying)
        return RunCounts(per_stage[0].rows_in, per_stage[-1].rows_out, sum(c.error_rows for c in per_stage),
                         sum(c.filtered_rows for c in per_stage), sum(c.rows_added for c in per_stage),
                         multiplying, counted_by=per_stage[-1].counted_by,
                         header_rows=sum(c.header_rows for c in per_stage))

    def failed_stage(self) -> tuple[StageSpec, RunCounts] | None:
        """The first `fail-pipeline` stage with a failed row (after the run), if any."""
        for spec, counts in self.stage_counts():
            if spec.on_error == "fail-pipeline" and counts.error_rows > 0:
                return spec, counts
        return None

    def skipped_errors(self) -> int:
        return sum(counts.error_rows for spec, counts in self.stage_counts() if spec.on_error == "skip-error")


def parse_stage(spec: StageSpec, columns: Sequence[str]) -> Recipe:
    return _directives.parse(spec.recipe, schema=list(columns), udds=spec.udds)


def run_stages(df: DataFrame, specs: Sequence[StageSpec], widths_in_write: bool = False) -> StagedRun:
    """Compile every stage onto ``df`` (lazily): each stage's input is the previous stage's output.
    ``widths_in_write``: the last stage's guessed widths are checked by the pass `StagedRun.write` runs (`run`)."""
    if not specs:
        raise ValueError("no stage to run")
    stages: list[tuple[StageSpec, RunResult]] = []
    current = df
    for number, spec in enumerate(specs, 1):
        if spec.on_error not in ON_ERROR:
            raise ValueError(f"unknown on-error strategy {spec.on_error!r}")
        rows = stage_input(current, spec)
        recipe = parse_stage(spec, user_column_names(rows))
        result = run(rows, recipe, output_schema=spec.output_schema, strict_schema=spec.strict_schema,
                     precondition=spec.precondition, widths_in_write=widths_in_write and number == len(specs))
        stages.append((spec, result))
        current = result.df
    return StagedRun(stages)
