// Capacity (`rooflens capacity` reports): each configuration's verdict first, then for the picked configuration its
// runs (every QPS tried), latency percentiles against QPS with the SLO line and the predicted curve, a histogram of
// the headline run's latencies, and a per-instance timeline of its last seconds; with --search the grid. Shown only
// when report.capacity exists (docs/report-schema.md, "Capacity reports").
const CAP_PERCENTILES = [['p50', '#4e79a7'], ['p90', '#59a14f'], ['p99', '#e15759'], ['p999', '#b07aa1']];

function capHeadlinePoint(run, scenario) {
  const same = run.points.filter((p) => p.scenario === scenario);
  if (scenario === 'server' && run.peak) {
    const valid = same.filter((p) => p.verdict === 'VALID').sort((a, b) => b.target_qps - a.target_qps);
    if (valid.length) return valid[0];
  }
  return same.length ? same[same.length - 1] : run.points[run.points.length - 1];
}

function capVerdict(c, run) {
  const s = c.settings;
  if (run.failure) return ['FAILED', run.label + ': ' + run.failure];
  if (run.peak) {
    return run.peak.qps > 0 ? ['VALID', 'server peak ' + trim3(run.peak.qps) + ' QPS at p' + s.percentile + ' ≤ ' + s.slo_ms + ' ms']
      : ['INVALID', 'no QPS tried was VALID at p' + s.percentile + ' ≤ ' + s.slo_ms + ' ms'];
  }
  const p = capHeadlinePoint(run, s.search ? 'offline' : s.scenario);
  if (!p) return ['INVALID', 'no run finished'];
  const what = p.scenario === 'server' ? 'server at ' + trim3(p.target_qps) + ' QPS: p' + s.percentile + ' ' + fixed(p.percentile_ms, 2) + ' ms'
    : p.scenario === 'offline' ? 'offline: ' + trim3(p.samples_per_s) + ' samples/s'
      : p.scenario + ': p' + s.percentile + ' estimate ' + fixed(p.early_stopping.estimate_ms, 2) + ' ms';
  return [p.verdict, what];
}

function renderCapacity(view) {
  const c = view.report.capacity;
  const s = c.settings;
  const card = section('capacity', 'Capacity',
    'MLPerf scenarios on a pool of runner instances. Server latency counts from each query\'s scheduled time (a seeded ' +
    'Poisson schedule); VALID needs the p' + s.percentile + ' within the SLO, MLPerf\'s early-stopping bound, and runs of at ' +
    'least ' + s.min_duration_s + ' s and ' + s.min_queries + ' queries' + (s.mlperf_durations ? ' (MLPerf\'s).' : ' (sized for small machines; MLPerf asks 600 s).'));
  const list = h('ul', {class: 'findings', id: 'cap-verdicts'});
  for (const run of c.runs) {
    const [verdict, what] = capVerdict(c, run);
    list.append(h('li', {class: verdict === 'VALID' ? 'ok' : 'warn'}, h('b', null, verdict), ' ' + what + '  (' + run.label + ')'));
  }
  if (c.self_test) list.append(h('li', null, 'self-test: ' + trim3(c.self_test.max_qps) + ' queries/s through the runners; issue lag p99 ' +
    fixed(c.self_test.issue_lag_p99_ms, 3) + ' ms at ' + trim3(c.self_test.lag_at_qps) + ' QPS'));
  card.append(list);
  if (s.search) card.append(h('h3', null, 'Configurations (--search)'), h('div', {class: 'scroll-x'}, capGridTable(c)));
  const served = c.runs.filter((r) => r.points.length);
  if (!served.length) {
    card.append(emptyNote('No configuration finished a run.'));
    return card;
  }
  const picker = h('select', {id: 'cap-run-select', 'aria-label': 'capacity configuration'},
    served.map((run, i) => h('option', {value: i}, run.label)));
  const holder = h('div', null);
  card.append(h('h3', null, 'Configuration ', picker), holder);
  const draw = () => {
    Charts.drop(holder);
    clear(holder);
    holder.append(...capConfig(c, served[Number(picker.value)]));
    Charts.flush();
  };
  picker.addEventListener('change', draw);
  holder.append(...capConfig(c, served[0]));
  return card;
}

