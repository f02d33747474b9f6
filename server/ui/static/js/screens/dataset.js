// /ui/{ns}/datasets/{ds}: seed 000's middle screen. The datasets this one is made from and their fields on the
// left, this dataset's fields in the middle, the datasets made from it on the right, a line between every pair
// of related fields; the properties recorded for it and the runs that wrote or read it.

import {datasetPath, get, getAll} from "../api.js";
import {clear, h, s, timeEl} from "../dom.js";
import {paths} from "../router.js";
import {apiRange, rangePicker} from "../timerange.js";
import {breadcrumb, code, cutNotice, errorNotice, headline, link, markReady, plural, screen} from "./common.js";

const SEP = "\u0001";

function key(side, ns, ds, field) {
  return [side, ns, ds, field].join(SEP);
}

/** Neighbour datasets and their related fields, from level-1 summary mappings. */
function neighbours(mappings, incoming) {
  const byDataset = new Map();
  for (const mapping of mappings) {
    const other = incoming ? mapping.source : mapping.destination;
    const id = [other.namespace, other.name].join(SEP);
    if (!byDataset.has(id)) byDataset.set(id, {ns: other.namespace, ds: other.name, fields: new Set(), pairs: []});
    const entry = byDataset.get(id);
    for (const pair of mapping.fieldmap) {
      entry.fields.add(incoming ? pair.from : pair.to);
      entry.pairs.push(pair);
    }
  }
  return [...byDataset.values()].sort((a, b) => a.ds.localeCompare(b.ds));
}

function datasetCard(side, item, currentNs) {
  const fields = [...item.fields].sort();
  return h("details", {class: `dataset-card ${side}`, open: true, "data-key": key(side, item.ns, item.ds, "")},
    h("summary", {}, link(paths.dataset(item.ns, item.ds), item.ds),
      item.ns !== currentNs ? h("span", {class: "muted"}, ` (${item.ns})`) : null,
      h("span", {class: "count"}, plural(fields.length, "field"))),
    h("ul", {class: "fields"}, fields.map((field) => h("li", {"data-key": key(side, item.ns, item.ds, field)},
      link(paths.field(item.ns, item.ds, field), field)))));
}

