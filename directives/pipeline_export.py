"""CDAP / Data Fusion pipeline exports: the stages, their connections and each `Wrangler` stage's settings.

Users already have their recipes inside pipeline exports (the JSON the pipeline studio exports), so `wrangler
run`, `check` and `lineage` read them as they are. What a `Wrangler` stage means follows the Wrangler transform
plugin (`wrangler-transform/.../Wrangler.java`):

* ``directives`` — the recipe;
* ``precondition`` — a JEXL expression evaluated on each input row *before* the recipe; a row where it is
  true is skipped (``false``, the studio's default, or an empty value skips nothing);
* ``on-error`` — ``fail-pipeline`` (the default when absent), ``send-to-error-port`` (the studio's id; the
  shorter ``send-to-error`` is taken as the same) or ``skip-error``;
* ``field`` — ``*`` gives the recipe every input field, ``#`` the whole record as one field named after the
  record, any other name only that field;
* ``schema`` — the stage's output schema, an Avro record: each output row is built field by field from it, a
  field the recipe did not make is null, and a text value is converted to the field's type.

This module reads and checks the JSON only; it never imports pyspark (the `lineage` and `server` layers use
it), and describes schemas as Spark DDL text, which `directives.spark` turns into Spark types.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ON_ERROR_CHOICES = ("fail-pipeline", "send-to-error", "skip-error")
#: The studio stores `send-to-error-port`; Java compares with that id.
_ON_ERROR_ALIASES = {"send-to-error-port": "send-to-error", "fail-pipeline": "fail-pipeline",
                     "send-to-error": "send-to-error", "skip-error": "skip-error"}
WRANGLER_PLUGIN = "Wrangler"


class PipelineError(ValueError):
    """The file is not a pipeline export this tool can use (with why, in one line)."""


# -- schemas -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SchemaField:
    """One field of an Avro record schema: its name, its type as Spark DDL text, and whether null is allowed."""

    name: str
    ddl: str
    nullable: bool


_PRIMITIVES = {"string": "string", "int": "int", "long": "bigint", "float": "float", "double": "double",
               "boolean": "boolean", "bytes": "binary", "null": "string", "enum": "string", "fixed": "binary"}
_LOGICAL = {"timestamp-micros": "timestamp", "timestamp-millis": "timestamp", "date": "date",
            "time-micros": "string", "time-millis": "string", "datetime": "timestamp_ntz"}


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _avro_type(avro: Any, named: dict[str, str]) -> tuple[str, bool]:
    """(Spark DDL type, nullable) of an Avro type: a name, a union with null, a logical type, record, array, map.
    ``named``: the records defined so far, by name (Avro refers to a record defined earlier by its name)."""
    if isinstance(avro, list):
        members = [member for member in avro if member != "null"]
        nullable = len(members) < len(avro)
        if len(members) != 1:
            return "string", True  # a union of several types has no Spark type: text, as Wrangler's rows hold
        return _avro_type(members[0], named)[0], nullable
    if isinstance(avro, str):
        if avro in named:
            return named[avro], False
        if avro not in _PRIMITIVES:
            raise PipelineError(f"unknown Avro type {avro!r}")
        return _PRIMITIVES[avro], avro == "null"
    if not isinstance(avro, Mapping):
        raise PipelineError(f"not an Avro type: {avro!r}")
    logical = avro.get("logicalType")
    if logical == "decimal":
        return f"decimal({int(avro.get('precision', 38))},{int(avro.get('scale', 0))})", False
    if logical in _LOGICAL:
        return _LOGICAL[logical], False
    kind = avro.get("type")
    if kind == "record":
        fields = _fields(avro, named)
        ddl = "struct<" + ",".join(f"{_quoted(f.name)}:{f.ddl}" for f in fields) + ">"
        if isinstance(avro.get("name"), str):
            named[avro["name"]] = ddl
        return ddl, False
    if kind == "array":
        return f"array<{_avro_type(avro.get('items', 'string'), named)[0]}>", False
    if kind == "map":
        return f"map<string,{_avro_type(avro.get('values', 'string'), named)[0]}>", False
    return _avro_type(kind, named)


def record_fields(schema: Any) -> list[SchemaField]:
    """The fields of an Avro record schema (JSON text or parsed), as CDAP stores a stage's schema."""
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as error:
            raise PipelineError(f"the schema is not JSON: {error}") from None
    if not isinstance(schema, Mapping) or schema.get("type") != "record" or not isinstance(schema.get("fields"), list):
        raise PipelineError("the schema is not an Avro record (an object with type 'record' and a list of fields)")
    return _fields(schema, {})


