// Serving (`rooflens capacity` on a decoder, `rooflens import vllm|aiperf`): the verdict first, every run in a table,
// TTFT and TPOT against the load with the objectives as lines and the prediction dashed, the Pareto front of tokens/s
// per user against the machine's tokens/s with its knee, and the decode steps on the roofline. Shown only when
// report.serving or report.serving_search exists (docs/report-schema.md, "Serving reports").
const SERVING_PERCENTILES = [['p50', '#4e79a7'], ['p99', '#e15759']];

// The runs of the report and what varies between them: a search's axis, else the one run on its own.
function servingRuns(report) {
  if (report.serving_search) return report.serving_search.runs;
  return report.serving ? [report.serving] : [];
}

// The value of the lever a run stands at on the x axis, and the axis' name.
function servingAxis(report) {
  const search = report.serving_search;
  const axis = search ? search.axis : (report.serving.settings.scenario === 'concurrency' ? 'users'
    : report.serving.settings.scenario === 'server' ? 'qps' : 'max-batch');
  const of = {qps: (s) => s.rate, users: (s) => s.users, 'max-batch': (s) => s.max_batch}[axis];
  const names = {qps: 'requests/s (Poisson)', users: 'concurrent users', 'max-batch': 'max batch'};
  return {axis, name: names[axis], x: (run) => of(run.settings)};
}

function servingObjectives(s) {
  const parts = [];
  if (s.slo_ttft_ms > 0) parts.push('TTFT ≤ ' + trim3(s.slo_ttft_ms) + ' ms');
  if (s.slo_tpot_ms > 0) parts.push('TPOT ≤ ' + trim3(s.slo_tpot_ms) + ' ms');
  if (s.slo_e2e_ms > 0) parts.push('E2E ≤ ' + trim3(s.slo_e2e_ms) + ' ms');
  return parts.length ? 'p' + s.percentile + ' ' + parts.join(', ') + (s.slo_preset ? ' (' + s.slo_preset + ')' : '') : 'no objectives';
}

function servingVerdicts(report, runs, axis) {
  const list = h('ul', {class: 'findings', id: 'serving-verdicts'});
  const search = report.serving_search;
  const unit = axis.axis === 'qps' ? ' req/s' : axis.axis === 'users' ? ' users' : '';
  if (search && search.kind === 'find-peak') {
    const objectives = servingObjectives(runs.length ? runs[0].settings : {});
    list.append(h('li', {class: search.peak > 0 ? 'ok' : 'warn'}, h('b', null, search.peak > 0 ? 'VALID' : 'INVALID'),
      search.peak > 0 ? ' peak ' + trim3(search.peak) + unit + ' at ' + objectives : ' nothing VALID at ' + objectives,
      search.predicted_peak > 0 ? ' · predicted ' + trim3(search.predicted_peak) + unit : '',
      search.stopped ? ' · ' + search.stopped : ''));
  } else if (search) {
    list.append(h('li', {class: search.stopped ? 'warn' : 'ok'}, h('b', null, 'sweep'), ' of ' + search.axis + ' over ' +
      runs.length + ' runs' + (search.knee >= 0 ? ' · knee at ' + search.axis + ' ' + axis.x(runs[search.knee]) : '') +
      (search.stopped ? ' · ' + search.stopped : '')));
  }
  for (const run of search ? [] : runs) {
    if (run.measured_by) {  // imported (vllm, aiperf): the file keeps no objectives
      list.append(h('li', null, h('b', null, 'NOT JUDGED'), ' measured by ' + run.measured_by + ' (an imported run)'));
      continue;
    }
    const v = run.verdict;
    list.append(h('li', {class: v.valid ? 'ok' : 'warn'}, h('b', null, v.valid ? 'VALID' : 'INVALID'), ' ' +
      servingObjectives(run.settings) + (v.reasons.length ? ': ' + v.reasons.join('; ') : '')));
  }
  return list;
}

// A figure the run's file did not give (an imported run's not_given) shows as a dash, never as 0.
function servingFigure(run, key, text) {
  const absent = run.not_given || [];
  return absent.includes(key) || absent.includes(key.split('.')[0]) ? '—' : text;
}

