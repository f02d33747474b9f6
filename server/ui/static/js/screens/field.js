// /ui/{ns}/datasets/{ds}/fields/{field}: one field's lineage graph, backward and forward, across datasets.
// Opens one level each way; every dataset field at the edge has "+" to load more (1, 2 or all levels);
// "Trace" follows the whole lineage one way and dims everything else.

import {datasetPath, get} from "../api.js";
import {h} from "../dom.js";
import {FieldLineage, endpointId, operationLabel} from "../graph/lineage.js";
import {GraphView, KEY_HELP} from "../graph/view.js";
import {navigate, paths, replaceQuery, withRange} from "../router.js";
import {apiRange, rangePicker} from "../timerange.js";
import {breadcrumb, code, cutNotice, headline, link, markReady, plural, screen} from "./common.js";

export function renderField(main, {ns, ds, field}) {
  document.title = `${ds}.${field} · lineage`;
  const query = new URLSearchParams(location.search);
  const model = new FieldLineage({ns, ds, field, range: apiRange()});
  const panel = h("aside", {class: "side-panel", "aria-label": "Selected field"});
  const graphHost = h("div", {class: "graph-host"});
  const errors = h("div", {class: "graph-errors"});
  let selected = null;
  let frame = 0;
  let fitted = false;
  let initialLoaded = false;

  const view = new GraphView(graphHost, {
    rootId: model.rootId,
    label: `Lineage graph of field ${field} of dataset ${ds}`,
    onOpen: (node) => navigate(withRange(paths.field(node.endpoint.ns, node.endpoint.ds, node.endpoint.field))),
    onSelect: (node) => { selected = node; showPanel(); },
    onExpand: (node, direction, levels) => node.endpoint && model.expand(node.endpoint, direction, levels),
    onTraceRequest: (node, direction) => traceFrom(node, direction),
    onTrace: (traced) => {
      if (main.isConnected) replaceQuery({trace: traced && traced.id === model.rootId ? traced.direction : null});
    },
  });

  const redraw = () => {
    if (!main.isConnected) return;
    cancelAnimationFrame(frame);
    document.body.dataset.settled = "false";
    frame = requestAnimationFrame(() => {
      if (!main.isConnected) return;  // the user has moved on
      const graph = model.graph(ns);
      view.render(graph);
      if (!fitted && initialLoaded) {
        fitted = true;
        view.fitWide();
        view.reveal(model.rootId);
        markReady(main);
      }
      errors.replaceChildren(...graph.errors.slice(0, 3).map((error) =>
        h("p", {class: "notice error", role: "alert"}, `Some lineage could not be loaded: ${error.message}`)),
      graph.cut ? cutNotice() : "");
      if (selected) selected = graph.nodes.find((node) => node.id === selected.id) || null;
      showPanel();
      // tests and tools wait for this: everything asked for has arrived and is drawn
      document.body.dataset.settled = String(model.pending === 0 && initialLoaded);
    });
  };
  model.onChange = redraw;

  async function traceFrom(node, direction) {
    if (node.endpoint) await model.expand(node.endpoint, direction, Infinity);
    requestAnimationFrame(() => requestAnimationFrame(() => view.trace(node.id, direction)));
  }

  function button(text, action, attrs = {}) {
    return h("button", {type: "button", onclick: action, ...attrs}, text);
  }

  /** The operations that make a node, once each (an operation with three inputs is three edges). */
  function incomingOperations(node) {
    const seen = new Map();
    for (const edge of view.graph.edges) {
      if (edge.to === node.id && !seen.has(edge.label)) seen.set(edge.label, edge);
    }
    return [...seen.values()];
  }

  const feeds = (node) => `${plural(node.fanIn, "field")} ${node.fanIn === 1 ? "feeds" : "feed"} it; it feeds ` +
    `${plural(node.fanOut, "field")}.`;

  function showPanel() {
    const node = selected || view.graph.nodes.find((item) => item.id === model.rootId);
    if (!node) {
      panel.replaceChildren(h("p", {}, "Select a field (click it, or move with the arrow keys)."));
      return;
    }
    const parts = [h("h2", {}, node.label)];
    if (node.endpoint) {
      const {ns: nodeNs, ds: nodeDs, field: nodeField} = node.endpoint;
      parts.push(h("p", {}, "Field of dataset ", link(paths.dataset(nodeNs, nodeDs), nodeDs),
        nodeNs !== ns ? ` (namespace ${nodeNs})` : ""));
      parts.push(h("p", {class: "counts"}, feeds(node)));
      const actions = [];
      if (node.id !== model.rootId) actions.push(link(paths.field(nodeNs, nodeDs, nodeField), "Open this field"));
      actions.push(link(paths.column(nodeNs, nodeDs, nodeField), "Directives that made it"));
      parts.push(h("p", {class: "links"}, actions.flatMap((item, i) => (i ? [" · ", item] : [item]))));
      parts.push(propertiesOf(nodeNs, nodeDs));
      parts.push(h("div", {class: "button-row", role: "group", "aria-label": "Load sources"}, h("span", {}, "Sources:"),
        button("+1 level", () => model.expand(node.endpoint, "back", 1)),
        button("+2", () => model.expand(node.endpoint, "back", 2)),
        button("all", () => model.expand(node.endpoint, "back", Infinity))));
      parts.push(h("div", {class: "button-row", role: "group", "aria-label": "Load consumers"}, h("span", {}, "Consumers:"),
        button("+1 level", () => model.expand(node.endpoint, "fwd", 1)),
        button("+2", () => model.expand(node.endpoint, "fwd", 2)),
        button("all", () => model.expand(node.endpoint, "fwd", Infinity))));
    } else {
      parts.push(h("p", {}, "An intermediate field inside a pipeline."));
      parts.push(h("p", {class: "counts"}, feeds(node)));
    }
    parts.push(h("div", {class: "button-row"}, h("span", {}, "Trace:"),
      button("← whole lineage", () => traceFrom(node, "back")),
      button("whole impact →", () => traceFrom(node, "fwd"))));
    const made = incomingOperations(node);
    if (made.length) {
      parts.push(h("h3", {}, "Made by"));
      parts.push(h("ul", {class: "operations"}, made.map((edge) => operationItem(edge))));
    }
    panel.replaceChildren(...parts);
  }

  /** The dataset's recorded properties (path, regex, ...), newest run in the range; filled in when they arrive. */
  function propertiesOf(nodeNs, nodeDs) {
    const box = h("div", {class: "dataset-properties"});
    get(`${datasetPath(nodeNs, nodeDs)}/properties`, {...model.range, limit: 1}).then((answer) => {
      const entry = answer.items[0];
      if (!entry || !Object.keys(entry.properties).length) return;
      box.replaceChildren(h("h3", {}, `${nodeDs} properties`), h("table", {class: "kv"}, h("tbody", {},
        Object.entries(entry.properties).sort().map(([key, value]) => h("tr", {}, h("th", {scope: "row"}, key),
          h("td", {}, code(value)))))));
    }).catch(() => {});  // properties are extra: the graph stands without them
    return box;
  }

  function operationItem(edge) {
    const op = edge.op || {name: edge.label, properties: {}};
    const p = op.properties || {};
    return h("li", {class: edge.kind},
      h("strong", {}, operationLabel(op)), edge.kind === "indirect" ? h("span", {class: "tag"}, "INDIRECT") : null,
      op.description ? h("div", {}, op.description) : null,
      p.directive ? h("div", {}, code(p.directive), p.line ? ` (line ${p.line})` : "") : null,
      edge.runs && edge.runs.length
        ? h("div", {class: "runs"}, "runs: ", edge.runs.slice(0, 3).map((r, i) =>
          [i ? ", " : "", link(paths.run(r.namespace, r.run_id), `${r.program} ${r.run_id}`)]))
        : null);
  }

  const stepsBox = h("input", {type: "checkbox", checked: true, id: "show-steps"});
  stepsBox.addEventListener("change", () => { model.showSteps = stepsBox.checked; redraw(); });
  const labelsBox = h("input", {type: "checkbox", id: "show-labels"});
  labelsBox.addEventListener("change", () => view.setLabels(labelsBox.checked ? true : null));
  const rootEndpoint = {ns, ds, field};
  const toolbar = h("div", {class: "toolbar", role: "toolbar", "aria-label": "Graph"},
    h("span", {class: "group"}, "Sources ",
      button("+1 level", () => model.expand(rootEndpoint, "back", 1)),
      button("all", () => model.expand(rootEndpoint, "back", Infinity))),
    h("span", {class: "group"}, "Consumers ",
      button("+1 level", () => model.expand(rootEndpoint, "fwd", 1)),
      button("all", () => model.expand(rootEndpoint, "fwd", Infinity))),
    h("span", {class: "group"}, "Trace ",
      button("← lineage", () => traceFrom({id: model.rootId, endpoint: rootEndpoint}, "back"), {id: "trace-back"}),
      button("impact →", () => traceFrom({id: model.rootId, endpoint: rootEndpoint}, "fwd"), {id: "trace-fwd"}),
      button("clear", () => view.trace(null))),
    h("span", {class: "group"}, h("label", {}, stepsBox, " steps"), h("label", {}, labelsBox, " all operation names")),
    h("span", {class: "group"}, button("−", () => view.zoom(0.8), {"aria-label": "Zoom out"}),
      button("+", () => view.zoom(1.25), {"aria-label": "Zoom in"}), button("Fit", () => view.fit())));
  const legend = h("p", {class: "legend"},
    h("span", {class: "key direct"}, "direct"), " value derived from the source ",
    h("span", {class: "key indirect"}, "indirect"), " rows filtered, ordered or chosen by it; ",
    h("span", {class: "key more"}, "+"), " more lineage to load (shift-click: all levels).");
  const keys = h("details", {class: "keys"}, h("summary", {}, "Keyboard"),
    h("dl", {}, KEY_HELP.map(([key, text]) => [h("dt", {}, key), h("dd", {}, text)])));

  main.replaceChildren(screen("field",
    breadcrumb(ns, [paths.dataset(ns, ds), ds], [null, field]),
    h("div", {class: "heading-row"},
      headline("Lineage of ", code(field), " in ", code(ds)),
      rangePicker()),
    h("p", {class: "lead"}, "Fields are nodes, operations are the edges; the graph opens one level each way. ",
      link(paths.column(ns, ds, field), `Directives that made ${field} →`)),
    toolbar, legend, errors,
    h("div", {class: "graph-and-panel"}, graphHost, panel),
    keys));
  showPanel();
  const trace = query.get("trace");
  Promise.all([model.expand(rootEndpoint, "back", 1), model.expand(rootEndpoint, "fwd", 1)]).then(() => {
    initialLoaded = true;
    redraw();
    if (trace === "back" || trace === "fwd") traceFrom({id: endpointId(ns, ds, field), endpoint: rootEndpoint}, trace);
  });
}
