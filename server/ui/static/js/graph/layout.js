// A layered (Sugiyama-style) layout for lineage graphs, left to right: sources left, consumers right.
//
// 1. layers: longest path from the sources, cycles broken where a topological sort stalls;
// 2. the fields of one dataset (a cluster) share a layer, so a dataset is one column with a box around it;
// 3. order within a layer: barycentre sweeps (the mean position of a node's neighbours), clusters kept together;
// 4. coordinates: layers stacked left to right, each layer shifted as a block towards its neighbours.
// Every step is linear or n·log n in nodes and edges, so a 500-field graph takes milliseconds, not seconds.

const DEFAULTS = {layerGap: 90, nodeGap: 10, clusterGap: 22, clusterPad: 10, clusterHeader: 22, margin: 24, sweeps: 8};

/**
 * nodes: [{id, width, height, cluster?, inset?}] (inset: room to keep free left of the node), edges: [{from, to}] (ids; unknown ids are ignored).
 * Returns {positions: Map(id -> {x, y, layer}), clusters: [{id, layer, x, y, width, height}], width, height}.
 */
export function layout(nodes, edges, options = {}) {
  const o = {...DEFAULTS, ...options};
  const n = nodes.length;
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const succ = Array.from({length: n}, () => []);
  const pred = Array.from({length: n}, () => []);
  const seen = new Set();
  for (const edge of edges) {
    const a = index.get(edge.from);
    const b = index.get(edge.to);
    if (a === undefined || b === undefined || a === b) continue;
    const key = a * n + b;
    if (seen.has(key)) continue;
    seen.add(key);
    succ[a].push(b);
    pred[b].push(a);
  }

  const {order, back} = topologicalOrder(n, succ, pred);
  const forwardPred = pred.map((list, v) => list.filter((u) => !back.has(u * n + v)));
  const forwardSucc = succ.map((list, u) => list.filter((v) => !back.has(u * n + v)));
  const clusterOf = nodes.map((node) => node.cluster ?? null);
  const realLayer = assignLayers(order, forwardPred, forwardSucc, clusterOf);

  // an edge longer than one layer passes through a placeholder in every layer it crosses, so it is routed
  // around the nodes there instead of through them
  const all = [...nodes];
  const layer = Array.from(realLayer);
  const chains = new Map();
  const dPred = forwardPred.map((list) => [...list]);
  const dSucc = forwardSucc.map((list) => [...list]);
  const fullOrder = [...order];
  for (const u of order) {
    for (const v of forwardSucc[u]) {
      if (layer[v] - layer[u] <= 1) continue;
      dSucc[u] = dSucc[u].filter((w) => w !== v);
      dPred[v] = dPred[v].filter((w) => w !== u);
      const chain = [];
      let previous = u;
      for (let l = layer[u] + 1; l < layer[v]; l++) {
        const d = all.length;
        all.push({id: null, width: 0, height: 6, dummy: true});
        layer.push(l);
        clusterOf.push(null);
        dPred.push([previous]);
        dSucc.push([]);
        dSucc[previous].push(d);
        chain.push(d);
        fullOrder.push(d);
        previous = d;
      }
      dSucc[previous].push(v);
      dPred[v].push(previous);
      chains.set(u * n + v, chain);
    }
  }
  const layers = orderWithinLayers(fullOrder, layer, dPred, dSucc, clusterOf, o.sweeps);
  const result = coordinates(all, layers, layer, dPred, dSucc, clusterOf, o);
  // waypoints of the long edges: across each crossed layer at the placeholder's height
  const routes = new Map();
  for (const [key, chain] of chains) {
    const u = Math.floor(key / n);
    const v = key % n;
    const points = [];
    for (const d of chain) {
      const at = result.placed[d];
      points.push([at.x, at.y + 3], [at.x + result.layerWidth[layer[d]], at.y + 3]);
    }
    routes.set(`${nodes[u].id}\u0000${nodes[v].id}`, points);
  }
  result.routes = routes;
  result.layers = layers.map((list) => list.filter((v) => v < n));
  delete result.placed;
  return result;
}

