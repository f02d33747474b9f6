"""Every screen of the web view in a real Chromium, on seed 000's example recorded in a real store.

Seed 000's promise is checked where the user sees it: field ``ID`` traces to ``Employee_Name``,
``Dept_Name`` and ``SSN`` only - never to ``Salary`` or ``Start_Date``, which the same HR parser makes.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import ARTIFACTS, TOKEN, Page, Server
from tests.browser.scenario import HOSTILE_DATASET, HOSTILE_FIELD, HOSTILE_SOURCE, WIDE_FIELDS

ID_SOURCES = {"Employee_Name", "Dept_Name", "SSN"}
NOT_ID = {"Salary", "Start_Date", "Salary_USD", "Name", "Department", "JoiningDate"}
SEP = "\x01"


# --------------------------------------------------------------------------- namespace and dataset


def test_root_opens_the_namespace_with_the_newest_run_and_lists_its_datasets(page: Page) -> None:
    page.open("/", "namespace")
    assert page.path() == "/ui/hr"
    rows = [row.text for row in page.all("table.datasets tbody tr")]
    assert [row.split()[0] for row in rows] == ["Audit", "EmployeeData", "HRFile", "HRStaged"]
    employee = next(row for row in rows if row.startswith("EmployeeData"))
    assert "emp-2" in employee and "BuildEmployees" in employee
    page.shot("namespace")

    search = page.css("#dataset-search")
    search.send_keys("staged")
    page.wait(lambda _: len(page.all("table.datasets tbody tr")) == 1, "search did not narrow the list")
    assert page.text("table.datasets tbody").startswith("HRStaged")
    assert page.path() == "/ui/hr?q=staged"


def test_dataset_screen_shows_seed_000s_sources_fields_and_lines(page: Page) -> None:
    page.open("/ui/MyNamespace/datasets/EmployeeData", "dataset")
    incoming = page.text(".column.incoming")
    assert "HRFile" in incoming and "PersonFile" in incoming
    assert "HRRecord" in incoming and "PersonRecord" in incoming
    fields = [item.text.split()[0] for item in page.all(".column.this ul.fields li")]
    assert fields == ["Department", "ID", "JoiningDate", "Name", "Salary_USD"]
    lines = page.all("svg.flow-lines path")
    links = {(line.get_attribute("data-from"), line.get_attribute("data-to")) for line in lines}
    person = SEP.join(["in", "MyNamespace", "PersonFile", "PersonRecord"])
    hr = SEP.join(["in", "MyNamespace", "HRFile", "HRRecord"])
    # the Person file only makes ID; the HR file makes every field
    assert {to for origin, to in links if origin == person} == {SEP.join(["self", "MyNamespace", "EmployeeData", "ID"])}
    assert len({to for origin, to in links if origin == hr}) == 5
    assert "rowid" in page.text(".properties") and "run-7" in page.text(".runs")
    page.shot("dataset")


# --------------------------------------------------------------------------- the field graph


def test_field_graph_of_id_traces_to_employee_name_dept_name_and_ssn_only(page: Page) -> None:
    page.open("/ui/MyNamespace/datasets/EmployeeData/fields/ID", "field")
    labels = page.labels()
    assert ID_SOURCES | {"ID", "body", "HRRecord", "PersonRecord"} <= labels
    assert not labels & NOT_ID
    edges = page.driver.execute_script(
        "return [...document.querySelectorAll('svg.graph .edge-label')].map((g) => [g.getAttribute('class'),"
        " g.querySelector('text').textContent])")
    names = {name for _, name in edges}
    assert {"GenerateID", "HRParse", "PersonParse", "HRRead", "PersonRead"} <= names
    assert any("indirect" in cls and name == "CheckSSN" for cls, name in edges)  # drawn dashed
    root = page.node("ID")
    assert "root" in root.get_attribute("class") and "in 3" in root.text
    page.shot("field-seed-000")

    page.css("#trace-back").click()
    page.wait(lambda _: page.driver.execute_script("return document.querySelector('svg.graph.tracing') !== null"))
    page.wait_ready("field")
    on_path = {node["label"] for node in page.nodes() if "on-path" in node["classes"]}
    assert on_path >= ID_SOURCES and not on_path & NOT_ID
    assert page.path().endswith("trace=back")


def test_field_graph_loads_more_levels_on_demand_and_collapses_datasets(page: Page) -> None:
    page.open("/ui/hr/datasets/EmployeeData/fields/ID", "field")
    assert page.labels() >= ID_SOURCES and "body" not in page.labels()
    assert not page.labels() & {"Salary", "Salary_USD"}
    page.wait(lambda _: page.node("SSN", "field").find_elements(By.CSS_SELECTOR, ".more.back"), "no + on SSN")
    page.node("SSN", "field").find_element(By.CSS_SELECTOR, ".more.back").click()
    page.wait(lambda _: "body" in page.labels(), "HRFile's body never appeared")
    page.wait_ready("field")
    clusters = page.driver.execute_script(
        "return [...document.querySelectorAll('svg.graph .cluster-label')].map((t) => t.textContent)")
    assert {"HRFile", "HRStaged", "EmployeeData"} <= set(clusters)
    page.shot("field-expanded")

    dept = page.node("Dept_Name", "field")
    page.driver.execute_script("arguments[0].focus()", dept)
    page.driver.switch_to.active_element.send_keys("b")  # trace Dept_Name's whole lineage backward
    page.wait(lambda _: any(node["dimmed"] for node in page.nodes()), "nothing was dimmed")
    page.wait_ready("field")
    lit = {node["label"] for node in page.nodes() if not node["dimmed"]}
    dimmed = {node["label"] for node in page.nodes() if node["dimmed"]}
    assert {"Dept_Name", "body"} <= lit
    assert {"ID", "key", "Employee_Name"} <= dimmed and "Dept_Name" not in dimmed
    page.shot("field-trace")  # docs/images/lineage-view.png is this one
    page.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    page.wait(lambda _: not any(node["dimmed"] for node in page.nodes()), "the trace did not clear")

    toggle = page.css('svg.graph .cluster[data-cluster*="HRStaged"] .toggle')
    toggle.click()
    page.wait(lambda _: any("folded" in node["classes"] for node in page.nodes()), "HRStaged did not collapse")
    folded = next(node for node in page.nodes() if "folded" in node["classes"])
    assert folded["label"] == "HRStaged" and folded["sub"] == "3 fields"
    assert "Employee_Name" not in page.labels()


def test_graph_is_keyboard_navigable_and_clicking_a_node_moves_there(page: Page) -> None:
    page.open("/ui/hr/datasets/EmployeeData/fields/ID", "field")
    root = page.node("ID", "root")
    page.driver.execute_script("arguments[0].focus()", root)
    focused = page.driver.switch_to.active_element
    assert focused.get_attribute("data-id") == root.get_attribute("data-id")
    seen = []
    for _ in range(6):  # walk left until a dataset field
        focused.send_keys(Keys.ARROW_LEFT)
        focused = page.driver.switch_to.active_element
        seen.append(focused.find_element(By.CSS_SELECTOR, ".label").text)
        if "field" in focused.get_attribute("class").split():
            break
    assert seen[-1] in ID_SOURCES, seen
    assert page.text(".side-panel h2") == seen[-1]  # the panel follows the focus
    focused.send_keys(Keys.ENTER)
    page.wait(lambda _: page.path().startswith(f"/ui/hr/datasets/HRStaged/fields/{seen[-1]}"))
    page.wait_ready("field")
    page.driver.back()
    page.wait(lambda _: page.path().startswith("/ui/hr/datasets/EmployeeData/fields/ID"))
    page.wait_ready("field")
    page.node("SSN", "field").click()  # a click moves to the field, too
    page.wait(lambda _: page.path().startswith("/ui/hr/datasets/HRStaged/fields/SSN"))
    page.wait_ready("field")
    assert "HRStaged" in page.text("h1")


def test_a_500_field_graph_is_laid_out_and_measured(page: Page) -> None:
    page.open("/ui/wide/datasets/events/fields/key", "field")
    drawn = page.driver.execute_script("return {...document.querySelector('svg.graph').dataset}")
    screen = {"nodes": int(drawn["nodes"]), "edges": int(drawn["edges"]), "layout_ms": float(drawn["layoutMs"]),
              "render_ms": float(drawn["renderMs"])}
    assert screen["nodes"] == WIDE_FIELDS + 1 and screen["edges"] == WIDE_FIELDS
    dense = page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/static/js/graph/layout.js').then(({layout}) => {
          let seed = 7;
          const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
          const nodes = [];
          const edges = [];
          for (let i = 0; i < 500; i++) {
            const cluster = 'd' + Math.floor(i / 50);
            nodes.push({id: 'n' + i, width: 80 + Math.floor(random() * 80), height: 36, cluster});
          }
          for (let i = 50; i < 500; i++) {
            for (let k = 0; k < 3; k++) {
              edges.push({from: 'n' + Math.floor(random() * Math.floor(i / 50) * 50), to: 'n' + i});
            }
          }
          const started = performance.now();
          const placed = layout(nodes, edges);
          const elapsed = performance.now() - started;
          const at = placed.positions;
          const problems = [];
          for (const edge of edges) {
            if (!(at.get(edge.to).layer > at.get(edge.from).layer)) problems.push(`${edge.from}->${edge.to} goes back`);
          }
          const byLayer = new Map();
          for (const node of nodes) {
            const p = at.get(node.id);
            if (!byLayer.has(p.layer)) byLayer.set(p.layer, []);
            byLayer.get(p.layer).push([p.y, node]);
          }
          for (const list of byLayer.values()) {
            list.sort((a, b) => a[0] - b[0]);
            for (let i = 1; i < list.length; i++) {
              if (list[i - 1][0] + list[i - 1][1].height > list[i][0]) problems.push(`${list[i][1].id} overlaps`);
            }
          }
          const clusterLayers = new Map();
          for (const node of nodes) {
            if (!clusterLayers.has(node.cluster)) clusterLayers.set(node.cluster, new Set());
            clusterLayers.get(node.cluster).add(at.get(node.id).layer);
          }
          for (const [cluster, layers] of clusterLayers) if (layers.size > 1) problems.push(`${cluster} split`);
          done({nodes: nodes.length, edges: edges.length, layout_ms: elapsed, placed: at.size, problems});
        });""")
    assert dense["placed"] == 500
    assert dense.pop("problems") == []  # every edge left to right, no overlaps, a dataset in one column
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "layout-timing.json").write_text(json.dumps({"screen_500_fields": screen, "dense_500_fields": dense},
                                                             indent=2))
    print(f"\n500-field graph: layout {screen['layout_ms']} ms, render {screen['render_ms']} ms "
          f"({screen['nodes']} nodes); dense 500 fields / {dense['edges']} edges: layout {dense['layout_ms']:.1f} ms")
    page.shot("field-500")


