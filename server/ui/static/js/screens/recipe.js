// /ui/recipe: the playground. Paste a recipe (and, optionally, the input columns), and see what
// `wrangler check` finds - inline, line by line - and the recipe's column lineage redrawn as you type, through
// POST /v3/lineage/recipe/check and POST /v3/lineage/recipe. Nothing runs and nothing is stored. The recipe lives
// in the URL's #fragment (never sent to the server), so a link shares it.

import {ApiError, post} from "../api.js";
import {debounce, h} from "../dom.js";
import {GraphView} from "../graph/view.js";
import {treeGraph} from "../recipe.js";
import {code, headline, markReady, screen} from "./common.js";

const SAMPLE = `merge :Employee_Name :Dept_Name :key '-'
merge :key :SSN :ID '-'
hash :ID 'SHA-256'
drop :key
set-column :Salary_USD exp:{Salary * 1.1}
drop :Salary
rename :Dept_Name :Department
filter-rows-on regex-match :SSN '^$'
`;
const SAMPLE_SCHEMA = "Employee_Name, Dept_Name, SSN, Salary";

function readFragment() {
  const values = new URLSearchParams(location.hash.slice(1));
  if (!values.has("recipe")) return {recipe: SAMPLE, schema: SAMPLE_SCHEMA, strict: false};
  return {recipe: values.get("recipe"), schema: values.get("schema") || "", strict: values.get("strict") === "1"};
}

function writeFragment(state) {
  const values = new URLSearchParams();
  values.set("recipe", state.recipe);
  if (state.schema) values.set("schema", state.schema);
  if (state.strict) values.set("strict", "1");
  history.replaceState(null, "", `${location.pathname}${location.search}#${values}`);
}

function schemaList(text) {
  const names = text.split(/[,\n]/).map((name) => name.trim()).filter(Boolean);
  return names.length ? names : null;
}

/** Every column's tree merged into one graph: input columns on the left, output columns on the right.
 * Nodes are shared between columns (a column at a given directive is one node). */
function lineageGraph(columns) {
  const nodes = new Map();
  const edges = new Map();
  for (const [name, item] of Object.entries(columns)) {
    const graph = treeGraph(item.tree);
    for (const node of graph.nodes) {
      if (!nodes.has(node.id)) nodes.set(node.id, {...node, openable: false, cluster: node.kind === "field" ? "input" : null});
    }
    for (const edge of graph.edges) edges.set(`${edge.from}\u0000${edge.to}`, edge);
    const title = `output column ${name}${item.exact ? "" : " (over-approximated)"}: from ${item.sources.join(", ") || "no input column"}`;
    Object.assign(nodes.get(graph.rootId), {kind: "output", cluster: "output", label: name, title});
  }
  return {nodes: [...nodes.values()], edges: [...edges.values()],
          clusters: [{id: "input", label: "input columns", kind: "dataset"}, {id: "output", label: "output columns", kind: "dataset"}]};
}

