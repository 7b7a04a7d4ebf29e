// The history page (`rooflens history --html`): the --check verdicts, the trend table, and one chart per trend —
// each run's centre (the median of its repetition medians) over time, the repetition medians as dots around
// it, failed runs as crosses, change points as dashed lines labelled with the level shift. Same safety rule as
// the report page (util.js): data reaches the DOM only as text; tooltips are built with esc().
const trends = JSON.parse(document.getElementById('rooflens-data').textContent);
const MAX_CHARTS = 60;  // more trends than this: filter to see the others (each chart costs a canvas)

function signedPct(ratio) { return (ratio >= 0 ? '+' : '') + (ratio * 100).toFixed(1) + '%'; }
function when(iso) { return String(iso || '').replace('T', ' ').slice(0, 16); }
function shortId(id) { return String(id || '').slice(0, 8); }
function seriesConfig(s) { return s.options ? s.config + ' [' + s.options + ']' : s.config; }
function machineText(id) {
  const m = (trends.machines || []).find((x) => x.id === id);
  return m ? m.cpu + ', ' + m.cores + ' cores, ' + m.os : id;
}

function renderChecks() {
  const check = trends.check;
  if (!check) return null;
  const card = section('check', 'Check', 'Each trend\'s latest run against up to ' + check.last + ' runs before it on ' +
    'the same machine: Student\'s t of its centre against theirs on logs, p < ' + check.alpha + ' and a change ' +
    'beyond ±' + pct(check.threshold) + ' (at least ' + check.min_runs + ' earlier runs).');
  const rows = (check.results || []).map((c) => h('tr', {class: c.verdict === 'regression' || c.verdict === 'new failure' ? 'bad' : null},
    h('td', null, c.model), h('td', null, c.options ? c.config + ' [' + c.options + ']' : c.config),
    h('td', {class: 'mono'}, shortId(c.machine)), h('td', {class: 'num'}, c.baseline_ms > 0 ? ms(c.baseline_ms) : '-'),
    h('td', {class: 'num'}, c.latest_ms > 0 ? ms(c.latest_ms) : '-'),
    h('td', {class: 'num'}, c.baseline_ms > 0 && c.latest_ms > 0 ? signedPct(c.change) : '-'),
    h('td', {class: 'num'}, c.baseline_ms > 0 && c.latest_ms > 0 ? '[' + signedPct(c.ci_low - 1) + ', ' + signedPct(c.ci_high - 1) + ']' : '-'),
    h('td', {class: 'num'}, c.baseline_ms > 0 ? Number(c.p_value).toPrecision(2) : '-'),
    h('td', {class: 'num'}, c.baseline_runs), h('td', null, c.verdict + (c.model_changed ? ' (model changed)' : ''))));
  card.append(h('table', {class: 'plain', id: 'check-table'},
    h('thead', null, h('tr', null, ...['model', 'config', 'machine', 'baseline ms', 'latest ms', 'change', '95% CI', 'p',
      'runs', 'verdict'].map((t) => h('th', null, t)))), h('tbody', null, rows)));
  return card;
}

