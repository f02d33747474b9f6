"""Every endpoint of issue 5 against a real store file (no Redis: the near-cache alone).

Seed 000's example is recorded over HTTP and read back through each query; the assertions are
about lineage facts (ID depends on Employee_Name, Dept_Name and SSN only), not about fixtures.
"""

from __future__ import annotations

import asyncio
import copy
import time
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from server.routes import all_specs
from tests.lineage.openlineage_schemas import assert_valid
from tests.server.conftest import (
    DATASET,
    ISSUE_BODY,
    NS,
    RUNS,
    T0,
    ClientFactory,
    get_json,
    post_run,
    seed_body,
    simple_body,
)
from tests.server.test_browse import BROWSE_ROUTES

BASE = f"/v3/namespaces/{NS}/datasets"


@pytest.fixture
async def client(make_client: ClientFactory) -> TestClient:
    return await make_client()


@pytest.fixture
async def seeded(client: TestClient) -> TestClient:
    body = seed_body("run1", T0)
    body["column_history"] = {
        "ID": {"column": "ID", "directive": "set-column :ID exp:{a}",
               "upstream": [{"column": "a", "directive": "parse-as-csv :body ','",
                             "upstream": [{"column": "body", "upstream": []}]}]},
    }
    await post_run(client, body)
    return client


# --------------------------------------------------------------------------- recording


async def test_seed_000_recorded_over_http_id_depends_on_name_dept_and_ssn_only(client: TestClient) -> None:
    answer = await post_run(client, seed_body("run1", T0))
    assert answer["run_id"] == "run1" and answer["created"] is True
    assert {d["name"] for d in answer["datasets"]} == {"EmployeeData", "HRFile", "PersonFile"}

    status, _, lineage = await get_json(client, f"{DATASET}/fields/ID/lineage")
    assert status == 200
    [group] = lineage["groups"]
    assert [r["run_id"] for r in group["runs"]] == ["run1"]
    ops = {op["name"]: op for op in group["operations"]}
    assert [o["field"] for o in ops["HRParse"]["outputs"]] == ["Employee_Name", "Dept_Name"]
    assert [i["field"] for i in ops["GenerateID"]["inputs"]] == ["Employee_Name", "Dept_Name", "SSN"]
    assert "ConvertSalary" not in ops
    labels = {node["label"] for node in group["graph"]["nodes"]}
    assert {"Employee_Name", "Dept_Name", "SSN", "ID"} <= labels
    assert not labels & {"Salary", "Start_Date", "Salary_USD"}
    assert {(f["dataset"], f["field"]) for f in group["fields"]} == {("HRFile", "HRRecord"),
                                                                     ("PersonFile", "PersonRecord")}
    assert group["graph"]["connections"], "the graph has edges"

    _, _, salary = await get_json(client, f"{DATASET}/fields/Salary_USD/lineage")
    assert "PersonRead" not in {op["name"] for op in salary["groups"][0]["operations"]}


async def test_issue_body_is_refused_naming_the_unproduced_destination_field(client: TestClient) -> None:
    response = await client.post(RUNS, json=ISSUE_BODY)
    error = (await response.json())["error"]
    assert response.status == 400
    assert error["parameter"] == "destination.fields" and "Salary" in error["message"]

    fixed = copy.deepcopy(ISSUE_BODY)
    fixed["destination"]["fields"] = ["ID"]
    response = await client.post(RUNS, json=fixed)
    assert response.status == 201
    answer = await response.json()
    assert answer["run_id"] == "run-7"
    assert response.headers["Location"].endswith("/lineage/runs/run-7")
    _, _, lineage = await get_json(client, f"{DATASET}/fields/ID/lineage")
    ops = {op["name"]: op for op in lineage["groups"][0]["operations"]}
    assert ops["GenerateID"]["inputs"][0]["origin"] == "PersonParse"  # no origin: the latest producer of SSN


async def test_recording_the_same_run_again_is_idempotent_and_a_different_one_conflicts(client: TestClient) -> None:
    await post_run(client, seed_body("r", T0))
    again = await client.post(RUNS, json=seed_body("r", T0))
    assert again.status == 200 and (await again.json())["created"] is False
    other = await client.post(RUNS, json=seed_body("r", T0 + 5))
    assert other.status == 409
    assert (await other.json())["error"]["parameter"] == "run.id"


