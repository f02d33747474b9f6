"""Exports built with openlineage-python's own models, and DataHub `fineGrainedLineages` JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openlineage.client.event_v2 import RunEvent
from openlineage.client.generated.column_lineage_dataset import ColumnLineageDatasetFacet
from openlineage.client.serde import Serde

import directives
from lineage import export
from lineage.backtrack import Backtracker
from lineage.model import DatasetKey
from lineage.runs import RecipeRunInfo, record_recipe_run
from lineage.store import SQLiteLineageStore

SCHEMA = ["email", "first", "last", "age", "ssn"]
RECIPE = """\
merge :first :last :name ' '
hash :email 'SHA-256'
rename :age :years
mask-number :ssn 'xxx-xx-####'
validate-standard :years hl7-fhir-r4
drop :first,:last
"""
INFO = RecipeRunInfo(namespace="crm", source_name="contacts_raw", destination_name="contacts", run_id="run-7",
                     start=1_700_000_000, end=1_700_000_100)


def by_field(facet_dict: dict[str, Any], field: str) -> dict[str, dict[str, Any]]:
    """inputFields of one output field keyed by source field (each with one transformation here)."""
    found: dict[str, dict[str, Any]] = {}
    for item in facet_dict["fields"][field]["inputFields"]:
        assert len(item["transformations"]) == 1
        found[item["field"]] = {**item["transformations"][0], "namespace": item["namespace"], "name": item["name"]}
    return found


@pytest.fixture
def record(tmp_path: Path) -> Iterator[Any]:
    with SQLiteLineageStore(tmp_path / "s.sqlite") as store:
        record_recipe_run(store, directives.parse(RECIPE, SCHEMA), INFO)
        stored = store.run("crm", "run-7")
        assert stored is not None
        yield stored


def test_run_event_from_a_recorded_run(record: Any) -> None:
    event = export.run_event(record)
    assert isinstance(event, RunEvent)
    data = export.event_to_dict(event)
    text = Serde.to_json(event)
    assert json.loads(text) == data
    assert data["eventType"] == "COMPLETE"
    assert (data["job"]["namespace"], data["job"]["name"]) == ("crm", "wrangler")
    assert data["run"]["runId"] == export.openlineage_run_id("crm", "run-7")
    assert data["run"]["facets"]["wrangler_run"]["runId"] == "run-7"
    assert [(d["namespace"], d["name"]) for d in data["inputs"]] == [("crm", "contacts_raw")]
    (output,) = data["outputs"]
    assert (output["namespace"], output["name"]) == ("crm", "contacts")
    facet = output["facets"]["columnLineage"]
    assert set(facet["fields"]) == {"email", "ssn", "name", "years"}
    name = by_field(facet, "name")
    assert set(name) == {"first", "last"}
    assert name["first"]["type"] == "DIRECT" and name["first"]["subtype"] == "TRANSFORMATION"
    assert (name["first"]["namespace"], name["first"]["name"]) == ("crm", "contacts_raw")
    email = by_field(facet, "email")["email"]
    assert email["masking"] is True and email["subtype"] == "TRANSFORMATION"
    assert by_field(facet, "ssn")["ssn"]["masking"] is True
    years = by_field(facet, "years")["age"]
    assert (years["type"], years["subtype"], years.get("masking", False)) == ("DIRECT", "IDENTITY", False)
    assert years["description"] == "Renamed column 'age' to 'years'"


def test_column_lineage_facet_is_an_openlineage_model(record: Any) -> None:
    facets = export.column_lineage_facets(record.operations)
    facet = facets[DatasetKey("crm", "contacts")]
    assert isinstance(facet, ColumnLineageDatasetFacet)
    assert "ColumnLineageDatasetFacet.json" in facet._schemaURL
    assert sorted(facet.fields) == ["email", "name", "ssn", "years"]
    assert {f.field for f in facet.fields["name"].inputFields} == {"first", "last"}


def test_recipe_facet_carries_indirect_filters_in_the_dataset_list() -> None:
    recipe = directives.parse(RECIPE, SCHEMA)
    lineages = Backtracker(recipe).all()
    facet = export.recipe_column_lineage_facet(lineages, DatasetKey("crm", "contacts_raw"))
    assert isinstance(facet, ColumnLineageDatasetFacet)
    data = Serde.to_dict(facet)
    assert [(d["field"], d["transformations"][0]["type"], d["transformations"][0]["subtype"])
            for d in data["dataset"]] == [("age", "INDIRECT", "FILTER")]
    assert all(t["transformations"][0]["type"] == "DIRECT"
               for field in data["fields"].values() for t in field["inputFields"])
    legacy = Serde.to_dict(export.recipe_column_lineage_facet(lineages, DatasetKey("crm", "contacts_raw"),
                                                              indirect_in_fields=True))
    email = legacy["fields"]["email"]["inputFields"]
    assert {(i["field"], i["transformations"][0]["type"]) for i in email} == {("email", "DIRECT"), ("age", "INDIRECT")}


def test_recipe_run_event_and_conditional_stays_on_its_field() -> None:
    recipe = directives.parse("if (age > 17) { set-column :adult exp:{name} }\nhash :email 'MD5'",
                              ["age", "name", "email"])
    data = export.event_to_dict(export.recipe_run_event(recipe, INFO))
    facet = data["outputs"][0]["facets"]["columnLineage"]
    assert data["eventType"] == "COMPLETE"
    assert data["run"]["facets"]["nominalTime"]["nominalStartTime"].startswith("2023-11-14T22:13:20")
    assert facet.get("dataset", []) == []
    adult = {(i["field"], i["transformations"][0]["type"], i["transformations"][0].get("subtype"))
             for i in facet["fields"]["adult"]["inputFields"]}
    assert adult == {("name", "DIRECT", "TRANSFORMATION"), ("age", "INDIRECT", "CONDITIONAL")}
    assert {i["field"] for i in facet["fields"]["email"]["inputFields"]} == {"email"}


def test_datahub_fine_grained_lineages(record: Any) -> None:
    entries = export.datahub_fine_grained_lineages(record.operations)
    json.dumps(entries)
    dataset = "urn:li:dataset:(urn:li:dataPlatform:wrangler,crm.contacts,PROD)"
    source = "urn:li:dataset:(urn:li:dataPlatform:wrangler,crm.contacts_raw,PROD)"
    by_downstream = {entry["downstreams"][0]: entry for entry in entries}
    name = by_downstream[f"urn:li:schemaField:({dataset},name)"]
    assert name["upstreamType"] == "FIELD_SET" and name["downstreamType"] == "FIELD"
    assert name["upstreams"] == [f"urn:li:schemaField:({source},first)", f"urn:li:schemaField:({source},last)"]
    assert name["transformOperation"] == "BLACKBOX"
    assert by_downstream[f"urn:li:schemaField:({dataset},years)"]["transformOperation"] == "IDENTITY"
    assert by_downstream[f"urn:li:schemaField:({dataset},email)"]["transformOperation"] == "BLACKBOX"  # masked
    aspect = export.datahub_upstream_lineage(record)
    assert [u["dataset"] for u in aspect["upstreams"]] == [source]
    assert aspect["fineGrainedLineages"] == entries
    old_style = export.datahub_fine_grained_lineages(record.operations, kind="datasetField")
    assert all(e["downstreams"][0].startswith("urn:li:datasetField:(") for e in old_style)


def test_run_event_of_a_stored_run_carries_the_indirect_influences(tmp_path: Path) -> None:
    """Filters reach every column (the facet's dataset list); an `if` condition stays on its own field."""
    recipe = directives.parse(
        "filter-row exp:{age < 18}\nif (vip == 'y') { set-column :tier exp:{'gold'} }\nrename :name :who",
        ["age", "vip", "name"],
    )
    with SQLiteLineageStore(tmp_path / "s.sqlite") as store:
        record_recipe_run(store, recipe, INFO)
        stored = store.run("crm", "run-7")
    assert stored is not None and set(stored.column_trees) == {"age", "vip", "who", "tier"}
    facet = export.event_to_dict(export.run_event(stored))["outputs"][0]["facets"]["columnLineage"]
    assert [(d["namespace"], d["name"], d["field"], d["transformations"][0]["type"],
             d["transformations"][0]["subtype"]) for d in facet["dataset"]] == [
        ("crm", "contacts_raw", "age", "INDIRECT", "FILTER")]
    tier = {(i["field"], i["transformations"][0]["type"], i["transformations"][0].get("subtype"))
            for i in facet["fields"]["tier"]["inputFields"]}
    assert ("vip", "INDIRECT", "CONDITIONAL") in tier
    who = {(i["field"], i["transformations"][0]["type"]) for i in facet["fields"]["who"]["inputFields"]}
    assert who == {("name", "DIRECT")}
