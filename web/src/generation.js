// Generation (`rooflens generate` reports): the llama-bench-style table and the percentiles, TTFT against the prompt
// length, TPOT against the context, and the two phases of one configuration on one roofline (prefill and decode
// layers in two colours, the same ceilings the profile roofline draws). Shown only when report.generation exists.
const PHASE_COLORS = {prefill: '#4e79a7', decode: '#e15759'};

// The run's label as the report stores it (made from its key by rooflens; never derived again here).
function genLabel(run) { return run.label || ''; }

function renderGeneration(view) {
  const g = view.report.generation;
  const io = g.io || {};
  const card = section('generation', 'Generation',
    'A decoder with a KV cache (' + (io.cache || []).length + ' layers, ' + io.kv_heads + ' kv heads x ' + io.head_dim +
    ', vocab ' + io.vocab + '): each request is one prefill over the prompt, then decode steps of one token per sequence ' +
    'that feed present back as past inside the runner. TTFT = prefill until the first tokens are chosen; TPOT = ' +
    'inter-token latency of a decode step; percentiles nearest-rank.');
  if (!g.runs.length) {
    card.append(emptyNote('No configuration finished (see the findings).'));
    return card;
  }
  card.append(h('div', {class: 'scroll-x'}, benchTable(view, g.runs)), h('div', {class: 'scroll-x'}, genTable(g.runs)));
  const row = h('div', {class: 'row3'});
  card.append(row);
  row.append(lineChart('gen-ttft-chart', 'TTFT p50 (ms) vs prompt tokens', ttftSeries(g.runs), 'prompt tokens'),
    lineChart('gen-tpot-chart', 'TPOT (ms) vs context (tokens in the cache)' + faultedNote(g.runs), tpotSeries(g.runs),
      'context'));
  const picker = h('select', {id: 'gen-run-select', 'aria-label': 'generation configuration'},
    g.runs.map((run, i) => h('option', {value: i}, genLabel(run))));
  const holder = h('div', null);
  card.append(h('h3', null, 'Both phases on the roofline ', picker), holder);
  const draw = () => {
    Charts.drop(holder);
    clear(holder);
    holder.append(...phaseRoofline(view, g.runs[Number(picker.value)]));
    Charts.flush();
  };
  picker.addEventListener('change', draw);
  holder.append(...phaseRoofline(view, g.runs[0]));
  const warnings = g.runs.flatMap((run) => (run.warnings || []).map((w) => genLabel(run) + ': ' + w));
  if (warnings.length) card.append(h('ul', {class: 'findings', id: 'gen-warnings'}, warnings.map((w) => h('li', {class: 'warn'}, w))));
  return card;
}

// llama-bench: one row per phase of each configuration, t/s = mean ± std over requests.
function benchTable(view, runs) {
  const b = (view.report.backends || [])[0] || {};
  const rows = [];
  for (const run of runs) {
    rows.push([genLabel(run), 'pp' + run.prompt, fixed(run.prefill_tokens_per_s, 2) + ' ± ' + fixed(run.prefill_tokens_per_s_std, 2)]);
    if (run.gen > 0) rows.push([genLabel(run), 'tg' + run.gen, fixed(run.decode_tokens_per_s, 2) + ' ± ' + fixed(run.decode_tokens_per_s_std, 2)]);
  }
  return plainTable('gen-bench-table', ['config', 'test', 't/s'], rows, [false, false, true],
    (b.name || '') + ' ' + (b.version || ''));
}

