"""Recorded lineage as DataHub's ``upstreamLineage`` aspect with ``fineGrainedLineages``.

URNs are built exactly as DataHub's own builders build them (``make_dataset_urn``,
``make_schema_field_urn``): a name part is kept as is — accents, ``%``, ``#``, ``?``, quotes and ``<>``
included — except the characters that would split the URN tuple, ``,``, ``(``, ``)`` and ``␟``, which
are percent-encoded; the environment is upper-cased. Only URN types DataHub knows are emitted
(``dataPlatform``, ``dataset``, ``schemaField``, ``corpuser``): the pre-0.8 ``datasetField`` is gone
from DataHub's model. The tests parse every URN and validate every aspect with DataHub's own classes
(``acryl-datahub``, a test dependency only: nothing here imports it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lineage.export import column_dependencies
from lineage.model import DatasetKey, FieldKey, FieldOperation

if TYPE_CHECKING:
    from lineage.store.results import RunRecord

#: DataHub's reserved characters (``datahub.utilities.urn_encoder.RESERVED_CHARS``), percent-encoded as
#: ``urllib.parse.quote`` encodes them.
_RESERVED = {",": "%2C", "(": "%28", ")": "%29", "␟": "%E2%90%9F"}
ACTOR = "urn:li:corpuser:wrangler-lineage"


def encode(text: str) -> str:
    """One URN part, encoded as DataHub's ``UrnEncoder.encode_string`` does."""
    return "".join(_RESERVED.get(char, char) for char in text)


def _non_empty(value: str, what: str) -> str:
    if not value:
        raise ValueError(f"a DataHub {what} cannot be empty")
    return value


def platform_urn(platform: str) -> str:
    return f"urn:li:dataPlatform:{encode(_non_empty(platform, 'platform'))}"


def dataset_urn(key: DatasetKey, *, platform: str = "wrangler", env: str = "PROD") -> str:
    """``urn:li:dataset:(urn:li:dataPlatform:<platform>,<namespace>.<name>,<ENV>)``."""
    name = encode(_non_empty(f"{key.namespace}.{key.name}" if key.namespace else key.name, "dataset name"))
    return f"urn:li:dataset:({platform_urn(platform)},{name},{encode(_non_empty(env, 'environment').upper())})"


def field_urn(key: FieldKey, *, platform: str = "wrangler", env: str = "PROD") -> str:
    """``urn:li:schemaField:(<dataset urn>,<field path>)``."""
    parent = dataset_urn(key.dataset_key, platform=platform, env=env)
    return f"urn:li:schemaField:({parent},{encode(_non_empty(key.field, 'field path'))})"


def fine_grained_lineages(operations: Sequence[FieldOperation], *, platform: str = "wrangler",
                          env: str = "PROD") -> list[dict[str, Any]]:
    """DataHub ``FineGrainedLineage`` entries: one per destination field and transformation kind.

    ``transformOperation`` is ``IDENTITY`` when every source reaches the field unchanged and
    ``BLACKBOX`` otherwise (DataHub leaves the text free; these are its historical values).
    A field computed from no source (a constant) gets ``upstreamType: NONE``.
    """
    entries: list[dict[str, Any]] = []
    for target, dependencies in column_dependencies(operations).items():
        downstream = field_urn(target, platform=platform, env=env)
        groups: dict[str, list[str]] = {}
        for dep in dependencies:
            identity = dep.type == "DIRECT" and dep.subtype == "IDENTITY" and not dep.masking
            groups.setdefault("IDENTITY" if identity else "BLACKBOX", []).append(
                field_urn(dep.source, platform=platform, env=env))
        if not groups:
            entries.append(_fine_grained([], downstream, "BLACKBOX"))
        for operation in sorted(groups):
            entries.append(_fine_grained(sorted(groups[operation]), downstream, operation))
    return entries


def _fine_grained(upstreams: list[str], downstream: str, operation: str) -> dict[str, Any]:
    return {
        "upstreamType": "FIELD_SET" if upstreams else "NONE",
        "upstreams": upstreams,
        "downstreamType": "FIELD",
        "downstreams": [downstream],
        "transformOperation": operation,
        "confidenceScore": 1.0,
    }


def upstream_lineage(record: RunRecord, *, platform: str = "wrangler", env: str = "PROD") -> dict[str, Any]:
    """The ``upstreamLineage`` aspect of a run's destination: dataset upstreams plus ``fineGrainedLineages``.

    DataHub replaces the whole aspect on every emit, so this is the lineage *as of this run*.
    """
    stamp = {"time": record.start * 1000, "actor": ACTOR}
    upstreams = [
        {"dataset": dataset_urn(DatasetKey(src.namespace, src.name), platform=platform, env=env),
         "type": "TRANSFORMED", "auditStamp": stamp}
        for src in sorted(record.sources, key=lambda e: (e.namespace, e.name))
    ]
    return {"upstreams": upstreams,
            "fineGrainedLineages": fine_grained_lineages(record.operations, platform=platform, env=env)}