function servingTable(runs, axis) {
  const rows = runs.map((run) => {
    const s = run.summary, p = run.predicted;
    const f = (key, text) => servingFigure(run, key, text);
    return [String(axis.x(run)), run.settings.scenario, run.settings.batching || '—', String(s.completed) + ' / ' + s.requests,
      trim3(s.request_throughput), f('output_tokens_per_s', trim3(s.output_tokens_per_s)),
      f('tokens_per_s_per_user.mean', trim3(s.tokens_per_s_per_user.mean)), f('ttft_ms.p50', fixed(s.ttft_ms.p50, 1)),
      f('ttft_ms.p99', fixed(s.ttft_ms.p99, 1)), f('tpot_ms.p50', fixed(s.tpot_ms.p50, 2)), f('tpot_ms.p99', fixed(s.tpot_ms.p99, 2)),
      f('goodput', trim3(s.goodput)), run.measured_by ? 'not judged' : run.verdict.valid ? 'VALID' : 'INVALID',
      p ? trim3(p.summary.output_tokens_per_s) : '—'];
  });
  return plainTable('serving-runs-table', [axis.axis, 'scenario', 'batching', 'completed', 'req/s', 'output tok/s',
    'tok/s per user', 'TTFT p50 ms', 'TTFT p99 ms', 'TPOT p50 ms', 'TPOT p99 ms', 'goodput req/s', 'verdict',
    'predicted output tok/s'], rows, [true, false, false, true, true, true, true, true, true, true, true, true, false, true],
  'every run, in the order run');
}

// p50 and p99 of one metric against the load, the objective as a line, the prediction dashed.
function servingLatencyChart(id, title, metric, limit, runs, axis) {
  const el = h('div', {class: 'chart small', id});
  const sorted = [...runs].sort((a, b) => axis.x(a) - axis.x(b));
  const series = SERVING_PERCENTILES.map(([key, color]) => ({type: 'line', name: key, id: 'measured ' + key, color, symbolSize: 7,
    data: sorted.map((r) => [axis.x(r), r.summary[metric][key], r.verdict.valid ? 'VALID' : 'INVALID'])}));
  for (const [key, color] of SERVING_PERCENTILES) {
    const predicted = sorted.filter((r) => r.predicted);
    if (predicted.length) series.push({type: 'line', name: 'predicted ' + key, id: 'predicted ' + key, color, symbol: 'none',
      lineStyle: {type: 'dashed'}, data: predicted.map((r) => [axis.x(r), r.predicted.summary[metric][key]])});
  }
  if (limit > 0) series[1].markLine = {symbol: 'none', silent: true, label: {formatter: 'objective ' + trim3(limit) + ' ms'},
    lineStyle: {color: '#e15759'}, data: [{yAxis: limit, name: 'objective'}]};
  Charts.show(el, (theme) => ({
    grid: {left: 56, right: 16, top: 28, bottom: 40},
    legend: {type: 'scroll', top: 0, textStyle: {color: theme.muted}},
    tooltip: {trigger: 'item', formatter: (p) => tipRows(p.seriesName, [[axis.axis, trim3(p.data[0])], ['ms', fixed(p.data[1], 2)]]
      .concat(p.data[2] ? [['verdict', p.data[2]]] : []))},
    xAxis: Charts.axis(theme, {type: 'value', name: axis.name, nameGap: 26, scale: true}),
    yAxis: Charts.axis(theme, {type: 'log', name: 'ms', nameGap: 40}),
    series,
  }));
  return h('div', null, h('h3', null, title), el);
}

// Tokens/s per user against output tokens/s of the machine: every run a dot, the front a line, the knee marked.
function servingParetoChart(search, runs, axis) {
  const el = h('div', {class: 'chart small', id: 'serving-pareto-chart'});
  const point = (i) => [runs[i].summary.output_tokens_per_s, runs[i].summary.tokens_per_s_per_user.mean, axis.x(runs[i])];
  const front = (search.pareto || []).map(point);
  const series = [
    {type: 'scatter', name: 'runs', id: 'runs', symbolSize: 8, data: runs.map((_, i) => point(i))},
    {type: 'line', name: 'Pareto front', id: 'front', symbol: 'none', data: front},
  ];
  if (search.knee >= 0) series.push({type: 'scatter', name: 'knee', id: 'knee', symbol: 'diamond', symbolSize: 16,
    data: [point(search.knee)]});
  Charts.show(el, (theme) => ({
    grid: {left: 56, right: 16, top: 28, bottom: 40},
    legend: {top: 0, textStyle: {color: theme.muted}},
    tooltip: {trigger: 'item', formatter: (p) => tipRows(axis.axis + ' ' + p.data[2], [['output tok/s', trim3(p.data[0])],
      ['tok/s per user', trim3(p.data[1])]])},
    xAxis: Charts.axis(theme, {type: 'value', name: 'output tokens/s (machine)', nameGap: 26, scale: true}),
    yAxis: Charts.axis(theme, {type: 'value', name: 'tokens/s per user', nameGap: 40, scale: true}),
    series,
  }));
  return h('div', null, h('h3', null, 'Pareto front: tokens/s per user against the machine\'s'), el);
}

