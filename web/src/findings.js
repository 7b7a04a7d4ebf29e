// Findings and warnings: failures first, then the report's and each run's warnings, then what the numbers say
// (derived here from the report, labelled "observation").
function renderFindings(view) {
  const r = view.report;
  const card = section('findings', 'Findings & warnings', null);
  const items = [];
  const add = (kind, source, text, extra) => items.push(h('li', {class: kind}, h('span', {class: 'src'}, source), text, extra || null));
  if (r.partial) add('bad', 'report', 'Interrupted: not every configuration ran (the report is partial).');
  for (const f of r.failures || []) {
    const tail = f.stderr_tail ? h('details', null, h('summary', {class: 'muted'}, 'runtime stderr'), h('pre', {class: 'tail'}, f.stderr_tail)) : null;
    add('bad', 'failed ' + f.label, f.stage + ' ' + f.kind + ': ' + f.message, tail);
  }
  for (const w of r.warnings || []) add('warn', 'report', w);
  for (const run of view.runs) for (const w of run.warnings || []) add('warn', run.label, w);
  for (const note of view.analysis.notes || []) add('info', 'analysis', note);
  if ((view.analysis.unknown_ops || []).length) add('warn', 'analysis', 'Ops whose cost rooflens cannot count: ' + view.analysis.unknown_ops.join(', '));
  if (view.datasheet) add('info', 'roofs', 'The ceilings come from a datasheet (--roofs), not from a measurement on this machine.');
  for (const run of view.runs) for (const text of observations(run)) add('info', 'observation · ' + run.label, text);
  card.append(items.length ? h('ul', {class: 'findings', id: 'findings-list'}, items) : emptyNote('Nothing to report.'));
  return card;
}

function observations(run) {
  const layers = run.layers || [];
  if (!layers.length) return [];
  const out = [];
  const byOp = new Map();
  for (const l of layers) byOp.set(l.op, (byOp.get(l.op) || 0) + l.share);
  const [topOp, topShare] = [...byOp].sort((a, b) => b[1] - a[1])[0];
  out.push(topOp + ' layers take ' + pct(topShare) + ' of the layer time.');
  const sorted = layers.slice().sort((a, b) => b.time_ms - a.time_ms);
  const top3 = sorted.slice(0, 3).reduce((s, l) => s + l.share, 0);
  out.push('The 3 heaviest of ' + layers.length + ' layers take ' + pct(top3) + '; the heaviest is ' + sorted[0].name + ' (' + ms(sorted[0].time_ms) + ' ms).');
  const shareOf = (bound) => layers.filter((l) => l.bound === bound).reduce((s, l) => s + l.share, 0);
  if (layers.some((l) => l.bound)) out.push('Memory-bound layers take ' + pct(shareOf('memory')) + ' of the time, compute-bound ones ' + pct(shareOf('compute')) + '.');
  const slow = sorted.filter((l) => l.roof && l.share >= 0.02 && l.efficiency < 0.2);
  if (slow.length) out.push(slow.length + ' layer(s) with ≥ 2% of the time reach under 20% of their roof, e.g. ' + slow[0].name + ' (' + pct(slow[0].efficiency) + ').');
  return out;
}