# --------------------------------------------------------------------------- column, run, playground, docs


def test_column_screen_shows_the_directive_tree_beside_the_recipe(page: Page) -> None:
    page.open("/ui/hr/datasets/EmployeeData/columns/ID", "column")
    labels = page.labels()
    assert labels >= ID_SOURCES and "key" in labels
    subs = {node["sub"] for node in page.nodes()}
    assert {"#1 merge · ADD", "#2 merge · ADD", "#3 hash · MODIFY"} <= subs
    assert any("validate-standard" in node["label"] for node in page.nodes())  # the row filter, dashed
    made = [item.find_element(By.CSS_SELECTOR, "code").text for item in page.all("ol.recipe li.made")]
    assert made == ["merge :Employee_Name :Dept_Name :key '-'", "merge :key :SSN :ID '-'", "hash :ID 'SHA-256'"]
    assert "validate-standard :SSN" in page.text("ol.recipe li.filters")
    assert "Salary" not in " ".join(made)
    page.shot("column")

    page.link("emp-1", ".run-list").click()
    page.wait(lambda _: page.path().endswith("run=emp-1"))
    page.wait_ready("column")
    assert "emp-1" in page.text(".lead")


def test_click_through_from_the_root_to_a_field_graph_and_a_column_tree(page: Page) -> None:
    page.open("/", "namespace")
    page.link("EmployeeData").click()
    page.wait_ready("dataset")
    assert page.path() == "/ui/hr/datasets/EmployeeData"
    page.css('.column.this a.field-link[href*="/fields/ID"]').click()
    page.wait_ready("field")
    assert page.labels() >= ID_SOURCES
    page.driver.back()
    page.wait_ready("dataset")
    page.css('.column.this a[aria-label="Directives that made ID"]').click()
    page.wait_ready("column")
    assert page.path() == "/ui/hr/datasets/EmployeeData/columns/ID"
    assert page.labels() >= ID_SOURCES


