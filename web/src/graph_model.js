// The user's ONNX graph for the graph view: nodes and edges from the analysis (tensor names), cut into segments
// along the topological order where few edges cross, each segment laid out top-down by dagre when it is first
// needed (then the rest in the background), so a 5,000-node model opens at once. Subgraph nodes (If/Loop/Scan
// bodies) are collapsed into their top-level node until expanded. Coordinates are graph pixels at zoom 1.
const GRAPH_NODE_W = 150, GRAPH_NODE_H = 26, GRAPH_RANK_GAP = 22, GRAPH_NODE_GAP = 14, GRAPH_SEGMENT_GAP = 36;
const GRAPH_SEGMENT = 80;  // nodes per segment, about; dagre's cost grows faster than linearly with it

function graphTopParent(path) {
  if (!path || !path.startsWith('main/')) return '';
  const rest = path.slice(5);
  const colon = rest.indexOf(':');
  return colon < 0 ? rest : rest.slice(0, colon);
}

function buildGraphModel(view) {
  const nodes = view.nodes;
  const main = [], subOf = new Map();  // main node index -> indices of the nodes of its subgraphs (all depths)
  const mainByName = new Map();
  nodes.forEach((n, i) => { if ((n.graph || 'main') === 'main') { mainByName.set(n.name, i); main.push(i); } });
  nodes.forEach((n, i) => {
    if ((n.graph || 'main') === 'main') return;
    const p = mainByName.get(graphTopParent(n.graph));
    if (p === undefined) return;
    if (!subOf.has(p)) subOf.set(p, []);
    subOf.get(p).push(i);
  });
  // Edges inside each graph: the producer of each tensor a node reads.
  const producers = new Map();  // graph path -> Map(tensor -> node index)
  nodes.forEach((n, i) => {
    const g = n.graph || 'main';
    if (!producers.has(g)) producers.set(g, new Map());
    for (const t of n.outputs || []) producers.get(g).set(t, i);
  });
  const preds = nodes.map(() => []), succs = nodes.map(() => []);
  nodes.forEach((n, j) => {
    const own = producers.get(n.graph || 'main');
    for (const t of n.inputs || []) {
      const i = own.get(t);
      if (i !== undefined && i !== j && !preds[j].includes(i)) { preds[j].push(i); succs[i].push(j); }
    }
  });
  const order = new Int32Array(nodes.length).fill(-1);  // main node -> its position in `main`
  main.forEach((i, k) => { order[i] = k; });
  const model = {nodes, main, subOf, preds, succs, order, segments: [], segOf: new Int32Array(nodes.length).fill(-1),
    x: new Float64Array(nodes.length), y: new Float64Array(nodes.length), placed: new Uint8Array(nodes.length),
    expanded: new Set(), width: GRAPH_NODE_W, height: 0};
  cutSegments(model);
  return model;
}

// Cuts `main` into runs of about GRAPH_SEGMENT nodes, at the position near each target where the fewest edges
// cross the cut (prefix sums over the topological order).
function cutSegments(model) {
  const n = model.main.length;
  const crossing = new Int32Array(n + 1);
  model.main.forEach((j, k) => {
    for (const i of model.preds[j]) {
      const a = model.order[i];
      if (a >= 0 && a < k) { crossing[a + 1]++; crossing[k + 1]--; }
    }
  });
  for (let k = 1; k <= n; k++) crossing[k] += crossing[k - 1];
  let start = 0;
  while (start < n) {
    let end = Math.min(n, start + GRAPH_SEGMENT);
    if (end < n) {
      let best = end;
      for (let k = Math.max(start + GRAPH_SEGMENT / 2, end - 20); k <= Math.min(n - 1, end + 20); k++)
        if (crossing[k] < crossing[best]) best = k;
      end = best;
    }
    const seg = {index: model.segments.length, start, end, laid: false, y: 0, width: GRAPH_NODE_W, edges: []};
    seg.height = estimateHeight(model, seg);
    model.segments.push(seg);
    for (let k = start; k < end; k++) model.segOf[model.main[k]] = seg.index;
    start = end;
  }
  placeSegments(model);
}

