// Draws a lineage graph as SVG and makes it usable with the mouse and the keyboard.
//
// The graph handed in is plain data: {nodes, edges, clusters}. Nodes: {id, label, sub?, cluster?, kind,
// openable?, more?: {back, fwd}, title?}; edges: {from, to, label, kind: "direct" | "indirect", title?};
// clusters: {id, label, kind}. The view adds what every lineage graph needs: clusters that collapse into
// one node, a trace that highlights one node's whole lineage in one direction and dims the rest, zoom,
// and keyboard navigation (one tab stop; arrows move along edges and within a column).

import {clear, h, s, textWidth} from "../dom.js";
import {layout} from "./layout.js";

const FONT = "13px system-ui, sans-serif";
const SMALL = "11px system-ui, sans-serif";
const LABEL_LIMIT = 160;  // above this many edges, no operation bubbles unless asked for
const ARROW = 14;

export const KEY_HELP = [
  ["← →", "move along edges to a source or a consumer"],
  ["↑ ↓", "move within a column"],
  ["Enter", "open the field"],
  ["b / f", "trace the whole lineage backward / forward"],
  ["Esc", "clear the trace"],
  ["1 / 2 / a", "load 1, 2 or all more levels from the field"],
  ["c", "collapse or expand the field's dataset"],
  ["+ / − / 0", "zoom in, out, fit"],
];

export class GraphView {
  constructor(host, options = {}) {
    this.host = host;
    this.options = options;
    this.collapsed = new Set(options.collapsed || []);
    this.traced = null;
    this.focusId = null;
    this.scale = 1;
    this.showLabels = null;  // null: automatic
    this.graph = {nodes: [], edges: [], clusters: []};
    this.size = {width: 0, height: 0};
    this.scroller = h("div", {class: "graph-scroll"});
    this.status = h("p", {class: "graph-status", "aria-live": "polite"});
    host.append(this.scroller, this.status);
  }

  render(graph) {
    this.graph = graph;
    if (this.traced && !graph.nodes.some((node) => node.id === this.traced.id)) this.traced = null;
    this.draw();
  }

  // ------------------------------------------------------------------ what is shown

  displayed() {
    const clusters = new Map(this.graph.clusters.map((c) => [c.id, c]));
    const stand = new Map();
    const nodes = [];
    const folded = new Map();
    for (const node of this.graph.nodes) {
      if (node.cluster && this.collapsed.has(node.cluster)) {
        const id = `cluster:${node.cluster}`;
        stand.set(node.id, id);
        if (!folded.has(id)) {
          const cluster = clusters.get(node.cluster) || {label: node.cluster};
          const item = {id, label: cluster.label, kind: "folded", clusterId: node.cluster, members: 0,
                        title: `${cluster.label}: collapsed; click to expand`};
          folded.set(id, item);
          nodes.push(item);
        }
        folded.get(id).members += 1;
      } else {
        stand.set(node.id, node.id);
        nodes.push(node);
      }
    }
    for (const item of folded.values()) item.sub = `${item.members} field${item.members === 1 ? "" : "s"}`;
    const edges = [];
    const byKey = new Map();
    for (const edge of this.graph.edges) {
      const from = stand.get(edge.from);
      const to = stand.get(edge.to);
      if (!from || !to || from === to) continue;
      const folding = from !== edge.from || to !== edge.to;
      const key = folding ? `${from}\u0000${to}` : `${from}\u0000${to}\u0000${edge.label}`;
      const known = byKey.get(key);
      if (known) {
        known.count += 1;
        if (edge.kind === "direct") known.kind = "direct";
        continue;
      }
      const item = {...edge, from, to, count: 1};
      byKey.set(key, item);
      edges.push(item);
    }
    for (const edge of edges) {
      if (edge.count > 1) edge.label = `${edge.count} operations`;
    }
    return {nodes, edges, clusters: this.graph.clusters};
  }

  // ------------------------------------------------------------------ drawing

