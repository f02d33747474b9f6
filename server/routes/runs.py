"""Recording a run over HTTP, reading it back, and exporting it (OpenLineage, DataHub)."""

from __future__ import annotations

import asyncio
from urllib.parse import quote

from aiohttp import web
from pydantic import ValidationError

from lineage import datahub, export
from lineage.errors import LineageValidationError
from lineage.graph import Endpoint
from lineage.model import WRITE_PREFIX, DatasetKey, RunInfo
from lineage.recorder import build_recorded_run, encode_column_history
from lineage.store.results import RunRecord
from server.auth import Grant
from server.cache import IMMUTABLE_SCOPE
from server.errors import ForbiddenError, NotFoundError, ParameterError
from server.keys import CACHE, SETTINGS, STORE
from server.models import (
    DataHubLineageResponse,
    OpenLineageEvent,
    RecordRunRequest,
    RecordRunResponse,
    UpstreamLineage,
)
from server.params import (
    CONTROL_CHARACTER,
    MAX_NAME_CHARS,
    DataHubQuery,
    EmptyQuery,
    parse_query,
    path_name,
    validation_to_parameter_error,
)
from server.routes.spec import RouteTable
from server.routes.support import cached_json, grant_of, json_response, read_body, visible_store

table = RouteTable()
RUNS = "/v3/namespaces/{ns}/lineage/runs"


def _check_names(body: RecordRunRequest) -> None:
    """Every name a run stores must be one the query routes can address again: 1-256 characters
    without control characters (the same rule as ``path_name``)."""
    named: list[tuple[str, str | None]] = [("destination.name", body.destination.name),
                                           ("destination.namespace", body.destination.namespace)]
    named += [(f"destination.fields.{i}", name) for i, name in enumerate(body.destination.fields)]
    for i, op in enumerate(body.operations):
        where = f"operations.{i}"
        named.append((f"{where}.name", op.name))
        for j, item in enumerate(op.inputs):
            named.append((f"{where}.inputs.{j}.field", item.field))
            if item.dataset is not None:
                named += [(f"{where}.inputs.{j}.dataset.name", item.dataset.name),
                          (f"{where}.inputs.{j}.dataset.namespace", item.dataset.namespace)]
        named += [(f"{where}.outputs.{j}.field", item.field) for j, item in enumerate(op.outputs)]
    for parameter, value in named:
        if value is None:
            continue
        if len(value) > MAX_NAME_CHARS:
            raise ParameterError(parameter, f"{parameter} is longer than {MAX_NAME_CHARS} characters")
        if CONTROL_CHARACTER.search(value):
            raise ParameterError(parameter, f"{parameter} must not contain control characters")


def _check_writes(grant: Grant, ns: str, body: RecordRunRequest) -> None:
    """Every dataset a run records - its destination and every dataset it reads - gains lineage, so each
    must be in a namespace the token may write; the path's namespace alone says nothing about them."""
    named = [("destination.namespace", body.destination.namespace or ns)]
    for i, op in enumerate(body.operations):
        named += [(f"operations.{i}.inputs.{j}.dataset.namespace", item.dataset.namespace or ns)
                  for j, item in enumerate(op.inputs) if item.dataset is not None]
    for parameter, namespace in named:
        if not grant.may_write(namespace):
            raise ForbiddenError(f"the bearer token may not record lineage in namespace {namespace!r}",
                                 parameter=parameter)


def _lineage_error(error: LineageValidationError, parameter: str) -> ParameterError:
    first = error.problems[0]
    if parameter == "operations" and first.operation and first.operation.startswith(WRITE_PREFIX):
        parameter = "destination.fields"
    return ParameterError(parameter, error.message, errors=[p.to_dict() for p in error.problems])


@table.post(RUNS, name="record_run", summary="Record one run's field lineage", tag="runs", body=RecordRunRequest,
            response=RecordRunResponse, status=201, errors=(400, 409, 413, 415))