def test_run_screen_shows_what_changed_since_the_previous_run(page: Page) -> None:
    page.open("/ui/hr/runs/emp-2", "run")
    diff = page.text("section.diff")
    assert "emp-1" in diff
    renamed = page.text("ul.changes.renamed")
    assert "Salary_USD" in renamed and "Salary_in_USD" in renamed
    assert "Salary_in_USD" in page.text("table.columns")
    assert "rename :Salary_USD :Salary_in_USD" in page.text("section.recipe-view")
    assert "/warehouse/employees" in page.text(".run-datasets")
    page.shot("run")
    page.link("emp-1", "section.diff").click()
    page.wait_ready("run")
    assert "first run of BuildEmployees" in page.text("section.diff")


def test_playground_shows_a_finding_for_a_misspelt_directive(page: Page) -> None:
    page.open("/ui/recipe", "recipe")
    editor = page.css("#recipe-text")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys("uppercase :a\nrenam :a :b\n")
    schema = page.css("#recipe-schema")
    schema.clear()
    schema.send_keys("a")
    page.wait(lambda _: "renam" in page.text("#findings"), "no finding for the misspelt directive")
    finding = page.text("#findings .finding.error")
    assert "Did you mean 'rename'" in finding and finding.startswith("2:1")
    assert page.css(".gutter .mark.error").text == "2"
    page.shot("playground-finding")

    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys("uppercase :a\nrename :a :b\n")
    page.wait(lambda _: "No findings" in page.text("#findings"), "the fixed recipe still has findings")
    page.wait(lambda _: "b" in page.labels(), "the lineage graph was not redrawn")
    assert "a" in page.labels()
    assert "recipe=uppercase" in page.driver.current_url  # the link carries the recipe


