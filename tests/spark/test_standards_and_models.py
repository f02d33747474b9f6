"""`validate-standard` against the shipped FHIR R4 schema and `data-model-map-column` with a glossary on disk.

The FHIR resources are small hand-written ones (valid and invalid by the R4 schema); the glossary is written
here in the layout Wrangler's HTTPSchemaLoader downloads (`manifest.json` and `<standard>.avsc`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from directives.spark.compile.datamodel import DataModelError
from directives.spark.compile.standards import conformance_issues, standard_schema
from directives.spark.runtime.resources import ENVIRONMENT
from directives.spark.runtime.runner import run_rows

pytestmark = pytest.mark.spark

PATIENT = {"resourceType": "Patient", "id": "p1", "active": True, "gender": "female",
           "name": [{"family": "Lovelace", "given": ["Ada"]}], "birthDate": "1815-12-10"}


def test_the_shipped_schema_is_hl7s_r4() -> None:
    schema = standard_schema("hl7-fhir-r4")
    assert schema["id"] == "http://hl7.org/fhir/json-schema/4.0"
    assert "Patient" in schema["discriminator"]["mapping"] and len(schema["definitions"]) > 600


def test_conformance_issues_name_schema_and_data_locations() -> None:
    assert conformance_issues("hl7-fhir-r4", json.dumps(PATIENT)) is None
    wrong = conformance_issues("hl7-fhir-r4", json.dumps({**PATIENT, "gender": "robot", "active": "yes"}))
    assert wrong is not None
    assert "at data #/active: 'yes' is not of type 'boolean'" in wrong
    assert "at data #/gender: 'robot' is not one of" in wrong
    assert "resourceType" in str(conformance_issues("hl7-fhir-r4", json.dumps({"resourceType": "Robot"})))


def test_validate_standard_sends_nonconforming_rows_to_errors(spark: SparkSession) -> None:
    rows = [{"n": 1, "resource": json.dumps(PATIENT)},
            {"n": 2, "resource": json.dumps({**PATIENT, "birthDate": "10 Dec 1815"})},
            {"n": 3, "resource": None}]
    result = run_rows("validate-standard :resource hl7-fhir-r4", rows, spark=spark)
    assert [r["n"] for r in result.rows] == [1, 3]  # a null value is not checked, as in Wrangler
    assert len(result.errors) == 1 and result.errors[0]["row"]["n"] == 2
    assert "at data #/birthDate: '10 Dec 1815' does not match" in result.errors[0]["message"]


def test_validate_standard_reads_json_objects_made_by_other_directives(spark: SparkSession) -> None:
    recipe = "write-as-json-object :obj :resourceType,:id,:gender\nvalidate-standard :obj hl7-fhir-r4"
    rows = [{"resourceType": "Patient", "id": "a", "gender": "male"},
            {"resourceType": "Patient", "id": "b", "gender": "x"}]
    result = run_rows(recipe, rows, spark=spark)
    assert [r["id"] for r in result.rows] == ["a"] and [e["row"]["id"] for e in result.errors] == ["b"]


@pytest.fixture
def glossary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    models = tmp_path / "models"
    models.mkdir()
    (models / "manifest.json").write_text(json.dumps({"standards": {"omop": {"format": "avsc"},
                                                                     "notes": {"format": "txt"}}}))
    person = {"type": "record", "name": "person", "fields": [
        {"name": "person_id", "type": ["null", "long"]}, {"name": "gender", "type": ["null", "string"]},
        {"name": "weight", "type": ["null", "double"]}, {"name": "tags", "type": ["null", {"type": "array",
                                                                                           "items": "string"}]}]}
    (models / "omop.avsc").write_text(json.dumps({"type": "record", "name": "OMOP_CDM", "namespace": "google",
                                                  "_revision": "2", "fields": [
                                                      {"name": "person", "type": ["null", person]}]}))
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path))
    return models


def test_data_model_map_column_converts_and_renames(spark: SparkSession, glossary: Path) -> None:
    rows = [{"id": "42", "w": "70.5"}, {"id": " 7 ", "w": None}, {"id": "x", "w": "1"}]
    recipe = (f"data-model-map-column 'file://{glossary}' 'google.OMOP_CDM' 2 'person' 'person_id' :id\n"
              "data-model-map-column 'http://models.example/models' 'google.OMOP_CDM' 2 'person' 'weight' :w")
    (glossary.parent / "models.example").mkdir()
    (glossary.parent / "models.example" / "models").symlink_to(glossary)
    result = run_rows(recipe, rows, spark=spark)
    assert result.columns == ["person_id", "weight"]
    assert result.rows == [{"person_id": 42, "weight": 70.5}]
    # ColumnConverter.convertType: Long.parseLong reads no blanks, so " 7 " fails like "x"
    assert [(e["row"]["id"], e["message"]) for e in result.errors] == [
        (" 7 ", "Column 'id' cannot be converted to a 'long'."), ("x", "Column 'id' cannot be converted to a 'long'.")]


@pytest.mark.parametrize(("args", "message"), [
    ("'google.OMOP_CDM' 3 'person' 'person_id'", "Unable to find data model google.OMOP_CDM revision 3."),
    ("'google.OMOP_CDM' 2 'visit' 'person_id'", "Model visit does not exist in data model google.OMOP_CDM."),
    ("'google.OMOP_CDM' 2 'person' 'age'", "Field age does not exist in model person."),
    ("'google.OMOP_CDM' 2 'person' 'tags'", "Field tags has type 'array'"),
])
def test_data_model_map_column_fails_where_wrangler_does(spark: SparkSession, glossary: Path, args: str,
                                                          message: str) -> None:
    with pytest.raises(DataModelError, match=message.replace(".", r"\.")):
        run_rows(f"data-model-map-column '{glossary}' {args} :id", [{"id": "1"}], spark=spark)
