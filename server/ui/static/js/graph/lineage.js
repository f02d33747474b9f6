// A field's lineage across datasets, loaded level by level from the API and merged into one graph.
//
// One "query" is the detailed lineage of one dataset field in one direction
// (GET …/datasets/{ds}/fields/{field}/lineage?direction=…): the operations and graph of every operation set
// in the time range, pruned to that field. The graph shown is the union of the queries *included* so far;
// expanding a field includes its query, and N levels repeat that for the fields at the far end. One more
// level is fetched ahead of what is shown (not drawn), so every node can say how many fields feed it and
// how many it feeds, and whether there is more to load.

import {datasetPath, getAll, seg} from "../api.js";

const SEP = "\u0001";
const MAX_LEVELS = 30;
const MAX_QUERIES = 400;
const PREFETCH_LIMIT = 80;

export function endpointId(ns, ds, field) {
  return ["E", ns, ds, field].join(SEP);
}

export function parseEndpointId(id) {
  const [kind, ns, ds, field] = id.split(SEP);
  return kind === "E" ? {ns, ds, field} : null;
}

function queryKey(direction, endpoint) {
  return [direction, endpoint.ns, endpoint.ds, endpoint.field].join(SEP);
}

/** A short edge label: "#3 hash" for a directive, the operation's name otherwise. */
export function operationLabel(op) {
  const directive = op.properties && op.properties.directive;
  const found = /^d(\d+)\.([^.]+)\./.exec(op.name);
  if (directive && found) return `#${found[1]} ${found[2]}`;
  return op.name;
}

function operationTitle(op, runs) {
  const lines = [op.name];
  if (op.description) lines.push(op.description);
  const p = op.properties || {};
  if (p.directive) lines.push(`directive${p.line ? ` (line ${p.line})` : ""}: ${p.directive}`);
  if (p.type) lines.push(`${p.type}${p.subtype ? " " + p.subtype : ""}${p.masking === "true" ? ", masking" : ""}` +
                         `${p.exact === "false" ? ", over-approximated" : ""}`);
  if (runs && runs.length) lines.push(`runs: ${runs.map((r) => `${r.program} ${r.run_id}`).join(", ")}`);
  return lines.join("\n");
}

export class FieldLineage {
  constructor({ns, ds, field, range, onChange}) {
    this.root = {ns, ds, field};
    this.rootId = endpointId(ns, ds, field);
    this.range = range;
    this.onChange = onChange || (() => {});
    this.answers = new Map();    // query key -> promise of {groups, error}
    this.resolved = new Map();   // query key -> {groups, error}
    this.included = new Set();   // query keys drawn
    this.reached = new Map();    // endpoint id -> Set of directions it was reached walking
    this.showSteps = true;
    this.pending = 0;            // answers still awaited
    this.reached.set(this.rootId, new Set(["back", "fwd"]));
  }

  fetch(direction, endpoint) {
    const key = queryKey(direction, endpoint);
    if (!this.answers.has(key)) {
      const path = `${datasetPath(endpoint.ns, endpoint.ds)}/fields/${seg(endpoint.field)}/lineage`;
      const query = {...this.range, direction: direction === "back" ? "backward" : "forward", maxRuns: 5, limit: 1000};
      this.pending += 1;
      const promise = getAll(path, query, "groups", 5)
        .then(({items, cut}) => ({groups: items, error: null, cut}))
        .catch((error) => ({groups: [], error, cut: false}))
        .then((answer) => {
          this.pending -= 1;
          this.resolved.set(key, answer);
          return answer;
        });
      this.answers.set(key, promise);
    }
    return this.answers.get(key);
  }

  /** Include `levels` levels of lineage from `endpoint` in `direction` ("back" or "fwd"). */
  async expand(endpoint, direction, levels = 1) {
    let frontier = [endpoint];
    const seen = new Set([endpointId(endpoint.ns, endpoint.ds, endpoint.field)]);
    const limit = Math.min(levels, MAX_LEVELS);
    for (let level = 0; level < limit && frontier.length > 0; level++) {
      if (this.included.size >= MAX_QUERIES) break;
      const answers = await Promise.all(frontier.map((item) => this.fetch(direction, item)));
      const next = [];
      frontier.forEach((item, i) => {
        this.included.add(queryKey(direction, item));
        for (const far of farEnd(answers[i])) {
          const id = endpointId(far.ns, far.ds, far.field);
          if (!this.reached.has(id)) this.reached.set(id, new Set());
          this.reached.get(id).add(direction);
          if (!seen.has(id)) {
            seen.add(id);
            next.push(far);
          }
        }
      });
      frontier = next;
    }
    this.onChange();
    this.prefetch();
  }

  isIncluded(endpoint, direction) {
    return this.included.has(queryKey(direction, endpoint));
  }

  /** Fetch (not draw) the next level from every frontier field, for counts and "+" buttons. */
  prefetch() {
    let started = 0;
    const waiting = [];
    for (const [id, directions] of this.reached) {
      const endpoint = parseEndpointId(id);
      for (const direction of directions) {
        const key = queryKey(direction, endpoint);
        if (this.included.has(key) || this.answers.has(key)) continue;
        if (started++ >= PREFETCH_LIMIT) break;
        waiting.push(this.fetch(direction, endpoint));
      }
    }
    if (waiting.length) Promise.all(waiting).then(() => this.onChange());
  }