export async function renderDataset(main, {ns, ds}) {
  document.title = `${ds} · lineage`;
  const base = datasetPath(ns, ds);
  const range = apiRange();
  main.replaceChildren(screen("dataset", breadcrumb(ns, [null, ds]),
    h("div", {class: "heading-row"}, headline("Dataset ", code(ds)), rangePicker()), h("p", {class: "loading"}, "Loading…")));
  let fields;
  let backward;
  let forward;
  try {
    [fields, backward, forward] = await Promise.all([
      getAll(`${base}/fields`, {...range, limit: 1000}, "fields"),
      getAll(`${base}/fields/lineage`, {...range, direction: "backward", limit: 1000}, "mappings"),
      getAll(`${base}/fields/lineage`, {...range, direction: "forward", limit: 1000}, "mappings"),
    ]);
  } catch (error) {
    main.querySelector(".loading").replaceWith(errorNotice(error, `dataset ${ds}`));
    markReady(main);
    return;
  }
  const incoming = neighbours(backward.items, true);
  const outgoing = neighbours(forward.items, false);
  const own = fields.items;
  const middle = h("div", {class: "column this"},
    h("h2", {}, ds, h("span", {class: "count"}, plural(own.length, "field"))),
    own.length === 0 ? h("p", {class: "muted"}, "No run in the time range wrote or read this dataset.") : null,
    h("ul", {class: "fields"}, own.map((field) => h("li", {"data-key": key("self", ns, ds, field.name)},
      link(paths.field(ns, ds, field.name), field.name, {class: "field-link"}),
      field.incoming ? link(paths.column(ns, ds, field.name), "directives", {class: "minor",
                                                                            "aria-label": `Directives that made ${field.name}`})
        : null,
      h("span", {class: "muted small"}, field.incoming ? " written" : "", field.outgoing ? " read" : "")))));
  const left = h("div", {class: "column incoming"}, h("h2", {}, "Made from"),
    incoming.length ? incoming.map((item) => datasetCard("in", item, ns)) : h("p", {class: "muted"}, "No source datasets in the range."));
  const right = h("div", {class: "column outgoing"}, h("h2", {}, "Used by"),
    outgoing.length ? outgoing.map((item) => datasetCard("out", item, ns)) : h("p", {class: "muted"}, "No dataset made from it in the range."));
  const lines = s("svg", {class: "flow-lines", "aria-hidden": "true"});
  const flow = h("div", {class: "flow"}, lines, left, middle, right);

  const links = [];
  for (const item of incoming) {
    for (const pair of item.pairs) links.push([key("in", item.ns, item.ds, pair.from), key("self", ns, ds, pair.to)]);
  }
  for (const item of outgoing) {
    for (const pair of item.pairs) links.push([key("self", ns, ds, pair.from), key("out", item.ns, item.ds, pair.to)]);
  }

  const anchor = (dataKey) => {
    const el = flow.querySelector(`[data-key="${CSS.escape(dataKey)}"]`);
    if (!el) return null;
    const card = el.closest("details");
    if (card && !card.open) return card.querySelector("summary");
    return el;
  };
  function drawLines() {
    const box = flow.getBoundingClientRect();
    lines.setAttribute("width", String(box.width));
    lines.setAttribute("height", String(box.height));
    clear(lines);
    for (const [fromKey, toKey] of links) {
      const a = anchor(fromKey);
      const b = anchor(toKey);
      if (!a || !b) continue;
      const ra = a.getBoundingClientRect();
      const rb = b.getBoundingClientRect();
      const x1 = ra.right - box.left;
      const y1 = ra.top + ra.height / 2 - box.top;
      const x2 = rb.left - box.left;
      const y2 = rb.top + rb.height / 2 - box.top;
      const dx = Math.max(20, (x2 - x1) / 2);
      lines.append(s("path", {d: `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`,
                              "data-from": fromKey, "data-to": toKey}));
    }
  }
  const highlight = (event) => {
    const item = event.target.closest("[data-key]");
    const wanted = item && item.tagName === "LI" ? item.dataset.key : null;
    for (const path of lines.children) {
      const on = wanted !== null && (path.dataset.from === wanted || path.dataset.to === wanted);
      path.classList.toggle("on", on);
    }
    flow.classList.toggle("highlighting", wanted !== null);
  };
  flow.addEventListener("mouseover", highlight);
  flow.addEventListener("focusin", highlight);
  flow.addEventListener("mouseleave", () => { flow.classList.remove("highlighting"); });
  flow.addEventListener("toggle", () => requestAnimationFrame(drawLines), true);
  new ResizeObserver(() => drawLines()).observe(flow);

  const properties = h("section", {class: "properties"}, h("h2", {}, "Properties"), h("p", {class: "muted"}, "Loading…"));
  const runs = h("section", {class: "runs"}, h("h2", {}, "Runs"), h("p", {class: "muted"}, "Loading…"));
  main.replaceChildren(screen("dataset",
    breadcrumb(ns, [null, ds]),
    h("div", {class: "heading-row"}, headline("Dataset ", code(ds)), rangePicker()),
    h("p", {class: "lead"}, "Click a field for its lineage graph; lines join the fields that make each other."),
    fields.cut || backward.cut || forward.cut ? cutNotice() : null,
    flow,
    h("div", {class: "two-columns"}, properties, runs)));
  requestAnimationFrame(drawLines);

  const [props, runList] = await Promise.allSettled([
    get(`${base}/properties`, {...range, limit: 20}),
    get(`${base}/runs`, {...range, limit: 20}),
  ]);
  properties.replaceChildren(h("h2", {}, "Properties"), props.status === "fulfilled"
    ? propertiesView(props.value.items) : errorNotice(props.reason, "the properties"));
  runs.replaceChildren(h("h2", {}, "Runs"), runList.status === "fulfilled"
    ? runsView(ns, runList.value.runs, runList.value.next_cursor) : errorNotice(runList.reason, "the runs"));
  requestAnimationFrame(drawLines);
  markReady(main);
}

function propertiesView(items) {
  if (!items.length) return h("p", {class: "muted"}, "No properties recorded in the range.");
  const [newest, ...older] = items;
  const table = (properties) => h("table", {class: "kv"}, h("tbody", {}, Object.entries(properties).sort()
    .map(([k, v]) => h("tr", {}, h("th", {scope: "row"}, k), h("td", {}, code(v))))));
  return h("div", {},
    h("p", {class: "muted"}, "As recorded by run ", link(paths.run(newest.run.namespace, newest.run.run_id), newest.run.run_id),
      " (", timeEl(newest.run.start), ")"),
    Object.keys(newest.properties).length ? table(newest.properties) : h("p", {class: "muted"}, "none"),
    older.length ? h("details", {}, h("summary", {}, `Earlier runs (${older.length})`),
      older.map((item) => h("div", {}, h("p", {}, link(paths.run(item.run.namespace, item.run.run_id), item.run.run_id)),
        table(item.properties)))) : null);
}

function runsView(ns, runs, more) {
  if (!runs.length) return h("p", {class: "muted"}, "No run in the range.");
  return h("div", {}, h("table", {class: "list"},
    h("thead", {}, h("tr", {}, ["Run", "Program", "", "Started"].map((t) => h("th", {scope: "col"}, t)))),
    h("tbody", {}, runs.map(({run, role}) => h("tr", {},
      h("td", {}, link(paths.run(run.namespace, run.run_id), run.run_id)), h("td", {}, run.program),
      h("td", {}, role), h("td", {}, timeEl(run.start)))))),
  more ? h("p", {class: "muted"}, "Newest 20 shown.") : null);
}