def test_docs_render_the_api_reference_offline(page: Page) -> None:
    page.open("/docs/reference", "docs")
    text = page.text()
    for path in ("/v3/namespaces/{ns}/datasets/{ds}/fields/{field}/lineage", "/v3/lineage/recipe",
                 "/v3/namespaces/{ns}/lineage/runs/{run}/diff"):
        assert path in text
    operation = page.css("#op-health")
    operation.find_element(By.CSS_SELECTOR, "details.try-it summary").click()
    operation.find_element(By.CSS_SELECTOR, "form.try button").click()
    page.wait(lambda _: '"status": "ok"' in operation.find_element(By.CSS_SELECTOR, "pre.answer").text)
    page.shot("docs")


def test_swagger_ui_draws_the_api_document_and_calls_the_server(page: Page) -> None:
    """/docs is Swagger UI from the swagger-ui-py package: no CDN, so it must draw with the network off."""
    page.open("/docs", "swagger")
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock"), "Swagger UI drew no operation")
    text = page.text("#swagger-ui").replace("\u200b", "")
    for path in ("/v3/lineage/recipe", "/v3/namespaces/{ns}/datasets/{ds}/fields/{field}/lineage", "/healthz"):
        assert path in text, path
    [health] = [block for block in page.driver.find_elements(By.CSS_SELECTOR, ".opblock")
                if "/healthz" in block.text.replace("\u200b", "")]
    health.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
    page.wait(lambda _: health.find_elements(By.CSS_SELECTOR, ".try-out__btn"), "no Try it out button")
    health.find_element(By.CSS_SELECTOR, ".try-out__btn").click()
    health.find_element(By.CSS_SELECTOR, ".execute").click()
    answers = ".response-col_description"
    page.wait(lambda _: '"ok"' in "".join(e.text for e in health.find_elements(By.CSS_SELECTOR, answers)),
              "the call from Swagger UI got no answer")
    page.shot("swagger")


# --------------------------------------------------------------------------- time range, history, auth


