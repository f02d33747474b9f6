// /ui/{ns}/datasets/{ds}/columns/{col}: seed 001's screen - the tree of directives that made a column, in
// each run of the range, with the run's recipe beside it and the directives that made the column highlighted.

import {datasetPath, get, nsPath, seg} from "../api.js";
import {h, timeEl} from "../dom.js";
import {GraphView} from "../graph/view.js";
import {recordedDirectives, treeDirectives, treeGraph} from "../recipe.js";
import {navigate, paths, withRange} from "../router.js";
import {apiRange, rangePicker} from "../timerange.js";
import {breadcrumb, code, errorNotice, headline, link, markReady, screen} from "./common.js";

export async function renderColumn(main, {ns, ds, col}) {
  document.title = `${ds}.${col} · directives`;
  const heading = h("div", {class: "heading-row"}, headline("Directives that made ", code(col), " in ", code(ds)),
    rangePicker());
  const crumbs = breadcrumb(ns, [paths.dataset(ns, ds), ds], [paths.field(ns, ds, col), col], [null, "directives"]);
  main.replaceChildren(screen("column", crumbs, heading, h("p", {class: "loading"}, "Loading…")));
  let answer;
  try {
    answer = await get(`${datasetPath(ns, ds)}/columns/${seg(col)}/lineage`, {...apiRange(), limit: 20});
  } catch (error) {
    main.querySelector(".loading").replaceWith(errorNotice(error, `column ${col}`));
    markReady(main);
    return;
  }
  if (!answer.items.length) {
    main.querySelector(".loading").replaceWith(h("p", {class: "notice info", role: "status"},
      `No run in the time range stored a directive tree for ${col}. Trees are stored by recipe runs `,
      `(wrangler run --store) and by runs posted with column_history. `, link(paths.field(ns, ds, col), "See its field lineage →")));
    markReady(main);
    return;
  }
  const wanted = new URLSearchParams(location.search).get("run");
  const entry = answer.items.find((item) => item.run.run_id === wanted) || answer.items[0];
  const runs = h("nav", {class: "run-list", "aria-label": "Runs"}, h("h2", {}, "Runs"),
    h("ol", {}, answer.items.map((item) => h("li", {},
      h("a", {href: withRange(paths.column(ns, ds, col), {run: item.run.run_id}), "data-nav": true,
              "aria-current": item === entry ? "true" : null},
        item.run.run_id), " ", h("span", {class: "muted"}, item.run.program, " · "), timeEl(item.run.start)))));
  const recipeBox = h("section", {class: "recipe-view", "aria-label": "Recipe"}, h("h2", {}, "Recipe"),
    h("p", {class: "muted"}, "Loading the run…"));
  const graphHost = h("div", {class: "graph-host tree"});
  main.replaceChildren(screen("column", crumbs, heading,
    h("p", {class: "lead"}, "Run ", link(paths.run(entry.run.namespace, entry.run.run_id), entry.run.run_id),
      ` of ${entry.run.program}, `, timeEl(entry.run.start), ". Left to right: the input columns, the directives that ",
      "made the column, the column; dashed: directives that decide which rows survive."),
    entry.truncated ? h("p", {class: "notice info"}, "The tree is cut at the depth asked for (maxLevels).") : null,
    h("div", {class: "column-layout"}, runs, h("div", {class: "tree-panel"}, graphHost), recipeBox)));

  let record = null;
  try {
    record = await get(`${nsPath(entry.run.namespace)}/lineage/runs/${seg(entry.run.run_id)}`);
  } catch (error) {
    recipeBox.replaceChildren(h("h2", {}, "Recipe"), errorNotice(error, `run ${entry.run.run_id}`));
  }
  const source = record && record.sources.length === 1 ? {ns: record.sources[0].namespace, ds: record.sources[0].name} : null;
  const graph = treeGraph(entry.tree, {sourceDataset: source});
  const used = treeDirectives(entry.tree);
  const view = new GraphView(graphHost, {
    rootId: graph.rootId, label: `Directive tree of column ${col}`,
    onOpen: (node) => navigate(withRange(paths.field(node.endpoint.ns, node.endpoint.ds, node.endpoint.field))),
    onSelect: (node) => pick(node && node.directive ? node.directive.index : null),
  });
  view.render(graph);
  if (record) recipeBox.replaceChildren(h("h2", {}, "Recipe"), recipeList(recordedDirectives(record), used));
  function pick(index) {
    for (const item of recipeBox.querySelectorAll("li[data-index]")) {
      item.classList.toggle("picked", Number(item.dataset.index) === index);
    }
  }
  markReady(main);
}

/** The recorded directives in order; the column's own highlighted, gaps (unrecorded directives) marked. */
export function recipeList(directives, used = {direct: new Set(), indirect: new Set()}) {
  if (!directives.length) return h("p", {class: "muted"}, "This run recorded no directives (it was not a recipe run).");
  const items = [];
  let expected = 1;
  for (const directive of directives) {
    if (directive.index > expected) {
      const missing = directive.index - expected;
      items.push(h("li", {class: "gap", "aria-label": `${missing} directive(s) not recorded`},
        `⋯ ${missing} directive${missing === 1 ? "" : "s"} that made no output column (not recorded)`));
    }
    const role = used.direct.has(directive.index) ? "made" : used.indirect.has(directive.index) ? "filters" : null;
    items.push(h("li", {class: role ? `directive ${role}` : "directive", "data-index": directive.index},
      h("span", {class: "line-no"}, directive.line ? `line ${directive.line}` : `#${directive.index}`),
      code(directive.text || directive.name),
      role ? h("span", {class: "tag"}, role === "made" ? "made this column" : "chooses its rows") : null));
    expected = directive.index + 1;
  }
  return h("ol", {class: "recipe"}, items);
}
