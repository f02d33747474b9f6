// /ui/{ns}/runs/{run}: one run - its datasets, counts, column lineage and recipe - and what changed since the
// previous run of the same program: columns added, dropped, renamed, and columns whose lineage changed.

import {get, nsPath, seg} from "../api.js";
import {h, timeEl} from "../dom.js";
import {operationLabel} from "../graph/lineage.js";
import {recordedDirectives, treeDirectives} from "../recipe.js";
import {paths} from "../router.js";
import {breadcrumb, code, cutNotice, errorNotice, headline, link, markReady, plural, screen} from "./common.js";
import {recipeList} from "./column.js";

const ROW_COUNTS = ["rows_in", "rows_out", "error_rows", "filtered_rows", "rows_added"];

/** Per destination column: the source fields and the operations on its path, walking origins backward. */
export function columnLineage(record) {
  const byName = new Map(record.operations.map((op) => [op.name, op]));
  const write = record.operations.find((op) => op.type === "WRITE");
  const result = new Map();
  for (const column of record.destination_fields) {
    const sources = new Set();
    const steps = new Set();
    const input = write ? write.inputs.find((item) => item.field === column) : null;
    const stack = input && input.origin ? [input.origin] : [];
    const seen = new Set();
    while (stack.length) {
      const op = byName.get(stack.pop());
      if (!op || seen.has(op.name)) continue;
      seen.add(op.name);
      if (op.type === "TRANSFORM") steps.add(op);
      for (const item of op.inputs) {
        if (item.dataset) sources.add(`${item.dataset.name}.${item.field}`);
        else if (item.origin) stack.push(item.origin);
      }
    }
    result.set(column, {sources: [...sources].sort(), steps: [...steps].reverse()});
  }
  return result;
}

function datasetLink(ns, endpoint) {
  return link(paths.dataset(endpoint.namespace, endpoint.name), endpoint.name);
}

function diffView(diff, dest) {
  if (!diff.previous) {
    return h("p", {class: "muted"}, `The first run of ${diff.run.program} in this store: nothing to compare with.`);
  }
  const previous = link(paths.run(diff.previous.namespace, diff.previous.run_id), diff.previous.run_id);
  if (diff.same_operations) {
    return h("p", {}, "Same lineage as the previous run ", previous, " (", timeEl(diff.previous.start), "): ",
      "no column added, dropped, renamed or re-derived.");
  }
  const parts = [h("p", {}, "Compared with the previous run ", previous, " (", timeEl(diff.previous.start), ").")];
  const list = (title, cls, items) => items.length
    ? [h("h3", {}, title), h("ul", {class: `changes ${cls}`}, items)] : [];
  parts.push(...list("Renamed", "renamed", diff.renamed_columns.map((r) => h("li", {},
    code(r.before), " → ", link(paths.column(dest.namespace, dest.name, r.after), r.after),
    h("span", {class: "muted"}, ` (${r.evidence})`)))));
  parts.push(...list("Added", "added", diff.added_columns.map((c) => h("li", {}, code(c)))));
  parts.push(...list("Dropped", "dropped", diff.dropped_columns.map((c) => h("li", {}, code(c)))));
  parts.push(...list("Lineage changed", "changed", diff.changed_columns.map((change) => h("li", {}, code(change.column),
    change.steps_added.length ? h("div", {}, "new steps: ", change.steps_added.map((t) => code(t))) : null,
    change.steps_removed.length ? h("div", {}, "steps gone: ", change.steps_removed.map((t) => code(t))) : null,
    change.sources_added.length ? h("div", {}, "new sources: ", change.sources_added.join(", ")) : null,
    change.sources_removed.length ? h("div", {}, "sources gone: ", change.sources_removed.join(", ")) : null))));
  parts.push(...list("Source datasets", "sources", [
    ...diff.sources_added.map((name) => h("li", {}, "now also reads ", code(name))),
    ...diff.sources_removed.map((name) => h("li", {}, "no longer reads ", code(name)))]));
  if (diff.unchanged_columns.length) {
    parts.push(h("p", {class: "muted"}, `${plural(diff.unchanged_columns.length, "column")} unchanged: `,
      diff.unchanged_columns.join(", "), "."));
  }
  return h("div", {}, parts);
}

