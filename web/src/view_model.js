// The report as the page uses it: runs with their labels, layers numbered in execution order, the analysis'
// nodes by name (for the details of a fused layer), one colour per op type.
function buildView(report) {
  const model = report.model || {};
  const analysis = model.analysis || {};
  const nodes = analysis.nodes || [];
  const runs = (report.runs || []).map((run, index) => {
    (run.layers || []).forEach((layer, i) => { layer.seq = i; });
    return Object.assign(run, {index, label: configLabel(run.batch, run.dims, run.threads)});
  });
  const nodeByName = new Map();
  for (const node of nodes) if (!nodeByName.has(node.name)) nodeByName.set(node.name, node);

  // Op types by weight: time over all runs when profiled, FLOPs otherwise; node ops follow (details panel).
  const weight = new Map();
  const add = (op, w) => weight.set(op, (weight.get(op) || 0) + w);
  for (const run of runs) for (const layer of run.layers || []) add(layer.op, layer.share || 0);
  const layerOps = [...weight.keys()];
  for (const node of nodes) if (!layerOps.includes(node.op)) add(node.op, runs.length ? 0 : Number(node.flops) || 0);
  const ops = [...weight.keys()].sort((a, b) => weight.get(b) - weight.get(a) || (a < b ? -1 : 1));

  return {
    report, model, analysis, nodes, runs, nodeByName,
    mode: runs.length ? 'profile' : 'static',
    hardware: report.hardware || null,
    datasheet: !!report.hardware && report.hardware.source === 'datasheet',
    opColor: makeOpColors(ops),
  };
}

// Node details for a layer's ONNX node names (names the analysis does not know are kept, marked unknown).
function nodesOf(view, names) {
  return (names || []).map((name) => view.nodeByName.get(name) || {name, op: '?', unknown: true});
}
