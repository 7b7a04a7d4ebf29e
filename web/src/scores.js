// The leaderboard page (`rooflens history --scores --html`): per suite × mode one table of machines with their
// overall and category scores and 95% intervals, and per machine a chart of its categories decomposed as roof
// ratio × efficiency (score / 1000 = roof ratio × efficiency). Quick and full are separate groups, never one
// ranking; projected rows say PROJECTED and rank only among themselves (P1, P2...). Same safety rule as the report
// page (util.js): data reaches the DOM only as text; tooltips are built with esc().
const board = JSON.parse(document.getElementById('rooflens-data').textContent);
const MAX_CHARTS = 40;  // machine charts per group (each costs a canvas)

function scoreText(a) {
  if (!a || !(a.score > 0)) return a && a.members > 0 ? 'none valid' : '-';
  return Math.round(a.score) + (a.incomplete ? '*' : '');
}
function ciText(a) {
  if (!a || !(a.score > 0)) return '';
  return a.high > 0 ? '[' + Math.round(a.low) + ', ' + Math.round(a.high) + ']' : 'n/a';
}
function partsText(a) {
  if (!a || !(a.score > 0)) return '';
  return a.roof_ratio > 0 ? a.roof_ratio.toFixed(2) + '× × ' + a.efficiency.toFixed(2) + '×' : 'no roofs';
}
function kindText(row) { return row.kind === 'projected' ? 'PROJECTED' : 'measured'; }

function groupTable(g, gi) {
  const head = ['rank', 'machine', 'kind', 'overall', '95% CI', 'roof ratio × efficiency', ...g.categories, 'date (UTC)'];
  const rows = g.rows.map((row) => {
    const cats = g.categories.map((name) => {
      const c = (row.categories || []).find((x) => x.name === name);
      return h('td', {class: 'num', title: c ? c.explanation + (c.high > 0 ? ' · 95% CI ' + ciText(c) : '') : null}, scoreText(c));
    });
    const cls = [row.kind === 'projected' ? 'projected' : null, row.overall.incomplete ? 'incomplete' : null].filter(Boolean).join(' ');
    return h('tr', {class: cls || null, dataset: {rank: row.rank, kind: row.kind}},
      h('td', null, row.rank), h('td', null, row.label), h('td', {class: 'kind-' + row.kind}, kindText(row)),
      h('td', {class: 'num'}, scoreText(row.overall)), h('td', {class: 'num'}, ciText(row.overall)),
      h('td', {class: 'num'}, partsText(row.overall)), ...cats, h('td', null, String(row.created_at).slice(0, 16)));
  });
  return h('table', {class: 'plain', id: 'scores-' + gi},
    h('thead', null, h('tr', null, ...head.map((t) => h('th', null, t)))), h('tbody', null, rows));
}

// One machine's categories (and overall): score / 1000, roof ratio and efficiency side by side on a log axis,
// so score / 1000 = roof ratio × efficiency reads as bar heights adding up.
function machineOption(g, row, theme) {
  const aggs = [...g.categories.map((n) => (row.categories || []).find((c) => c.name === n) || {name: n}), row.overall];
  const names = aggs.map((a) => a.name);
  const val = (v) => (v > 0 ? v : null);
  const tip = (i) => {
    const a = aggs[i];
    const rows = [['score', scoreText(a)], ['95% CI', ciText(a) || '-'], ['roof ratio × efficiency', partsText(a) || '-'],
      ['valid', (a.valid_members || 0) + ' of ' + (a.members || 0)]];
    if (a.explanation) rows.push(['', a.explanation]);
    return tipRows(row.label + ' · ' + a.name, rows);
  };
  return {
    grid: {left: 56, right: 16, top: 34, bottom: 56},
    legend: {top: 0, textStyle: {color: theme.muted}},
    tooltip: {trigger: 'axis', axisPointer: {type: 'shadow'}, formatter: (p) => tip(p[0].dataIndex)},
    xAxis: Charts.axis(theme, {type: 'category', data: names, axisLabel: {color: theme.muted, interval: 0, rotate: 20}}),
    yAxis: Charts.axis(theme, {type: 'log', name: '× reference', nameGap: 40, logBase: 10}),
    series: [
      {type: 'bar', id: 'score', name: 'score / 1000', data: aggs.map((a) => val(a.score / 1000)), itemStyle: {color: theme.accent}},
      {type: 'bar', id: 'roof-ratio', name: 'roof ratio', data: aggs.map((a) => val(a.roof_ratio)), itemStyle: {color: '#59a14f'}},
      {type: 'bar', id: 'efficiency', name: 'efficiency', data: aggs.map((a) => val(a.efficiency)), itemStyle: {color: '#f28e2b'}},
    ],
  };
}

function renderGroup(g, gi) {
  const projected = g.rows.some((r) => r.kind === 'projected');
  const incomplete = g.rows.some((r) => r.overall.incomplete);
  const card = section('group-' + gi, g.title, 'Score = reference time / time × 1000 per figure, geometric means per ' +
    'category and overall; ranks count complete measured scores only.' +
    (projected ? ' PROJECTED rows are computed from the models\' analysis on a device\'s roofs, not measured, and rank ' +
      'only among themselves (P1, P2, ...).' : '') +
    (incomplete ? ' * incomplete: a workload was INVALID, failed or unsupported; not ranked (-).' : ''));
  card.append(groupTable(g, gi));
  const list = h('div', {class: 'machine-list'});
  g.rows.slice(0, MAX_CHARTS).forEach((row, ri) => {
    const el = h('div', {class: 'chart small', id: 'machine-' + gi + '-' + ri});
    const notes = h('ul', {class: 'explanations'},
      [row.overall, ...(row.categories || [])].filter((a) => a.explanation).map((a) => h('li', null, a.explanation)));
    list.append(h('div', {class: 'machine', dataset: {rank: row.rank}},
      h('h3', null, row.rank + '  ' + row.label),
      h('div', {class: 'muted'}, kindText(row) + ' · ' + (row.machine.os || '') + ' · rooflens ' + row.rooflens +
        (row.roofs ? ' · roofs: ' + row.roofs : '')), el, notes));
    Charts.show(el, (theme) => machineOption(g, row, theme));
  });
  if (g.rows.length > MAX_CHARTS) list.append(emptyNote((g.rows.length - MAX_CHARTS) + ' more machines in the table.'));
  card.append(list);
  return card;
}

themeToggle();
const nScores = board.groups.reduce((n, g) => n + g.rows.length, 0);
document.getElementById('model-sub').textContent = nScores + (nScores === 1 ? ' score' : ' scores') + ' · ' +
  board.groups.length + (board.groups.length === 1 ? ' group' : ' groups');
const main = document.getElementById('main');
board.groups.forEach((g, gi) => main.append(renderGroup(g, gi)));
if (!board.groups.length) main.append(emptyNote('No scores stored.'));
Charts.flush();
document.getElementById('foot').textContent = 'Written by rooflens history --scores from ' + board.source +
  (board.latest_only ? ' (the latest score of each machine)' : ' (every score)') +
  '. Self-contained: charts by Apache ECharts, inlined; no network access.';
Charts.rendered().then(() => { document.documentElement.dataset.ready = String(Math.round(performance.now())); });
