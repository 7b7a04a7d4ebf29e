// rooflens whatif on the roofline: when the report carries a projection (report.whatif) of this run, a second set
// of dots — hollow circles where each layer would sit on the target — and the target's own ceilings (dashed,
// labelled "target"; "datasheet" when they are).
function projectionOf(view, run) {
  const p = view.report.whatif;
  if (!p || !run) return null;
  const rp = (p.runs || []).find((x) => x.run === run.label);
  return rp ? {projection: p, run: rp} : null;
}

// [intensity, gflops, seq, share of the projected layer time] for every projected layer a log-log plot can place.
function projectedDots(proj) {
  const total = proj.run.layers.reduce((s, l) => s + (l.time_ms || 0), 0) || 1;
  return proj.run.layers.map((l, seq) => [l.intensity, l.gflops, seq, (l.time_ms || 0) / total])
    .filter(([x, y]) => x > 0 && y > 0);
}

// The target's ceilings, when the projection brought its own (--roofs, --device), else none.
function targetCeilings(proj, threads) {
  const hw = proj.projection.hardware;
  if (!hw) return {compute: [], memory: []};
  const roofs = ceilingsFor(hw, hw.source === 'datasheet' ? 1 : threads);
  const prefix = 'target ' + (hw.source === 'datasheet' ? 'datasheet ' : '');
  return {compute: roofs.compute.map((c) => Object.assign({}, c, {prefix})), memory: roofs.memory.map((m) => Object.assign({}, m, {prefix}))};
}

function projectionSeries(proj, dots, theme) {
  return {id: 'projected', name: 'projected: ' + proj.projection.target, type: 'scatter', data: dots, z: 4, symbol: 'circle',
    symbolSize: (v) => Math.min(36, 6 + 40 * Math.sqrt(v[3] || 0)),
    itemStyle: {color: 'transparent', borderColor: theme.bad, borderWidth: 1.6}};
}

function projectedTip(view, run, proj, p) {
  const seq = p.data[2], l = run.layers[seq], x = proj.run.layers[seq];
  return tipRows(l.name + ' (projected)', [
    ['target', proj.projection.target], ['time', ms(x.time_ms) + ' ms projected, ' + ms(l.time_ms) + ' ms measured'],
    ['GFLOP/s', fixed(x.gflops, 2)], ['intensity', fixed(x.intensity, 2) + ' FLOP/B'],
    ['bound', (x.bound || 'kept') + (x.bound_changed ? ' (was ' + l.bound + ')' : '') + (x.roof ? ' · ' + x.roof : '')],
    ['note', x.note || '-'],
  ]);
}

// The projection's own section: what was projected, every assumption, measured against projected per run.
function renderWhatIf(view) {
  const p = view.report.whatif;
  const card = section('whatif', 'What if: ' + p.target, 'A PROJECTION by rooflens whatif, not a measurement. ' +
    'Its dots are the red hollow circles on the roofline.');
  card.append(h('ul', {class: 'assumptions', id: 'whatif-assumptions'}, p.assumptions.map((a) => h('li', null, a))));
  const rows = p.runs.map((r) => h('tr', null, h('td', null, r.run), h('td', {class: 'num'}, ms(r.measured_ms)),
    h('td', {class: 'num'}, ms(r.projected_ms)), h('td', {class: 'num'}, r.projected_ms > 0 ? fixed(r.measured_ms / r.projected_ms, 2) + 'x' : '-'),
    h('td', {class: 'num'}, String(r.layers.filter((l) => l.bound_changed).length))));
  card.append(h('table', {class: 'plain', id: 'whatif-runs'},
    h('tr', null, ['run', 'measured ms', 'projected ms', 'speed-up', 'bound changes'].map((t) => h('th', null, t))), rows));
  return card;
}
