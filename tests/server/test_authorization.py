"""Authorization on every dataset a request names or returns (issue 21, bugs 1 and 2).

The world, recorded by an operator token that may write everywhere (``teamB``'s names all carry a
marker, so a leak is a substring of the answer):

* ``b-run-1`` (teamB): ``B_Raw.raw`` -> ``B_Src.s1``
* ``a-run-1`` (teamA): ``B_Src.s1`` (teamB!) and ``A_Local.l1`` -> ``A_Out.out``; ``A_Local.l1`` -> ``A_Out.local``
* ``b-run-2`` (teamB): ``A_Out.out`` -> ``B_Report.rep`` (teamB reads teamA)
* ``a-run-2`` (teamA): ``A_Out.out`` -> ``A_Final.fin``
* ``b-run-3`` (teamB, newest): ``B_Raw.raw`` -> ``A_Out.out`` (a teamB run writing teamA's dataset)

The matrix: every route × own / other namespace / wildcard / none (and malformed, unknown) × read /
write tokens; the datasets a run names in its body; and what every answer about ``teamA`` shows to
a token that may read ``teamA`` only, through every level, every cache layer and the fast path.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from server.routes import all_specs
from server.routes.spec import RouteSpec
from tests.conftest import RedisProcess
from tests.server.conftest import T0, ClientFactory

A, B = "teamA", "teamB"
TOKENS = {
    "own": "team-a-read-write-token-01",
    "own-read": "team-a-read-only-token-02",
    "other": "team-b-read-write-token-03",
    "wildcard": "operator-read-write-token-04",
    "wildcard-read": "operator-read-only-token-05",
    "write-a-read-b": "team-a-write-b-read-token-06",
    "both": "team-a-and-b-token-000007",
}
MARKERS = ("teamB", "B_Raw", "B_Src", "B_Report", "b-run", "b-secret")
"""Everything that names teamB's namespace, datasets, runs or their content."""


@pytest.fixture
def auth_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({
        A: {"read": [TOKENS["own-read"]], "write": [TOKENS["own"], TOKENS["write-a-read-b"], TOKENS["both"]]},
        B: {"read": [TOKENS["write-a-read-b"]], "write": [TOKENS["other"], TOKENS["both"]]},
        "*": {"read": [TOKENS["wildcard-read"]], "write": [TOKENS["wildcard"]]},
    }))
    return path


