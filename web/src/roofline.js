// Roofline (log-log): the report's ceilings as labelled lines, one dot per layer (size = time share, colour = op
// type). Ceilings are those at the thread count nearest the run's, as rooflens placed the layers (roofline.cpp).
// Layers a log-log plot cannot place (no FLOPs: layout/copy kernels; or no bytes or time) still get their dot:
// a hollow diamond pinned to the bottom-left corner, so every layer of the run is on the chart.
const LEVELS = ['L1', 'L2', 'L3', 'DRAM'];

function nearestThreads(roofs, threads) {
  let best = -1;
  for (const r of roofs) {
    const d = Math.abs(r.threads - threads), bd = Math.abs(best - threads);
    if (best < 0 || d < bd || (d === bd && r.threads < best)) best = r.threads;
  }
  return best;
}

// {compute: [{name, dtype, threads, gflops}], memory: [{level, kernel, threads, gbps}]} at the run's threads.
function ceilingsFor(hw, threads) {
  if (!hw) return {compute: [], memory: []};
  const compute = (hw.compute || []).filter((c) => c.gflops > 0);
  const tc = nearestThreads(compute, threads);
  const memory = [];
  for (const level of LEVELS) {
    const at = (hw.memory || []).filter((m) => m.level === level && m.gbps > 0);
    const tm = nearestThreads(at, threads);
    const best = at.filter((m) => m.threads === tm).sort((a, b) => b.gbps - a.gbps)[0];
    if (best) memory.push(best);
  }
  return {compute: compute.filter((c) => c.threads === tc).sort((a, b) => b.gflops - a.gflops), memory};
}

function ceilingLabel(view, text) { return (view.datasheet ? 'datasheet ' : '') + text; }

const isPlaceable = (l) => l.flops > 0 && l.time_ms > 0 && l.bytes > 0;
const PINNED = 'layers:(no FLOPs)';

function renderRoofline(view, run, onPick) {
  const placed = run.layers.filter(isPlaceable);
  const skipped = run.layers.length - placed.length;
  const roofs = ceilingsFor(view.hardware, run.threads);
  if (!run.layers.length) {
    const card = section('roofline', 'Roofline', null);
    card.append(emptyNote('This run recorded no layer times (profiled with --no-layers): nothing to place.'));
    return card;
  }
  const card = section('roofline', 'Roofline', rooflineCaption(view, run, placed.length, skipped, roofs));
  if (!placed.length) {
    card.append(emptyNote('No layer with FLOPs and bytes to place.'));
    return card;
  }
  // (every layer gets a dot below: `placed` at their coordinates, the others pinned)
  const el = h('div', {class: 'chart tall', id: 'roofline-chart'});
  card.append(el);
  Charts.show(el, (theme) => rooflineOption(view, run, placed, roofs, theme, el), (chart) => {
    chart.on('click', (p) => { if (String(p.seriesId).startsWith('layers:')) onPick(p.data[2]); });
  });
  return card;
}

function rooflineCaption(view, run, placed, skipped, roofs) {
  let text = (placed + skipped) + ' layers as dots (area ~ time share, colour = op type; click one for its details).';
  if (skipped) text += ' ' + skipped + ' without FLOPs (layout/copy kernels) have no place on a log-log roofline: hollow diamonds pinned to the bottom-left corner.';
  if (!view.hardware) text += ' No ceilings: the report carries no roofs (profiled with --no-roofs).';
  else if (view.datasheet) text += ' Ceilings come from a DATASHEET' + (view.hardware.machine && view.hardware.machine.model ? ' (' + view.hardware.machine.model + ')' : '') + ', not measured on this machine.';
  else if (roofs.compute.length) text += ' Ceilings measured by rooflens hw with ' + roofs.compute[0].threads + ' thread(s), nearest the run\'s.';
  return text;
}

// Whole decades around the values (at least one decade, so a single point still gets an axis).
function logRange(values) {
  const lo = Math.floor(Math.log10(Math.min(...values))), hi = Math.ceil(Math.log10(Math.max(...values)));
  return [Math.pow(10, lo), Math.pow(10, Math.max(hi, lo + 1))];
}

const ROOF_GRID = {left: 70, right: 30, top: 48, bottom: 56};

