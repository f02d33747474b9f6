"""`lineage.pipeline`: one field-level graph from a pipeline's source through its Wrangler stages to its sink."""

from __future__ import annotations

import json

import pytest

from directives.pipeline_export import parse_pipeline, read_pipeline
from lineage.pipeline import pipeline_lineage
from tests.paths import SHARED

PIPELINES = sorted((SHARED / "realworld" / "pipelines").glob("*.json"))
pytestmark = pytest.mark.skipif(len(PIPELINES) != 8, reason="../shared/realworld/pipelines is not beside this clone")


def export(prefix: str) -> object:
    return read_pipeline(next(p for p in PIPELINES if p.name.startswith(prefix)))


@pytest.mark.parametrize("path", PIPELINES, ids=lambda p: p.stem)
def test_every_sink_field_reaches_back_to_the_source_or_says_why_not(path) -> None:
    graph = pipeline_lineage(read_pipeline(path))
    source, sink = graph.stages[0].name, graph.stages[-1].name
    assert graph.final_stage == sink and graph.origins
    for name, origins in graph.origins.items():
        assert all(ref.stage == source for ref in origins)
        if not origins:  # made from no input field (current-datetime), or null: the stage's edge says which
            stage_edge = next(e for e in graph.edges if e.to.field == name and e.to.stage != sink)
            assert stage_edge.note is not None or stage_edge.directives
    document = graph.to_json()
    assert document["stages"][0]["name"] == source
    assert "digraph pipeline" in graph.to_dot()


def test_datetime_pipeline_connects_a_renamed_field_through_the_stage() -> None:
    graph = pipeline_lineage(export("parse_datetime"))
    assert [str(ref) for ref in graph.origins["timecolumn"]] == ["BigQueryTable.timestamp"]
    assert [str(ref) for ref in graph.origins["id"]] == ["BigQueryTable.id"]
    assert graph.origins["create_date"] == []  # current-datetime: made from no input field
    edge = next(e for e in graph.edges if (e.to.stage, e.to.field) == ("Wrangler", "timecolumn"))
    assert edge.directives == [1, 3, 5, 6] and edge.note is None
    sink_edge = next(e for e in graph.edges if (e.to.stage, e.to.field) == ("BigQuery2", "timecolumn"))
    assert [str(ref) for ref in sink_edge.sources] == ["Wrangler.timecolumn"]


def test_a_stage_field_the_recipe_does_not_make_has_no_sources() -> None:
    schema = ('{"type": "record", "name": "o", "fields": [{"name": "b", "type": "string"}, '
              '{"name": "z", "type": "int"}]}')
    stages = [{"name": "S", "plugin": {"name": "File", "type": "batchsource",
                                       "properties": {"schema": schema.replace('"b"', '"a"').replace('"z"', '"y"')}}},
              {"name": "W", "plugin": {"name": "Wrangler", "type": "transform",
                                       "properties": {"directives": "rename :a :b", "schema": schema}}}]
    document = {"stages": stages, "connections": [{"from": "S", "to": "W"}]}
    graph = pipeline_lineage(parse_pipeline(json.dumps(document)))
    assert graph.final_stage == "W"
    assert [str(ref) for ref in graph.origins["b"]] == ["S.a"] and graph.origins["z"] == []
    assert next(e for e in graph.edges if e.to.field == "z").note.startswith("not made by the recipe")