@pytest.mark.parametrize(
    ("mutate", "parameter"),
    [
        (lambda b: b.pop("run"), "run"),
        (lambda b: b["run"].update(id=""), "run.id"),
        (lambda b: b["run"].update(start="yesterday"), "run.start"),
        (lambda b: b["run"].update(start=-1), "run.start"),
        (lambda b: b.update(operations=[]), "operations"),
        (lambda b: b["operations"][1]["inputs"][0].update(origin="NoSuchOperation"), "operations"),
        (lambda b: b["operations"].append(copy.deepcopy(b["operations"][0])), "operations"),
        (lambda b: b["destination"].update(fields=["ID", "Nope"]), "destination.fields"),
        (lambda b: b.update(extra=1), "extra"),
    ],
)
async def test_bad_run_bodies_are_400_naming_what_is_wrong(client: TestClient, mutate: Any, parameter: str) -> None:
    body = seed_body()
    mutate(body)
    response = await client.post(RUNS, json=body)
    error = (await response.json())["error"]
    assert response.status == 400, error
    assert error["type"] == "bad_request"
    assert error["parameter"] == parameter or error["parameter"].startswith(parameter + "."), error


async def test_non_json_and_empty_bodies_are_400(client: TestClient) -> None:
    for data in (b"", b"{not json", b"[]"):
        response = await client.post(RUNS, data=data, headers={"Content-Type": "application/json"})
        assert response.status == 400
        assert "parameter" in (await response.json())["error"]


# --------------------------------------------------------------------------- native queries


async def test_fields_with_created_updated_and_last_run(client: TestClient) -> None:
    await post_run(client, seed_body("early", T0))
    await post_run(client, simple_body("late", "Upstream", "EmployeeData", ["ID"], start=T0 + 100))
    status, headers, body = await get_json(client, f"{DATASET}/fields")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    fields = {f["name"]: f for f in body["fields"]}
    assert set(fields) == {"ID", "Name", "Department", "Salary_USD", "JoiningDate"}
    assert (fields["ID"]["created"], fields["ID"]["updated"], fields["ID"]["last_run"]) == (T0, T0 + 100, "late")
    assert (fields["Name"]["created"], fields["Name"]["updated"], fields["Name"]["last_run"]) == (T0, T0, "early")


async def test_multi_level_dataset_lineage(client: TestClient) -> None:
    await post_run(client, simple_body("ab", "A", "B", ["x", "y"], start=T0))
    await post_run(client, simple_body("bc", "B", "C", ["x"], start=T0 + 10, read="x"))
    c_lineage = f"{BASE}/C/fields/lineage"

    _, _, one = await get_json(client, f"{c_lineage}?level=1")
    assert [(m["level"], m["source"]["name"], m["destination"]["name"]) for m in one["mappings"]] == [(1, "B", "C")]
    _, _, two = await get_json(client, f"{c_lineage}?level=2&direction=backward")
    hops = {(m["level"], m["source"]["name"], m["destination"]["name"]) for m in two["mappings"]}
    assert hops == {(1, "B", "C"), (2, "A", "B")}
    _, _, forward = await get_json(client, f"{BASE}/A/fields/lineage?level=2&direction=forward")
    assert {(m["level"], m["destination"]["name"]) for m in forward["mappings"]} == {(1, "B"), (2, "C")}


async def test_field_lineage_forward(client: TestClient) -> None:
    await post_run(client, simple_body("ab", "A", "B", ["x"], start=T0))
    _, _, body = await get_json(client, f"{BASE}/A/fields/record/lineage?direction=forward")
    assert body["direction"] == "forward"
    assert {(f["dataset"], f["field"]) for f in body["groups"][0]["fields"]} == {("B", "x")}


async def test_column_history_with_max_levels(seeded: TestClient) -> None:
    _, _, full = await get_json(seeded, f"{DATASET}/columns/ID/lineage")
    [entry] = full["items"]
    assert entry["run"]["run_id"] == "run1"
    assert entry["tree"]["upstream"][0]["upstream"][0]["column"] == "body"
    _, _, cut = await get_json(seeded, f"{DATASET}/columns/ID/lineage?maxLevels=1")
    assert cut["max_levels"] == 1
    assert cut["items"][0]["tree"]["upstream"] == [] and cut["items"][0]["truncated"] is True
    _, _, none = await get_json(seeded, f"{DATASET}/columns/Name/lineage")
    assert none["items"] == []


