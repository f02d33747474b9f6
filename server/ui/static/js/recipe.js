// A run's recipe as far as its lineage records it, and the directive tree of a column as graph data.
//
// A run stores, per output column, the tree of directives that made it, and one operation per directive and
// output column (with the directive's text and line). Directives that made no output column (a `drop`, say)
// appear in neither, so the recipe shown is the recorded directives in order, with the gaps marked.

const OPERATION = /^d(\d+)\.([^.]+)\./;

function walk(node, visit) {
  const stack = [node];
  while (stack.length) {
    const item = stack.pop();
    if (!item || typeof item !== "object") continue;
    visit(item);
    for (const child of item.upstream || []) stack.push(child);
    for (const child of item.influences || []) stack.push(child);
  }
}

/** [{index, line, text, name}] in recipe order: every directive the run's lineage mentions. */
export function recordedDirectives(record) {
  const found = new Map();
  const add = (directive) => {
    if (!directive || typeof directive !== "object" || !directive.index || found.has(directive.index)) return;
    found.set(directive.index, {index: directive.index, line: directive.line, text: directive.text, name: directive.name});
  };
  for (const op of record.operations || []) {
    const match = OPERATION.exec(op.name);
    const p = op.properties || {};
    if (match && p.directive) add({index: Number(match[1]), line: Number(p.line) || null, text: p.directive, name: match[2]});
  }
  for (const tree of Object.values(record.column_trees || {})) walk(tree, (node) => add(node.directive));
  return [...found.values()].sort((a, b) => a.index - b.index);
}

/** Indexes of the directives on a column's tree: {direct: Set, indirect: Set}. */
export function treeDirectives(tree) {
  const direct = new Set();
  const indirect = new Set();
  const stack = [tree];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== "object") continue;
    if (node.directive && typeof node.directive === "object" && node.directive.index) direct.add(node.directive.index);
    for (const child of node.upstream || []) stack.push(child);
  }
  for (const influence of tree.influences || []) {
    walk(influence, (node) => {
      if (node.directive && typeof node.directive === "object" && node.directive.index) indirect.add(node.directive.index);
    });
  }
  return {direct, indirect};
}

function directiveText(node) {
  const d = node.directive;
  if (!d) return null;
  if (typeof d === "string") return d;
  return `#${d.index} ${d.name || ""}`.trim();
}

/** A column's stored tree as {nodes, edges}: the column's versions right to left, sources leftmost. */
export function treeGraph(tree, {sourceDataset} = {}) {
  const nodes = new Map();
  const edges = [];
  const seenEdges = new Set();
  const idOf = (node) => {
    const d = node.directive;
    const step = d && typeof d === "object" ? d.index : (typeof d === "string" ? d : "source");
    return `${node.column}\u0001${step}`;
  };
  const addNode = (node, extra = {}) => {
    const id = idOf(node);
    if (!nodes.has(id)) {
      const d = node.directive;
      const isLeaf = !d;
      const label = String(node.column ?? "?");
      let sub = isLeaf ? (node.label === "UNRESOLVED" ? "unresolved input" : "source column") : directiveText(node);
      if (!isLeaf && node.label) sub += ` · ${node.label}`;
      nodes.set(id, {
        id, label, sub, kind: isLeaf ? "field" : "step",
        directive: d && typeof d === "object" ? d : null,
        openable: Boolean(isLeaf && sourceDataset && node.label !== "UNRESOLVED"),
        endpoint: isLeaf && sourceDataset ? {...sourceDataset, field: label} : null,
        title: isLeaf ? `${label}: ${sub}` : `${label} made by ${d && d.text ? d.text : directiveText(node)}` +
          (d && d.line ? ` (line ${d.line})` : "") + (node.type ? `\n${node.type} ${node.subtype || ""}` : ""),
        ...extra,
      });
    }
    return id;
  };
  const link = (from, to, kind, label) => {
    const key = `${from}\u0000${to}`;
    if (seenEdges.has(key)) return;
    seenEdges.add(key);
    edges.push({from, to, kind, label});
  };
  const visited = new Set();
  const descend = (start) => {
    const stack = [start];
    while (stack.length) {
      const node = stack.pop();
      const id = idOf(node);
      if (visited.has(id)) continue;
      visited.add(id);
      for (const child of node.upstream || []) {
        link(addNode(child), id, node.type === "INDIRECT" ? "indirect" : "direct", "");
        stack.push(child);
      }
    }
  };
  let rootId;
  if (tree.directive) {
    rootId = addNode(tree, {root: true});
  } else {
    // a column no directive touched: the input column and the output column are two nodes (a filter that
    // reads the column and chooses its rows would otherwise point back at its own input)
    rootId = `output\u0001${tree.column}`;
    nodes.set(rootId, {id: rootId, label: String(tree.column), sub: "unchanged", kind: "output", root: true,
                       title: `${tree.column}: the input column, unchanged`});
    link(addNode(tree), rootId, "direct", "");
  }
  descend(tree);
  for (const influence of tree.influences || []) {
    const d = influence.directive || {};
    const id = `influence\u0001${d.index}`;
    if (!nodes.has(id)) {
      nodes.set(id, {id, label: `#${d.index} ${d.name || ""}`.trim(), sub: `${influence.subtype || "INDIRECT"} (rows)`,
                     kind: "influence", directive: d.index ? d : null,
                     title: `${d.text || ""}${d.line ? ` (line ${d.line})` : ""}: an indirect influence on every row`});
    }
    link(id, rootId, "indirect", "");
    for (const child of influence.upstream || []) {
      link(addNode(child), id, "indirect", "");
      descend(child);
    }
  }
  return {nodes: [...nodes.values()], edges, clusters: [], rootId};
}