def _read(dataset: str, field: str, namespace: str | None = None, output: str | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": dataset}
    if namespace is not None:
        ref["namespace"] = namespace
    return {"name": f"read-{dataset}", "inputs": [{"dataset": ref, "field": field}], "outputs": [output or field]}


def _run(run_id: str, start: int, destination: dict[str, Any], operations: list[dict[str, Any]],
         history: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"run": {"id": run_id, "program": f"prog-{run_id}", "start": start, "end": start + 1},
            "destination": destination, "operations": operations}
    if history is not None:
        body["column_history"] = history
    return body


WORLD: list[tuple[str, dict[str, Any]]] = [
    (B, _run("b-run-1", T0, {"name": "B_Src", "fields": ["s1"]},
             [_read("B_Raw", "raw"), {"name": "t", "inputs": ["raw"], "outputs": ["s1"]}])),
    (A, _run("a-run-1", T0 + 100,
             {"name": "A_Out", "fields": ["out", "local"], "properties": {"path": "/a/out"}},
             [{"name": "read:B_Src.s1", "inputs": [{"dataset": {"namespace": B, "name": "B_Src",
                                                            "properties": {"path": "/b-secret/src"}},
                                                "field": "s1"}], "outputs": ["s1"]},
              _read("A_Local", "l1"),
              {"name": "combine", "inputs": ["s1", "l1"], "outputs": ["out"]},
              {"name": "keep", "inputs": ["l1"], "outputs": ["local"]}],
             {"out": {"column": "out", "directive": "combine", "upstream": []}})),
    (B, _run("b-run-2", T0 + 200, {"name": "B_Report", "fields": ["rep"]},
             [_read("A_Out", "out", namespace=A), {"name": "report", "inputs": ["out"], "outputs": ["rep"]}])),
    (A, _run("a-run-2", T0 + 300, {"name": "A_Final", "fields": ["fin"]},
             [_read("A_Out", "out"), {"name": "finish", "inputs": ["out"], "outputs": ["fin"]}])),
    (B, _run("b-run-3", T0 + 400, {"namespace": A, "name": "A_Out", "fields": ["out"],
                                   "properties": {"path": "/b-secret/out"}},
             [_read("B_Raw", "raw", output="out")],
             {"out": {"column": "out", "directive": "b-secret overwrite", "upstream": []}})),
]

FACET = {"version": "1-0-0", "schema": "WranglerRunFacet.json"}
OWN = {"ns": A, "ds": "A_Out", "field": "out", "col": "out", "run": "a-run-1", **FACET}
OTHER = {"ns": B, "ds": "B_Src", "field": "s1", "col": "s1", "run": "b-run-1", **FACET}
END = "4102444800"  # 2100-01-01: a fixed end, not `now`: CDAP answers echo the range, and `now` moves each second
QUERIES = {"cdap_fields": f"start=0&end={END}", "cdap_field_summary": f"start=0&end={END}&direction=both",
           "cdap_field_operations": f"start=0&end={END}",
           "cdap_all_field_lineage": f"start=0&end={END}&direction=both", "dataset_lineage": "level=5"}
ROUTES = {"dataset_fields", "dataset_lineage", "field_lineage", "field_lineage_openlineage", "column_history",
          "dataset_properties", "cdap_fields", "cdap_field_summary", "cdap_field_operations",
          "cdap_all_field_lineage", "record_run", "get_run", "run_openlineage", "run_datahub",
          "recipe_lineage", "health", "openapi", "namespaces", "datasets", "dataset_runs", "run_diff", "recipe_check",
          "openlineage_facet_schema"}
LEAKY = ROUTES - {"cdap_fields", "record_run", "recipe_lineage", "health", "openapi", "namespaces", "dataset_runs",
                  "run_diff", "recipe_check", "openlineage_facet_schema"}
"""Routes whose whole answer about teamA's A_Out (or a-run-1) shows teamB to a token that sees everything."""
CUT_IN_BODY = {"dataset_fields", "dataset_lineage", "field_lineage", "field_lineage_openlineage", "column_history",
               "dataset_properties", "get_run", "run_datahub", "datasets"}


def _url(spec: RouteSpec, values: dict[str, str]) -> str:
    path = spec.path
    for key, value in values.items():
        path = path.replace("{" + key + "}", value)
    query = QUERIES.get(spec.name)
    return f"{path}?{query}" if query else path


_posted = 0


def _body(spec: RouteSpec, namespace: str) -> Any:
    """A fresh run naming only ``namespace`` (so a 201 is a real write), or a recipe."""
    global _posted
    if spec.name == "record_run":
        _posted += 1
        return _run(f"matrix-{_posted}", T0 + 1000 + _posted, {"name": f"M_{namespace}", "fields": ["m"]},
                    [_read(f"M_src_{namespace}", "m")])
    if spec.name in ("recipe_lineage", "recipe_check"):
        return {"recipe": "rename :a :b"}
    return None


def _headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


async def _call(client: TestClient, spec: RouteSpec, values: dict[str, str], token: str | None,
                raw: str | None = None) -> int:
    headers = {"Authorization": raw} if raw is not None else _headers(token)
    response = await client.request(spec.method, _url(spec, values), json=_body(spec, values["ns"]), headers=headers)
    body = await response.json()
    if response.status >= 400:
        assert body["error"]["type"] == {401: "unauthorized", 403: "forbidden"}.get(response.status,
                                                                                    body["error"]["type"])
    if response.status == 401:
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    return response.status


@pytest.fixture
async def world(make_client: ClientFactory, auth_file: Path, redis_server: RedisProcess) -> TestClient:
    client = await make_client(auth=auth_file, redis=redis_server.url, cache_prefix="authz")
    for namespace, body in WORLD:
        response = await client.post(f"/v3/namespaces/{namespace}/lineage/runs", json=body,
                                     headers=_headers(TOKENS["wildcard"]))
        assert response.status == 201, await response.text()
    return client


async def test_route_table_is_what_the_matrix_covers() -> None:
    assert {spec.name for spec in all_specs()} == ROUTES


async def test_matrix_every_route_every_token(world: TestClient) -> None:
    for spec in all_specs():
        anonymous = await _call(world, spec, OWN, None)
        if spec.public:
            assert anonymous == 200, spec.name
            assert await _call(world, spec, OWN, "not-a-known-token-at-all") == 200, spec.name
            continue
        assert anonymous == 401, spec.name
        assert await _call(world, spec, OWN, None, raw=f"Basic {TOKENS['own']}") == 401, spec.name
        assert await _call(world, spec, OWN, "not-a-known-token-at-all") == 401, spec.name
        ok = 201 if spec.name == "record_run" else 200
        writes = spec.writes
        expected = {
            "own": ok,
            "own-read": 403 if writes else ok,
            "other": 403 if spec.namespaced else ok,
            "wildcard": ok,
            "wildcard-read": 403 if writes else ok,
        }
        found = {kind: await _call(world, spec, OWN, TOKENS[kind]) for kind in expected}
        assert found == expected, spec.name
        if spec.namespaced:  # the same route on teamB's side: the other way round
            mirrored = {kind: await _call(world, spec, OTHER, TOKENS[kind]) for kind in ("own", "other", "wildcard")}
            assert mirrored == {"own": 403, "other": ok, "wildcard": ok}, spec.name


# --------------------------------------------------------------------------- datasets named in the body (bug 1)


def _crossing(run_id: str, *, destination_ns: str | None = None, input_ns: str | None = None) -> dict[str, Any]:
    destination: dict[str, Any] = {"name": "Sneaky", "fields": ["x"]}
    if destination_ns is not None:
        destination["namespace"] = destination_ns
    return _run(run_id, T0 + 5000, destination, [_read("Source", "x", namespace=input_ns)])


@pytest.mark.parametrize(
    ("body", "parameter"),
    [(_crossing("into-b", destination_ns=B), "destination.namespace"),
     (_crossing("reads-b", input_ns=B), "operations.0.inputs.0.dataset.namespace")],
)
@pytest.mark.parametrize("token", ["own", "write-a-read-b"])
async def test_a_run_may_only_record_datasets_the_token_may_write(
    world: TestClient, body: dict[str, Any], parameter: str, token: str
) -> None:
    """Bug 1: a token for teamA posted a run whose destination (or input) named teamB: 201."""
    response = await world.post(f"/v3/namespaces/{A}/lineage/runs", json=body, headers=_headers(TOKENS[token]))
    error = (await response.json())["error"]
    assert response.status == 403, error
    assert error["type"] == "forbidden" and error["parameter"] == parameter and B in error["message"]
    stored = await world.get(f"/v3/namespaces/{A}/lineage/runs/{body['run']['id']}", headers=_headers(TOKENS["own"]))
    assert stored.status == 404
    name = "Sneaky" if parameter.startswith("destination") else "Source"
    fields = await world.get(f"/v3/namespaces/{B}/datasets/{name}/fields", headers=_headers(TOKENS["other"]))
    assert (await fields.json())["fields"] == []
    allowed = await world.post(f"/v3/namespaces/{A}/lineage/runs", json=body, headers=_headers(TOKENS["both"]))
    assert allowed.status == 201  # the same run from a token that may write both namespaces


# --------------------------------------------------------------------------- what answers show (bug 2)


def _leaks(text: str) -> list[str]:
    return [marker for marker in MARKERS if marker in text]


async def _get(client: TestClient, url: str, token: str) -> tuple[int, dict[str, str], str]:
    response = await client.get(url, headers=_headers(token))
    return response.status, dict(response.headers), await response.text()


async def test_answers_about_teamA_never_show_teamB_to_a_teamA_token(
    world: TestClient, make_client: ClientFactory, auth_file: Path, redis_server: RedisProcess
) -> None:
    """Every GET route, asked first by the operator (so its answer is in every cache layer, and its raw
    text is a fast-path alias), then by teamA's tokens - on this instance and on a second one sharing Redis."""
    second = await make_client(auth=auth_file, redis=redis_server.url, cache_prefix="authz")
    urls = [(spec.name, _url(spec, OWN)) for spec in all_specs() if spec.method == "GET" and spec.namespaced]
    urls += [("dataset_lineage", f"/v3/namespaces/{A}/datasets/A_Out/fields/lineage?level=5&direction=forward"),
             ("field_lineage", f"/v3/namespaces/{A}/datasets/A_Out/fields/out/lineage?direction=forward")]
    for name, url in urls:
        status, headers, whole = await _get(world, url, TOKENS["wildcard"])
        assert status == 200, (name, whole)
        if name in LEAKY:
            assert _leaks(whole), (name, "the world should reach teamB here")
        assert "X-Lineage-Cut" not in headers
        for client in (world, world, second):
            for token in ("own", "own-read"):
                status, headers, cut = await _get(client, url, TOKENS[token])
                assert status == 200, (name, cut)
                assert _leaks(cut) == [], (name, token, cut)
                if name in LEAKY:
                    assert headers.get("X-Lineage-Cut") == "true", name
                    if name in CUT_IN_BODY:
                        assert json.loads(cut)["cut"] is True, name
        for token in ("both", "wildcard-read"):  # tokens that may read teamB see it all, uncut
            status, headers, seen = await _get(world, url, TOKENS[token])
            assert status == 200 and seen == whole and "X-Lineage-Cut" not in headers, (name, token)


async def test_multi_level_lineage_is_cut_at_the_namespace_boundary(world: TestClient) -> None:
    """Bug 2: teamA's level-5 lineage showed teamB's own run (B_Raw -> B_Src), which teamA gets 403 on."""
    url = f"/v3/namespaces/{A}/datasets/A_Out/fields/lineage?level=5"
    _, _, whole = await _get(world, url, TOKENS["wildcard"])
    edges = {(m["level"], m["source"]["name"], m["destination"]["name"]) for m in json.loads(whole)["mappings"]}
    assert (2, "B_Raw", "B_Src") in edges and (1, "B_Src", "A_Out") in edges
    _, _, cut = await _get(world, url, TOKENS["own"])
    answer = json.loads(cut)
    assert answer["cut"] is True
    assert {(m["level"], m["source"]["name"], m["destination"]["name"]) for m in answer["mappings"]} == {
        (1, "A_Local", "A_Out")}
    forbidden = await world.get(f"/v3/namespaces/{B}/lineage/runs/b-run-1", headers=_headers(TOKENS["own"]))
    assert forbidden.status == 403


async def test_field_lineage_groups_are_cut_not_dropped(world: TestClient) -> None:
    url = f"/v3/namespaces/{A}/datasets/A_Out/fields/out/lineage"
    _, _, whole = await _get(world, url, TOKENS["wildcard"])
    assert [g["runs"][0]["run_id"] for g in json.loads(whole)["groups"]] == ["b-run-3", "a-run-1"]
    _, _, cut = await _get(world, url, TOKENS["own"])
    [group] = json.loads(cut)["groups"]  # b-run-3's group has no run teamA may read: gone
    assert [run["run_id"] for run in group["runs"]] == ["a-run-1"]
    assert [op["name"] for op in group["operations"]] == ["read-A_Local", "combine", "write:A_Out"]
    combine = next(op for op in group["operations"] if op["name"] == "combine")
    assert [(i["field"], i["origin"]) for i in combine["inputs"]] == [("s1", "cut#1"), ("l1", "read-A_Local")]
    assert [(f["dataset"], f["field"]) for f in group["fields"]] == [("A_Local", "l1")]
    nodes = {node["id"] for node in group["graph"]["nodes"]}
    assert "cut#1.s1" in nodes  # combine's input stays; where it came from is what was cut
    assert not any(node.startswith("source:teamB") for node in nodes)
    assert all(c["from"] in nodes and c["to"] in nodes for c in group["graph"]["connections"])


async def test_a_run_is_cut_and_its_exports_follow(world: TestClient) -> None:
    run = f"/v3/namespaces/{A}/lineage/runs/a-run-1"
    _, _, cut = await _get(world, run, TOKENS["own"])
    record = json.loads(cut)
    assert record["cut"] is True and [s["name"] for s in record["sources"]] == ["A_Local"]
    _, _, whole = await _get(world, run, TOKENS["wildcard"])
    assert [p["dataset"]["name"] for p in json.loads(whole)["dataset_properties"]] == ["A_Out", "B_Src"]
    assert [p["dataset"]["name"] for p in record["dataset_properties"]] == ["A_Out"]
    _, _, event = await _get(world, f"{run}/openlineage", TOKENS["own"])
    inputs = json.loads(event)["outputs"][0]["facets"]["columnLineage"]["fields"]["out"]["inputFields"]
    # OpenLineage's naming spec: a dataset recorded without a location is named in the configured namespace
    assert [(f["namespace"], f["name"], f["field"]) for f in inputs] == [("wrangler", f"{A}.A_Local", "l1")]


async def test_a_run_writing_a_dataset_out_of_sight_is_refused_whole(world: TestClient) -> None:
    """A run in teamA that writes teamB's dataset cannot be shown cut to a teamA token: its destination is what
    the run is about. So it is a 403 - on the run and its exports - that names nothing of teamB."""
    body = _run("a-writes-b", T0 + 6000, {"namespace": B, "name": "B_Sink", "fields": ["x"]}, [_read("A_Local", "x")])
    created = await world.post(f"/v3/namespaces/{A}/lineage/runs", json=body, headers=_headers(TOKENS["both"]))
    assert created.status == 201
    for suffix in ("", "/openlineage", "/datahub"):
        response = await world.get(f"/v3/namespaces/{A}/lineage/runs/a-writes-b{suffix}",
                                   headers=_headers(TOKENS["own"]))
        error = (await response.json())["error"]
        assert response.status == 403 and error["parameter"] == "run", suffix
        assert _leaks(json.dumps(error)) == []
    seen = await world.get(f"/v3/namespaces/{A}/lineage/runs/a-writes-b", headers=_headers(TOKENS["both"]))
    assert seen.status == 200


async def test_fields_take_last_run_from_runs_in_sight(world: TestClient) -> None:
    url = f"/v3/namespaces/{A}/datasets/A_Out/fields"
    _, _, whole = await _get(world, url, TOKENS["wildcard"])
    assert {f["name"]: f["last_run"] for f in json.loads(whole)["fields"]} == {"out": "b-run-3", "local": "a-run-1"}
    _, _, cut = await _get(world, url, TOKENS["own"])
    fields = {f["name"]: f for f in json.loads(cut)["fields"]}
    assert {name: f["last_run"] for name, f in fields.items()} == {"out": "a-run-2", "local": "a-run-1"}
    assert fields["out"]["updated"] == T0 + 300


async def test_a_cursor_of_one_view_does_not_continue_another(world: TestClient) -> None:
    url = f"/v3/namespaces/{A}/datasets/A_Out/fields/lineage?level=5&limit=1"
    response = await world.get(url, headers=_headers(TOKENS["wildcard"]))
    cursor = response.headers["X-Next-Cursor"]
    again = await world.get(f"{url}&cursor={cursor}", headers=_headers(TOKENS["own"]))
    assert again.status == 400 and (await again.json())["error"]["parameter"] == "cursor"


def test_grants_from_the_file(auth_file: Path) -> None:
    from server.auth import Authorizer

    authorizer = Authorizer.from_file(auth_file)
    grant = authorizer.authenticate(f"Bearer {TOKENS['write-a-read-b']}")
    assert grant.may_write(A) and grant.may_read(A) and grant.may_read(B) and not grant.may_write(B)
    assert grant.view.namespaces == frozenset({A, B})
    read_only = authorizer.authenticate(f"Bearer {TOKENS['wildcard-read']}")
    assert read_only.may_read("anything") and not read_only.may_write("anything") and read_only.view.everything
    changed = copy.deepcopy(json.loads(auth_file.read_text()))
    changed[A]["admin"] = ["x" * 20]
    auth_file.write_text(json.dumps(changed))
    from server.auth import AuthFileError

    with pytest.raises(AuthFileError, match="unknown access 'admin'"):
        Authorizer.from_file(auth_file)