function capConfig(c, run) {
  const out = [h('div', {class: 'scroll-x'}, capPointsTable(run))];
  const facts = [];
  if (run.prediction) {
    const p = run.prediction;
    facts.push(['predicted', (p.peak_qps > 0 ? 'server peak ' + trim3(p.peak_qps) + ' QPS, ' : '') + 'offline ' +
      trim3(p.offline_samples_per_s) + ' samples/s (simulation of single-stream service ' + fixed(p.service_ms, 2) + ' ms)']);
    if (p.measured_peak_qps > 0) facts.push(['measured peak', trim3(p.measured_peak_qps) + ' QPS; prediction error ' + fixed(100 * p.error, 1) + '%']);
  }
  if (run.explanation) {
    const e = run.explanation;
    facts.push(['achieved', fixed(e.gflops, 1) + ' GFLOP/s' + (e.compute_roof ? ' (' + pct(e.compute_share, 0) + ' of ' + e.compute_roof + ')' : '') +
      ', ' + fixed(e.gbps, 1) + ' GB/s' + (e.dram_roof ? ' (' + pct(e.dram_share, 0) + ' of ' + e.dram_roof + ')' : '') + ' on ' + e.cores_in_use + ' core(s)']);
  }
  const head = capHeadlinePoint(run, c.settings.search ? 'offline' : c.settings.scenario);
  if (head) facts.push(['instances', head.instances.map((u) => '#' + u.index + ' busy ' + pct(u.busy_share, 0)).join(' · ')]);
  if (facts.length) out.push(h('dl', {class: 'kv', id: 'cap-facts'}, facts.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)])));
  const row = h('div', {class: 'row3'});
  row.append(capLatencyChart(c, run));
  if (head) row.append(capHistogram(head));
  out.push(row);
  if (run.timeline.length) out.push(capTimeline(run));
  return out;
}

function capPointsTable(run) {
  const rows = run.points.map((p) => [p.scenario, p.target_qps > 0 ? trim3(p.target_qps) : '—', trim3(p.scheduled_qps),
    trim3(p.completed_qps), String(p.queries), fixed(p.latency_ms.p50, 2), fixed(p.latency_ms.p90, 2), fixed(p.latency_ms.p99, 2),
    fixed(p.latency_ms.p999, 2), p.scenario === 'server' ? String(p.over_slo) : '—', p.verdict,
    p.reasons.join('; ')]);
  return plainTable('cap-points-table', ['scenario', 'target QPS', 'scheduled', 'completed', 'queries', 'p50 ms', 'p90 ms',
    'p99 ms', 'p99.9 ms', 'over SLO', 'verdict', 'reasons'], rows,
  [false, true, true, true, true, true, true, true, true, true, false, false], 'every run of ' + run.label);
}

// Latency percentiles of every server run against its QPS, the SLO as a line, the prediction dashed.
function capLatencyChart(c, run) {
  const server = run.points.filter((p) => p.scenario === 'server').sort((a, b) => a.target_qps - b.target_qps);
  const el = h('div', {class: 'chart small', id: 'cap-latency-chart'});
  if (!server.length) return h('div', null, h('h3', null, 'Latency vs QPS'), emptyNote('No server run in this configuration.'));
  const series = CAP_PERCENTILES.map(([key, color]) => ({type: 'line', name: key, id: 'measured ' + key, color, symbolSize: 6,
    data: server.map((p) => [p.target_qps, p.latency_ms[key], p.verdict])}));
  const curve = (run.prediction || {}).curve || [];
  for (const [key, color] of [['p50', '#4e79a7'], ['p99', '#e15759']]) {
    if (curve.length) series.push({type: 'line', name: 'predicted ' + key, id: 'predicted ' + key, color, symbol: 'none',
      lineStyle: {type: 'dashed'}, data: curve.map((p) => [p.qps, p[key + '_ms']])});
  }
  if (c.settings.slo_ms > 0) series[2].markLine = {symbol: 'none', silent: true, label: {formatter: 'SLO ' + c.settings.slo_ms + ' ms'},
    lineStyle: {color: '#e15759'}, data: [{yAxis: c.settings.slo_ms, name: 'SLO'}]};
  Charts.show(el, (theme) => ({
    grid: {left: 56, right: 16, top: 28, bottom: 40},
    legend: {type: 'scroll', top: 0, textStyle: {color: theme.muted}},
    tooltip: {trigger: 'item', formatter: (p) => tipRows(p.seriesName, [['QPS', trim3(p.data[0])], ['ms', fixed(p.data[1], 2)]]
      .concat(p.data[2] ? [['verdict', p.data[2]]] : []))},
    xAxis: Charts.axis(theme, {type: 'value', name: 'QPS (Poisson)', nameGap: 26, scale: true}),
    yAxis: Charts.axis(theme, {type: 'log', name: 'ms', nameGap: 40}),
    series,
  }));
  return h('div', null, h('h3', null, 'Latency percentiles vs QPS'), el);
}

