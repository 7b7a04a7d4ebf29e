// Runtimes side by side: a report of several backends (profile -B onnxruntime -B opencv) with each further backend
// compared to the first, configuration by configuration (the comparisons rooflens compare makes, embedded by
// rooflens report / profile --html as report.runtime_comparisons). Per configuration: both medians and their
// ratio, then every layer both runtimes ran — matched by the ONNX nodes it computes, fused-differently groups as
// one row — with its time on each side and the ratio.
function renderRuntimes(view) {
  const comparisons = view.report.runtime_comparisons || [];
  const card = section('runtimes', 'Runtimes side by side',
    'Each runtime against ' + (comparisons[0] ? comparisons[0].base.path : 'the first') +
    ': ratio = time on the runtime / time on the base runtime, per configuration and per group of ONNX nodes ' +
    'both ran (layer times are medians of profiled iterations).');
  for (const c of comparisons) {
    for (const item of c.items) card.append(runtimeItem(c, item));
  }
  return card;
}

function ratioText(base, other) { return base > 0 ? fixed(other / base, 2) + 'x' : '—'; }

function runtimeItem(c, item) {
  const base = c.base.path, other = c.new.path;
  const lat = item.latency;
  const e2e = lat
    ? base + ' ' + ms(lat.base_median_ms) + ' ms · ' + other + ' ' + ms(lat.new_median_ms) + ' ms · ratio ' +
      ratioText(lat.base_median_ms, lat.new_median_ms)
    : item.verdict + (item.new_error ? ': ' + item.new_error : item.base_error ? ': ' + item.base_error : '');
  const box = h('div', {class: 'runtime-item', dataset: {base, other, config: item.config}},
    h('h3', null, item.config + ': ' + other + ' vs ' + base), h('p', {class: 'caption runtime-e2e'}, e2e));
  const rows = runtimeRows(item.layers);
  if (!rows.length) return box;
  const head = h('tr', null, ['ONNX nodes', base + ' layer', other + ' layer', base + ' ms', other + ' ms', 'ratio']
    .map((t, i) => h('th', {class: i >= 3 ? 'num' : null}, t)));
  const body = rows.map((r) => h('tr', {class: 'runtime-row'},
    h('td', {title: r.nodes.join(', ')}, r.nodes[0] + (r.nodes.length > 1 ? ' +' + (r.nodes.length - 1) : '')),
    h('td', null, r.baseLayers.join(' + ')), h('td', null, r.otherLayers.join(' + ')),
    h('td', {class: 'num'}, ms(r.baseMs)), h('td', {class: 'num'}, ms(r.otherMs)),
    h('td', {class: 'num runtime-ratio'}, ratioText(r.baseMs, r.otherMs))));
  box.append(h('div', {class: 'scroll-x'}, h('table', {class: 'plain runtime-layers'}, h('thead', null, head),
    h('tbody', null, body))));
  return box;
}

// Matched layers and fused-differently groups as rows, the slowest on the base runtime first.
function runtimeRows(layers) {
  if (!layers) return [];
  const rows = [];
  for (const d of layers.matched || []) {
    if (d.alias) continue;
    rows.push({nodes: d.onnx_nodes, baseLayers: [d.base_name || d.name], otherLayers: [d.name], baseMs: d.base_ms,
      otherMs: d.new_ms});
  }
  for (const g of layers.regrouped || []) {
    rows.push({nodes: g.onnx_nodes, baseLayers: g.base_layers, otherLayers: g.new_layers, baseMs: g.base_ms, otherMs: g.new_ms});
  }
  return rows.sort((a, b) => b.baseMs - a.baseMs);
}