def test_time_range_lives_in_the_query_string_and_back_and_forward_work(page: Page) -> None:
    page.open("/ui/hr", "namespace")
    Select(page.css("#time-range")).select_by_visible_text("Last hour")
    page.wait(lambda _: "start=now-1h" in page.path())
    page.wait_ready("namespace")
    assert "EmployeeData" in page.text("table.datasets")
    page.link("EmployeeData").click()
    page.wait_ready("dataset")
    assert page.path() == "/ui/hr/datasets/EmployeeData?start=now-1h&end=now"  # links keep the range
    page.driver.back()
    page.wait_ready("namespace")
    assert Select(page.css("#time-range")).first_selected_option.text == "Last hour"
    page.driver.back()
    page.wait_ready("namespace")
    assert page.path() == "/ui/hr" and Select(page.css("#time-range")).first_selected_option.text == "Last week"
    page.driver.forward()
    page.wait_ready("namespace")
    assert "start=now-1h" in page.path()

    page.open("/ui/hr?start=1500000000&end=1500000600", "namespace")
    assert page.all("table.datasets tbody tr") == []
    assert "No dataset" in page.text()
    assert Select(page.css("#time-range")).first_selected_option.text == "Custom…"


def test_with_auth_the_token_is_asked_once_per_tab(browser: Any, auth_server: Server) -> None:
    page = Page(browser, auth_server)
    browser.get(auth_server.url("/static/app.css"))
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    browser.get(auth_server.url("/ui/hr"))
    dialog = page.wait(lambda d: d.execute_script("return document.getElementById('token-dialog').open"))
    assert dialog
    page.css("#token-input").send_keys("not-the-token-at-all-123")
    page.css("#token-form button[type=submit]").click()
    page.wait(lambda _: "not accepted" in page.text("#token-reason"), "a wrong token was not refused")
    page.css("#token-input").send_keys(TOKEN)
    page.css("#token-form button[type=submit]").click()
    page.wait_ready("namespace")
    assert "EmployeeData" in page.text("table.datasets")
    page.link("EmployeeData").click()
    page.wait_ready("dataset")
    assert not browser.execute_script("return document.getElementById('token-dialog').open")
    assert "HRStaged" in page.text(".column.incoming")
    page.shot("auth-dataset")
    assert [option.text for option in page.all("#namespace-select option")] == ["hr"]

    # Audit reads MyNamespace's EmployeeData, which this token may not read: the graph stops there, and says so
    browser.get(auth_server.url("/ui/hr/datasets/Audit/fields/ID?trace=back"))
    page.wait_ready("field")
    assert "namespaces your token may not read" in page.text(".graph-errors")
    assert "MyNamespace" not in page.text() and "EmployeeData" not in page.labels()
    browser.get(auth_server.url("/ui/MyNamespace"))
    page.wait_ready("namespace")
    assert "does not grant access" in page.text()

    original = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        browser.get(auth_server.url("/ui/hr"))
        page.wait(lambda d: d.execute_script("return document.getElementById('token-dialog').open"),
                  "a new tab did not ask for the token")
    finally:
        browser.close()
        browser.switch_to.window(original)
        browser.execute_script("sessionStorage.clear();")


def test_unknown_screens_and_forbidden_namespaces_say_so(page: Page) -> None:
    page.open("/ui/hr/nowhere/at/all", "missing")
    assert "No screen has this address" in page.text()
    page.open(f"/ui/hr/runs/{quote('no such run')}", "run")
    assert "Not found" in page.text()
    page.open("/ui/hr/datasets/EmployeeData/columns/NoSuchColumn", "column")
    assert re.search(r"No run in the time range stored a directive tree", page.text())


def test_names_that_are_markup_are_shown_as_text_and_never_run(page: Page) -> None:
    page.open("/ui/hostile", "namespace")
    assert HOSTILE_DATASET in page.text("table.datasets") and HOSTILE_SOURCE in page.text("table.datasets")
    page.link(HOSTILE_DATASET).click()
    page.wait_ready("dataset")
    assert HOSTILE_FIELD in page.text(".column.this") and HOSTILE_SOURCE in page.text(".column.incoming")
    page.link(HOSTILE_FIELD, ".column.this").click()
    page.wait_ready("field")
    assert {HOSTILE_FIELD} <= page.labels()
    assert HOSTILE_DATASET in page.text("h1")
    page.css(".side-panel .runs a").click()  # the run that recorded it, named "h/1?x"
    page.wait_ready("run")
    assert "<script>x</script>" in page.text("h1")
    assert page.driver.execute_script("return window.pwned") is None
    assert page.all("main img, main script, main b, main i") == []