function rooflineOption(view, run, placed, roofs, theme, el) {
  const peaks = roofs.compute.map((c) => c.gflops);
  const bws = roofs.memory.map((m) => m.gbps);
  const top = peaks.length ? Math.max(...peaks) : 0;
  const ridges = bws.map((bw) => (top || 1) / bw);
  const [x0, x1] = logRange([...placed.map((l) => l.intensity), ...ridges.map((r) => r * 4), ...ridges.map((r) => r / 8)]);
  const [y0, y1] = logRange([...placed.map((l) => l.gflops), ...peaks.map((p) => p * 1.5)]);
  // Memory ceilings are 45 degrees in decades; on screen their angle depends on the plot's aspect.
  const decadePx = (px, lo, hi) => px / Math.max(1e-9, Math.log10(hi) - Math.log10(lo));
  const slope = decadePx(el.clientHeight - ROOF_GRID.top - ROOF_GRID.bottom, y0, y1) /
    decadePx(el.clientWidth - ROOF_GRID.left - ROOF_GRID.right, x0, x1);
  const angle = Math.atan(slope) * 180 / Math.PI;
  const series = [];
  const labels = [];  // [x, y, text, position]: drawn by one label-only series (lines without symbols show no labels)
  const lineStyle = {color: theme.muted, width: 1.4, type: view.datasheet ? 'dashed' : 'solid'};
  roofs.compute.forEach((c) => {
    const start = bws.length ? c.gflops / Math.max(...bws) : x0;
    const text = ceilingLabel(view, c.name + ' x' + c.threads + ' · ' + fixed(c.gflops, 1) + ' GFLOP/s');
    series.push({id: 'ceiling:' + c.name, name: text, type: 'line', symbol: 'none', lineStyle, z: 1,
      data: [[Math.max(start, x0), c.gflops], [x1, c.gflops]]});
    labels.push([x1, c.gflops, text, 'top', 'right', 0]);
  });
  roofs.memory.forEach((m, i) => {
    const xs = Math.max(x0, y0 / m.gbps), xe = top ? top / m.gbps : x1;
    const xl = Math.pow(10, Math.log10(xs) + (Math.log10(xe) - Math.log10(xs)) * (0.1 + 0.2 * i));
    const text = ceilingLabel(view, m.level + ' ' + m.kernel + ' x' + m.threads + ' · ' + fixed(m.gbps, 1) + ' GB/s');
    series.push({id: 'ceiling:' + m.level, name: text, type: 'line', symbol: 'none', lineStyle, z: 1,
      data: [[xs, xs * m.gbps], [xe, xe * m.gbps]]});
    labels.push([xl, xl * m.gbps, text, 'top', 'left', angle]);
  });
  series.push({id: 'ceiling-labels', type: 'scatter', silent: true, symbolSize: 1, z: 2, itemStyle: {color: 'transparent'},
    data: labels.map(([x, y, text, position, align, rotate]) => ({value: [x, y],
      label: {show: true, formatter: () => text, position, align, rotate, color: theme.muted, fontSize: 11, distance: 3}}))});
  const byOp = new Map();
  for (const l of placed) {
    if (!byOp.has(l.op)) byOp.set(l.op, []);
    byOp.get(l.op).push([l.intensity, l.gflops, l.seq, l.share]);
  }
  for (const [op, data] of byOp) {
    series.push({id: 'layers:' + op, name: op, type: 'scatter', data, z: 3, large: data.length > 2000, largeThreshold: 2000,
      progressive: 3000, symbolSize: (v) => Math.min(40, 5 + 42 * Math.sqrt(v[3] || 0)),
      itemStyle: {color: view.opColor(op), opacity: 0.82, borderColor: theme.panel, borderWidth: 0.6}});
  }
  const pinned = run.layers.filter((l) => !isPlaceable(l)).map((l) => [x0, y0, l.seq, l.share]);
  if (pinned.length) {
    series.push({id: PINNED, name: 'no FLOPs (pinned)', type: 'scatter', data: pinned, z: 3, symbol: 'diamond',
      symbolSize: (v) => Math.min(28, 8 + 30 * Math.sqrt(v[3] || 0)),
      itemStyle: {color: 'transparent', borderColor: theme.muted, borderWidth: 1.4}});
  }
  return {
    grid: ROOF_GRID,
    legend: {type: 'scroll', top: 4, data: [...byOp.keys(), ...(pinned.length ? ['no FLOPs (pinned)'] : [])], textStyle: {color: theme.muted}, pageTextStyle: {color: theme.muted}},
    tooltip: {trigger: 'item', formatter: (p) => rooflineTip(run, p)},
    xAxis: Charts.axis(theme, {type: 'log', min: x0, max: x1, name: 'arithmetic intensity (FLOP/byte)', nameGap: 30}),
    yAxis: Charts.axis(theme, {type: 'log', min: y0, max: y1, name: 'GFLOP/s', nameGap: 48}),
    series,
  };
}

function rooflineTip(run, p) {
  if (!String(p.seriesId).startsWith('layers:')) return tipRows(p.seriesName, []);
  const l = run.layers[p.data[2]];
  if (p.seriesId === PINNED) {
    return tipRows(l.name, [
      ['op', l.op], ['time', ms(l.time_ms) + ' ms (' + pct(l.share) + ')'], ['GB/s', fixed(l.gbps, 2)],
      ['placement', 'no FLOPs: pinned to the corner, not at its coordinates'],
    ]);
  }
  return tipRows(l.name, [
    ['op', l.op], ['time', ms(l.time_ms) + ' ms (' + pct(l.share) + ')'], ['GFLOP/s', fixed(l.gflops, 2)],
    ['intensity', fixed(l.intensity, 2) + ' FLOP/B'],
    ['efficiency', l.roof ? pct(l.efficiency) + ' of ' + l.roof + ' (' + l.bound + ' bound)' : 'no roofs'],
  ]);
}