function capHistogram(point) {
  const lat = point.latencies_ms;
  const el = h('div', {class: 'chart small', id: 'cap-histogram-chart'});
  if (!lat.length) return h('div', null, h('h3', null, 'Latency histogram'), emptyNote('No answered query.'));
  const lo = Math.min(...lat), hi = Math.max(...lat);
  const bins = 40, width = (hi - lo) / bins || 1;
  const counts = new Array(bins).fill(0);
  for (const v of lat) counts[Math.min(bins - 1, Math.floor((v - lo) / width))]++;
  const data = counts.map((n, i) => [lo + (i + 0.5) * width, n]);
  Charts.show(el, (theme) => ({
    grid: {left: 56, right: 16, top: 16, bottom: 40},
    tooltip: {trigger: 'item', formatter: (p) => tipRows('latency', [['ms', fixed(p.data[0] - width / 2, 2) + '–' + fixed(p.data[0] + width / 2, 2)], ['queries', p.data[1]]])},
    xAxis: Charts.axis(theme, {type: 'value', name: 'ms', nameGap: 26, min: lo, max: hi,
      axisLabel: {color: theme.muted, formatter: (v) => trim3(v)}}),
    yAxis: Charts.axis(theme, {type: 'value'}),
    series: [{type: 'bar', id: 'histogram', data, barWidth: '90%', color: theme.accent}],
  }));
  const title = point.scenario + (point.target_qps > 0 ? ' at ' + trim3(point.target_qps) + ' QPS' : '') + ': ' + lat.length + ' queries';
  return h('div', null, h('h3', null, 'Latency histogram, ' + title), el);
}

// Each instance a row, each runtime call a bar (the last seconds of the configuration's last run).
function capTimeline(run) {
  const el = h('div', {class: 'chart small', id: 'cap-timeline-chart'});
  const instances = Math.max(...run.timeline.map((t) => t.instance)) + 1;
  const data = run.timeline.map((t) => [t.start_ms, t.end_ms, t.instance, t.batch]);
  Charts.show(el, (theme) => ({
    grid: {left: 72, right: 24, top: 16, bottom: 40},
    tooltip: {formatter: (p) => tipRows('instance ' + p.data[2], [['start', ms(p.data[0]) + ' ms'], ['call', ms(p.data[1] - p.data[0]) + ' ms'], ['batch', p.data[3]]])},
    xAxis: Charts.axis(theme, {type: 'value', name: 'ms from the run\'s start', nameGap: 24, scale: true}),
    yAxis: Charts.axis(theme, {type: 'category', data: Array.from({length: instances}, (_, i) => 'instance ' + i), splitLine: {show: false}}),
    series: [{
      type: 'custom', id: 'cap-timeline', data, encode: {x: [0, 1], y: 2},
      renderItem: (params, api) => {
        const a = api.coord([api.value(0), api.value(2)]), b = api.coord([api.value(1), api.value(2)]);
        const height = api.size([0, 1])[1] * 0.6;
        const rect = echarts.graphic.clipRectByRect({x: a[0], y: a[1] - height / 2, width: Math.max(1, b[0] - a[0]), height},
          {x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height});
        return rect && {type: 'rect', shape: rect, style: {fill: OP_PALETTE[api.value(2) % OP_PALETTE.length]}};
      },
    }],
  }));
  return h('div', null, h('h3', null, 'Instances at work (' + run.timeline.length + ' calls, the last seconds)'), el);
}

function capGridTable(c) {
  const rows = c.runs.map((run) => {
    const off = run.points.filter((p) => p.scenario === 'offline' && p.verdict === 'VALID');
    const notes = [run.failure, run.label === c.best_offline ? 'best offline' : '', run.label === c.best_server ? 'best server' : '']
      .filter((x) => x).join('; ');
    return [run.label, off.length ? trim3(off[off.length - 1].samples_per_s) : '—', run.peak ? trim3(run.peak.qps) : '—',
      run.prediction && run.prediction.peak_qps > 0 ? trim3(run.prediction.peak_qps) : '—', notes];
  });
  return plainTable('cap-grid-table', ['configuration', 'offline samples/s', 'server peak QPS', 'predicted QPS', 'note'], rows,
    [false, true, true, true, false]);
}
