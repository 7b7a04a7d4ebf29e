// Findings and warnings. First what rooflens lint concluded (report.findings: severity, rule, evidence, the layers
// and nodes involved, what to do, a link), then failures, the report's and each run's warnings, and what the
// numbers say (derived here from the report, labelled "observation").
function severityClass(s) { return s === 'error' ? 'bad' : s === 'warning' ? 'warn' : 'info'; }

function evidenceText(e) {
  if (e.unit === 'ratio') return pct(e.value);
  if (e.unit === 'ms') return ms(e.value) + ' ms';
  if (e.unit === 'bytes') return bytes(e.value);
  if (e.unit === 'us') return fixed(e.value, 1) + ' µs';
  return grouped(e.value) + (e.unit && e.unit !== 'count' && e.unit !== 'threads' ? ' ' + e.unit : '');
}

// openLayer(runLabel, layerName): show that layer in the layer table (main.js switches the run when needed).
function lintFindings(view, openLayer) {
  const all = view.report.findings;
  if (!all) return null;
  const box = h('div', {class: 'lint', id: 'lint'});
  const levels = {info: 0, warning: 1, error: 2};
  const counts = [['error', 'errors'], ['warning', 'warnings'], ['info', 'info']].map(([s, many]) => {
    const n = all.filter((f) => f.severity === s).length;
    return n + ' ' + (n === 1 ? s : many);
  });
  const floor = h('select', {id: 'lint-severity', 'aria-label': 'minimum severity'},
    h('option', {value: 'info'}, 'all'), h('option', {value: 'warning'}, 'warnings and errors'), h('option', {value: 'error'}, 'errors'));
  const list = h('ol', {class: 'lint-list', id: 'lint-findings'});
  const draw = () => {
    clear(list);
    for (const f of all) if (levels[f.severity] >= levels[floor.value]) list.append(lintItem(f, openLayer));
    if (!list.firstChild) list.append(h('li', {class: 'muted'}, 'No finding at this severity.'));
  };
  floor.addEventListener('change', draw);
  box.append(h('div', {class: 'lint-head'}, h('b', null, 'rooflens lint: '), all.length + ' finding(s) — ' + counts.join(', ') + ' · show ', floor), list);
  draw();
  return box;
}

function lintItem(f, openLayer) {
  const layers = (f.layers || []).slice(0, 8).map((name) =>
    h('button', {type: 'button', class: 'linkish', onclick: () => openLayer(f.run, name)}, name));
  if ((f.layers || []).length > 8) layers.push(h('span', {class: 'muted'}, '… +' + (f.layers.length - 8)));
  return h('li', {class: 'lint-item ' + severityClass(f.severity), dataset: {rule: f.rule, severity: f.severity}},
    h('div', {class: 'lint-title'}, h('span', {class: 'badge ' + severityClass(f.severity)}, f.severity),
      h('code', null, f.rule), f.run ? h('span', {class: 'muted'}, f.run) : null, h('span', null, f.title)),
    (f.evidence || []).length ? h('div', {class: 'lint-evidence'}, f.evidence.map((e) => h('span', {class: 'chip'}, e.name + ' ', h('b', null, evidenceText(e))))) : null,
    layers.length ? h('div', {class: 'lint-layers'}, h('span', {class: 'muted'}, 'layers '), layers) : null,
    h('div', {class: 'lint-fix'}, h('span', {class: 'muted'}, 'fix '), f.mitigation),
    f.read_more ? h('div', null, h('a', {href: f.read_more, target: '_blank', rel: 'noopener noreferrer'}, 'read more')) : null);
}

function renderFindings(view, openLayer) {
  const r = view.report;
  const card = section('findings', 'Findings & warnings', null);
  const lint = lintFindings(view, openLayer || (() => {}));
  if (lint) card.append(lint);
  const items = [];
  const add = (kind, source, text, extra) => items.push(h('li', {class: kind}, h('span', {class: 'src'}, source), text, extra || null));
  if (r.partial) add('bad', 'report', 'Interrupted: not every configuration ran (the report is partial).');
  for (const f of r.failures || []) {
    const tail = f.stderr_tail ? h('details', null, h('summary', {class: 'muted'}, 'runtime stderr'), h('pre', {class: 'tail'}, f.stderr_tail)) : null;
    add('bad', 'failed ' + f.label, f.stage + ' ' + f.kind + ': ' + f.message, tail);
  }
  for (const w of (view.hardware && view.hardware.warnings) || []) add('warn', 'roofs', w);
  for (const w of r.warnings || []) add('warn', 'report', w);
  for (const run of view.runs) for (const w of run.warnings || []) add('warn', run.label, w);
  for (const note of view.analysis.notes || []) add('info', 'analysis', note);
  if ((view.analysis.unknown_ops || []).length) add('warn', 'analysis', 'Ops whose cost rooflens cannot count: ' + view.analysis.unknown_ops.join(', '));
  if (view.datasheet) add('info', 'roofs', 'The ceilings come from a datasheet, not from a measurement on this machine.');
  for (const run of view.runs) for (const text of observations(run)) add('info', 'observation · ' + run.label, text);
  card.append(items.length ? h('ul', {class: 'findings', id: 'findings-list'}, items) : (lint ? null : emptyNote('Nothing to report.')));
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