export async function renderRun(main, {ns, run}) {
  document.title = `Run ${run} · lineage`;
  const base = `${nsPath(ns)}/lineage/runs/${seg(run)}`;
  main.replaceChildren(screen("run", breadcrumb(ns, [null, `run ${run}`]), headline("Run ", code(run)),
    h("p", {class: "loading"}, "Loading…")));
  const [recordResult, diffResult] = await Promise.allSettled([get(base), get(`${base}/diff`)]);
  if (recordResult.status === "rejected") {
    main.querySelector(".loading").replaceWith(errorNotice(recordResult.reason, `run ${run}`));
    markReady(main);
    return;
  }
  const record = recordResult.value;
  const dest = record.destination;
  const destProperties = (record.dataset_properties.find((p) => p.dataset.namespace === dest.namespace &&
                                                               p.dataset.name === dest.name) || {}).properties || {};
  const lineage = columnLineage(record);
  const directives = recordedDirectives(record);
  const counts = [
    ["output columns", record.destination_fields.length],
    ["source datasets", record.sources.length],
    ["operations", record.operations.length],
    ["directives recorded", directives.length],
    ...ROW_COUNTS.filter((key) => key in destProperties).map((key) => [key.replace("_", " "), destProperties[key]]),
  ];
  const columns = h("table", {class: "list columns"},
    h("thead", {}, h("tr", {}, ["Column", "From", "Steps", ""].map((t) => h("th", {scope: "col"}, t)))),
    h("tbody", {}, record.destination_fields.map((column) => {
      const item = lineage.get(column);
      const tree = record.column_trees && record.column_trees[column];
      const steps = tree ? [...treeDirectives(tree).direct].sort((a, b) => a - b).map((i) => {
        const d = directives.find((x) => x.index === i);
        return d ? `#${i} ${d.name}` : `#${i}`;
      }) : item.steps.map(operationLabel);
      return h("tr", {},
        h("th", {scope: "row"}, link(paths.field(dest.namespace, dest.name, column), column)),
        h("td", {}, item.sources.length ? item.sources.join(", ") : h("span", {class: "muted"}, "no source (generated)")),
        h("td", {}, steps.join(", ") || h("span", {class: "muted"}, "copied")),
        h("td", {}, tree ? link(paths.column(dest.namespace, dest.name, column), "directive tree") : ""));
    })));
  const datasets = h("div", {class: "run-datasets"},
    h("div", {}, h("h3", {}, "Read"), h("ul", {}, record.sources.map((e) => h("li", {}, datasetLink(ns, e),
      propertyList(record, e))))),
    h("div", {class: "arrow", "aria-hidden": "true"}, "→"),
    h("div", {}, h("h3", {}, "Wrote"), h("ul", {}, h("li", {}, datasetLink(ns, dest),
      dest.namespace !== ns ? ` (${dest.namespace})` : "", propertyList(record, dest)))));
  main.replaceChildren(screen("run",
    breadcrumb(ns, [null, `run ${run}`]),
    headline("Run ", code(run), " of ", code(record.program)),
    h("p", {class: "lead"}, "Started ", timeEl(record.start), record.end ? [", ended ", timeEl(record.end)] : "",
      `, ${record.status.toLowerCase()}. Operation set `, code(record.checksum.slice(0, 12)), "."),
    record.cut ? cutNotice() : null,
    h("section", {class: "diff", "aria-labelledby": "diff-title"}, h("h2", {id: "diff-title"}, "What changed since the previous run"),
      diffResult.status === "fulfilled" ? diffView(diffResult.value, record.destination) : errorNotice(diffResult.reason, "the comparison")),
    h("section", {}, h("h2", {}, "Datasets"), datasets),
    h("section", {}, h("h2", {}, "Counts"), h("dl", {class: "counts-list"},
      counts.map(([label, value]) => h("div", {}, h("dt", {}, label), h("dd", {}, String(value)))))),
    h("section", {}, h("h2", {}, "Column lineage"), columns),
    h("section", {class: "recipe-view"}, h("h2", {}, "Recipe"), recipeList(directives))));
  markReady(main);
}

function propertyList(record, endpoint) {
  const found = record.dataset_properties.find((p) => p.dataset.namespace === endpoint.namespace &&
                                                     p.dataset.name === endpoint.name);
  if (!found || !Object.keys(found.properties).length) return null;
  return h("dl", {class: "kv-inline"}, Object.entries(found.properties).sort().map(([k, v]) =>
    [h("dt", {}, k), h("dd", {}, code(v))]));
}
