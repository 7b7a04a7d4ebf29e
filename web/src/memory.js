// Memory: the run's live bytes (weights + activations in the executed order) layer by layer, on the timeline's time
// axis with the peak layer named, the measured increase beside it, and the difference between them in parts. A
// report without runs shows the model's own curve (topological order, by node). Figures: runs[].memory and
// model.memory (docs/memory.md).
function memoryPoints(run) {
  const m = run.memory;
  const weights = m.predicted.weights_bytes + m.predicted.prepacked_bytes;
  const timed = run.layers.length > 1 && run.layers.some((l) => l.start_ms > 0);
  // One step per layer: flat from its start to its end (the timeline's axis), else by the layer's position.
  const points = [];
  run.layers.forEach((l, i) => {
    const live = weights + (m.curve[i] || 0);
    const x0 = timed ? l.start_ms : i, x1 = timed ? l.start_ms + l.time_ms : i + 1;
    points.push([x0, live, i], [x1, live, i]);
  });
  if (timed) points.sort((a, b) => a[0] - b[0]);
  return {points, timed, weights};
}

function memoryCaption(m) {
  if (m.not_predicted) {
    return 'Not predicted: ' + m.not_predicted + '.' + (m.measured ? ' Measured peak ' +
      bytes(m.measured.peak_bytes || m.measured.increase_bytes) + ' (the runner\'s resident set above its start over ' +
      'the inference session\'s creation and first run).' : '');
  }
  const p = m.predicted;
  const live = 'weights ' + bytes(p.weights_bytes) + (p.prepacked_bytes ? ' + packed copies ' + bytes(p.prepacked_bytes) : '') +
    ' + activations ' + bytes(p.activations_bytes) + ' (liveness peak in the executed order' +
    (p.peak_layer_name ? ', at ' + p.peak_layer_name : '') + ')' +
    (p.output_copies_bytes ? ' + output copies ' + bytes(p.output_copies_bytes) : '');
  const calibrated = 'runtime baseline ' + bytes(p.baseline_bytes) +
    (p.structures_bytes ? ' + node structures ' + bytes(p.structures_bytes) : '');
  let text;
  if (p.c_allocator) {
    // The inference session's creation and first run replayed through the C allocator: what it keeps beside what is
    // live.
    const c = p.c_allocator;
    const kept = Math.max(0, c.session_bytes - p.weights_bytes - p.prepacked_bytes);
    const low = p.baseline_bytes + (p.structures_bytes || 0) + Math.max(c.low_creation_peak_bytes || 0, c.low_run_peak_bytes);
    text = 'Predicted peak ' + (low < p.peak_bytes - 1048576 ? bytes(low) + '–' : '') + bytes(p.peak_bytes) +
      ', before the inference session existed = ' + calibrated + ' (calibrated in a process of their own) + the ' +
      'inference session\'s creation and first run replayed through the C allocator (' + c.setting + '): ' + live +
      ', and ' + bytes(kept) + ' the allocator keeps after the creation freed it.';
  } else {
    text = 'Predicted ' + bytes(p.total_bytes) + ' = ' + calibrated + ' + ' + live + '.';
  }
  if (m.measured) {
    const peak = m.measured.peak_bytes || m.measured.increase_bytes, want = p.peak_bytes || p.total_bytes;
    text += ' Measured peak ' + bytes(peak) + ' (the runner\'s resident set above its start over the inference ' +
      'session\'s creation and first run)' + (peak > 0 ? ', ' + (want >= peak ? '+' : '') + pct(want / peak - 1) +
      ' predicted against measured' : '') + '.';
  }
  return text + ' Topological liveness ' + bytes(p.topological_bytes) + ', naive sum ' + bytes(p.naive_bytes) + '.';
}

function memoryParts(m) {
  if (!(m.explained || []).length) return null;
  const rows = m.explained.map((part) => h('tr', null, h('td', null, part.name),
    h('td', {class: 'num'}, (part.bytes < 0 ? '-' : '+') + bytes(Math.abs(part.bytes))), h('td', null, part.note)));
  return h('table', {class: 'plain memory-parts'},
    h('thead', null, h('tr', null, h('th', null, 'part'), h('th', null, 'bytes'), h('th', null, 'where it comes from'))),
    h('tbody', null, rows));
}