async def test_properties_by_run(seeded: TestClient) -> None:
    _, _, body = await get_json(seeded, f"{BASE}/HRFile/properties")
    assert body["items"][0]["properties"] == {"inputDir": "/data/2017/hr", "regex": "*.csv"}
    assert body["items"][0]["run"]["run_id"] == "run1"


# --------------------------------------------------------------------------- runs, exports, recipes


async def test_run_and_its_openlineage_event(seeded: TestClient) -> None:
    status, _, run = await get_json(seeded, f"{RUNS}/run1")
    assert status == 200 and run["run_id"] == "run1" and run["program"] == "EmployeePipeline"
    _, _, event = await get_json(seeded, f"{RUNS}/run1/openlineage")
    assert event["eventType"] == "COMPLETE" and event["job"] == {"namespace": NS, "name": "EmployeePipeline",
                                                                  "facets": {}}
    assert_valid(event, "http://127.0.0.1:8080/openlineage/facets/")
    [output] = event["outputs"]
    # OpenLineage's naming spec: the inputs are local directories (recorded as inputDir), the output has no
    # location, so it is named in the configured namespace; never in the CDAP namespace
    assert (output["namespace"], output["name"]) == ("wrangler", f"{NS}.EmployeeData")
    lineage = output["facets"]["columnLineage"]["fields"]
    assert {(f["namespace"], f["name"], f["field"]) for f in lineage["ID"]["inputFields"]} == {
        ("file", "/data/2017/hr", "HRRecord"), ("file", "/data/2017/person", "PersonRecord")}
    assert {f["name"] for f in lineage["Salary_USD"]["inputFields"]} == {"/data/2017/hr"}
    status, _, missing = await get_json(seeded, f"{RUNS}/nope/openlineage")
    assert status == 404 and missing["error"]["parameter"] == "run"


async def test_field_lineage_as_openlineage_events(seeded: TestClient) -> None:
    _, _, body = await get_json(seeded, f"{DATASET}/fields/ID/lineage/openlineage")
    [event] = body["events"]
    assert_valid(event, "http://127.0.0.1:8080/openlineage/facets/")
    facets = event["outputs"][0]["facets"]
    assert "columnLineage" not in facets  # it would replace the run's whole facet in a consumer
    assert set(facets["wrangler_fieldLineage"]["fields"]) == {"ID"}  # only this field's lineage
    schema_url = facets["wrangler_fieldLineage"]["_schemaURL"]
    response = await seeded.get(schema_url.removeprefix("http://127.0.0.1:8080").split("#")[0])
    assert response.status == 200  # the schema the facet names is published by the server itself
    assert (await response.json())["$id"] == schema_url.split("#")[0]


async def test_datahub_export(seeded: TestClient) -> None:
    _, _, body = await get_json(seeded, f"{RUNS}/run1/datahub?platform=hive&env=DEV")
    assert body["entityUrn"] == "urn:li:dataset:(urn:li:dataPlatform:hive,MyNamespace.EmployeeData,DEV)"
    assert any(f["downstreams"][0].endswith(",ID)") for f in body["aspect"]["fineGrainedLineages"])


async def test_recipe_static_lineage_without_spark(client: TestClient) -> None:
    recipe = "rename :a :b\ncopy :b :c\nmerge :b :c :d ','\ndrop :b"
    response = await client.post("/v3/lineage/recipe", json={"recipe": recipe, "schema": ["a", "x"]})
    assert response.status == 200
    columns = (await response.json())["columns"]
    assert set(columns) == {"x", "c", "d"}
    assert columns["d"]["sources"] == ["a"] and columns["d"]["directives"] == [1, 2, 3]
    assert columns["x"]["directives"] == []
    bad = await client.post("/v3/lineage/recipe", json={"recipe": "rename :a"})
    error = (await bad.json())["error"]
    assert bad.status == 400 and error["parameter"] == "recipe"
    assert error["errors"][0]["line"] == 1 and error["errors"][0]["directive"] == "rename"