def _fields(schema: Mapping[str, Any], named: dict[str, str]) -> list[SchemaField]:
    fields = []
    for item in schema.get("fields") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise PipelineError(f"a schema field without a name: {item!r}")
        ddl, nullable = _avro_type(item.get("type", "string"), named)
        fields.append(SchemaField(item["name"], ddl, nullable))
    return fields


def fields_ddl(fields: Sequence[SchemaField]) -> str:
    """A Spark DDL string (``a STRING, b INT NOT NULL``) of schema fields."""
    return ", ".join(f"{_quoted(f.name)} {f.ddl}{'' if f.nullable else ' NOT NULL'}" for f in fields)


def is_avro_record(text: str) -> bool:
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(document, Mapping) and document.get("type") == "record"


# -- stages --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stage:
    name: str
    plugin: str
    type: str
    properties: Mapping[str, Any]

    @property
    def schema(self) -> list[SchemaField] | None:
        """The stage's own (output) schema when it stores one."""
        text = self.properties.get("schema")
        if not isinstance(text, str) or not text.strip() or "${" in text:
            return None
        return record_fields(text)

    @property
    def is_wrangler(self) -> bool:
        return self.plugin == WRANGLER_PLUGIN and self.type == "transform"


@dataclass(frozen=True)
class WranglerStage:
    """A `Wrangler` transform as its plugin runs it (see the module docstring)."""

    stage: Stage
    directives: str
    precondition: str | None
    on_error: str
    field: str
    output: list[SchemaField] | None

    @property
    def name(self) -> str:
        return self.stage.name

    @classmethod
    def of(cls, stage: Stage) -> WranglerStage:
        props = stage.properties
        directives = props.get("directives") or ""
        if not isinstance(directives, str):
            raise PipelineError(f"stage {stage.name!r}: directives are not text")
        precondition = props.get("precondition")
        language = str(props.get("expressionLanguage") or "jexl").lower()
        if language == "sql":
            raise PipelineError(f"stage {stage.name!r}: SQL preconditions are not supported (only JEXL)")
        if not isinstance(precondition, str) or precondition.strip().lower() in ("", "false"):
            precondition = None
        raw_on_error = props.get("on-error") or "fail-pipeline"
        on_error = _ON_ERROR_ALIASES.get(str(raw_on_error).strip().lower())
        if on_error is None:
            raise PipelineError(f"stage {stage.name!r}: on-error {raw_on_error!r} is not one of "
                                f"skip-error, send-to-error-port, fail-pipeline")
        field = str(props.get("field") or "*").strip() or "*"
        return cls(stage, directives, precondition.strip() if precondition else None, on_error, field, stage.schema)


@dataclass(frozen=True)
class Pipeline:
    name: str
    stages: tuple[Stage, ...]
    connections: tuple[tuple[str, str], ...]

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise PipelineError(f"no stage named {name!r}")

    def chain(self) -> tuple[Stage, list[WranglerStage], Stage | None]:
        """The pipeline as one line: a source, its `Wrangler` stages in order, and the sink they feed (if any).

        A pipeline that branches, joins or has another kind of transform between them is refused: only the
        Wrangler stages can run here, and a branch would need another plan."""
        following: dict[str, list[str]] = {}
        incoming: dict[str, int] = {stage.name: 0 for stage in self.stages}
        for start, end in self.connections:
            following.setdefault(start, []).append(end)
            incoming[end] = incoming.get(end, 0) + 1
        sources = [s for s in self.stages if s.type.endswith("source") or incoming.get(s.name, 0) == 0]
        sources = [s for s in sources if incoming.get(s.name, 0) == 0 and s.type not in ("action", "postaction")]
        if len(sources) != 1:
            raise PipelineError(f"the pipeline has {len(sources)} sources; only a single line of stages can run "
                                f"(source → Wrangler stages → sink)")
        source = sources[0]
        wranglers: list[WranglerStage] = []
        sink: Stage | None = None
        current = source
        seen = {source.name}
        while True:
            nexts = [name for name in following.get(current.name, [])
                     if self.stage(name).type not in ("errortransform", "alertpublisher")]
            if not nexts:
                break
            if len(nexts) > 1:
                raise PipelineError(f"stage {current.name!r} feeds {len(nexts)} stages; only a single line of "
                                    f"stages can run")
            stage = self.stage(nexts[0])
            if stage.name in seen:
                raise PipelineError(f"the pipeline loops at stage {stage.name!r}")
            seen.add(stage.name)
            if stage.is_wrangler:
                wranglers.append(WranglerStage.of(stage))
            elif stage.type.endswith("sink"):
                sink = stage
                break
            else:
                raise PipelineError(f"stage {stage.name!r} is a {stage.plugin} {stage.type}; only Wrangler "
                                    f"transforms run here")
            current = stage
        if not wranglers:
            raise PipelineError("the pipeline has no Wrangler stage between its source and its sink")
        return source, wranglers, sink

    def wrangler_stages(self) -> list[WranglerStage]:
        """Every Wrangler stage (for checking), in the order of the chain when there is one."""
        try:
            return self.chain()[1]
        except PipelineError:
            return [WranglerStage.of(stage) for stage in self.stages if stage.is_wrangler]