// Each decode step of B rows at the run's mean context: its intensity and the rate its calibrated time gives, under
// the DRAM roof and the highest compute roof at its threads; hollow marks where the roof alone would put it.
function servingRooflineChart(view, roofline) {
  const el = h('div', {class: 'chart small', id: 'serving-roofline-chart'});
  const steps = roofline.steps.filter((s) => s.flops > 0 && s.bytes > 0);
  const at = (s, ms) => [s.flops / s.bytes, ms > 0 ? s.flops / ms / 1e6 : 0, s.batch];
  const {compute, memory} = ceilingsFor(view.hardware, roofline.threads);
  const dram = memory.find((m) => m.level === 'DRAM');
  const peak = compute.length ? compute[0] : null;
  const xs = steps.map((s) => s.flops / s.bytes);
  const lo = Math.min(...xs) / 2, hi = Math.max(...xs) * 4;
  const series = [
    {type: 'scatter', name: 'calibrated step', id: 'calibrated', symbolSize: 9,
      data: steps.filter((s) => s.calibrated_ms > 0).map((s) => at(s, s.calibrated_ms))},
    {type: 'scatter', name: 'roof allows', id: 'floor', symbol: 'emptyCircle', symbolSize: 9, data: steps.map((s) => at(s, s.floor_ms))},
  ];
  if (dram || peak) {
    const roof = (x) => Math.min(dram ? dram.gbps * x : Infinity, peak ? peak.gflops : Infinity);
    const line = [];
    for (let i = 0; i <= 40; i++) { const x = lo * Math.pow(hi / lo, i / 40); line.push([x, roof(x)]); }
    series.push({type: 'line', name: [dram ? 'DRAM ' + trim3(dram.gbps) + ' GB/s' : '', peak ? peak.name + ' ' +
      trim3(peak.gflops) + ' GFLOP/s' : ''].filter(Boolean).join(' · '), id: 'roof', symbol: 'none', data: line, color: '#888'});
  }
  Charts.show(el, (theme) => ({
    grid: {left: 64, right: 16, top: 28, bottom: 40},
    legend: {type: 'scroll', top: 0, textStyle: {color: theme.muted}},
    tooltip: {trigger: 'item', formatter: (p) => tipRows(p.data[2] !== undefined ? 'batch ' + p.data[2] : p.seriesName,
      [['FLOPs per byte', trim3(p.data[0])], ['GFLOP/s', trim3(p.data[1])]])},
    xAxis: Charts.axis(theme, {type: 'log', name: 'FLOPs per byte', nameGap: 26, min: lo, max: hi,
      axisLabel: {color: theme.muted, formatter: (v) => trim3(v)}}),
    yAxis: Charts.axis(theme, {type: 'log', name: 'GFLOP/s', nameGap: 44}),
    series,
  }));
  const caption = 'context ' + roofline.context + ' tokens per row, ' + roofline.threads + ' thread(s); ' +
    (roofline.compute_bound_from > 0 ? 'compute-bound from batch ' + roofline.compute_bound_from : 'memory-bound at every batch shown') +
    (roofline.kv_outweighs_weights_from > 0 ? '; the KV cache outweighs the weights past ' + roofline.kv_outweighs_weights_from +
      ' tokens per row' : '');
  return h('div', null, h('h3', null, 'Decode steps on the roofline'), h('p', {class: 'caption'}, caption), el);
}

function renderServing(view) {
  const report = view.report;
  const runs = servingRuns(report);
  const card = section('serving', 'Serving',
    'A decoder served request by request: per request, TTFT from its scheduled arrival to its first token, TPOT = (E2E − TTFT) / ' +
    '(output tokens − 1); goodput counts the requests that met every objective. VALID needs each objective at its percentile ' +
    'with MLPerf\'s early-stopping bound and no request lost.');
  if (!runs.length) {
    card.append(emptyNote('No run finished.'));
    return card;
  }
  const axis = servingAxis(report);
  card.append(servingVerdicts(report, runs, axis), h('div', {class: 'scroll-x'}, servingTable(runs, axis)));
  const s = runs[0].settings;
  const row = h('div', {class: 'row3'});
  row.append(servingLatencyChart('serving-ttft-chart', 'TTFT against ' + axis.name, 'ttft_ms', s.slo_ttft_ms, runs, axis),
    servingLatencyChart('serving-tpot-chart', 'TPOT against ' + axis.name, 'tpot_ms', s.slo_tpot_ms, runs, axis));
  if (report.serving_search && runs.length > 1) row.append(servingParetoChart(report.serving_search, runs, axis));
  card.append(row);
  if (report.serving_roofline && report.serving_roofline.steps.length) card.append(servingRooflineChart(view, report.serving_roofline));
  return card;
}