function trendOption(s, theme) {
  const pts = s.points;
  const x = pts.map((p, i) => i);
  const centre = pts.map((p, i) => (p.center_ms > 0 ? [i, p.center_ms] : null)).filter(Boolean);
  const dots = [];
  pts.forEach((p, i) => (p.run_medians || []).forEach((m) => dots.push([i, m])));
  const failed = pts.map((p, i) => (p.status !== 'pass' ? [i, 0] : null)).filter(Boolean);
  const shifts = pts.map((p, i) => (p.change_point ? {xAxis: i, name: signedPct(p.change)} : null)).filter(Boolean);
  const tip = (i) => {
    const p = pts[i];
    const rows = [['time (UTC)', when(p.created_at)], ['ms', p.center_ms > 0 ? ms(p.center_ms) : '-'],
      ['runs', (p.run_medians || []).length], ['status', p.status]];
    if (p.tags && p.tags.commit) rows.push(['commit', p.tags.commit]);
    if (p.change_point) rows.push(['level shift', signedPct(p.change) + ' (p ' + Number(p.change_p).toPrecision(2) + ')']);
    if (p.model_changed) rows.push(['model', 'changed (' + String(p.model_hash).slice(0, 12) + ')']);
    if (p.error) rows.push(['error', p.error]);
    return tipRows(s.model, rows);
  };
  return {
    grid: {left: 60, right: 24, top: 28, bottom: 40},
    tooltip: {trigger: 'item', formatter: (p) => tip(Array.isArray(p.data) ? p.data[0] : p.data.xAxis || 0)},
    xAxis: Charts.axis(theme, {type: 'category', data: x.map((i) => when(pts[i].created_at).slice(5, 16)), name: 'run (UTC)', nameGap: 26}),
    yAxis: Charts.axis(theme, {type: 'value', name: 'ms', nameGap: 44, scale: true}),
    series: [
      {type: 'scatter', id: 'run-medians', data: dots, symbolSize: 5, itemStyle: {color: theme.faint, opacity: 0.7}},
      {type: 'line', id: 'centre', data: centre, showSymbol: true, symbolSize: 7, lineStyle: {color: theme.accent, width: 2},
        itemStyle: {color: theme.accent},
        markLine: {symbol: 'none', lineStyle: {color: theme.warn, type: 'dashed'}, label: {color: theme.warn, formatter: (p) => p.name},
          data: shifts}},
      {type: 'scatter', id: 'failed', data: failed, symbol: 'path://M0,0L10,10M10,0L0,10', symbolSize: 10,
        itemStyle: {color: theme.bad, borderColor: theme.bad, borderWidth: 2}},
    ],
  };
}

function renderTrends(filter) {
  const card = section('trends', 'Trends', 'One chart per model × configuration × machine: the line is each run\'s ' +
    'centre (the median of its repetition medians), grey dots the repetition medians, dashed lines the level ' +
    'shifts found (binary segmentation, Welch\'s t), crosses failed runs.');
  const input = h('input', {type: 'search', placeholder: 'filter trends (regular expression)', id: 'trend-filter', value: filter || ''});
  card.append(h('div', {class: 'history-toolbar'}, input));
  let re = null;
  try { re = filter ? new RegExp(filter, 'i') : null; } catch (e) { input.classList.add('invalid'); }
  const shown = (trends.series || []).filter((s) => !re || re.test(s.label + ' ' + s.machine));
  const list = h('div', {class: 'trend-list'});
  shown.slice(0, MAX_CHARTS).forEach((s, i) => {
    const el = h('div', {class: 'chart small', id: 'trend-' + i});
    list.append(h('div', {class: 'trend', dataset: {series: s.label}},
      h('h3', null, s.label), h('div', {class: 'muted'}, 'machine ' + shortId(s.machine) + ' · ' + machineText(s.machine) +
        ' · ' + s.points.length + ' runs'), el));
    Charts.show(el, (theme) => trendOption(s, theme));
  });
  if (shown.length > MAX_CHARTS) list.append(emptyNote((shown.length - MAX_CHARTS) + ' more trends: filter to see them.'));
  if (!shown.length) list.append(emptyNote('No trend matches.'));
  card.append(list);
  input.addEventListener('change', () => {
    Charts.drop(card);
    const next = renderTrends(input.value);
    card.replaceWith(next);
    Charts.flush();
  });
  return card;
}

themeToggle();
const runs = (trends.series || []).reduce((n, s) => n + s.points.length, 0);
const nTrends = (trends.series || []).length, nMachines = (trends.machines || []).length;
document.getElementById('model-sub').textContent = nTrends + (nTrends === 1 ? ' trend, ' : ' trends, ') + runs + ' runs · ' +
  (trends.machines || []).length + ' machines';
const main = document.getElementById('main');
const checks = renderChecks();
if (checks) main.append(checks);
main.append(renderTrends(''));
if ((trends.notes || []).length) {
  const notes = section('notes', 'Notes');
  notes.append(h('ul', null, trends.notes.map((n) => h('li', null, n))));
  main.append(notes);
}
Charts.flush();
document.getElementById('foot').textContent = 'Written by rooflens history from ' + trends.database + ', schema ' +
  trends.schema + '. Self-contained: charts by Apache ECharts, inlined; no network access.';
Charts.rendered().then(() => { document.documentElement.dataset.ready = String(Math.round(performance.now())); });