async def record_run(request: web.Request) -> web.Response:
    """The LineageRecorder contract over HTTP (seed 000's body). 201 with the run id when stored; 200 when
    this exact run was stored before (safe retries); 409 when the run id exists with other content; 403
    when it names a dataset in a namespace the token may not write (``error.parameter`` says where).
    Every cached answer about the datasets the run touched is invalidated before the reply."""
    ns = path_name(request, "ns")
    parse_query(request, EmptyQuery)  # no query parameters are accepted
    body = await read_body(request, RecordRunRequest)
    _check_names(body)
    _check_writes(grant_of(request), ns, body)
    try:
        run = RunInfo(namespace=ns, program=body.run.program, run_id=body.run.id, start=body.run.start,
                      end=body.run.end, status=body.run.status)
    except ValidationError as error:
        raise validation_to_parameter_error(error, default="run") from None
    try:
        recorded = build_recorded_run(run, body.destination, body.operations)
    except LineageValidationError as error:
        raise _lineage_error(error, "operations") from None
    try:
        encode_column_history(recorded.destination, body.column_history)
    except LineageValidationError as error:
        raise _lineage_error(error, "column_history") from None

    created = await asyncio.to_thread(request.app[STORE].record_run, recorded, body.column_history)
    touched = sorted({DatasetKey(ref.namespace or ns, ref.name) for ref in recorded.dataset_properties})
    if created:
        await request.app[CACHE].invalidate([(key.namespace, key.name) for key in touched])
    answer = RecordRunResponse(
        namespace=ns,
        run_id=run.run_id,
        checksum=recorded.checksum,
        created=created,
        datasets=tuple(Endpoint(namespace=key.namespace, name=key.name) for key in touched),
    )
    location = f"{RUNS.replace('{ns}', quote(ns, safe=''))}/{quote(run.run_id, safe='')}"
    return json_response(answer, status=201 if created else 200, headers={"Location": location})


def _run(request: web.Request) -> tuple[str, str]:
    return path_name(request, "ns"), path_name(request, "run")


def _load_run(request: web.Request, ns: str, run_id: str) -> RunRecord:
    record = visible_store(request).run(ns, run_id)
    if record is None:
        raise NotFoundError(f"no run {run_id!r} in namespace {ns!r}", parameter="run")
    return record


@table.get(f"{RUNS}/{{run}}", name="get_run", summary="Everything recorded for one run", tag="runs",
           query=EmptyQuery, response=RunRecord, cached=True, errors=(400, 404))
async def get_run(request: web.Request) -> web.Response:
    """A recorded run never changes (a different re-record is refused), so it is cached without expiry."""
    ns, run_id = _run(request)
    parse_query(request, EmptyQuery)
    return await cached_json(request, kind="run", scope=IMMUTABLE_SCOPE, params=[ns, run_id],
                             compute=lambda: _load_run(request, ns, run_id))


@table.get(f"{RUNS}/{{run}}/openlineage", name="run_openlineage", summary="A run as an OpenLineage RunEvent",
           tag="export", query=EmptyQuery, response=OpenLineageEvent, cached=True, errors=(400, 404))
async def run_openlineage(request: web.Request) -> web.Response:
    """The run's RunEvent with a ``columnLineage`` facet (spec 1-2-0) on its destination dataset."""
    ns, run_id = _run(request)
    parse_query(request, EmptyQuery)

    settings = request.app[SETTINGS]

    def compute() -> OpenLineageEvent:
        event = export.run_event(_load_run(request, ns, run_id), facet_base=settings.facet_base,
                                 default_namespace=settings.openlineage_namespace)
        return OpenLineageEvent(export.event_to_dict(event))

    return await cached_json(request, kind="run_openlineage", scope=IMMUTABLE_SCOPE, params=[ns, run_id],
                             compute=compute)


@table.get(f"{RUNS}/{{run}}/datahub", name="run_datahub", summary="A run as DataHub fineGrainedLineages",
           tag="export", query=DataHubQuery, response=DataHubLineageResponse, cached=True, errors=(400, 404))
async def run_datahub(request: web.Request) -> web.Response:
    """The ``upstreamLineage`` aspect (with ``fineGrainedLineages``) for the run's destination dataset."""
    ns, run_id = _run(request)
    q = parse_query(request, DataHubQuery)

    def compute() -> DataHubLineageResponse:
        record = _load_run(request, ns, run_id)
        aspect = datahub.upstream_lineage(record, platform=q.platform, env=q.env)
        urn = datahub.dataset_urn(DatasetKey(record.destination.namespace, record.destination.name),
                                  platform=q.platform, env=q.env)
        return DataHubLineageResponse(entityUrn=urn, aspect=UpstreamLineage.model_validate(aspect), cut=record.cut)

    return await cached_json(request, kind="run_datahub", scope=IMMUTABLE_SCOPE, params=[ns, run_id, q.cache_params()],
                             compute=compute)
