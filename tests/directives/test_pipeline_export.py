"""Pipeline exports (`directives.pipeline_export`): the eight real exports of ../shared/realworld/pipelines are read
from there (never copied), and each Wrangler stage's settings mean what Wrangler's transform plugin makes of them."""

from __future__ import annotations

import json

import pytest

from directives.pipeline_export import (
    PipelineError,
    fields_ddl,
    looks_like_pipeline,
    parse_pipeline,
    read_pipeline,
    record_fields,
)
from tests.paths import SHARED

PIPELINES = sorted((SHARED / "realworld" / "pipelines").glob("*.json"))
pytestmark = pytest.mark.skipif(len(PIPELINES) != 8, reason="../shared/realworld/pipelines is not beside this clone")


def pipeline(name: str) -> object:
    return read_pipeline(next(p for p in PIPELINES if p.name.startswith(name)))


@pytest.mark.parametrize("path", PIPELINES, ids=lambda p: p.stem)
def test_every_export_is_one_line_of_stages_with_a_wrangler_stage(path) -> None:
    text = path.read_text()
    assert looks_like_pipeline(text)
    source, wranglers, sink = read_pipeline(path).chain()
    assert source.type == "batchsource" and sink is not None and sink.type == "batchsink"
    assert len(wranglers) == 1 and wranglers[0].directives.strip()
    assert wranglers[0].output is not None and wranglers[0].on_error in ("fail-pipeline", "send-to-error",
                                                                          "skip-error")


def test_stage_settings_follow_the_wrangler_plugin() -> None:
    quickstart = pipeline("hub-pipeline-quickstart").chain()[1][0]
    assert quickstart.field == "body"  # only that input field reaches the recipe
    assert quickstart.precondition is None  # "false" skips nothing
    assert quickstart.on_error == "fail-pipeline"  # absent: the plugin's default
    csv_stage = pipeline("parse_csv").chain()[1][0]
    assert (csv_stage.field, csv_stage.on_error) == ("*", "fail-pipeline")
    assert [f.name for f in csv_stage.output] == ["abc", "id", "body_2", "body_3", "body_4", "body_q"]


def test_avro_schemas_become_spark_ddl_with_named_records_and_logical_types() -> None:
    json_stage = pipeline("parse_json").chain()[1][0]
    ddl = fields_ddl(json_stage.output)
    # `copied` refers to the record `json_name` defined earlier by its name
    assert "`json_name` struct<`first`:string,`last`:string>" in ddl
    assert "`copied` struct<`first`:string,`last`:string>" in ddl
    timestamps = {f.name: f.ddl for f in pipeline("parse_timestamp").chain()[1][0].output}
    assert (timestamps["create_date"], timestamps["update_date"], timestamps["diff_date"]) == (
        "timestamp", "timestamp_ntz", "bigint")
    source = pipeline("parse_timestamp").chain()[0].schema
    assert [(f.name, f.nullable) for f in source][:2] == [("create_date", False), ("update_date", False)]


def stage_pipeline(**properties: str) -> str:
    stage = {"name": "W", "plugin": {"name": "Wrangler", "type": "transform",
                                     "properties": {"directives": "drop :a", "field": "*", **properties}}}
    source = {"name": "S", "plugin": {"name": "File", "type": "batchsource", "properties": {}}}
    sink = {"name": "K", "plugin": {"name": "File", "type": "batchsink", "properties": {}}}
    return json.dumps({"name": "p", "config": {"stages": [source, stage, sink],
                                               "connections": [{"from": "S", "to": "W"}, {"from": "W", "to": "K"}]}})


@pytest.mark.parametrize(("stored", "meaning"), [("send-to-error-port", "send-to-error"),
                                                 ("send-to-error", "send-to-error"), ("skip-error", "skip-error"),
                                                 ("fail-pipeline", "fail-pipeline")])
def test_on_error_ids(stored: str, meaning: str) -> None:
    assert parse_pipeline(stage_pipeline(**{"on-error": stored})).chain()[1][0].on_error == meaning


def test_a_precondition_is_kept_and_bad_settings_are_clear_errors() -> None:
    assert parse_pipeline(stage_pipeline(precondition="offset == 0")).chain()[1][0].precondition == "offset == 0"
    with pytest.raises(PipelineError, match="on-error 'explode'"):
        parse_pipeline(stage_pipeline(**{"on-error": "explode"})).chain()
    with pytest.raises(PipelineError, match="SQL preconditions"):
        parse_pipeline(stage_pipeline(expressionLanguage="sql")).chain()
    with pytest.raises(PipelineError, match="not an Avro record"):
        record_fields('{"type": "string"}')


def test_a_branching_pipeline_is_refused_with_why() -> None:
    document = json.loads(stage_pipeline())
    document["config"]["stages"].append({"name": "K2", "plugin": {"name": "F", "type": "batchsink"}})
    document["config"]["connections"].append({"from": "W", "to": "K2"})
    with pytest.raises(PipelineError, match="feeds 2 stages"):
        parse_pipeline(json.dumps(document)).chain()
    assert not looks_like_pipeline("parse-as-csv :body ',' true")
