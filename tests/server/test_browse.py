"""The read-only routes the web view needs, and the web view's own files, on a real app and store.

Runs made by real recipes are recorded into the store file the way `wrangler run --store` records
them; the rest go through ``POST …/lineage/runs`` as any producer would.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient

import directives
from lineage.runs import RecipeRunInfo, record_recipe_run
from lineage.store import open_store
from server.openapi import build_document
from server.routes import all_specs
from server.ui import STATIC_DIR
from tests.server.conftest import NS, T0, ClientFactory, get_json, post_run, seed_body, simple_body

BROWSE_ROUTES = {"namespaces", "datasets", "dataset_runs", "run_diff", "recipe_check"}
"""The routes this file covers (``test_endpoints.test_route_table_is_what_this_file_covers`` adds them)."""

STAGED = ["Employee_Name", "Dept_Name", "Salary", "SSN"]
EMPLOYEE = """\
merge :Employee_Name :Dept_Name :key '-'
merge :key :SSN :ID '-'
drop :key
set-column :Salary_USD exp:{Salary * 1.1}
drop :Salary
"""
TOKEN_A = "token-for-team-a-0123456789"
ADMIN = "operator-token-abcdefghijkl"


@pytest.fixture
async def client(make_client: ClientFactory) -> TestClient:
    return await make_client()


def record_recipe(store_path: str | Path, run_id: str, text: str, start: int, *,
                  program: str = "BuildEmployees") -> None:
    info = RecipeRunInfo(namespace=NS, source_name="HRStaged", destination_name="EmployeeData", run_id=run_id,
                         start=start, end=start + 5, program=program)
    with open_store(store_path) as store:
        record_recipe_run(store, directives.parse(text, STAGED), info)


# --------------------------------------------------------------------------- namespaces


async def test_namespaces_list_every_namespace_with_its_datasets_and_newest_run(client: TestClient) -> None:
    await post_run(client, seed_body("run1", T0))
    await post_run(client, seed_body("run2", T0 + 50))
    await post_run(client, simple_body("other-1", "In", "Out", ["x"], start=T0 + 10), ns="other")
    status, _, body = await get_json(client, "/v3/namespaces")
    assert status == 200
    found = {item["name"]: item for item in body["namespaces"]}
    assert list(found) == ["MyNamespace", "other"]
    assert found[NS]["datasets"] == 3 and found[NS]["last_run"]["run_id"] == "run2"
    assert found["other"]["datasets"] == 2 and found["other"]["last_run"]["run_id"] == "other-1"


async def test_namespaces_are_cut_to_what_the_token_may_read(make_client: ClientFactory, tmp_path: Path) -> None:
    auth = tmp_path / "tokens.json"
    auth.write_text(json.dumps({"teamA": [TOKEN_A], "*": [ADMIN]}))
    client = await make_client(auth=auth)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    await post_run(client, simple_body("a1", "In", "Out", ["x"]), ns="teamA", headers=admin)
    await post_run(client, simple_body("b1", "In", "Out", ["x"]), ns="teamB", headers=admin)
    _, _, mine = await get_json(client, "/v3/namespaces", headers={"Authorization": f"Bearer {TOKEN_A}"})
    assert [item["name"] for item in mine["namespaces"]] == ["teamA"]
    _, _, everything = await get_json(client, "/v3/namespaces", headers=admin)
    assert [item["name"] for item in everything["namespaces"]] == ["teamA", "teamB"]
    status, _, _ = await get_json(client, "/v3/namespaces")
    assert status == 401
    status, _, _ = await get_json(client, "/v3/namespaces/teamB/datasets",
                                  headers={"Authorization": f"Bearer {TOKEN_A}"})
    assert status == 403


async def test_a_datasets_newest_run_is_the_newest_one_the_token_may_see(make_client: ClientFactory,
                                                                        tmp_path: Path) -> None:
    auth = tmp_path / "tokens.json"
    auth.write_text(json.dumps({"teamA": [TOKEN_A], "*": [ADMIN]}))
    client = await make_client(auth=auth)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    await post_run(client, simple_body("a1", "In", "Out", ["x"], start=T0), ns="teamA", headers=admin)
    overwrite = simple_body("b-secret-run", "B_In", "Out", ["x"], start=T0 + 10)
    overwrite["destination"]["namespace"] = "teamA"  # a teamB run writing teamA's dataset
    await post_run(client, overwrite, ns="teamB", headers=admin)
    _, _, whole = await get_json(client, "/v3/namespaces/teamA/datasets", headers=admin)
    assert {d["name"]: d["last_run"]["run_id"] for d in whole["datasets"]} == {"In": "a1", "Out": "b-secret-run"}
    assert whole["cut"] is False
    _, headers, mine = await get_json(client, "/v3/namespaces/teamA/datasets",
                                      headers={"Authorization": f"Bearer {TOKEN_A}"})
    assert {d["name"]: d["last_run"]["run_id"] for d in mine["datasets"]} == {"In": "a1", "Out": "a1"}
    assert mine["cut"] is True and headers["X-Lineage-Cut"] == "true"
    assert "b-secret" not in json.dumps(mine)


# --------------------------------------------------------------------------- datasets


async def test_datasets_with_their_newest_run_and_role(client: TestClient) -> None:
    await post_run(client, seed_body("run1", T0))
    await post_run(client, simple_body("copy", "EmployeeData", "Archive", ["ID"], start=T0 + 100, read="ID"))
    status, headers, body = await get_json(client, f"/v3/namespaces/{NS}/datasets")
    assert status == 200 and headers["X-Cache"] in ("miss", "bypass")
    found = {item["name"]: item for item in body["datasets"]}
    assert list(found) == ["Archive", "EmployeeData", "HRFile", "PersonFile"]
    employee = found["EmployeeData"]
    assert (employee["written"], employee["read"]) == (True, True)
    assert (employee["last_run"]["run_id"], employee["last_role"]) == ("copy", "read")
    assert employee["fields"] == 5
    assert (found["HRFile"]["written"], found["HRFile"]["read"], found["HRFile"]["last_role"]) == (False, True, "read")
    assert found["Archive"]["last_role"] == "wrote"


async def test_datasets_search_range_and_pages(client: TestClient) -> None:
    await post_run(client, seed_body("run1", T0))
    await post_run(client, simple_body("late", "Late_Source", "Late_Target", ["x"], start=T0 + 1000))
    _, _, files = await get_json(client, f"/v3/namespaces/{NS}/datasets?search=FILE")
    assert [item["name"] for item in files["datasets"]] == ["HRFile", "PersonFile"]
    _, _, literal = await get_json(client, f"/v3/namespaces/{NS}/datasets?search=_")
    assert [item["name"] for item in literal["datasets"]] == ["Late_Source", "Late_Target"]  # "_" is no wildcard
    _, _, early = await get_json(client, f"/v3/namespaces/{NS}/datasets?start={T0}&end={T0 + 1}")
    assert {item["name"] for item in early["datasets"]} == {"EmployeeData", "HRFile", "PersonFile"}
    _, _, nothing = await get_json(client, f"/v3/namespaces/{NS}/datasets?start={T0 + 2000}")
    assert nothing["datasets"] == []

    names, cursor = [], None
    while True:
        query = f"?limit=2&cursor={cursor}" if cursor else "?limit=2"
        _, headers, page = await get_json(client, f"/v3/namespaces/{NS}/datasets{query}")
        names += [item["name"] for item in page["datasets"]]
        cursor = page["next_cursor"]
        assert headers.get("X-Next-Cursor") == cursor
        if not cursor:
            break
    assert names == ["EmployeeData", "HRFile", "Late_Source", "Late_Target", "PersonFile"]
    status, _, error = await get_json(client, f"/v3/namespaces/{NS}/datasets?search=x&cursor={foreign_cursor()}")
    assert status == 400 and error["error"]["parameter"] == "cursor"


def foreign_cursor() -> str:
    """A well-formed cursor of another query: refused, never silently applied."""
    raw = json.dumps({"q": "0" * 16, "p": "EmployeeData"}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def test_a_new_run_shows_in_the_cached_dataset_list(client: TestClient) -> None:
    await post_run(client, seed_body("run1", T0))
    _, _, before = await get_json(client, f"/v3/namespaces/{NS}/datasets")
    _, headers, again = await get_json(client, f"/v3/namespaces/{NS}/datasets")
    assert again == before and headers["X-Cache"] == "hit"
    await post_run(client, simple_body("new", "Fresh", "Brand_New", ["x"], start=T0 + 5))
    _, _, after = await get_json(client, f"/v3/namespaces/{NS}/datasets")
    assert {"Fresh", "Brand_New"} <= {item["name"] for item in after["datasets"]}


# --------------------------------------------------------------------------- dataset runs


async def test_dataset_runs_newest_first_with_role_across_operation_sets(client: TestClient) -> None:
    await post_run(client, seed_body("run1", T0))
    await post_run(client, seed_body("run2", T0 + 10))
    await post_run(client, simple_body("reader", "EmployeeData", "Archive", ["ID"], start=T0 + 20, read="ID"))
    elsewhere = simple_body("elsewhere", "EmployeeData", "Copy", ["ID"], start=T0 + 30, read="ID")
    elsewhere["operations"][0]["inputs"][0]["dataset"]["namespace"] = NS
    await post_run(client, elsewhere, ns="other")
    _, _, body = await get_json(client, f"/v3/namespaces/{NS}/datasets/EmployeeData/runs")
    assert [(item["run"]["run_id"], item["role"]) for item in body["runs"]] == [
        ("reader", "read"), ("run2", "wrote"), ("run1", "wrote")]  # not "elsewhere": another namespace's run

    ids, cursor = [], None
    while True:
        query = f"?limit=1&cursor={cursor}" if cursor else "?limit=1"
        _, _, page = await get_json(client, f"/v3/namespaces/{NS}/datasets/EmployeeData/runs{query}")
        ids += [item["run"]["run_id"] for item in page["runs"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert ids == ["reader", "run2", "run1"]
    window_query = f"start={T0 + 5}&end={T0 + 15}"
    _, _, window = await get_json(client, f"/v3/namespaces/{NS}/datasets/EmployeeData/runs?{window_query}")
    assert [item["run"]["run_id"] for item in window["runs"]] == ["run2"]
    _, _, unknown = await get_json(client, f"/v3/namespaces/{NS}/datasets/Nothing/runs")
    assert unknown["runs"] == []


# --------------------------------------------------------------------------- run diff


async def test_run_diff_shows_a_rename_and_a_changed_column(make_client: ClientFactory,
                                                            store_path: str | Path) -> None:
    record_recipe(store_path, "emp-1", EMPLOYEE, T0)
    record_recipe(store_path, "emp-2", EMPLOYEE + "rename :Salary_USD :Salary_in_USD\nuppercase :Dept_Name\n", T0 + 60)
    client = await make_client()
    status, _, diff = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/emp-2/diff")
    assert status == 200
    assert diff["previous"]["run_id"] == "emp-1"
    assert diff["renamed_columns"] == [
        {"before": "Salary_USD", "after": "Salary_in_USD", "evidence": "rename directive"}]
    assert diff["added_columns"] == [] and diff["dropped_columns"] == []
    [changed] = diff["changed_columns"]
    assert changed["column"] == "Dept_Name" and changed["steps_added"] == ["uppercase :Dept_Name"]
    assert set(diff["unchanged_columns"]) == {"Employee_Name", "SSN", "ID"}

    _, _, first = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/emp-1/diff")
    assert first["previous"] is None and first["renamed_columns"] == []
    _, _, backwards = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/emp-1/diff?against=emp-2")
    assert backwards["renamed_columns"][0]["before"] == "Salary_in_USD"
    assert backwards["changed_columns"][0]["steps_removed"] == ["uppercase :Dept_Name"]


async def test_run_diff_added_dropped_same_sources_and_same_operations(client: TestClient) -> None:
    await post_run(client, simple_body("c1", "In", "Out", ["a", "b"], start=T0, program="Copy"))
    await post_run(client, simple_body("c2", "In", "Out", ["a", "b"], start=T0 + 1, program="Copy"))
    await post_run(client, simple_body("c3", "In", "Out", ["a", "c"], start=T0 + 2, program="Copy"))
    await post_run(client, simple_body("o1", "Other", "Out", ["x"], start=T0 + 3, program="Unrelated"))
    _, _, same = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/c2/diff")
    assert same["previous"]["run_id"] == "c1" and same["same_operations"] is True
    assert same["unchanged_columns"] == ["a", "b"]
    _, _, renamed = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/c3/diff")
    assert renamed["previous"]["run_id"] == "c2"  # the same program's previous run, not o1
    # b and c both come from In.record alone: the same value under a new name
    assert renamed["renamed_columns"] == [{"before": "b", "after": "c", "evidence": "same sources"}]
    _, _, other = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/o1/diff?against=c3")
    assert set(other["added_columns"]) == {"x"} and set(other["dropped_columns"]) == {"a", "c"}
    assert other["sources_added"] == ["Other"] and other["sources_removed"] == ["In"]


async def test_run_diff_of_unknown_runs_is_404_naming_which(client: TestClient) -> None:
    await post_run(client, seed_body("run1", T0))
    status, _, body = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/nope/diff")
    assert status == 404 and body["error"]["parameter"] == "run"
    status, _, body = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/run1/diff?against=nope")
    assert status == 404 and body["error"]["parameter"] == "against"
    status, _, body = await get_json(client, f"/v3/namespaces/{NS}/lineage/runs/run1/diff?versus=run1")
    assert status == 400 and body["error"]["parameter"] == "versus"


# --------------------------------------------------------------------------- recipe findings


async def test_recipe_check_finds_a_misspelt_directive_with_line_and_hint(client: TestClient) -> None:
    response = await client.post("/v3/lineage/recipe/check", json={"recipe": "uppercase :a\nrenam :a :b\n"})
    assert response.status == 200
    body = await response.json()
    [finding] = body["findings"]
    assert (finding["line"], finding["column"], finding["severity"]) == (2, 1, "error")
    assert "renam" in finding["message"] and "Did you mean 'rename'" in finding["message"]
    assert body["errors"] == 1 and "^" in finding["context"]


async def test_recipe_check_with_a_schema_and_strict(client: TestClient) -> None:
    response = await client.post("/v3/lineage/recipe/check", json={"recipe": "uppercase :zz", "schema": ["a", "b"]})
    [finding] = (await response.json())["findings"]
    assert "zz" in finding["message"] and "a, b" in finding["message"]
    check = "/v3/lineage/recipe/check"
    clean = await (await client.post(check, json={"recipe": "uppercase :a", "schema": ["a"]})).json()
    assert clean == {"findings": [], "errors": 0}
    loose = await (await client.post("/v3/lineage/recipe/check", json={"recipe": "set-headers :x,:y"})).json()
    strict = await (await client.post("/v3/lineage/recipe/check",
                                      json={"recipe": "set-headers :x,:y", "strict": True})).json()
    assert len(strict["findings"]) > len(loose["findings"])
    response = await client.post("/v3/lineage/recipe/check", json={"recipe": ""})
    assert response.status == 400 and (await response.json())["error"]["parameter"] == "recipe"


# --------------------------------------------------------------------------- the web view's files


async def test_every_screen_path_answers_the_shell(client: TestClient) -> None:
    paths = ["/", "/ui", "/ui/", "/ui/MyNamespace", "/ui/MyNamespace/datasets/EmployeeData",
             "/ui/MyNamespace/datasets/EmployeeData/fields/ID", "/ui/MyNamespace/datasets/a%2Fb/columns/ID",
             "/ui/MyNamespace/runs/run1", "/ui/recipe", "/docs/reference"]
    shells = set()
    for path in paths:
        response = await client.get(path)
        assert response.status == 200, path
        assert response.content_type == "text/html"
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        shells.add(await response.text())
    [shell] = shells
    assert '<script type="module" src="/static/js/app.js">' in shell


async def test_files_are_served_with_types_etags_and_no_way_out(client: TestClient) -> None:
    response = await client.get("/static/js/app.js")
    assert response.status == 200 and response.content_type == "text/javascript"
    etag = response.headers["ETag"]
    again = await client.get("/static/js/app.js", headers={"If-None-Match": etag})
    assert again.status == 304
    css = await client.get("/static/app.css")
    assert css.content_type == "text/css"
    for path in ("/static/nope.js", "/static/../app.py", "/static/%2e%2e/__init__.py", "/static/js/../../__init__.py"):
        response = await client.get(path)
        assert response.status == 404, path
        assert (await response.json())["error"]["type"] == "not_found"
    head = await client.head("/static/app.css")
    assert head.status == 200


async def test_docs_is_swagger_ui_from_the_installed_package_and_nothing_else(client: TestClient) -> None:
    page = await client.get("/docs")
    assert page.status == 200 and page.content_type == "text/html"
    html = await page.text()
    assert '<script src="/docs/swagger/swagger-ui-bundle.js">' in html and "<script>" not in html
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "unsafe-eval" not in policy
    bundle = await client.get("/docs/swagger/swagger-ui-bundle.js")
    assert bundle.status == 200 and bundle.content_type == "text/javascript"
    assert b"SwaggerUIBundle" in await bundle.read()
    start = await (await client.get("/docs/swagger/start.js")).text()
    assert '"/openapi.json"' in start
    for path in ("/docs/swagger/swagger-editor.js", "/docs/swagger/index.html", "/docs/swagger/..%2f__init__.py",
                 "/docs/swagger/LICENSE"):
        assert (await client.get(path)).status == 404, path


async def test_the_view_needs_no_token_but_its_data_does(make_client: ClientFactory, tmp_path: Path) -> None:
    auth = tmp_path / "tokens.json"
    auth.write_text(json.dumps({"teamA": [TOKEN_A]}))
    client = await make_client(auth=auth)
    for path in ("/", "/ui/teamA", "/docs", "/docs/reference", "/docs/swagger/start.js", "/static/js/api.js"):
        assert (await client.get(path)).status == 200, path
    assert (await client.get("/v3/namespaces/teamA/datasets")).status == 401


def test_the_view_is_not_part_of_the_api_document() -> None:
    document = build_document(all_specs())
    assert not [path for path in document["paths"] if path.startswith(("/ui", "/static", "/docs")) or path == "/"]
    assert {"namespaces", "datasets", "dataset_runs", "run_diff", "recipe_check"} <= {
        op["operationId"] for item in document["paths"].values() for op in item.values()}


_IMPORT = re.compile(r"""^import\s[^;]*?from\s+"(\.[^"]+)";""", re.MULTILINE | re.DOTALL)


def test_every_module_the_view_imports_is_one_it_serves() -> None:
    """No build step means no bundler to catch a wrong import path: check every relative import here."""
    scripts = sorted(STATIC_DIR.rglob("*.js"))
    assert len(scripts) >= 10
    for script in scripts:
        for target in _IMPORT.findall(script.read_text(encoding="utf-8")):
            assert (script.parent / target).resolve().is_file(), f"{script.name} imports missing {target}"
    shell = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    for reference in re.findall(r'(?:src|href)="/static/([^"]+)"', shell):
        assert (STATIC_DIR / reference).is_file(), reference
