"""Field lineage of a whole pipeline export: source fields → each Wrangler stage → sink fields, as one graph.

Each Wrangler stage's recipe is parsed against the fields it receives (the upstream stage's schema, cut by the
stage's ``field`` setting) and backtracked from the fields of its own output schema; the sink takes the last
stage's fields by name. A stage field its recipe does not make is null in every row (Wrangler's transform
builds the output record from the schema), so it has no sources. Field names that only the data can tell
(`body_3` of `parse-as-csv`) are resolved through the recipe's data-named families.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import directives
from directives.pipeline_export import Pipeline, Stage, WranglerStage, stage_input_columns
from lineage.backtrack import Backtracker


@dataclass(frozen=True)
class FieldRef:
    stage: str
    field: str

    def to_json(self) -> dict[str, str]:
        return {"stage": self.stage, "field": self.field}

    def __str__(self) -> str:
        return f"{self.stage}.{self.field}"


@dataclass
class FieldEdge:
    """``to`` is made from ``sources`` by the directives (1-based, the stage's recipe order) of ``via``."""

    to: FieldRef
    sources: list[FieldRef]
    via: str | None = None
    directives: list[int] = field(default_factory=list)
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"to": self.to.to_json(), "from": [ref.to_json() for ref in self.sources]}
        if self.via is not None:
            document["stage"] = self.via
            document["directives"] = self.directives
        if self.note:
            document["note"] = self.note
        return document