  draw() {
    const started = performance.now();
    const {nodes, edges, clusters} = this.displayed();
    const labels = this.showLabels ?? edges.length <= LABEL_LIMIT;
    // one bubble per operation and the field it makes: the edges from its inputs meet there, one arrow leaves it
    const bubbles = new Map();
    if (labels) {
      for (const edge of edges) {
        if (!edge.label) continue;
        const key = `${edge.to}\u0000${edge.label}`;
        if (!bubbles.has(key)) {
          bubbles.set(key, {to: edge.to, label: edge.label, kind: "direct", edges: [], title: edge.title,
                            width: Math.ceil(textWidth(edge.label, SMALL) + 14)});
        }
        const bubble = bubbles.get(key);
        bubble.edges.push(edge);
        if (edge.kind === "indirect") bubble.kind = "indirect";
      }
    }
    const inset = new Map();
    const perTarget = new Map();
    for (const bubble of bubbles.values()) perTarget.set(bubble.to, (perTarget.get(bubble.to) || 0) + 1);
    for (const bubble of bubbles.values()) {
      inset.set(bubble.to, Math.max(inset.get(bubble.to) || 0, bubble.width + ARROW + 16));
    }
    const sized = nodes.map((node) => {
      const width = Math.max(56, textWidth(node.label, FONT) + 30, node.sub ? textWidth(node.sub, SMALL) + 30 : 0);
      return {id: node.id, width: Math.ceil(width), height: node.sub ? 36 : 26, inset: inset.get(node.id) || 0,
              cluster: node.kind === "folded" ? null : node.cluster || null};
    });
    const placed = layout(sized, edges, {layerGap: labels ? 50 : 80});
    const laidOut = performance.now();
    this.nodes = new Map(nodes.map((node, i) => [node.id, {...node, ...sized[i], ...placed.positions.get(node.id)}]));
    this.edges = edges;
    this.layers = placed.layers.map((list) => list.map((i) => nodes[i].id));
    this.size = {width: placed.width, height: placed.height};
    this.neighbours();

    const svg = s("svg", {class: "graph", role: "group", "aria-label": this.options.label || "Lineage graph",
                          viewBox: `0 0 ${placed.width} ${placed.height}`});
    svg.append(s("defs", {},
      s("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 9, markerHeight: 9,
                   markerUnits: "userSpaceOnUse", orient: "auto-start-reverse"},
        s("path", {d: "M0,0 L10,5 L0,10 z", class: "arrow"})),
      s("marker", {id: "arrow-indirect", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 9,
                   markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse"},
        s("path", {d: "M0,0 L10,5 L0,10 z", class: "arrow indirect"}))));
    const clusterLayer = s("g", {class: "clusters"});
    const edgeLayer = s("g", {class: "edges"});
    const labelLayer = s("g", {class: "edge-labels"});
    const nodeLayer = s("g", {class: "nodes"});
    svg.append(clusterLayer, edgeLayer, labelLayer, nodeLayer);

    const clusterInfo = new Map(clusters.map((c) => [c.id, c]));
    const headed = new Set();
    for (const box of placed.clusters) {
      const info = clusterInfo.get(box.id) || {label: box.id, kind: "dataset"};
      const first = !headed.has(box.id);
      headed.add(box.id);
      box.width = Math.max(box.width, Math.ceil(textWidth(first ? info.label : `${info.label} (cont.)`, SMALL) + 44));
      const toggle = s("g", {class: "toggle", role: "button", tabindex: 0, "aria-expanded": "true",
                              "aria-label": `Collapse ${info.label}`, transform: `translate(${box.width - 20}, 4)`},
        s("rect", {width: 16, height: 14, rx: 3}), s("text", {x: 8, y: 11, "text-anchor": "middle"}, "−"));
      toggle.addEventListener("click", () => this.toggleCluster(box.id));
      toggle.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          this.toggleCluster(box.id);
        }
      });
      clusterLayer.append(s("g", {class: `cluster ${info.kind || "dataset"}`, transform: `translate(${box.x}, ${box.y})`,
                                  "data-cluster": box.id},
        s("rect", {width: box.width, height: box.height, rx: 8}),
        s("text", {x: 8, y: 15, class: "cluster-label"}, first ? info.label : `${info.label} (cont.)`),
        info.collapsible === false ? null : toggle));
    }

    this.edgeEls = [];
    const bubbleAt = new Map();
    const stacked = new Map();
    for (const [key, bubble] of bubbles) {
      const b = this.nodes.get(bubble.to);
      const index = stacked.get(bubble.to) || 0;
      stacked.set(bubble.to, index + 1);
      const count = perTarget.get(bubble.to);
      const y = b.y + b.height / 2 + (index - (count - 1) / 2) * 22;
      const right = b.x - ARROW;
      bubbleAt.set(key, {left: right - bubble.width, right, y});
    }
    const curve = (x1, y1, x2, y2, below, via) => {
      if (x2 <= x1 + 4) return `M${x1},${y1} C${x1 + 60},${below} ${x2 - 60},${below} ${x2},${y2}`;  // loop below
      const points = [[x1, y1], ...(via || []), [x2, y2]];
      let d = `M${x1},${y1}`;
      for (let i = 1; i < points.length; i++) {
        const [px, py] = points[i - 1];
        const [qx, qy] = points[i];
        if (i % 2 === 0 && i < points.length - 1) {
          d += ` L${qx},${qy}`;  // straight across a layer, between the placeholder's two points
        } else {
          const dx = (qx - px) / 2;
          d += ` C${px + dx},${py} ${qx - dx},${qy} ${qx},${qy}`;
        }
      }
      return d;
    };
    for (const edge of edges) {
      const a = this.nodes.get(edge.from);
      const b = this.nodes.get(edge.to);
      const kind = edge.kind === "indirect" ? "indirect" : "direct";
      const spot = edge.label ? bubbleAt.get(`${edge.to}\u0000${edge.label}`) : null;
      const x1 = a.x + a.width;
      const y1 = a.y + a.height / 2;
      const x2 = spot ? spot.left : b.x;
      const y2 = spot ? spot.y : b.y + b.height / 2;
      const below = Math.max(a.y + a.height, b.y + b.height) + 30;
      const via = placed.routes.get(`${edge.from}\u0000${edge.to}`);
      const path = s("path", {class: `edge ${kind}`, d: curve(x1, y1, x2, y2, below, via),
                              "marker-end": spot ? null : kind === "indirect" ? "url(#arrow-indirect)" : "url(#arrow)"},
        s("title", {}, edge.title || edge.label || ""));
      edgeLayer.append(path);
      this.edgeEls.push({edge, path});
    }
    this.bubbleEls = [];
    for (const [key, bubble] of bubbles) {
      const spot = bubbleAt.get(key);
      const b = this.nodes.get(bubble.to);
      const kind = bubble.kind;
      const group = s("g", {class: `edge-label ${kind}`},
        s("title", {}, bubble.title || bubble.label),
        s("path", {class: `edge ${kind}`, d: `M${spot.right},${spot.y} L${b.x},${b.y + b.height / 2}`,
                   "marker-end": kind === "indirect" ? "url(#arrow-indirect)" : "url(#arrow)"}),
        s("rect", {x: spot.left, y: spot.y - 9, width: bubble.width, height: 18, rx: 9}),
        s("text", {x: spot.left + bubble.width / 2, y: spot.y + 4, "text-anchor": "middle"}, bubble.label));
      labelLayer.append(group);
      this.bubbleEls.push({bubble, el: group});
    }

    this.nodeEls = new Map();
    for (const node of this.nodes.values()) nodeLayer.append(this.nodeElement(node));
    if (!this.focusId || !this.nodes.has(this.focusId)) {
      this.focusId = this.options.rootId && this.nodes.has(this.options.rootId) ? this.options.rootId
        : (nodes[0] ? nodes[0].id : null);
    }
    if (this.focusId) this.nodeEls.get(this.focusId).setAttribute("tabindex", "0");
    svg.addEventListener("keydown", (event) => this.onKey(event));

    const hadFocus = this.scroller.contains(document.activeElement);
    clear(this.scroller).append(svg);
    this.svg = svg;
    if (hadFocus && this.focusId) this.nodeEls.get(this.focusId).focus({preventScroll: true});  // redrawn, not moved
    this.applyScale();
    this.applyTrace();
    const drawn = performance.now();
    this.timing = {layoutMs: laidOut - started, renderMs: drawn - laidOut, nodes: nodes.length, edges: edges.length};
    svg.dataset.layoutMs = this.timing.layoutMs.toFixed(1);
    svg.dataset.renderMs = this.timing.renderMs.toFixed(1);
    svg.dataset.nodes = String(nodes.length);
    svg.dataset.edges = String(edges.length);
    this.status.textContent = `${nodes.length} nodes, ${edges.length} edges; laid out in ` +
      `${this.timing.layoutMs.toFixed(0)} ms, drawn in ${this.timing.renderMs.toFixed(0)} ms.`;
    if (this.options.onDrawn) this.options.onDrawn(this.timing);
  }

  nodeElement(node) {
    const classes = ["node", node.kind || "field"];
    if (node.id === this.options.rootId) classes.push("root");
    const g = s("g", {class: classes.join(" "), transform: `translate(${node.x}, ${node.y})`, tabindex: -1,
                      role: "button", "data-id": node.id, "aria-label": node.aria || node.title || node.label},
      s("title", {}, node.title || node.label),
      s("rect", {width: node.width, height: node.height, rx: node.height / 2}),
      s("text", {x: 15, y: 17, class: "label"}, node.label),
      node.sub ? s("text", {x: 15, y: 30, class: "sub"}, node.sub) : null);
    const more = node.more || {};
    if (more.back) g.append(this.moreButton(node, "back", -9));
    if (more.fwd) g.append(this.moreButton(node, "fwd", node.width + 9));
    g.addEventListener("click", (event) => {
      if (event.target.closest(".more")) return;
      this.setFocus(node.id, false);
      if (node.kind === "folded") this.toggleCluster(node.clusterId);
      else if (node.openable && this.options.onOpen) this.options.onOpen(node);
      else this.select(node.id);
    });
    g.addEventListener("focus", () => {
      this.setFocus(node.id, false);  // the one tab stop follows the focus, however it got there
      this.select(node.id);
    });
    this.nodeEls.set(node.id, g);
    return g;
  }

  moreButton(node, direction, x) {
    const label = direction === "back" ? "Load the sources of" : "Load the consumers of";
    const button = s("g", {class: `more ${direction}`, transform: `translate(${x}, ${node.height / 2})`,
                           "aria-hidden": "true"},
      s("title", {}, `${label} ${node.label} (shift-click: all levels)`),
      s("circle", {r: 8}), s("text", {y: 4, "text-anchor": "middle"}, "+"));
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      if (this.options.onExpand) this.options.onExpand(node, direction, event.shiftKey ? Infinity : 1);
    });
    return button;
  }

  neighbours() {
    this.preds = new Map();
    this.succs = new Map();
    for (const id of this.nodes.keys()) {
      this.preds.set(id, []);
      this.succs.set(id, []);
    }
    for (const edge of this.edges) {
      this.succs.get(edge.from).push(edge.to);
      this.preds.get(edge.to).push(edge.from);
    }
  }

  // ------------------------------------------------------------------ selection, trace, collapse, zoom

  select(id) {
    for (const el of this.scroller.querySelectorAll(".node.selected")) el.classList.remove("selected");
    const el = this.nodeEls.get(id);
    if (el) el.classList.add("selected");
    if (this.options.onSelect) this.options.onSelect(this.nodes.get(id));
  }

  setFocus(id, focus = true) {
    const previous = this.nodeEls.get(this.focusId);
    if (previous) previous.setAttribute("tabindex", "-1");
    this.focusId = id;
    const el = this.nodeEls.get(id);
    if (!el) return;
    el.setAttribute("tabindex", "0");
    if (focus) {
      el.focus({preventScroll: true});
      this.reveal(id);
    }
  }

  reveal(id) {
    const node = this.nodes.get(id);
    if (!node) return;
    const box = this.scroller;
    const x = node.x * this.scale;
    const y = node.y * this.scale;
    if (x < box.scrollLeft || x + node.width * this.scale > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = x - box.clientWidth / 3;
    }
    if (y < box.scrollTop || y + node.height * this.scale > box.scrollTop + box.clientHeight) {
      box.scrollTop = y - box.clientHeight / 3;
    }
  }

  /** Highlight one node's lineage in one direction ("back" or "fwd") and dim the rest; null clears. */
  trace(id, direction) {
    this.traced = id ? {id, direction} : null;
    this.applyTrace();
  }

  pathOf(id, direction) {
    const next = direction === "back" ? this.preds : this.succs;
    const seen = new Set([id]);
    const stack = [id];
    while (stack.length) {
      for (const other of next.get(stack.pop()) || []) {
        if (!seen.has(other)) {
          seen.add(other);
          stack.push(other);
        }
      }
    }
    return seen;
  }

  applyTrace() {
    if (!this.svg) return;
    const traced = this.traced && this.nodes.has(this.traced.id) ? this.traced : null;
    this.svg.classList.toggle("tracing", Boolean(traced));
    const onPath = traced ? this.pathOf(traced.id, traced.direction) : new Set();
    for (const [id, el] of this.nodeEls) el.classList.toggle("on-path", onPath.has(id));
    for (const {edge, path} of this.edgeEls) path.classList.toggle("on-path", onPath.has(edge.from) && onPath.has(edge.to));
    for (const {bubble, el} of this.bubbleEls) {
      const on = onPath.has(bubble.to) && bubble.edges.some((edge) => onPath.has(edge.from));
      el.classList.toggle("on-path", on);
      for (const path of el.querySelectorAll("path")) path.classList.toggle("on-path", on);
    }
    if (traced) {
      this.status.textContent = `Tracing ${this.nodes.get(traced.id).label} ${traced.direction === "back"
        ? "backward" : "forward"}: ${onPath.size - 1} field${onPath.size === 2 ? "" : "s"} on the path.`;
    }
    if (this.options.onTrace) this.options.onTrace(traced, onPath);
  }

  toggleCluster(id) {
    if (this.collapsed.has(id)) this.collapsed.delete(id);
    else this.collapsed.add(id);
    if (this.focusId && !this.nodes.has(this.focusId)) this.focusId = null;
    this.draw();
    const folded = `cluster:${id}`;
    if (this.nodes.has(folded)) this.setFocus(folded);
    if (this.options.onCollapse) this.options.onCollapse(id, this.collapsed.has(id));
  }

  zoom(factor) {
    this.scale = Math.min(3, Math.max(0.1, this.scale * factor));
    this.applyScale();
  }

  fit() {
    const width = this.scroller.clientWidth || 800;
    const height = this.scroller.clientHeight || 600;
    this.scale = Math.min(1, Math.max(0.1, Math.min(width / this.size.width, height / this.size.height)));
    this.applyScale();
  }

  /** Shrink a graph wider than its box to fit, but never below 70 %: labels stay readable. */
  fitWide() {
    const width = this.scroller.clientWidth || 800;
    if (this.size.width > width) {
      this.scale = Math.max(0.7, width / this.size.width);
      this.applyScale();
    }
  }

  applyScale() {
    if (!this.svg) return;
    this.svg.setAttribute("width", String(Math.ceil(this.size.width * this.scale)));
    this.svg.setAttribute("height", String(Math.ceil(this.size.height * this.scale)));
  }

  setLabels(show) {
    this.showLabels = show;
    this.draw();
  }

  // ------------------------------------------------------------------ keyboard

  onKey(event) {
    const id = this.focusId;
    if (!id || !this.nodes.has(id)) return;
    const node = this.nodes.get(id);
    const step = (target) => {
      if (target) this.setFocus(target);
      event.preventDefault();
    };
    const nearest = (ids) => {
      let best = null;
      let distance = Infinity;
      for (const other of ids) {
        const d = Math.abs(this.nodes.get(other).y - node.y);
        if (d < distance) {
          best = other;
          distance = d;
        }
      }
      return best;
    };
    const column = this.layers[node.layer] || [];
    const at = column.indexOf(id);
    switch (event.key) {
      case "ArrowLeft": return step(nearest(this.preds.get(id)));
      case "ArrowRight": return step(nearest(this.succs.get(id)));
      case "ArrowUp": return step(column[at - 1]);
      case "ArrowDown": return step(column[at + 1]);
      case "Enter":
        event.preventDefault();
        if (node.kind === "folded") this.toggleCluster(node.clusterId);
        else if (node.openable && this.options.onOpen) this.options.onOpen(node);
        return;
      case "b": this.trace(id, "back"); event.preventDefault(); if (this.options.onTraceRequest) this.options.onTraceRequest(node, "back"); return;
      case "f": this.trace(id, "fwd"); event.preventDefault(); if (this.options.onTraceRequest) this.options.onTraceRequest(node, "fwd"); return;
      case "Escape": this.trace(null); event.preventDefault(); return;
      case "1": case "2": case "a": {
        event.preventDefault();
        const levels = event.key === "a" ? Infinity : Number(event.key);
        const more = node.more || {};
        if (this.options.onExpand) {
          if (more.back || !more.fwd) this.options.onExpand(node, "back", levels);
          if (more.fwd) this.options.onExpand(node, "fwd", levels);
        }
        return;
      }
      case "c":
        event.preventDefault();
        if (node.kind === "folded") this.toggleCluster(node.clusterId);
        else if (node.cluster) this.toggleCluster(node.cluster);
        return;
      case "+": case "=": this.zoom(1.25); event.preventDefault(); return;
      case "-": this.zoom(0.8); event.preventDefault(); return;
      case "0": this.fit(); event.preventDefault(); return;
      default:
    }
  }
}