  /** The graph to draw: {nodes, edges, clusters}, with counts from everything fetched so far. */
  graph(currentNs) {
    const known = new Merged();
    const shown = new Merged();
    for (const [key, answer] of this.resolved) {
      for (const group of answer.groups) {
        known.add(group);
        if (this.included.has(key)) shown.add(group);
      }
    }
    known.simplify();
    shown.simplify();
    if (!this.showSteps) shown.bypassSteps();
    const counts = known.counts();
    const clusters = new Map();
    const nodes = [];
    for (const node of shown.nodes.values()) {
      const fanIn = counts.in.get(node.id) ?? 0;
      const fanOut = counts.out.get(node.id) ?? 0;
      const item = {id: node.id, label: node.label, kind: node.endpoint ? "field" : "step",
                    sub: `in ${fanIn} · out ${fanOut}`, fanIn, fanOut};
      if (node.endpoint) {
        const {ns, ds, field} = node.endpoint;
        const cluster = [ns, ds].join(SEP);
        if (!clusters.has(cluster)) {
          clusters.set(cluster, {id: cluster, label: ns === currentNs ? ds : `${ds} (${ns})`, kind: "dataset"});
        }
        item.cluster = cluster;
        item.endpoint = node.endpoint;
        item.openable = node.id !== this.rootId;
        item.more = this.more(node.endpoint, node.id);
        item.title = `${ds}.${field}: ${fanIn} field${fanIn === 1 ? "" : "s"} feed it, it feeds ${fanOut}` +
          (item.openable ? " (click to open)" : "");
        item.aria = `Field ${field} of dataset ${ds}. ${fanIn} in, ${fanOut} out.`;
      } else {
        item.title = `${node.label}: an intermediate field made by ${node.madeBy.join(", ") || "an operation"}`;
        item.aria = `Intermediate field ${node.label}. ${fanIn} in, ${fanOut} out.`;
      }
      nodes.push(item);
    }
    const edges = [...shown.edges.values()].map((edge) => ({
      from: edge.from, to: edge.to, label: edge.label, kind: edge.indirect ? "indirect" : "direct",
      title: edge.title, op: edge.op, runs: edge.runs,
    }));
    const errors = [...this.resolved.entries()].filter(([key, a]) => a.error && this.included.has(key))
      .map(([, a]) => a.error);
    const cut = [...this.resolved.entries()].some(([key, a]) => a.cut && this.included.has(key));
    return {nodes, edges, clusters: [...clusters.values()], errors, cut};
  }

  more(endpoint, id) {
    const reached = this.reached.get(id) || new Set();
    const result = {};
    for (const direction of ["back", "fwd"]) {
      if (!reached.has(direction) || this.isIncluded(endpoint, direction)) continue;
      const answer = this.resolved.get(queryKey(direction, endpoint));
      result[direction] = !answer || answer.groups.length > 0;  // unknown yet, or known to have more
    }
    return result;
  }
}

/** The endpoints at the other end of one query's answer: sources (backward) or destinations (forward). */
function farEnd(answer) {
  const found = [];
  const seen = new Set();
  for (const group of answer.groups) {
    for (const ref of group.fields) {
      const id = endpointId(ref.namespace, ref.dataset, ref.field);
      if (seen.has(id)) continue;
      seen.add(id);
      found.push({ns: ref.namespace, ds: ref.dataset, field: ref.field});
    }
  }
  return found;
}

/** Operation-set graphs merged by node identity: dataset fields by (namespace, dataset, field), the fields
 * in between by (operation set, node id), so two pipelines' steps never merge by accident. */
class Merged {
  constructor() {
    this.nodes = new Map();
    this.edges = new Map();
  }

  add(group) {
    const ops = new Map(group.operations.map((op) => [op.name, op]));
    // a field between datasets is named by the operation that makes it: the same operation (name, inputs,
    // properties) in two operation sets - two runs of one recipe that differ elsewhere - makes the same node
    const producer = new Map();
    for (const connection of group.graph.connections) {
      const op = ops.get(connection.operation);
      if (op && !producer.has(connection.to)) {
        producer.set(connection.to, JSON.stringify([op.name, op.description, op.properties, op.inputs]));
      }
    }
    const ids = new Map();
    for (const node of group.graph.nodes) {
      const end = node.source_endpoint || node.destination_endpoint;
      const id = end ? endpointId(end.namespace, end.name, node.label)
        : ["I", producer.get(node.id) || group.checksum, node.id].join(SEP);
      ids.set(node.id, id);
      if (!this.nodes.has(id)) {
        this.nodes.set(id, {id, label: node.label, madeBy: [],
                            endpoint: end ? {ns: end.namespace, ds: end.name, field: node.label} : null});
      }
    }
    for (const connection of group.graph.connections) {
      const from = ids.get(connection.from);
      const to = ids.get(connection.to);
      const op = ops.get(connection.operation) || {name: connection.operation, properties: {}};
      const key = [from, to, op.name].join(SEP);
      const known = this.edges.get(key);
      if (known) {
        const runs = new Map([...known.runs, ...group.runs].map((run) => [`${run.namespace}${SEP}${run.run_id}`, run]));
        known.runs = [...runs.values()].sort((a, b) => b.start - a.start);
        known.title = operationTitle(known.op, known.runs);
        continue;
      }
      this.edges.set(key, {from, to, op, runs: group.runs, label: operationLabel(op),
                           title: operationTitle(op, group.runs), indirect: (op.properties || {}).type === "INDIRECT"});
      const target = this.nodes.get(to);
      if (!target.endpoint && !target.madeBy.includes(operationLabel(op))) target.madeBy.push(operationLabel(op));
    }
  }

