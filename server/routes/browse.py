"""Read-only routes the web view needs to be found your way around: what namespaces and datasets exist,
which runs touched a dataset, what changed since a pipeline's previous run, and a recipe's findings.

They follow the other routes' rules: a token for the path's namespace, the store seen as the token may
(``routes.support.visible_store``: a namespace list holds the namespaces it may read, a dataset's newest
run is the newest one in sight, and an answer that left something out says ``cut``), answers through
the cache where the same request means the same answer, untrusted recipes analysed in the worker
processes (``server.recipe_pool``), every parameter checked and named when wrong.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from aiohttp import web
from pydantic import ConfigDict, Field, StrictBool, StringConstraints

from lineage.run_diff import RunDiff, diff_runs
from lineage.store.browse import DatasetInfo, DatasetRun, NamespaceInfo
from lineage.store.results import CUT_DOC
from server.cache import GLOBAL_SCOPE
from server.errors import NotFoundError
from server.keys import RECIPE_WORKERS
from server.models import MAX_RECIPE_CHARS, MAX_SCHEMA_COLUMNS, ApiModel
from server.params import EmptyQuery, Name, PageQuery, Query, parse_query
from server.routes.spec import RouteTable
from server.routes.support import (
    JSON,
    cached_json,
    cached_page,
    dataset_page,
    json_response,
    read_body,
    read_request,
    visible_store,
)

table = RouteTable()
TAG = "browse"
NAMESPACE = "/v3/namespaces/{ns}"


# --------------------------------------------------------------------------- parameters and answers


class DatasetsQuery(PageQuery):
    search: Name | None = Field(None, description="part of the dataset name, any case")


class DatasetRunsQuery(PageQuery):
    pass


class RunDiffQuery(Query):
    against: Name | None = Field(None, description="run id to compare with (default: the program's previous run)")


class NamespacesResponse(ApiModel):
    namespaces: tuple[NamespaceInfo, ...]


class DatasetsResponse(ApiModel):
    namespace: str
    start: int
    end: int
    datasets: tuple[DatasetInfo, ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class DatasetRunsResponse(ApiModel):
    namespace: str
    dataset: str
    start: int
    end: int
    runs: tuple[DatasetRun, ...]
    next_cursor: str | None = None
    cut: bool = Field(False, description=CUT_DOC)


class RecipeCheckRequest(ApiModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    recipe: str = Field(min_length=1, max_length=MAX_RECIPE_CHARS, description="recipe text")
    input_schema: list[Annotated[str, StringConstraints(min_length=1, max_length=256)]] | None = Field(
        None, alias="schema", max_length=MAX_SCHEMA_COLUMNS, description="input column names: adds column findings")
    strict: StrictBool = Field(False, description="seed 001's rule: renames and drops must name their columns")


class Finding(ApiModel):
    rule: str
    severity: str
    message: str
    line: int | None
    column: int | None
    directive: str | None
    context: str


class RecipeCheckResponse(ApiModel):
    findings: tuple[Finding, ...]
    errors: int = Field(description="findings of severity error (a recipe with any does not run)")


# --------------------------------------------------------------------------- routes


@table.get("/v3/namespaces", name="namespaces", summary="Namespaces, with their dataset count and newest run",
           tag=TAG, query=EmptyQuery, response=NamespacesResponse)
async def namespaces(request: web.Request) -> web.Response:
    """Only the namespaces the token may read (all of them without ``--auth``); never cached, since two
    tokens see two different lists."""
    parse_query(request, EmptyQuery)
    found = await asyncio.to_thread(visible_store(request).namespaces)
    return json_response(NamespacesResponse(namespaces=tuple(found)))


@table.get(f"{NAMESPACE}/datasets", name="datasets", summary="Datasets a run in the range wrote or read",
           tag=TAG, query=DatasetsQuery, response=DatasetsResponse, cached=True)
async def datasets(request: web.Request) -> web.Response:
    """By name, each with its newest run in ``[start, end)`` and whether runs there wrote or read it."""
    (ns,), q, store = read_request(request, DatasetsQuery, "ns")

    # a new run anywhere in the namespace may add a dataset: any run refreshes the list
    return await cached_page(
        request, q, DatasetsResponse, store.datasets, kind="datasets", scope=GLOBAL_SCOPE, names=[ns],
        items="datasets", options=("search",), namespace=ns)


@table.get(f"{NAMESPACE}/datasets/{{ds}}/runs", name="dataset_runs", summary="Runs that wrote or read a dataset",
           tag=TAG, query=DatasetRunsQuery, response=DatasetRunsResponse, cached=True)
async def dataset_runs(request: web.Request) -> web.Response:
    """Runs of this namespace in ``[start, end)`` that wrote or read the dataset, newest first."""
    return await dataset_page(request, DatasetRunsQuery, DatasetRunsResponse, "dataset_runs", kind="dataset_runs",
                              items="runs")


@table.get(f"{NAMESPACE}/lineage/runs/{{run}}/diff", name="run_diff",
           summary="What changed since the previous run of the same program", tag=TAG, query=RunDiffQuery,
           response=RunDiff, cached=True, errors=(400, 404))
async def run_diff(request: web.Request) -> web.Response:
    """Columns added, dropped and renamed, and columns whose sources or steps changed, against the program's
    previous run (or the run named by ``against``). ``previous`` is null for a program's first run."""
    (ns, run_id), q, store = read_request(request, RunDiffQuery, "ns", "run")

    def compute() -> RunDiff:
        record = store.run(ns, run_id)  # both runs as the token may see them (cut at datasets out of sight)
        if record is None:
            raise NotFoundError(f"no run {run_id!r} in namespace {ns!r}", parameter="run")
        other_id = q.against if q.against is not None else store.previous_run(ns, run_id)
        other = store.run(ns, other_id) if other_id is not None else None
        if other_id is not None and other is None:
            raise NotFoundError(f"no run {other_id!r} in namespace {ns!r}", parameter="against")
        return diff_runs(other, record)

    # which run is "previous" changes when an older run of the program is recorded later
    return await cached_json(request, kind="run_diff", scope=GLOBAL_SCOPE, params=[ns, run_id, q.cache_params()],
                             compute=compute)


@table.post("/v3/lineage/recipe/check", name="recipe_check", summary="What `wrangler check` finds in a recipe",
            tag="recipes", body=RecipeCheckRequest, response=RecipeCheckResponse, errors=(400, 413, 422, 503))
async def recipe_check(request: web.Request) -> web.Response:
    """Every finding - syntax errors, unknown directives with "did you mean", arguments, and with ``schema``
    columns that do not exist at that point - with line and column, as ``wrangler check --format json`` lists
    them. A recipe with findings is still a 200: the findings are the answer. Analysed in a worker process
    like ``POST /v3/lineage/recipe`` (a 422 past the time limit, a 503 when every worker is busy)."""
    parse_query(request, EmptyQuery)
    body = await read_body(request, RecipeCheckRequest)
    answer = await request.app[RECIPE_WORKERS].check(body.recipe, body.input_schema, body.strict)
    RecipeCheckResponse.model_validate_json(answer)  # the documented shape, checked before it is sent
    return web.Response(body=answer, content_type=JSON)