@dataclass
class PipelineLineage:
    pipeline: str
    stages: list[Stage]
    edges: list[FieldEdge]
    #: Per sink (or last stage) field: the source fields it comes from, across every stage.
    origins: dict[str, list[FieldRef]]
    final_stage: str

    def to_json(self) -> dict[str, Any]:
        return {
            "pipeline": self.pipeline,
            "stages": [{"name": s.name, "plugin": s.plugin, "type": s.type} for s in self.stages],
            "fields": {name: {"sources": [ref.to_json() for ref in refs]} for name, refs in self.origins.items()},
            "edges": [edge.to_json() for edge in self.edges],
        }

    def to_text(self) -> str:
        lines = [f"pipeline {self.pipeline}: " + " → ".join(stage.name for stage in self.stages)]
        by_target = {(edge.to.stage, edge.to.field): edge for edge in self.edges}
        for name, origins in self.origins.items():
            lines.append(f"{self.final_stage}.{name}  <-  {', '.join(map(str, origins)) or '(none)'}")
            stack = [(FieldRef(self.final_stage, name), 1)]
            while stack:
                ref, depth = stack.pop()
                edge = by_target.get((ref.stage, ref.field))
                if edge is None:
                    continue
                how = f" by {edge.via} directives {edge.directives}" if edge.via else ""
                note = f" ({edge.note})" if edge.note else ""
                lines.append(f"{'  ' * depth}{ref} <- {', '.join(map(str, edge.sources)) or '-'}{how}{note}")
                stack.extend((source, depth + 1) for source in reversed(edge.sources))
        return "\n".join(lines)

    def to_dot(self) -> str:
        out = ["digraph pipeline {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];']
        names = {stage.name for stage in self.stages}
        for stage in self.stages:
            fields = sorted({e.to.field for e in self.edges if e.to.stage == stage.name}
                            | {s.field for e in self.edges for s in e.sources if s.stage == stage.name})
            out.append(f"  subgraph {_dot(f'cluster_{stage.name}')} {{ label={_dot(stage.name)};")
            out.extend(f"    {_dot(f'{stage.name}.{name}')} [label={_dot(name)}];" for name in fields)
            out.append("  }")
        for edge in self.edges:
            label = f" [label={_dot(' '.join(f'#{i}' for i in edge.directives))}]" if edge.directives else ""
            for source in edge.sources:
                if source.stage in names:
                    out.append(f"  {_dot(str(source))} -> {_dot(str(edge.to))}{label};")
        out.append("}")
        return "\n".join(out)


def _dot(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _names(stage: Stage) -> list[str] | None:
    schema = stage.schema
    return [f.name for f in schema] if schema is not None else None


def _stage_edges(pipeline: Pipeline, stage: WranglerStage, upstream: Stage, upstream_fields: Sequence[str] | None,
                 udds: Any = None) -> tuple[list[FieldEdge], list[str]]:
    """The edges into one Wrangler stage's fields, and the stage's field names."""
    columns = stage_input_columns(pipeline, stage, upstream_fields)
    recipe = directives.parse(stage.directives, columns, udds=udds)
    backtracker = Backtracker(recipe)
    outputs = [f.name for f in stage.output] if stage.output is not None else backtracker.final_columns()
    finals = {name.lower() for name in backtracker.final_columns()}
    known_inputs = {name.lower(): name for name in (columns or [])}
    families = backtracker.generated()
    edges = []
    for name in outputs:
        target = FieldRef(stage.name, name)
        if name.lower() in finals or backtracker.member_of(name) is not None:
            lineages = [backtracker.lineage(name)]
        else:  # a name only the data tells (JSON keys renamed by patterns): any family of the recipe may make it
            lineages = [family.lineage for family in families]
        if not lineages:
            edges.append(FieldEdge(target, [], stage.name, [], "not made by the recipe: null in every row"))
            continue
        names: list[str] = []
        for column in lineages:
            for source in column.sources:
                names.extend(_inputs_of(source, columns))
        sources = [FieldRef(upstream.name, known_inputs.get(s.lower(), s)) for s in dict.fromkeys(names)
                   if not known_inputs or s.lower() in known_inputs]
        exact = len(lineages) == 1 and lineages[0].exact and name.lower() in finals
        steps = sorted({index for column in lineages for index in column.directives})
        edges.append(FieldEdge(target, sources, stage.name, steps, None if exact else "over-approximated"))
    return edges, outputs


def _inputs_of(source: str, columns: Sequence[str] | None) -> list[str]:
    """A backtracked source as input fields: ``*`` (any input column) is all of them, ``#2`` the second."""
    if columns is None:
        return [source]
    if source == "*":
        return list(columns)
    if source.startswith("#") and source[1:].isdigit():
        position = int(source[1:]) - 1
        return [columns[position]] if 0 <= position < len(columns) else []
    return [source]


def pipeline_lineage(pipeline: Pipeline, udds: Any = None) -> PipelineLineage:
    """One field-level graph over the pipeline's line of stages (`Pipeline.chain`); raises `RecipeError` when a
    stage's recipe does not parse and `PipelineError` when the pipeline is not a single line."""
    source, wranglers, sink = pipeline.chain()
    stages: list[Stage] = [source, *(w.stage for w in wranglers), *([sink] if sink is not None else [])]
    edges: list[FieldEdge] = []
    upstream, fields = source, _names(source)
    for wrangler in wranglers:
        stage_edges, fields = _stage_edges(pipeline, wrangler, upstream, fields, udds)
        edges.extend(stage_edges)
        upstream = wrangler.stage
    last = upstream
    final_stage = last.name
    if sink is not None:
        sink_fields = _names(sink) or list(fields or [])
        produced = {name.lower(): name for name in fields or []}
        for name in sink_fields:
            match = produced.get(name.lower())
            edges.append(FieldEdge(FieldRef(sink.name, name), [FieldRef(last.name, match)] if match else [],
                                   note=None if match else f"not a field of {last.name}"))
        fields, final_stage = sink_fields, sink.name
    by_target = {(edge.to.stage, edge.to.field): edge for edge in edges}
    origins: dict[str, list[FieldRef]] = {}
    for name in fields or []:
        found: list[FieldRef] = []
        stack = [FieldRef(final_stage, name)]
        seen: set[tuple[str, str]] = set()
        while stack:
            ref = stack.pop()
            if (ref.stage, ref.field) in seen:
                continue
            seen.add((ref.stage, ref.field))
            edge = by_target.get((ref.stage, ref.field))
            if edge is None:
                if ref.stage == source.name and ref not in found:
                    found.append(ref)
                continue
            stack.extend(reversed(edge.sources))
        origins[name] = found
    return PipelineLineage(pipeline.name, stages, edges, origins, final_stage)