export function renderRecipe(main) {
  document.title = "Recipe playground · wrangler-lineage";
  const state = readFragment();
  const editor = h("textarea", {id: "recipe-text", spellcheck: "false", autocapitalize: "off", autocomplete: "off",
                                "aria-label": "Recipe", wrap: "off", rows: 14}, state.recipe);
  editor.value = state.recipe;
  const gutter = h("div", {class: "gutter", "aria-hidden": "true"});
  const schema = h("input", {id: "recipe-schema", type: "text", value: state.schema, placeholder: "a, b, c",
                             "aria-label": "Input columns, separated by commas"});
  const strict = h("input", {id: "recipe-strict", type: "checkbox", checked: state.strict});
  const findings = h("div", {class: "findings", id: "findings", "aria-live": "polite"});
  const graphNote = h("p", {class: "muted", id: "lineage-note"});
  const graphHost = h("div", {class: "graph-host"});
  const view = new GraphView(graphHost, {label: "Column lineage of the recipe"});
  let generation = 0;

  function paintGutter(marks) {
    const lines = editor.value.split("\n").length;
    gutter.replaceChildren(...Array.from({length: lines}, (_, i) => {
      const mark = marks.get(i + 1);
      return h("span", {class: mark ? `mark ${mark}` : null}, String(i + 1));
    }));
    gutter.scrollTop = editor.scrollTop;
  }

  function goTo(line, column) {
    const lines = editor.value.split("\n");
    let offset = 0;
    for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
    offset += Math.max(0, (column || 1) - 1);
    editor.focus();
    editor.setSelectionRange(offset, offset);
  }

  function showFindings(items) {
    const marks = new Map();
    for (const item of items) {
      if (item.line && marks.get(item.line) !== "error") marks.set(item.line, item.severity === "error" ? "error" : "warning");
    }
    paintGutter(marks);
    if (!items.length) {
      findings.replaceChildren(h("p", {class: "ok"}, "✓ No findings: wrangler check would pass this recipe."));
      return;
    }
    findings.replaceChildren(h("ul", {}, items.map((item) => h("li", {class: `finding ${item.severity}`},
      h("button", {type: "button", class: "where", onclick: () => goTo(item.line, item.column),
                   "aria-label": `Go to line ${item.line}, column ${item.column}`},
        item.line ? `${item.line}:${item.column}` : "—"),
      h("span", {class: "severity"}, item.severity), " ",
      h("span", {class: "rule"}, `[${item.rule}]`), " ", h("span", {class: "message"}, item.message),
      item.context ? h("pre", {class: "context"}, item.context) : null))));
  }

  async function update() {
    if (!main.isConnected) return;
    const mine = ++generation;
    const current = {recipe: editor.value, schema: schema.value, strict: strict.checked};
    writeFragment(current);
    if (!current.recipe.trim()) {
      showFindings([]);
      graphNote.textContent = "Type a recipe to see its lineage.";
      return;
    }
    const body = {recipe: current.recipe, schema: schemaList(current.schema)};
    const [checked, lineage] = await Promise.allSettled([
      post("/v3/lineage/recipe/check", {...body, strict: current.strict}),
      post("/v3/lineage/recipe", body),
    ]);
    if (mine !== generation || !main.isConnected) return;  // an older answer arriving late, or the user left
    if (checked.status === "fulfilled") showFindings(checked.value.findings);
    else findings.replaceChildren(h("p", {class: "notice error", role: "alert"}, `Check failed: ${checked.reason.message}`));
    if (lineage.status === "fulfilled") {
      const columns = lineage.value.columns;
      const count = Object.keys(columns).length;
      graphNote.textContent = `${count} output column${count === 1 ? "" : "s"}. Left to right: the input columns, ` +
        "the directives, each output column; dashed: directives that choose rows.";
      graphHost.classList.remove("stale");
      view.render(lineageGraph(columns));
    } else {
      const error = lineage.reason;
      graphHost.classList.add("stale");
      graphNote.textContent = error instanceof ApiError && error.status === 400
        ? "The recipe does not parse yet: the graph shows the last one that did."
        : `Lineage failed: ${error.message}`;
    }
    markReady(main);
  }

  const changed = debounce(update, 250);
  editor.addEventListener("input", () => {
    paintGutter(new Map());
    changed();
  });
  editor.addEventListener("scroll", () => { gutter.scrollTop = editor.scrollTop; });
  schema.addEventListener("input", changed);
  strict.addEventListener("change", changed);
  paintGutter(new Map());

  main.replaceChildren(screen("recipe",
    headline("Recipe playground"),
    h("p", {class: "lead"}, "What ", code("wrangler check"), " finds and which directives make each column, as you type. ",
      "Nothing runs and nothing is stored; the link to this page carries the recipe."),
    h("div", {class: "playground"},
      h("div", {class: "editor-pane"},
        h("label", {for: "recipe-text", class: "label"}, "Recipe"),
        h("div", {class: "editor"}, gutter, editor),
        h("div", {class: "options"},
          h("label", {}, "Input columns ", schema),
          h("label", {}, strict, " strict (renames and drops must name their columns)")),
        h("h2", {}, "Findings"), findings),
      h("div", {class: "graph-pane"}, h("h2", {}, "Lineage"), graphNote, graphHost))));
  return update();
}
