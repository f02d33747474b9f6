"""OpenLineage exports built with openlineage-python's own models, every event validated against the official
OpenLineage JSON schemas (tests/data/openlineage) and our published facet schemas."""

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
from tests.lineage.openlineage_schemas import assert_valid, problems

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
                     start=1_700_000_000, end=1_700_000_100,
                     source_properties={"path": "/data/crm/contacts.csv"},
                     destination_properties={"path": "s3a://lake/crm/contacts/"})
#: OpenLineage naming spec: a local file is (file, path), an S3 object (s3://bucket, key).
SOURCE_DATASET = ("file", "/data/crm/contacts.csv")
TARGET_DATASET = ("s3://lake", "crm/contacts/")


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
    assert_valid(data)
    assert data["eventType"] == "COMPLETE"
    assert (data["job"]["namespace"], data["job"]["name"]) == ("crm", "wrangler")
    assert data["run"]["runId"] == export.openlineage_run_id("crm", "run-7")
    run_facet = data["run"]["facets"]["wrangler_run"]
    assert run_facet["runId"] == "run-7"
    assert run_facet["_schemaURL"] == (f"{export.FACET_BASE_URL}1-0-0/WranglerRunFacet.json"
                                       "#/$defs/WranglerRunFacet")
    assert [(d["namespace"], d["name"]) for d in data["inputs"]] == [SOURCE_DATASET]
    (output,) = data["outputs"]
    assert (output["namespace"], output["name"]) == TARGET_DATASET
    facet = output["facets"]["columnLineage"]
    assert set(facet["fields"]) == {"email", "ssn", "name", "years"}
    name = by_field(facet, "name")
    assert set(name) == {"first", "last"}
    assert name["first"]["type"] == "DIRECT" and name["first"]["subtype"] == "TRANSFORMATION"
    assert (name["first"]["namespace"], name["first"]["name"]) == SOURCE_DATASET
    assert name["first"]["masking"] is False  # present on every transformation, true or false
    email = by_field(facet, "email")["email"]
    assert email["masking"] is True and email["subtype"] == "TRANSFORMATION"
    assert by_field(facet, "ssn")["ssn"]["masking"] is True
    years = by_field(facet, "years")["age"]
    assert (years["type"], years["subtype"], years["masking"]) == ("DIRECT", "IDENTITY", False)
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
    assert [(d["namespace"], d["name"], d["field"], d["transformations"][0]["type"],
             d["transformations"][0]["subtype"], d["transformations"][0]["masking"])
            for d in data["dataset"]] == [("wrangler", "crm.contacts_raw", "age", "INDIRECT", "FILTER", False)]
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
    assert_valid(data)
    assert (data["outputs"][0]["namespace"], data["outputs"][0]["name"]) == TARGET_DATASET
    facet = data["outputs"][0]["facets"]["columnLineage"]
    assert data["eventType"] == "COMPLETE"
    assert data["run"]["facets"]["nominalTime"]["nominalStartTime"].startswith("2023-11-14T22:13:20")
    assert facet.get("dataset", []) == []
    adult = {(i["field"], i["transformations"][0]["type"], i["transformations"][0].get("subtype"))
             for i in facet["fields"]["adult"]["inputFields"]}
    assert adult == {("name", "DIRECT", "TRANSFORMATION"), ("age", "INDIRECT", "CONDITIONAL")}
    assert {i["field"] for i in facet["fields"]["email"]["inputFields"]} == {"email"}


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
    event = export.event_to_dict(export.run_event(stored))
    assert_valid(event)
    facet = event["outputs"][0]["facets"]["columnLineage"]
    assert [(d["namespace"], d["name"], d["field"], d["transformations"][0]["type"],
             d["transformations"][0]["subtype"]) for d in facet["dataset"]] == [
        (*SOURCE_DATASET, "age", "INDIRECT", "FILTER")]
    tier = {(i["field"], i["transformations"][0]["type"], i["transformations"][0].get("subtype"))
            for i in facet["fields"]["tier"]["inputFields"]}
    assert ("vip", "INDIRECT", "CONDITIONAL") in tier
    who = {(i["field"], i["transformations"][0]["type"]) for i in facet["fields"]["who"]["inputFields"]}
    assert who == {("name", "DIRECT")}


# --------------------------------------------------------------------------- naming, descriptions, per-field


