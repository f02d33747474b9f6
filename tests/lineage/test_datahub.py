"""DataHub exports checked with DataHub's own Python classes (acryl-datahub): URN builders and parsers, and the
`UpstreamLineage` aspect's schema validation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from avro.errors import AvroTypeException
from datahub.emitter.mce_builder import make_dataset_urn, make_schema_field_urn
from datahub.metadata.schema_classes import FineGrainedLineageClass, UpstreamLineageClass
from datahub.metadata.urns import DatasetUrn, SchemaFieldUrn, Urn

import directives
from lineage import datahub
from lineage.model import DatasetKey, FieldKey
from lineage.runs import RecipeRunInfo, record_recipe_run
from lineage.store import SQLiteLineageStore

#: Names DataHub's builders must see through: accents, `%`, `#`, `?`, quotes, `<>`, and the tuple separators.
HOSTILE = ["café", "100%", "a#b", "why?", "it's \"quoted\"", "<tag>", "a,b", "f(x)", "tab\tand space", "雪", "a␟b"]


@pytest.mark.parametrize("name", HOSTILE)
def test_urns_are_encoded_exactly_as_datahubs_builders_encode_them(name: str) -> None:
    key = DatasetKey("crm", name)
    assert datahub.dataset_urn(key) == make_dataset_urn("wrangler", f"crm.{name}", "PROD")
    parsed = DatasetUrn.from_string(datahub.dataset_urn(key))
    assert (parsed.platform, parsed.env) == ("urn:li:dataPlatform:wrangler", "PROD")
    field = datahub.field_urn(FieldKey("crm", "people", name))
    assert field == make_schema_field_urn(make_dataset_urn("wrangler", "crm.people", "PROD"), name)
    schema_field = SchemaFieldUrn.from_string(field)
    assert schema_field.parent == make_dataset_urn("wrangler", "crm.people", "PROD")
    assert isinstance(Urn.from_string(field), SchemaFieldUrn)


def test_environment_and_platform_as_datahub_builds_them() -> None:
    key = DatasetKey("ns", "t")
    assert datahub.dataset_urn(key, platform="hive", env="dev") == make_dataset_urn("hive", "ns.t", "dev")
    assert datahub.dataset_urn(key, platform="my(platform)") == make_dataset_urn("my(platform)", "ns.t")
    with pytest.raises(ValueError, match="cannot be empty"):
        datahub.field_urn(FieldKey("ns", "t", ""))


RECIPE = """\
merge :first :last :name ' '
hash :email 'SHA-256'
rename :age :years
drop :first,:last
"""


@pytest.fixture
def record(tmp_path: Path) -> Iterator[Any]:
    info = RecipeRunInfo(namespace="crm", source_name="contacts (raw), v2", destination_name="contacts%",
                         run_id="run-7", start=1_700_000_000, end=1_700_000_100)
    with SQLiteLineageStore(tmp_path / "s.sqlite") as store:
        record_recipe_run(store, directives.parse(RECIPE, ["email", "first", "last", "age"]), info)
        stored = store.run("crm", "run-7")
        assert stored is not None
        yield stored


def test_upstream_lineage_is_a_valid_datahub_aspect(record: Any) -> None:
    aspect = datahub.upstream_lineage(record)
    parsed = UpstreamLineageClass.from_obj(json.loads(json.dumps(aspect)))
    assert parsed.validate()
    source = make_dataset_urn("wrangler", "crm.contacts (raw), v2", "PROD")
    target = make_dataset_urn("wrangler", "crm.contacts%", "PROD")
    assert [upstream.dataset for upstream in parsed.upstreams] == [source]
    assert parsed.upstreams[0].auditStamp.actor == datahub.ACTOR
    by_field = {entry.downstreams[0]: entry for entry in parsed.fineGrainedLineages or []}
    name = by_field[make_schema_field_urn(target, "name")]
    assert isinstance(name, FineGrainedLineageClass) and name.validate()
    assert name.upstreams == [make_schema_field_urn(source, "first"), make_schema_field_urn(source, "last")]
    assert (name.upstreamType, name.downstreamType, name.transformOperation) == ("FIELD_SET", "FIELD", "BLACKBOX")
    assert by_field[make_schema_field_urn(target, "years")].transformOperation == "IDENTITY"
    assert by_field[make_schema_field_urn(target, "email")].transformOperation == "BLACKBOX"  # masked
    for entry in parsed.fineGrainedLineages or []:
        for urn in [*(entry.upstreams or []), *(entry.downstreams or [])]:
            assert isinstance(Urn.from_string(urn), SchemaFieldUrn)


def test_a_broken_aspect_fails_datahubs_validation(record: Any) -> None:
    aspect = json.loads(json.dumps(datahub.upstream_lineage(record)))
    aspect["fineGrainedLineages"][0]["upstreamType"] = "NOT_A_TYPE"
    with pytest.raises(AvroTypeException, match="cannot be parsed"):
        UpstreamLineageClass.from_obj(aspect)