  index() {
    const incoming = new Map();
    const outgoing = new Map();
    for (const id of this.nodes.keys()) {
      incoming.set(id, []);
      outgoing.set(id, []);
    }
    for (const [key, edge] of this.edges) {
      outgoing.get(edge.from).push(key);
      incoming.get(edge.to).push(key);
    }
    return {incoming, outgoing};
  }

  /** Fold the copies a READ or WRITE makes of a dataset field (same name) into the dataset field itself. */
  simplify() {
    const {incoming, outgoing} = this.index();
    for (const node of [...this.nodes.values()]) {
      if (node.endpoint) continue;
      const ins = incoming.get(node.id);
      const outs = outgoing.get(node.id);
      let into = null;
      if (ins.length === 1) {
        const edge = this.edges.get(ins[0]);
        const source = this.nodes.get(edge.from);
        if (edge.op.type === "READ" && source.endpoint && source.label === node.label) into = {edgeKey: ins[0], keep: edge.from, side: "in"};
      }
      if (!into && outs.length === 1) {
        const edge = this.edges.get(outs[0]);
        const target = this.nodes.get(edge.to);
        if (edge.op.type === "WRITE" && target.endpoint && target.label === node.label) into = {edgeKey: outs[0], keep: edge.to, side: "out"};
      }
      if (!into) continue;
      this.edges.delete(into.edgeKey);
      const moving = into.side === "in" ? outs : ins;
      for (const key of moving) {
        const edge = this.edges.get(key);
        if (!edge) continue;
        this.edges.delete(key);
        const moved = into.side === "in" ? {...edge, from: into.keep} : {...edge, to: into.keep};
        const newKey = [moved.from, moved.to, moved.op.name].join(SEP);
        this.edges.set(newKey, moved);
        if (into.side === "in") outgoing.get(into.keep).push(newKey);
        else incoming.get(into.keep).push(newKey);
        const other = into.side === "in" ? incoming.get(moved.to) : outgoing.get(moved.from);
        const at = other.indexOf(key);
        if (at >= 0) other[at] = newKey;
      }
      this.nodes.delete(node.id);
    }
  }

  /** Leave the intermediate fields out: each dataset field connects straight to the dataset fields it reaches. */
  bypassSteps() {
    const {outgoing} = this.index();
    const direct = new Map();
    for (const node of this.nodes.values()) {
      if (!node.endpoint) continue;
      const stack = outgoing.get(node.id).map((key) => [key, []]);
      const seen = new Set();
      while (stack.length) {
        const [key, via] = stack.pop();
        const edge = this.edges.get(key);
        const target = this.nodes.get(edge.to);
        const path = [...via, edge];
        if (target.endpoint) {
          const linkKey = [node.id, target.id].join(SEP);
          const known = direct.get(linkKey) || {from: node.id, to: target.id, steps: [], indirect: false, runs: edge.runs};
          for (const step of path) if (!known.steps.includes(step.label)) known.steps.push(step.label);
          known.indirect = known.indirect || path.some((step) => step.indirect);
          direct.set(linkKey, known);
          continue;
        }
        if (seen.has(target.id)) continue;
        seen.add(target.id);
        for (const next of outgoing.get(target.id)) stack.push([next, path]);
      }
    }
    for (const node of [...this.nodes.values()]) if (!node.endpoint) this.nodes.delete(node.id);
    this.edges = new Map([...direct].map(([key, link]) => [key, {
      from: link.from, to: link.to, op: {name: link.steps.join(", "), properties: {}}, runs: link.runs,
      label: link.steps.length === 1 ? link.steps[0] : `${link.steps.length} steps`,
      title: `through ${link.steps.join(" → ")}`, indirect: link.indirect,
    }]));
  }

  /** Distinct neighbours of every node (fields feeding it, fields it feeds). */
  counts() {
    const preds = new Map();
    const succs = new Map();
    for (const edge of this.edges.values()) {
      if (!preds.has(edge.to)) preds.set(edge.to, new Set());
      if (!succs.has(edge.from)) succs.set(edge.from, new Set());
      preds.get(edge.to).add(edge.from);
      succs.get(edge.from).add(edge.to);
    }
    const size = (map) => new Map([...map].map(([id, set]) => [id, set.size]));
    return {in: size(preds), out: size(succs)};
  }
}