def test_dataset_names_follow_the_openlineage_naming_spec() -> None:
    cases = {
        "/data/in.csv": ("file", "/data/in.csv"),
        "file:///data/./in.csv": ("file", "/data/in.csv"),
        "file://host7/data/in.csv": ("file://host7", "/data/in.csv"),
        "hdfs://nn:8020/warehouse/t": ("hdfs://nn:8020", "/warehouse/t"),
        "s3://bucket/key/part.parquet": ("s3://bucket", "key/part.parquet"),
        "s3a://bucket/key": ("s3://bucket", "key"),
        "gs://bucket/dir/file.json": ("gs://bucket", "dir/file.json"),
        "abfss://c@svc.dfs.core.windows.net/p/q": ("abfss://c@svc.dfs.core.windows.net", "/p/q"),
    }
    for location, expected in cases.items():
        assert export.location_dataset(location) == expected, location
    naming = export.Naming({DatasetKey("crm", "raw"): {"inputPath": "/x/raw"}}, default_namespace="acme")
    assert naming(DatasetKey("crm", "raw")) == ("file", "/x/raw")
    assert naming(DatasetKey("crm", "people")) == ("acme", "crm.people")  # no location: the configured namespace


def test_descriptions_name_each_directive_once(record: Any) -> None:
    recipe = directives.parse("merge :a :b :ab ' '\nuppercase :ab\nuppercase :ab", ["a", "b"])
    facet = Serde.to_dict(export.recipe_column_lineage_facet(Backtracker(recipe).all(), DatasetKey("n", "s")))
    (description,) = {item["transformations"][0]["description"] for item in facet["fields"]["ab"]["inputFields"]}
    assert description == "merge :a :b :ab ' '; uppercase :ab; uppercase :ab"
    for dependencies in export.column_dependencies(record.operations).values():
        for dep in dependencies:
            parts = (dep.description or "").split("; ")
            assert len(parts) == len(set(parts))


def test_per_field_events_keep_the_run_facet_whole_and_keep_indirect_edges(tmp_path: Path) -> None:
    """A per-field export must not carry a `columnLineage` facet: a consumer would replace the run's whole one."""
    from lineage.model import Direction

    recipe = directives.parse("filter-row exp:{age < 18}\nmerge :first :last :name ' '", ["age", "first", "last"])
    with SQLiteLineageStore(tmp_path / "s.sqlite") as store:
        record_recipe_run(store, recipe, INFO)
        stored = store.run("crm", "run-7")
        result = store.field_lineage("crm", "contacts", "name", Direction.BACKWARD, 0, 2_000_000_000)
    assert stored is not None
    events = [export.event_to_dict(event) for event in export.field_events(result, {"run-7": stored})]
    assert len(events) == 1
    (event,) = events
    assert_valid(event)
    assert event["eventType"] == "OTHER" and event["run"]["runId"] == export.openlineage_run_id("crm", "run-7")
    (output,) = event["outputs"]
    assert "columnLineage" not in output["facets"]
    facet = output["facets"]["wrangler_fieldLineage"]
    assert (facet["field"], facet["direction"]) == ("name", "backward")
    assert facet["_schemaURL"].endswith("/1-0-0/WranglerFieldLineageDatasetFacet.json#/$defs/"
                                        "WranglerFieldLineageDatasetFacet")
    edges = {(i["field"], i["transformations"][0]["type"], i["transformations"][0].get("subtype"))
             for i in facet["fields"]["name"]["inputFields"]}
    assert edges == {("first", "DIRECT", "TRANSFORMATION"), ("last", "DIRECT", "TRANSFORMATION"),
                     ("age", "INDIRECT", "FILTER")}
    # the whole run, exported on its own, still has every field
    whole = export.event_to_dict(export.run_event(stored))["outputs"][0]["facets"]["columnLineage"]
    assert set(whole["fields"]) == {"age", "first", "last", "name"}


def test_the_validator_rejects_what_a_consumer_would_reject(record: Any) -> None:
    data = export.event_to_dict(export.run_event(record))
    broken = json.loads(json.dumps(data))
    del broken["run"]["runId"]
    assert any("runId" in problem for problem in problems(broken))
    unknown = json.loads(json.dumps(data))
    unknown["run"]["facets"]["wrangler_run"]["_schemaURL"] = "urn:wrangler-lineage:facets:WranglerRunFacet:1"
    assert any("no published schema" in problem for problem in problems(unknown))
    missing = json.loads(json.dumps(data))
    del missing["run"]["facets"]["wrangler_run"]["checksum"]
    assert any("checksum" in problem for problem in problems(missing))
    bad_edge = json.loads(json.dumps(data))
    bad_edge["outputs"][0]["facets"]["columnLineage"]["fields"]["name"]["inputFields"][0]["transformations"][0][
        "masking"] = "yes"
    assert any("masking" in problem or "boolean" in problem for problem in problems(bad_edge))


def test_published_facet_schemas_are_the_repository_files() -> None:
    for name in export.FACETS:
        on_disk = json.loads((export.SCHEMA_DIR / f"{name}.json").read_text())
        served = export.facet_schema(name, "https://lineage.example.com/openlineage/facets/")
        assert served["$id"] == f"https://lineage.example.com/openlineage/facets/1-0-0/{name}.json"
        assert {k: v for k, v in served.items() if k != "$id"} == {k: v for k, v in on_disk.items() if k != "$id"}
        assert on_disk["$id"] == export.facet_schema_url(name).split("#")[0]