# --------------------------------------------------------------------------- pagination and time


async def test_pagination_walks_every_item_once(client: TestClient) -> None:
    names = [f"f{i:02d}" for i in range(7)]
    await post_run(client, simple_body("wide", "S", "Wide", names))
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        url = f"{BASE}/Wide/fields?limit=3" + (f"&cursor={cursor}" if cursor else "")
        _, headers, body = await get_json(client, url)
        seen += [f["name"] for f in body["fields"]]
        assert headers.get("X-Next-Cursor") == body["next_cursor"]
        cursor = body["next_cursor"]
        pages += 1
        if cursor is None:
            break
    assert seen == names and pages == 3
    _, _, first = await get_json(client, f"{BASE}/Wide/fields?limit=3")
    status, _, wrong = await get_json(client, f"{BASE}/Wide/fields?limit=3&prefix=f&cursor={first['next_cursor']}")
    assert status == 400 and wrong["error"]["parameter"] == "cursor"
    status, _, garbage = await get_json(client, f"{BASE}/Wide/fields?cursor=notacursor")
    assert status == 400 and garbage["error"]["parameter"] == "cursor"


async def test_near_cache_hits_send_the_same_headers_every_time(client: TestClient) -> None:
    """Hits reuse headers built once per cached body: aiohttp must never add to the shared copy."""
    await post_run(client, simple_body("wide", "S", "Wide", [f"f{i}" for i in range(5)]))
    url = f"{BASE}/Wide/fields?limit=2"
    answers = []
    for _ in range(3):
        response = await client.get(url)
        raw = await response.read()
        answers.append((response.headers, raw))
    miss, *hits = answers
    assert miss[0]["X-Cache"] == "miss"
    for headers, raw in hits:
        assert (headers["X-Cache"], headers["X-Cache-Layer"]) == ("hit", "near") and raw == miss[1]
        assert headers.getall("Content-Type") == ["application/json"] and len(headers.getall("Date")) == 1
        assert headers.getall("Content-Length") == [str(len(raw))]
        assert headers.getall("X-Next-Cursor") == [miss[0]["X-Next-Cursor"]]


async def _until_after(second: int) -> None:
    while int(time.time()) <= second:
        await asyncio.sleep(0.05)


async def test_pages_of_now_relative_times_keep_the_first_pages_clock(client: TestClient) -> None:
    """`end=now` is resolved once per paging: the cursor carries the first page's clock, so a next page asked
    for in a later second is the same query (the store would reject a cursor whose times have moved)."""
    names = [f"f{i:02d}" for i in range(5)]
    await post_run(client, simple_body("wide", "S", "Wide", names))
    url = f"{BASE}/Wide/fields?limit=3&start=0&end=now"
    _, headers, first = await get_json(client, url)
    cursor = first["next_cursor"]
    assert headers.get("X-Next-Cursor") == cursor and cursor.startswith("now")
    await _until_after(int(cursor[3:cursor.index("-")]))
    status, headers, rest = await get_json(client, f"{url}&cursor={cursor}")
    assert status == 200, rest
    assert [f["name"] for f in first["fields"] + rest["fields"]] == names
    assert rest["next_cursor"] is None and "X-Next-Cursor" not in headers
    _, _, fixed = await get_json(client, f"{BASE}/Wide/fields?limit=3&start=0")
    assert not fixed["next_cursor"].startswith("now")  # absolute times: the cursor is the store's own


async def test_time_ranges_epoch_and_now_offsets(client: TestClient) -> None:
    now = int(time.time())
    await post_run(client, simple_body("old", "S", "T", ["a"], start=now - 3 * 86400))
    await post_run(client, simple_body("new", "S", "T", ["b"], start=now - 600))

    async def names(query: str) -> list[str]:
        status, _, body = await get_json(client, f"{BASE}/T/fields?{query}")
        assert status == 200, body
        return sorted(f["name"] for f in body["fields"])

    assert await names("start=now-1h") == ["b"]
    assert await names("start=now-7d") == ["a", "b"]
    assert await names("start=now-7d&end=now-1h") == ["a"]
    assert await names(f"start={now - 600}&end={now - 599}") == ["b"]  # start inclusive
    assert await names(f"start=0&end={now - 600}") == ["a"]  # end exclusive
    assert await names("start=now&end=now%2B1d") == []


