"""What `wrangler run` runs: a recipe file (one stage) or a CDAP / Data Fusion pipeline export (its Wrangler stages).

Both become the same plan, a line of stages, before any JVM starts, so every setting of a pipeline stage is
checked in milliseconds. A pipeline's source and sink are the pipeline's own (BigQuery, GCS, …): the data comes
from `--input` and goes to `--output`, and the source's schema, when the export stores one, is compared with the
input's columns.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from directives.pipeline_export import (
    Pipeline,
    PipelineError,
    StageSpec,
    looks_like_pipeline,
    parse_pipeline,
    stage_input_columns,
)


@dataclass(frozen=True)
class RunPlan:
    path: str
    stages: list[StageSpec]
    pipeline: Pipeline | None = None
    #: The pipeline source's field names, when its export stores a schema.
    source_fields: list[str] | None = None
    source_name: str | None = None
    sink_name: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def is_pipeline(self) -> bool:
        return self.pipeline is not None

    def label(self, stage: StageSpec) -> str:
        """Where a stage's findings point: the recipe file, or ``pipeline.json[stage]``."""
        return f"{self.path}[{stage.name}]" if self.is_pipeline else self.path


def plan_from(path: str, text: str, output_schema: Any = None) -> RunPlan:
    """A recipe's text is one stage; a pipeline export's Wrangler stages are the stages (`PipelineError` when the
    export cannot run here). ``output_schema``: the user's `--output-schema` (applies to the last stage)."""
    if not looks_like_pipeline(text):
        return RunPlan(path, [StageSpec(Path(path).name, text, output_schema=output_schema)])
    pipeline = parse_pipeline(text, Path(path).stem)
    source, wranglers, sink = pipeline.chain()
    stages = []
    for stage in wranglers:
        schema = stage.stage.properties.get("schema") if stage.output is not None else None
        stages.append(StageSpec(stage.name, stage.directives, stage.precondition, stage.on_error, stage.field,
                                   schema, strict_schema=False,
                                   record_name=_record_name(pipeline, stage)))
    if output_schema is not None:  # the user's schema wins over the last stage's, and is strict
        last = stages[-1]
        stages[-1] = dataclasses.replace(last, output_schema=output_schema, strict_schema=True)
    source_fields = [f.name for f in source.schema] if source.schema is not None else None
    return RunPlan(path, stages, pipeline, source_fields, source.name, sink.name if sink is not None else None)


def _record_name(pipeline: Pipeline, stage: Any) -> str:
    names = stage_input_columns(pipeline, stage, None) if stage.field == "#" else None
    return names[0] if names else "etlSchemaBody"


__all__ = ["PipelineError", "RunPlan", "StageSpec", "plan_from"]