def looks_like_pipeline(text: str) -> bool:
    """A JSON object with stages (a whole export with ``config``, or the bare config): not a recipe."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    try:
        document = json.loads(stripped)
    except json.JSONDecodeError:
        return False
    if not isinstance(document, Mapping):
        return False
    config = document.get("config", document)
    return isinstance(config, Mapping) and isinstance(config.get("stages"), list)


def parse_pipeline(text: str, name: str = "pipeline") -> Pipeline:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise PipelineError(f"not JSON: {error}") from None
    if not isinstance(document, Mapping):
        raise PipelineError("not a pipeline export (a JSON object)")
    config = document.get("config", document)
    if not isinstance(config, Mapping) or not isinstance(config.get("stages"), list):
        raise PipelineError("not a pipeline export: no stages (config.stages)")
    stages = []
    for item in config["stages"]:
        plugin = item.get("plugin") if isinstance(item, Mapping) else None
        if not isinstance(plugin, Mapping) or not isinstance(item.get("name"), str):
            raise PipelineError(f"a stage without a name or plugin: {str(item)[:80]}")
        properties = plugin.get("properties") or {}
        stages.append(Stage(item["name"], str(plugin.get("name", "")), str(plugin.get("type", "")),
                            dict(properties) if isinstance(properties, Mapping) else {}))
    connections = []
    for item in config.get("connections") or []:
        if isinstance(item, Mapping) and isinstance(item.get("from"), str) and isinstance(item.get("to"), str):
            connections.append((item["from"], item["to"]))
    title = document.get("name") if isinstance(document.get("name"), str) else name
    return Pipeline(title, tuple(stages), tuple(connections))


def read_pipeline(path: str | Path) -> Pipeline:
    location = Path(path)
    return parse_pipeline(location.read_text(encoding="utf-8"), location.stem)


def stage_input_columns(pipeline: Pipeline, stage: WranglerStage, upstream: Sequence[str] | None) -> list[str] | None:
    """The columns a stage's recipe starts with: all upstream fields (``*``), the record as one field (``#``, named
    after the upstream record) or the one named field."""
    if stage.field == "*":
        return list(upstream) if upstream is not None else None
    if stage.field == "#":
        return [_record_name(pipeline, stage)]
    return [stage.field]


def _record_name(pipeline: Pipeline, stage: WranglerStage) -> str:
    for start, end in pipeline.connections:
        if end == stage.name:
            text = pipeline.stage(start).properties.get("schema")
            if isinstance(text, str):
                try:
                    document = json.loads(text)
                except json.JSONDecodeError:
                    break
                if isinstance(document, Mapping) and isinstance(document.get("name"), str):
                    return document["name"]
    return "etlSchemaBody"


@dataclass(frozen=True)
class StageSpec:
    """One stage a run executes, as plain data: a recipe (or one Wrangler stage of an export) with what the
    pipeline says around it. Here, free of pyspark, so the command line can plan a run before Spark starts;
    `directives.spark.runtime.stages` runs it."""

    name: str
    recipe: str
    precondition: str | None = None
    on_error: str = "send-to-error"
    field: str = "*"
    output_schema: Any = None
    #: True: a declared column the recipe does not make is an error before the run; False: null (Wrangler's way).
    strict_schema: bool = True
    record_name: str = "etlSchemaBody"
    udds: Any = None