@pytest.mark.parametrize(
    ("query", "parameter"),
    [("start=yesterday", "start"), ("end=now-1y", "end"), ("start=1510000000000", "start"),
     ("start=now&end=now-1h", "end"), ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=ten", "limit"),
     ("prefix=%01", "prefix"), ("colour=red", "colour"), ("limit=1&limit=2", "limit")],
)
async def test_bad_query_parameters_are_named(client: TestClient, query: str, parameter: str) -> None:
    status, _, body = await get_json(client, f"{DATASET}/fields?{query}")
    assert status == 400
    assert body["error"]["type"] == "bad_request" and body["error"]["parameter"] == parameter
    assert body["error"]["message"]


@pytest.mark.parametrize(
    ("path", "parameter"),
    [("fields/lineage?level=0", "level"), ("fields/lineage?level=21", "level"),
     ("fields/lineage?direction=sideways", "direction"), ("fields/ID/lineage?maxRuns=0", "maxRuns"),
     ("columns/ID/lineage?maxLevels=-1", "maxLevels"), ("properties?cursor=%20", "cursor")],
)
async def test_bad_route_specific_parameters_are_named(client: TestClient, path: str, parameter: str) -> None:
    status, _, body = await get_json(client, f"{DATASET}/{path}")
    assert status == 400 and body["error"]["parameter"] == parameter


# --------------------------------------------------------------------------- errors, documents, health


async def test_unknown_routes_and_methods_answer_json_errors(client: TestClient) -> None:
    status, _, body = await get_json(client, "/v3/nothing/here")
    assert status == 404 and body["error"]["type"] == "not_found"
    response = await client.delete(f"{DATASET}/fields")
    assert response.status == 405
    assert (await response.json())["error"]["type"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]


async def test_openapi_document_lists_every_route(client: TestClient) -> None:
    status, _, document = await get_json(client, "/openapi.json")
    assert status == 200 and document["openapi"].startswith("3.1")
    for spec in all_specs():
        operation = document["paths"][spec.path][spec.method.lower()]
        assert operation["operationId"] == spec.name
        if not spec.public:
            assert operation["security"] == [{"bearer": []}]
    operation = document["paths"]["/v3/namespaces/{ns}/datasets/{ds}/fields/lineage"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert {"ns", "ds", "start", "end", "level", "direction", "limit", "cursor"} <= set(params)
    assert params["level"]["schema"]["maximum"] == 20


async def test_healthz_without_redis(client: TestClient) -> None:
    status, _, body = await get_json(client, "/healthz")
    assert status == 200
    assert body["status"] == "ok" and body["store"]["status"] == "ok" and body["redis"]["status"] == "disabled"


def _all_routes_have_a_test() -> list[Any]:
    return [spec.name for spec in all_specs()]


def test_route_table_is_what_this_file_covers() -> None:
    covered = {"dataset_fields", "dataset_lineage", "field_lineage", "field_lineage_openlineage", "column_history",
               "dataset_properties", "cdap_fields", "cdap_field_summary", "cdap_field_operations",
               "cdap_all_field_lineage", "record_run", "get_run", "run_openlineage", "run_datahub",
               "recipe_lineage", "health", "openapi", "openlineage_facet_schema"} | BROWSE_ROUTES
    assert set(_all_routes_have_a_test()) == covered


async def test_facet_schemas_are_published_and_unknown_ones_are_404(seeded: TestClient) -> None:
    response = await seeded.get("/openlineage/facets/1-0-0/WranglerRunFacet.json")
    assert response.status == 200 and response.content_type == "application/schema+json"
    document = await response.json()
    assert document["$id"] == "http://127.0.0.1:8080/openlineage/facets/1-0-0/WranglerRunFacet.json"
    assert "WranglerRunFacet" in document["$defs"]
    for missing in ("/openlineage/facets/9-9-9/WranglerRunFacet.json", "/openlineage/facets/1-0-0/Other.json"):
        gone = await seeded.get(missing)
        assert gone.status == 404 and (await gone.json())["error"]["type"] == "not_found"
