// Roofline (log-log): the report's ceilings as labelled lines, one dot per layer (size = time share, colour = op
// type). Ceilings are those at the thread count nearest the run's, as rooflens placed the layers (roofline.cpp).
// Layers a log-log plot cannot place (no FLOPs: layout/copy kernels; or no bytes or time) still get their dot:
// a hollow diamond pinned to the bottom-left corner, so every layer of the run is on the chart.

// A memory level's place, nearer first (core/level_names.h): "L2" [2, 2], "L1+L2" (caches that read alike, one
// plateau of the sweep) [1, 2], "DRAM" [9, 9]; null for a name that is no level.
function levelSpan(name) {
  if (name === 'DRAM') return [9, 9];
  const m = /^L([1-8])((?:\+L[1-8])*)$/.exec(name || '');
  if (!m) return null;
  const nums = [Number(m[1]), ...(m[2].match(/[1-8]/g) || []).map(Number)];
  return nums.every((n, i) => n === nums[0] + i) ? [nums[0], nums[nums.length - 1]] : null;
}

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
  const levels = [...new Set((hw.memory || []).map((m) => m.level))].filter(levelSpan)
    .sort((a, b) => levelSpan(a)[0] - levelSpan(b)[0] || levelSpan(a)[1] - levelSpan(b)[1]);
  for (const level of levels) {
    const at = (hw.memory || []).filter((m) => m.level === level && m.gbps > 0);
    const tm = nearestThreads(at, threads);
    const best = at.filter((m) => m.threads === tm).sort((a, b) => b.gbps - a.gbps)[0];
    if (best) memory.push(best);
  }
  return {compute: compute.filter((c) => c.threads === tc).sort((a, b) => b.gflops - a.gflops), memory};
}

function ceilingLabel(view, text) { return (view.datasheet ? 'datasheet ' : '') + text; }

// A layer whose rate exceeds its roof (an attribution error rooflens found: its FLOPs, bytes or ceiling are wrong)
// has no true position: it is not drawn, and the caption counts it.
const isImpossible = (l) => !!l.attribution_error;
const isPlaceable = (l) => l.flops > 0 && l.time_ms > 0 && l.bytes > 0 && !isImpossible(l);
const PINNED = 'layers:(no FLOPs)';

// A hierarchical roofline (sources that count bytes per memory level: a GPU profiler): each placeable layer's point at
// each level, at the intensity of its bytes there, a symbol per level. Points above their level's roof are not drawn.
const LEVEL_SYMBOLS = {DRAM: 'circle', L2: 'rect', L1: 'triangle'};
function levelDots(placed) {
  const byLevel = new Map();
  for (const l of placed) {
    for (const p of l.levels || []) {
      if (!(p.intensity > 0) || p.attribution_error) continue;
      if (!byLevel.has(p.level)) byLevel.set(p.level, []);
      byLevel.get(p.level).push([p.intensity, l.gflops, l.seq, l.share, p.level]);
    }
  }
  return byLevel;
}

function renderRoofline(view, run, onPick) {
  const placed = run.layers.filter(isPlaceable);
  const impossible = run.layers.filter(isImpossible).length;
  const skipped = run.layers.length - placed.length - impossible;
  const roofs = ceilingsFor(view.hardware, run.threads);
  if (!run.layers.length) {
    const card = section('roofline', 'Roofline', null);
    card.append(emptyNote('This run recorded no layer times (profiled with --no-layers): nothing to place.'));
    return card;
  }
  const card = section('roofline', 'Roofline', rooflineCaption(view, run, placed.length, skipped, roofs, impossible));
  if (!placed.length) {
    card.append(emptyNote('No layer with FLOPs and bytes to place.'));
    return card;
  }
  // (every layer gets a dot below: `placed` at their coordinates, the others pinned)
  const el = h('div', {class: 'chart tall', id: 'roofline-chart'});
  card.append(el);
  Charts.show(el, (theme) => rooflineOption(view, run, placed, roofs, theme, el), (chart) => {
    chart.on('click', (p) => { if (/^(layers|levels):/.test(String(p.seriesId)) || p.seriesId === 'projected') onPick(p.data[2]); });
  });
  return card;
}