function genTable(runs) {
  const cols = ['config', 'TTFT p50', 'p90', 'p99', 'TPOT p50', 'p90', 'p99', 'e2e p50', 'requests', 'bytes/token',
    'achieved GB/s', 'DRAM roof', 'of roof', 'KV/token', 'KV at end', 'peak RSS'];
  const rows = runs.map((r) => [genLabel(r), ms(r.ttft_ms.median), ms(r.ttft_ms.p90), ms(r.ttft_ms.p99), ms(r.tpot_ms.median),
    ms(r.tpot_ms.p90), ms(r.tpot_ms.p99), ms(r.e2e_ms.median), r.ttft_ms.n, bytes(r.decode_bytes_per_token),
    fixed(r.decode_gbps, 1), r.dram_gbps > 0 ? fixed(r.dram_gbps, 1) + ' (' + r.dram_roof + ')' : '—',
    r.dram_gbps > 0 ? pct(r.decode_gbps / r.dram_gbps) : '—', bytes(r.kv_bytes_per_token), bytes(r.kv_bytes_end),
    bytes(r.peak_rss_bytes)]);
  return plainTable('gen-table', cols, rows, cols.map((_, i) => i > 0), null);
}

function plainTable(id, cols, rows, numeric, caption) {
  const head = h('tr', null, cols.map((c, i) => h('th', {class: numeric[i] ? 'num' : null}, c)));
  const body = rows.map((row) => h('tr', null, row.map((v, i) =>
    h('td', {class: numeric[i] ? 'num' : null, style: i === 0 ? 'white-space:nowrap' : null}, v))));
  return h('table', {class: 'plain', id}, caption ? h('caption', {class: 'muted'}, caption) : null,
    h('thead', null, head), h('tbody', null, body));
}

// One line per batch (and decode length), prompt on the x axis.
function ttftSeries(runs) {
  const groups = new Map();
  for (const run of runs) {
    const key = 'batch=' + run.batch;
    if (!groups.has(key)) groups.set(key, new Map());
    groups.get(key).set(run.prompt, run.ttft_ms.median);  // TTFT does not depend on gen: one point per prompt
  }
  return [...groups].map(([name, pts]) => ({name, data: [...pts].sort((a, b) => a[0] - b[0])}));
}

// The TPOT series leaves out the decode steps that took page faults when every context has one without
// (runs[].by_context_faulted_steps): said in the chart's title.
function faultedNote(runs) {
  const left = runs.reduce((n, run) => n + (run.by_context_faulted_steps || 0), 0);
  return left ? ' — ' + left + ' steps with page faults left out' : '';
}

function tpotSeries(runs) {
  return runs.map((run) => ({name: genLabel(run), data: (run.by_context || []).map((p) => [p.context, p.tpot_ms, p.kv_bytes])}));
}

function lineChart(id, title, series, xName) {
  const el = h('div', {class: 'chart small', id});
  Charts.show(el, (theme) => ({
    grid: {left: 56, right: 16, top: 28, bottom: 40},
    legend: series.length > 1 ? {type: 'scroll', top: 0, textStyle: {color: theme.muted}} : undefined,
    tooltip: {trigger: 'item', formatter: (p) => tipRows(p.seriesName, [[xName, p.data[0]], ['ms', fixed(p.data[1], 3)]]
      .concat(p.data.length > 2 ? [['KV read', bytes(p.data[2])]] : []))},
    xAxis: Charts.axis(theme, {type: 'value', name: xName, nameGap: 26, scale: true}),
    yAxis: Charts.axis(theme, {type: 'value', scale: false}),
    series: series.map((s, i) => ({type: 'line', name: s.name, id: id + ':' + i, symbolSize: 5, data: s.data,
      color: i === 0 ? theme.accent : OP_PALETTE[(i + 1) % OP_PALETTE.length]})),
  }));
  return h('div', null, h('h3', null, title), el);
}

