"""Validate emitted OpenLineage events against the official JSON schemas, as a consumer would.

The event is checked against ``OpenLineage.json#/$defs/RunEvent``; then every facet in it (run, job,
dataset facets) against the schema its ``_schemaURL`` names: an official facet schema from
``tests/data/openlineage`` (copied from the OpenLineage repository), or one of ours, read from where the
project publishes it (``lineage/schemas/openlineage``). A ``_schemaURL`` with no schema behind it is an
error: a consumer could not validate that facet either.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from lineage import export
from tests.paths import ROOT

OFFICIAL = ROOT / "tests" / "data" / "openlineage"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


@cache
def _official() -> dict[str, dict[str, Any]]:
    documents = {}
    for path in [OFFICIAL / "OpenLineage.json", *sorted((OFFICIAL / "facets").glob("*.json"))]:
        document = json.loads(path.read_text())
        documents[document["$id"]] = document
    return documents


def registry(facet_base: str = export.FACET_BASE_URL) -> Registry:
    resources = dict(_official())
    for name in export.FACETS:
        document = export.facet_schema(name, facet_base)
        resources[document["$id"]] = document
    return Registry().with_resources((uri, Resource.from_contents(doc)) for uri, doc in resources.items())


def _validator(url: str, registry_: Registry) -> Draft202012Validator:
    return Draft202012Validator({"$ref": url}, registry=registry_, format_checker=Draft202012Validator.FORMAT_CHECKER)


def problems(event: dict[str, Any], facet_base: str = export.FACET_BASE_URL) -> list[str]:
    """Every way ``event`` fails the official RunEvent schema or its facets' own schemas (empty: valid)."""
    found: list[str] = []
    registry_ = registry(facet_base)
    known = {uri for uri, _ in registry_.items()}
    for error in _validator(RUN_EVENT, registry_).iter_errors(event):
        found.append(f"RunEvent {'/'.join(map(str, error.absolute_path))}: {error.message}")
    for where, facet in _facets(event):
        url = facet.get("_schemaURL", "")
        document = url.split("#", 1)[0]
        if document not in known:
            found.append(f"{where}: no published schema for _schemaURL {url!r}")
            continue
        for error in _validator(url, registry_).iter_errors(facet):
            found.append(f"{where} {'/'.join(map(str, error.absolute_path))}: {error.message}")
    return found


def _facets(event: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for key in ("run", "job"):
        for name, facet in (event.get(key, {}).get("facets") or {}).items():
            yield f"{key}.facets.{name}", facet
    for side in ("inputs", "outputs"):
        for index, dataset in enumerate(event.get(side) or []):
            for kind in ("facets", "inputFacets", "outputFacets"):
                for name, facet in (dataset.get(kind) or {}).items():
                    yield f"{side}[{index}].{kind}.{name}", facet


def assert_valid(event: dict[str, Any], facet_base: str = export.FACET_BASE_URL) -> None:
    found = problems(event, facet_base)
    assert found == [], "\n".join(found)