function rooflineCaption(view, run, placed, skipped, roofs, impossible) {
  let text = (placed + skipped) + ' layers as dots (area ~ time share, colour = op type; click one for its details).';
  if (skipped) text += ' ' + skipped + ' without FLOPs (layout/copy kernels) have no place on a log-log roofline: hollow diamonds pinned to the bottom-left corner.';
  if (impossible) text += ' ' + impossible + ' layer(s) NOT DRAWN: their rate exceeds their roof, which no kernel can do, so their FLOPs, bytes or ceiling are wrong (an attribution error; the layer table and each layer\'s details say which).';
  const proj = projectionOf(view, run);
  if (proj) text += ' Red hollow circles: rooflens whatif\'s PROJECTION onto ' + proj.projection.target + ' (' + ms(proj.run.projected_ms) + ' ms vs ' + ms(proj.run.measured_ms) + ' ms measured; assumptions in the whatif section), with the target\'s ceilings dashed in red.';
  const levels = levelDots(run.layers.filter(isPlaceable));
  if (levels.size) text += ' Hollow symbols: each layer again at every memory level its source counted bytes for (' + [...levels.keys()].map((k) => k + ' ' + (LEVEL_SYMBOLS[k] || 'diamond')).join(', ') + '), at the intensity of its traffic there: a hierarchical roofline, each held to its own level\'s ceiling.';
  if (!view.hardware) text += ' No ceilings: the report carries no roofs (profiled with --no-roofs).';
  else if (view.hardware.source === 'profile') text += ' Ceilings are the peaks the imported profile states for its device' + (view.hardware.machine && view.hardware.machine.model ? ' (' + view.hardware.machine.model + ')' : '') + ' (its own peak metrics at the clocks it ran), not measured by rooflens.';
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
const LABEL_FONT_SIZE = 11;

function rooflineOption(view, run, placed, ownRoofs, theme, el) {
  // A whatif projection of this run adds its dots and, when it brought them, the target's ceilings (whatif.js).
  const proj = projectionOf(view, run);
  const pdots = proj ? projectedDots(proj) : [];
  const target = proj ? targetCeilings(proj, run.threads) : {compute: [], memory: []};
  const roofs = {compute: [...ownRoofs.compute, ...target.compute], memory: [...ownRoofs.memory, ...target.memory]};
  const peaks = roofs.compute.map((c) => c.gflops);
  const bws = roofs.memory.map((m) => m.gbps);
  const top = peaks.length ? Math.max(...peaks) : 0;
  const ridges = bws.map((bw) => (top || 1) / bw);
  const levelXs = placed.flatMap((l) => (l.levels || []).filter((p) => p.intensity > 0 && !p.attribution_error).map((p) => p.intensity));
  const [x0, x1] = logRange([...placed.map((l) => l.intensity), ...levelXs, ...pdots.map((d) => d[0]), ...ridges.map((r) => r * 4), ...ridges.map((r) => r / 8)]);
  const [y0, y1] = logRange([...placed.map((l) => l.gflops), ...pdots.map((d) => d[1]), ...peaks.map((p) => p * 1.5)]);
  // Memory ceilings are 45 degrees in decades; on screen their angle depends on the plot's aspect.
  const decadePx = (px, lo, hi) => px / Math.max(1e-9, Math.log10(hi) - Math.log10(lo));
  const slope = decadePx(el.clientHeight - ROOF_GRID.top - ROOF_GRID.bottom, y0, y1) /
    decadePx(el.clientWidth - ROOF_GRID.left - ROOF_GRID.right, x0, x1);
  const angle = Math.atan(slope) * 180 / Math.PI;
  const series = [];
  const specs = [];  // ceiling labels in pixels, placed by placeCeilingLabels so that none overlaps another
  const plot = {left: ROOF_GRID.left, right: el.clientWidth - ROOF_GRID.right, top: ROOF_GRID.top, bottom: el.clientHeight - ROOF_GRID.bottom};
  const lx0 = Math.log10(x0), lx1 = Math.log10(x1), ly0 = Math.log10(y0), ly1 = Math.log10(y1);
  const toPx = (x, y) => [plot.left + (Math.log10(x) - lx0) / (lx1 - lx0) * (plot.right - plot.left),
    plot.bottom - (Math.log10(y) - ly0) / (ly1 - ly0) * (plot.bottom - plot.top)];
  const toData = ([px, py]) => [Math.pow(10, lx0 + (px - plot.left) / (plot.right - plot.left) * (lx1 - lx0)),
    Math.pow(10, ly0 + (plot.bottom - py) / (plot.bottom - plot.top) * (ly1 - ly0))];
  const ownStyle = {color: theme.muted, width: 1.4, type: view.datasheet ? 'dashed' : 'solid'};
  const targetStyle = {color: theme.bad, width: 1.2, type: 'dashed'};
  const styleOf = (r) => (r.prefix ? targetStyle : ownStyle);
  const labelOf = (r, text) => (r.prefix ? r.prefix + text : ceilingLabel(view, text));
  roofs.compute.forEach((c) => {
    const start = Math.max(bws.length ? c.gflops / Math.max(...bws) : x0, x0);
    const text = labelOf(c, c.name + ' x' + c.threads + ' · ' + fixed(c.gflops, 1) + ' GFLOP/s');
    series.push({id: (c.prefix ? 'target:' : 'ceiling:') + c.name + ':' + c.dtype, name: text, type: 'line', symbol: 'none', lineStyle: styleOf(c), z: 1,
      data: [[start, c.gflops], [x1, c.gflops]]});
    const [px0, py] = toPx(start, c.gflops), [px1] = toPx(x1, c.gflops);
    specs.push({kind: 'compute', y: py, x0: px0, x1: px1, text});
  });
  roofs.memory.forEach((m) => {
    const xs = Math.max(x0, y0 / m.gbps), xe = top ? top / m.gbps : x1;
    const text = labelOf(m, m.level + ' ' + m.kernel + ' x' + m.threads + ' · ' + fixed(m.gbps, 1) + ' GB/s');
    series.push({id: (m.prefix ? 'target:' : 'ceiling:') + m.level, name: text, type: 'line', symbol: 'none', lineStyle: styleOf(m), z: 1,
      data: [[xs, xs * m.gbps], [xe, xe * m.gbps]]});
    const [pxs, pys] = toPx(xs, xs * m.gbps), [pxe, pye] = toPx(xe, xe * m.gbps);
    specs.push({kind: 'memory', xs: pxs, ys: pys, xe: pxe, ye: pye, angle, text});
  });
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = LABEL_FONT_SIZE + 'px ' + (cssVar('--sans') || 'sans-serif');
  const spots = placeCeilingLabels(specs, plot, (t) => ctx.measureText(t).width);
  // Each label is drawn with its bottom corner (left, or right for compute ceilings) at the anchor the placement
  // chose, rotated about it: the box placeCeilingLabels reasoned about.
  series.push({id: 'ceiling-labels', type: 'scatter', silent: true, symbolSize: 1, z: 2, itemStyle: {color: 'transparent'},
    data: specs.map((spec, i) => {
      const spot = spots[i];
      const anchor = spot.alignRight ? spot.box[1] : spot.box[0];
      return {value: toData(anchor), label: {show: true, formatter: () => spec.text, position: 'inside',
        align: spot.alignRight ? 'right' : 'left', verticalAlign: 'bottom', rotate: spot.angle, color: theme.muted,
        fontSize: LABEL_FONT_SIZE, lineHeight: LABEL_HEIGHT, padding: 0}};
    })});
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
  const levels = levelDots(placed);
  for (const [level, data] of levels) {
    series.push({id: 'levels:' + level, name: level + ' traffic', type: 'scatter', data, z: 3, symbol: LEVEL_SYMBOLS[level] || 'diamond',
      symbolSize: (v) => Math.min(30, 6 + 30 * Math.sqrt(v[3] || 0)),
      itemStyle: {color: 'transparent', borderColor: theme.muted, borderWidth: 1.4}});
  }
  if (pdots.length) series.push(projectionSeries(proj, pdots, theme));
  const pinned = run.layers.filter((l) => !isPlaceable(l) && !isImpossible(l)).map((l) => [x0, y0, l.seq, l.share]);
  if (pinned.length) {
    series.push({id: PINNED, name: 'no FLOPs (pinned)', type: 'scatter', data: pinned, z: 3, symbol: 'diamond',
      symbolSize: (v) => Math.min(28, 8 + 30 * Math.sqrt(v[3] || 0)),
      itemStyle: {color: 'transparent', borderColor: theme.muted, borderWidth: 1.4}});
  }
  return {
    grid: ROOF_GRID,
    legend: {type: 'scroll', top: 4, data: [...byOp.keys(), ...[...levels.keys()].map((k) => k + ' traffic'), ...(pinned.length ? ['no FLOPs (pinned)'] : []), ...(pdots.length ? ['projected: ' + proj.projection.target] : [])],
      textStyle: {color: theme.muted}, pageTextStyle: {color: theme.muted}},
    tooltip: {trigger: 'item', formatter: (p) => (p.seriesId === 'projected' ? projectedTip(view, run, proj, p) : rooflineTip(run, p))},
    xAxis: Charts.axis(theme, {type: 'log', min: x0, max: x1, name: 'arithmetic intensity (FLOP/byte)', nameGap: 30}),
    yAxis: Charts.axis(theme, {type: 'log', min: y0, max: y1, name: 'GFLOP/s', nameGap: 48}),
    series,
  };
}

function rooflineTip(run, p) {
  if (String(p.seriesId).startsWith('levels:')) return levelTip(run.layers[p.data[2]], p.data[4]);
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

function levelTip(l, level) {
  const p = (l.levels || []).find((q) => q.level === level) || {};
  return tipRows(l.name, [
    ['level', level + ': ' + bytes(p.bytes) + ' moved, ' + fixed(p.gbps, 2) + ' GB/s'], ['GFLOP/s', fixed(l.gflops, 2)],
    ['intensity', fixed(p.intensity, 2) + ' FLOP/B at ' + level],
    ['efficiency', p.roof ? pct(p.efficiency) + ' of ' + p.roof + ' (' + p.bound + ' bound)' : 'no ceiling at ' + level],
  ]);
}