function topologicalOrder(n, succ, pred) {
  const indegree = pred.map((list) => list.length);
  const done = new Uint8Array(n);
  const order = [];
  const back = new Set();
  let queue = [];
  for (let v = 0; v < n; v++) if (indegree[v] === 0) queue.push(v);
  let scan = 0;
  while (order.length < n) {
    if (queue.length === 0) {
      // a cycle: take the first node left and treat its remaining incoming edges as back edges
      while (done[scan]) scan++;
      const v = scan;
      for (const u of pred[v]) if (!done[u]) back.add(u * n + v);
      indegree[v] = 0;
      queue.push(v);
    }
    const next = [];
    for (const v of queue) {
      if (done[v]) continue;
      done[v] = 1;
      order.push(v);
      for (const w of succ[v]) {
        if (done[w] || back.has(v * n + w)) continue;
        if (--indegree[w] === 0) next.push(w);
      }
    }
    queue = next;
  }
  return {order, back};
}

function longestPath(order, forwardPred, lowerBound) {
  const layer = new Int32Array(order.length);
  for (const v of order) {
    let value = lowerBound[v];
    for (const u of forwardPred[v]) value = Math.max(value, layer[u] + 1);
    layer[v] = value;
  }
  return layer;
}

function assignLayers(order, forwardPred, forwardSucc, clusterOf) {
  const n = order.length;
  const lowerBound = new Int32Array(n);
  let layer = longestPath(order, forwardPred, lowerBound);
  const members = new Map();
  for (let v = 0; v < n; v++) {
    if (clusterOf[v] === null) continue;
    if (!members.has(clusterOf[v])) members.set(clusterOf[v], []);
    members.get(clusterOf[v]).push(v);
  }
  // a dataset's fields in one column: raise every member to the cluster's deepest layer, then settle
  for (let round = 0; round < 4; round++) {
    let moved = false;
    for (const list of members.values()) {
      const target = Math.max(...list.map((v) => layer[v]));
      for (const v of list) {
        if (lowerBound[v] < target) {
          lowerBound[v] = target;
          moved = true;
        }
      }
    }
    if (!moved) break;
    layer = longestPath(order, forwardPred, lowerBound);
  }
  // sources sit right before their first consumer (a whole cluster of sources moves together)
  const pulled = (list) => {
    if (list.some((v) => forwardPred[v].length > 0)) return;
    let limit = Infinity;
    for (const v of list) for (const w of forwardSucc[v]) limit = Math.min(limit, layer[w] - 1);
    if (!Number.isFinite(limit)) return;
    for (const v of list) if (limit > layer[v]) layer[v] = limit;
  };
  for (let i = order.length - 1; i >= 0; i--) {
    const v = order[i];
    if (clusterOf[v] === null) pulled([v]);
  }
  for (const list of members.values()) pulled(list);
  return layer;
}

function orderWithinLayers(order, layer, forwardPred, forwardSucc, clusterOf, sweeps) {
  const count = Math.max(0, ...Array.from(layer)) + 1;
  const layers = Array.from({length: count}, () => []);
  for (const v of order) layers[layer[v]].push(v);
  const position = new Float64Array(order.length);
  const place = () => {
    for (const list of layers) list.forEach((v, i) => { position[v] = (i + 0.5) / list.length; });
  };
  place();
  const sortLayer = (list, neighbours) => {
    const key = new Map();
    for (const v of list) {
      const near = neighbours[v];
      if (near.length === 0) {
        key.set(v, position[v]);
        continue;
      }
      let sum = 0;
      for (const u of near) sum += position[u];
      key.set(v, sum / near.length);
    }
    const groupKey = new Map();
    const groups = new Map();
    for (const v of list) {
      const group = clusterOf[v] === null ? `#${v}` : clusterOf[v];
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push(key.get(v));
    }
    for (const [group, keys] of groups) groupKey.set(group, keys.reduce((a, b) => a + b, 0) / keys.length);
    const group = (v) => (clusterOf[v] === null ? `#${v}` : clusterOf[v]);
    list.sort((a, b) => (groupKey.get(group(a)) - groupKey.get(group(b))) || (key.get(a) - key.get(b)) || (a - b));
  };
  for (let sweep = 0; sweep < sweeps; sweep++) {
    if (sweep % 2 === 0) {
      for (let l = 1; l < layers.length; l++) {
        sortLayer(layers[l], forwardPred);
        layers[l].forEach((v, i) => { position[v] = (i + 0.5) / layers[l].length; });
      }
    } else {
      for (let l = layers.length - 2; l >= 0; l--) {
        sortLayer(layers[l], forwardSucc);
        layers[l].forEach((v, i) => { position[v] = (i + 0.5) / layers[l].length; });
      }
    }
  }
  return layers;
}

