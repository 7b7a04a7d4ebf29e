// The report as the page uses it: runs with their labels, layers numbered in execution order, the analysis'
// nodes by name (for the details of a fused layer), one colour per op type.
function buildView(report) {
  const model = report.model || {};
  const analysis = model.analysis || {};
  const nodes = analysis.nodes || [];
  const runs = (report.runs || []).map((run, index) => {
    (run.layers || []).forEach((layer, i) => { layer.seq = i; });
    return Object.assign(run, {index, spread: runSpread(run)});
  });
  const nodeByName = new Map(), nodeIndex = new Map();
  nodes.forEach((node, i) => { if (!nodeByName.has(node.name)) { nodeByName.set(node.name, node); nodeIndex.set(node.name, i); } });

  // Op types by weight: time share over all runs, then FLOPs in the analysis (so a model's main op keeps its
  // colour whether or not a run has layer times), then name.
  const time = new Map(), flops = new Map();
  const add = (map, op, w) => map.set(op, (map.get(op) || 0) + w);
  for (const run of runs) for (const layer of run.layers || []) add(time, layer.op, layer.share || 0);
  for (const node of nodes) add(flops, node.op, Number(node.flops) || 0);
  const ops = [...new Set([...time.keys(), ...flops.keys()])].sort((a, b) =>
    (time.get(b) || 0) - (time.get(a) || 0) || (flops.get(b) || 0) - (flops.get(a) || 0) || (a < b ? -1 : 1));

  return {
    report, model, analysis, nodes, runs, nodeByName, nodeIndex,
    mode: runs.length ? 'profile' : 'static',
    hardware: report.hardware || null,
    datasheet: !!report.hardware && report.hardware.source === 'datasheet',
    opColor: makeOpColors(ops),
  };
}

function medianOf(values) {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? 0 : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Run to run (--repeat: each run a fresh runner process): the lowest and highest run median and their spread
// relative to the median of all samples, as the terminal summary shows it. null for a single run, or when the
// counts do not partition the samples (the page then shows the run as one).
function runSpread(run) {
  const samples = run.latencies_ms || [];
  const sizes = run.repetitions || [];
  if (sizes.length < 2 || sizes.some((n) => !(n > 0)) || sizes.reduce((a, b) => a + b, 0) !== samples.length) return null;
  const medians = [];
  let at = 0;
  for (const n of sizes) { medians.push(medianOf(samples.slice(at, at + n))); at += n; }
  const all = medianOf(samples);
  const min = Math.min(...medians), max = Math.max(...medians);
  return {count: sizes.length, min, max, spread: all > 0 ? (max - min) / all : 0};
}

// Node details for a layer's ONNX node names (names the analysis does not know are kept, marked unknown).
function nodesOf(view, names) {
  return (names || []).map((name) => view.nodeByName.get(name) || {name, op: '?', unknown: true});
}