// The prefill and decode layers of one configuration against this machine's ceilings; FLOP-free layers are
// counted in the caption (a log-log plot has no place for them).
function phaseRoofline(view, run) {
  const phases = run.phases || [];
  if (!phases.length) return [emptyNote('This configuration has no per-layer profiles (generated with --no-layers).')];
  const roofs = ceilingsFor(view.hardware, run.threads);
  const placed = phases.map((p) => ({phase: p.phase, layers: (p.layers || []).filter(isPlaceable), all: p.layers || []}));
  const caption = placed.map((p) => p.phase + ' (past ' + phases.find((x) => x.phase === p.phase).past + '): ' +
    p.layers.length + ' of ' + p.all.length + ' layers placed').join('; ') + '. Dot area ~ time share within its step.' +
    (view.hardware ? '' : ' No ceilings: generated with --no-roofs.');
  const el = h('div', {class: 'chart tall', id: 'gen-roofline-chart'});
  const dots = placed.flatMap((p) => p.layers);
  if (!dots.length) return [h('p', {class: 'caption'}, caption), emptyNote('No layer with FLOPs and bytes to place.')];
  Charts.show(el, (theme) => {
    const peaks = roofs.compute.map((c) => c.gflops), bws = roofs.memory.map((m) => m.gbps);
    const top = peaks.length ? Math.max(...peaks) : 0;
    const [x0, x1] = logRange([...dots.map((l) => l.intensity), ...bws.map((bw) => (top || 1) / bw * 4)]);
    const [y0, y1] = logRange([...dots.map((l) => l.gflops), ...peaks.map((p) => p * 1.5)]);
    const lineStyle = {color: theme.muted, width: 1.2, type: view.datasheet ? 'dashed' : 'solid'};
    const endLabel = {show: true, color: theme.muted, fontSize: 11, formatter: (p) => p.seriesName};
    const series = roofs.compute.map((c) => ({id: 'ceiling:' + c.name, endLabel, lineStyle, type: 'line', symbol: 'none',
      name: ceilingLabel(view, c.name + ' x' + c.threads + ' · ' + fixed(c.gflops, 1) + ' GFLOP/s'),
      data: [[Math.max(bws.length ? c.gflops / Math.max(...bws) : x0, x0), c.gflops], [x1, c.gflops]]}));
    for (const m of roofs.memory) {
      const xs = Math.max(x0, y0 / m.gbps), xe = top ? top / m.gbps : x1;
      series.push({id: 'ceiling:' + m.level, type: 'line', symbol: 'none', lineStyle,
        name: ceilingLabel(view, m.level + ' ' + m.kernel + ' x' + m.threads + ' · ' + fixed(m.gbps, 1) + ' GB/s'),
        data: [[xs, xs * m.gbps], [xe, xe * m.gbps]]});
    }
    for (const p of placed) {
      series.push({id: 'phase:' + p.phase, name: p.phase, type: 'scatter', z: 3,
        data: p.layers.map((l) => [l.intensity, l.gflops, l.name, l.op, l.share, l.bound]),
        symbolSize: (v) => Math.min(36, 5 + 40 * Math.sqrt(v[4] || 0)),
        itemStyle: {color: PHASE_COLORS[p.phase] || theme.accent, opacity: 0.8, borderColor: theme.panel, borderWidth: 0.6}});
    }
    return {
      grid: ROOF_GRID,
      legend: {top: 4, data: placed.map((p) => p.phase), textStyle: {color: theme.muted}},
      tooltip: {trigger: 'item', formatter: (p) => (String(p.seriesId).startsWith('phase:')
        ? tipRows(p.data[2], [['phase', p.seriesName], ['op', p.data[3]], ['intensity', fixed(p.data[0], 2) + ' FLOP/B'],
          ['GFLOP/s', fixed(p.data[1], 2)], ['share of step', pct(p.data[4])], ['bound', p.data[5] || '—']])
        : tipRows(p.seriesName, []))},
      xAxis: Charts.axis(theme, {type: 'log', min: x0, max: x1, name: 'arithmetic intensity (FLOP/byte)', nameGap: 30}),
      yAxis: Charts.axis(theme, {type: 'log', min: y0, max: y1, name: 'GFLOP/s', nameGap: 48}),
      series,
    };
  });
  return [h('p', {class: 'caption'}, caption), el];
}