function coordinates(nodes, layers, layer, forwardPred, forwardSucc, clusterOf, o) {
  const n = nodes.length;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  let left = o.margin;
  const layerX = [];
  const layerWidth = [];
  for (const list of layers) {
    left += Math.max(0, ...list.map((v) => nodes[v].inset || 0));  // room for what is drawn left of a node
    layerX.push(left);
    const widest = Math.max(0, ...list.map((v) => nodes[v].width));
    const clustered = list.some((v) => clusterOf[v] !== null);
    layerWidth.push(widest + (clustered ? 2 * o.clusterPad : 0));
    left += widest + o.layerGap + (clustered ? 2 * o.clusterPad : 0);
  }
  // stack each layer top to bottom, a gap and a header before each cluster
  for (let l = 0; l < layers.length; l++) {
    let top = 0;
    let previous = undefined;
    for (const v of layers[l]) {
      const cluster = clusterOf[v];
      if (cluster !== previous) {
        if (previous !== undefined) top += (previous !== null ? o.clusterPad : 0) + o.clusterGap;
        if (cluster !== null) top += o.clusterHeader + o.clusterPad;
      }
      x[v] = layerX[l] + (cluster !== null ? o.clusterPad : 0);
      y[v] = top;
      top += nodes[v].height + o.nodeGap;
      previous = cluster;
    }
  }
  // shift each layer as a block towards the nodes it connects to: right then left, twice
  const centre = (v) => y[v] + nodes[v].height / 2;
  const shiftLayer = (list, neighbours) => {
    const offsets = [];
    for (const v of list) {
      if (neighbours[v].length === 0) continue;
      let sum = 0;
      for (const u of neighbours[v]) sum += centre(u);
      offsets.push(sum / neighbours[v].length - centre(v));
    }
    if (offsets.length === 0) return;
    offsets.sort((a, b) => a - b);
    const shift = offsets[Math.floor(offsets.length / 2)];
    for (const v of list) y[v] += shift;
  };
  for (let pass = 0; pass < 2; pass++) {
    for (let l = 1; l < layers.length; l++) shiftLayer(layers[l], forwardPred);
    for (let l = layers.length - 2; l >= 0; l--) shiftLayer(layers[l], forwardSucc);
  }
  // clusters: one box per (cluster, layer)
  const boxes = new Map();
  for (let v = 0; v < n; v++) {
    if (clusterOf[v] === null) continue;
    const key = `${clusterOf[v]}\u0000${layer[v]}`;
    const box = boxes.get(key) || {id: clusterOf[v], layer: layer[v], top: Infinity, bottom: -Infinity, width: 0};
    box.top = Math.min(box.top, y[v]);
    box.bottom = Math.max(box.bottom, y[v] + nodes[v].height);
    box.width = Math.max(box.width, nodes[v].width);
    boxes.set(key, box);
  }
  const clusters = [...boxes.values()].map((box) => ({
    id: box.id, layer: box.layer, x: layerX[box.layer], y: box.top - o.clusterPad - o.clusterHeader,
    width: box.width + 2 * o.clusterPad, height: box.bottom - box.top + 2 * o.clusterPad + o.clusterHeader,
  }));
  let minY = Infinity;
  let maxY = -Infinity;
  for (let v = 0; v < n; v++) {
    minY = Math.min(minY, y[v]);
    maxY = Math.max(maxY, y[v] + nodes[v].height);
  }
  for (const box of clusters) {
    minY = Math.min(minY, box.y);
    maxY = Math.max(maxY, box.y + box.height);
  }
  if (!Number.isFinite(minY)) minY = maxY = 0;
  const dy = o.margin - minY;
  const positions = new Map();
  const placed = [];
  for (let v = 0; v < n; v++) {
    placed.push({x: x[v], y: y[v] + dy});
    if (!nodes[v].dummy) positions.set(nodes[v].id, {x: x[v], y: y[v] + dy, layer: layer[v]});
  }
  for (const box of clusters) box.y += dy;
  return {positions, placed, layerWidth, clusters, width: left - o.layerGap + o.margin, height: maxY - minY + 2 * o.margin};
}