// Longest path inside the segment: the number of ranks dagre will use.
function estimateHeight(model, seg) {
  const depth = new Map();
  let ranks = 1;
  for (let k = seg.start; k < seg.end; k++) {
    const j = model.main[k];
    let d = 1;
    for (const i of model.preds[j]) if (depth.has(i)) d = Math.max(d, depth.get(i) + 1);
    depth.set(j, d);
    ranks = Math.max(ranks, d);
  }
  return ranks * (GRAPH_NODE_H + GRAPH_RANK_GAP);
}

function placeSegments(model) {
  let y = GRAPH_SEGMENT_GAP / 2;
  for (const seg of model.segments) { seg.y = y; y += seg.height + GRAPH_SEGMENT_GAP; }
  model.height = y;
}

// The members of a segment as laid out: its main nodes plus the subgraph nodes of its expanded nodes.
function segmentMembers(model, seg) {
  const out = [];
  for (let k = seg.start; k < seg.end; k++) {
    const i = model.main[k];
    out.push(i);
    if (model.expanded.has(i)) for (const s of model.subOf.get(i) || []) out.push(s);
  }
  return out;
}

// dagre over one segment. Returns the change of the segment's height (later segments move by it).
function layoutSegment(model, seg) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({rankdir: 'TB', nodesep: GRAPH_NODE_GAP, ranksep: GRAPH_RANK_GAP, ranker: 'longest-path', marginx: 0, marginy: 0});
  g.setDefaultEdgeLabel(() => ({}));
  const members = segmentMembers(model, seg);
  const inSeg = new Set(members);
  for (const i of members) g.setNode(String(i), {width: GRAPH_NODE_W, height: GRAPH_NODE_H});
  for (const j of members) {
    for (const i of model.preds[j]) if (inSeg.has(i)) g.setEdge(String(i), String(j));
    // An expanded body hangs below its node: an edge to each of its sources keeps it there.
    if (model.expanded.has(j)) for (const s of model.subOf.get(j) || []) if (!model.preds[s].some((p) => inSeg.has(p))) g.setEdge(String(j), String(s));
  }
  dagre.layout(g);
  const graph = g.graph();
  const w = Math.max(graph.width || GRAPH_NODE_W, GRAPH_NODE_W), h = Math.max(graph.height || GRAPH_NODE_H, GRAPH_NODE_H);
  for (const i of members) {
    const p = g.node(String(i));
    model.x[i] = p.x - w / 2;  // centred on x = 0
    model.y[i] = p.y;          // relative to the segment's top
    model.placed[i] = 1;
    model.segOf[i] = seg.index;
  }
  seg.edges = g.edges().map((e) => ({from: Number(e.v), to: Number(e.w), points: g.edge(e).points.map((p) => [p.x - w / 2, p.y])}));
  seg.width = w;
  model.width = Math.max(model.width, w);
  const delta = h - seg.height;
  seg.height = h;
  seg.laid = true;
  if (delta !== 0) placeSegments(model);
  return delta;
}

// Expands or collapses a node's subgraphs (its segment is laid out again).
function toggleSubgraphs(model, i) {
  if (!model.subOf.has(i)) return false;
  if (model.expanded.has(i)) {
    model.expanded.delete(i);
    for (const s of model.subOf.get(i)) model.placed[s] = 0;
  } else {
    model.expanded.add(i);
  }
  layoutSegment(model, model.segments[model.segOf[i]]);
  return true;
}

// Absolute coordinates of a placed node's centre.
function graphNodeXY(model, i) {
  const seg = model.segments[model.segOf[i]];
  return [model.x[i], seg.y + model.y[i]];
}
