"""Request and response bodies of the native API (CDAP-compatible shapes live in ``server.cdap``).

pydantic lives here, at the boundary: bodies are parsed with ``model_validate_json`` (unknown keys
are errors) and answers are written with ``model_dump_json``. The store's result models are
reused as they are where their shape is already the answer, so there is one definition of, say,
a field-lineage group, and ``/openapi.json`` is generated from exactly what is sent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, StringConstraints

from lineage.graph import Endpoint
from lineage.model import Destination, Direction, FieldOperation, NonEmptyStr
from lineage.store.results import CUT_DOC, ColumnHistoryEntry, FieldInfo, PropertiesEntry

MAX_OPERATIONS = 10_000
MAX_RECIPE_CHARS = 1 << 20
"""As long as the body limit allows: recipes are analysed in worker processes with a time limit
(``server.recipe_pool``), so a long one costs the server nothing but a worker for a while."""
MAX_SCHEMA_COLUMNS = 2_000
"""With names of at most 256 characters a full schema stays well inside the 1 MiB body limit, so
too many columns is a 400 naming ``schema``, not a 413."""

RunId = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=r"^[^\x00-\x1f\x7f]+$")]


class ApiModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- errors


class ErrorBody(ApiModel):
    type: str = Field(description="stable identifier: bad_request, unauthorized, forbidden, not_found, ...")
    message: str
    parameter: str | None = Field(None, description="the request parameter at fault, when there is one")
    errors: list[dict[str, Any]] | None = Field(None, description="every problem found (recipe errors, ...)")


class ErrorResponse(ApiModel):
    error: ErrorBody


# --------------------------------------------------------------------------- dataset and field queries


class _Window(ApiModel):
    namespace: str
    dataset: str
    start: int
    end: int


class FieldsResponse(_Window):
    fields: tuple[FieldInfo, ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class ColumnHistoryResponse(_Window):
    column: str
    max_levels: int | None
    items: tuple[ColumnHistoryEntry, ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class PropertiesResponse(_Window):
    items: tuple[PropertiesEntry, ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class FieldEventsResponse(_Window):
    """A field's lineage as OpenLineage events: one per operation set, for its newest run in the range."""

    field: str
    direction: Direction
    events: tuple[dict[str, Any], ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class OpenLineageEvent(RootModel[dict[str, Any]]):
    """An OpenLineage RunEvent (https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent)."""


class FineGrainedLineage(ApiModel):
    upstreamType: Literal["FIELD_SET", "DATASET", "NONE"]  # DataHub field names
    upstreams: list[str]
    downstreamType: Literal["FIELD", "FIELD_SET"]
    downstreams: list[str]
    transformOperation: str
    confidenceScore: float


class AuditStamp(ApiModel):
    time: int
    actor: str


class Upstream(ApiModel):
    dataset: str
    type: str
    auditStamp: AuditStamp


class UpstreamLineage(ApiModel):
    upstreams: list[Upstream]
    fineGrainedLineages: list[FineGrainedLineage]


class DataHubLineageResponse(ApiModel):
    """The ``upstreamLineage`` aspect to emit for the run's destination dataset."""

    entityUrn: str
    aspectName: Literal["upstreamLineage"] = "upstreamLineage"
    aspect: UpstreamLineage
    cut: bool = Field(False, description=CUT_DOC)


# --------------------------------------------------------------------------- recording a run


class RunBody(ApiModel):
    id: RunId
    program: NonEmptyStr = Field(max_length=256)
    start: int = Field(ge=0, lt=10**11, description="epoch seconds")
    end: int | None = Field(None, ge=0, lt=10**11, description="epoch seconds; null while running")
    status: Annotated[str, StringConstraints(min_length=1, max_length=32, pattern=r"^[A-Za-z_]+$")] = "COMPLETED"


class RecordRunRequest(ApiModel):
    """One program run's field lineage: LineageRecorder.record(destination, operations) over HTTP.

    ``dataset.namespace`` defaults to the path's namespace; an input field without ``origin`` comes
    from the most recent earlier operation that output that name; operation names are unique.
    """

    run: RunBody
    destination: Destination
    operations: list[FieldOperation] = Field(min_length=1, max_length=MAX_OPERATIONS)
    column_history: dict[str, dict[str, Any]] | None = Field(
        None, description="final column -> directive tree (as `wrangler lineage --format json` writes it)"
    )


class RecordRunResponse(ApiModel):
    namespace: str
    run_id: str
    checksum: str = Field(description="identifies the run's operation set")
    created: bool = Field(description="false when this exact run was already recorded (idempotent retry)")
    datasets: tuple[Endpoint, ...] = Field(description="datasets whose lineage changed (cache invalidated)")


# --------------------------------------------------------------------------- static recipe lineage


class RecipeLineageRequest(ApiModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    recipe: str = Field(min_length=1, max_length=MAX_RECIPE_CHARS, description="recipe text, one directive per line")
    input_schema: list[Annotated[str, StringConstraints(min_length=1, max_length=256)]] | None = Field(
        None, alias="schema", max_length=MAX_SCHEMA_COLUMNS,
        description="input column names; makes whole-schema directives exact",
    )


class StaticColumnLineage(ApiModel):
    sources: list[str]
    directives: list[int]
    indirect: list[int]
    exact: bool
    tree: dict[str, Any]
    influences: list[dict[str, Any]]


class RecipeLineageResponse(ApiModel):
    columns: dict[str, StaticColumnLineage]


# --------------------------------------------------------------------------- health


class ComponentHealth(ApiModel):
    status: Literal["ok", "down", "disabled"]
    detail: str | None = None


class HealthResponse(ApiModel):
    status: Literal["ok", "degraded", "down"]
    store: ComponentHealth
    redis: ComponentHealth