function renderModelMemory(view) {
  const mm = view.model.memory;
  const card = section('memory', 'Memory', 'Predicted from the analysis: weights ' + bytes(mm.weights.bytes) +
    ' + activations live along the topological order (liveness peak ' + bytes(mm.activations.peak_bytes) +
    (mm.activations.peak_node_name ? ' at ' + mm.activations.peak_node_name : '') + '; naive sum ' +
    bytes(mm.activations.naive_bytes) + ').');
  const nodes = view.model.analysis.nodes;
  const data = mm.live_bytes.map((b, i) => [i, mm.weights.bytes + b, i]);
  const el = h('div', {class: 'chart small', id: 'memory-chart'});
  card.append(el);
  Charts.show(el, (theme) => ({
    grid: {left: 72, right: 24, top: 24, bottom: 40},
    tooltip: {trigger: 'axis', formatter: (ps) => {
      const n = nodes[ps[0].data[2]];
      return tipRows(n.name, [['op', n.op], ['live', bytes(ps[0].data[1])]]);
    }},
    xAxis: Charts.axis(theme, {type: 'value', name: 'node', nameGap: 24, min: 0}),
    yAxis: Charts.axis(theme, {type: 'value', name: 'bytes live', axisLabel: {formatter: (v) => bytes(v)}}),
    series: [{type: 'line', id: 'memory', step: 'end', showSymbol: false, data,
      markPoint: mm.activations.peak_node >= 0 ? {data: [{coord: [mm.activations.peak_node, mm.weights.bytes + mm.activations.peak_bytes],
        value: 'peak', name: mm.activations.peak_node_name}], label: {formatter: () => 'peak: ' + mm.activations.peak_node_name}} : undefined}],
  }));
  return card;
}

function renderMemory(view, run, onPick) {
  // Without runs: a static report's model curve (a generation report shows its decoder's memory in its own section).
  if (!run) return !view.report.generation && view.model.memory && view.model.memory.live_bytes.length ? renderModelMemory(view) : null;
  const m = run.memory;
  if (!m) return null;
  const card = section('memory', 'Memory', memoryCaption(m));
  if (m.not_predicted) return card;
  if (!run.layers.length || !m.curve.length) {
    card.append(emptyNote('No layers in this run: the prediction is along the model\'s topological order.'));
  } else {
    const {points, timed, weights} = memoryPoints(run);
    const peak = m.predicted.peak_layer;
    const el = h('div', {class: 'chart small', id: 'memory-chart'});
    card.append(el);
    // The chart draws weights + activations: the measured line leaves out what the runtime holds beside them.
    const beside = m.predicted.baseline_bytes + (m.predicted.structures_bytes || 0);
    const measured = m.measured && m.measured.increase_bytes > beside ? m.measured.increase_bytes - beside : 0;
    Charts.show(el, (theme) => ({
      // The timeline's grid and axis, so the two charts line up layer for layer.
      grid: {left: 56, right: 24, top: 24, bottom: 40},
      tooltip: {trigger: 'axis', formatter: (ps) => {
        const l = run.layers[ps[0].data[2]];
        return tipRows(l.name, [['op', l.op], ['live (weights + activations)', bytes(ps[0].data[1])],
          ['activations', bytes(ps[0].data[1] - weights)]]);
      }},
      xAxis: Charts.axis(theme, {type: 'value', name: timed ? 'ms' : 'layer', nameGap: 24, min: 0}),
      yAxis: Charts.axis(theme, {type: 'value', name: 'bytes live', axisLabel: {formatter: (v) => bytes(v)}, min: 0}),
      series: [{type: 'line', id: 'memory', showSymbol: false, data: points, areaStyle: {opacity: 0.15},
        markPoint: peak >= 0 ? {symbolSize: 40, data: [{coord: [points.find((p) => p[2] === peak)[0], weights + m.curve[peak]],
          name: m.predicted.peak_layer_name}], label: {formatter: () => 'peak'}} : undefined,
        markLine: measured ? {symbol: 'none', data: [{yAxis: measured, name: 'measured'}],
          label: {formatter: () => 'measured, less the runtime baseline' + (m.predicted.structures_bytes ? ' and node structures' : '') + ': ' + bytes(measured), position: 'insideEndTop'}} : undefined}],
    }), (chart) => chart.on('click', (p) => { if (p.seriesId === 'memory' && p.data) onPick(p.data[2]); }));
    if (peak >= 0) card.append(h('p', {class: 'caption', id: 'memory-peak'}, 'Peak layer: ' + m.predicted.peak_layer_name +
      ' (' + bytes(weights + m.curve[peak]) + ' live).'));
  }
  const parts = memoryParts(m);
  if (parts) card.append(h('h3', null, 'Measured against predicted, in parts'), parts);
  for (const note of m.notes || []) card.append(h('p', {class: 'caption'}, note));
  return card;
}
