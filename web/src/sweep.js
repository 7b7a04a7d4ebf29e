// Sweep charts: latency, throughput and effective GFLOP/s against the swept setting (the batch when it varies,
// else the first dim or the thread count that does), one line per combination of the other settings.
function sweepAxes(runs) {
  const keyed = runs.map((r) => Object.assign({batch: r.batch, threads: r.threads}, r.dims || {}));
  const keys = [...new Set(keyed.flatMap((k) => Object.keys(k)))];
  const varies = keys.filter((k) => new Set(keyed.map((x) => x[k])).size > 1);
  const x = varies.includes('batch') ? 'batch' : varies[0];
  const rest = varies.filter((k) => k !== x && !(x === 'batch' && k.includes('batch')));
  return {x, keyed, rest};
}

function renderSweep(view) {
  const card = section('sweep', 'Sweep', 'Each point is one run (end-to-end, profiling off).');
  const {x, keyed, rest} = sweepAxes(view.runs);
  if (!x) {
    card.append(emptyNote(view.runs.length === 1
      ? 'One configuration was run: nothing to sweep. Profile with -b 1-64, --sweep seq=... or --sweep threads=1,2 for these charts.'
      : 'The runs differ in no setting.'));
    return card;
  }
  const groups = new Map();
  view.runs.forEach((run, i) => {
    const name = rest.map((k) => k + '=' + keyed[i][k]).join(' ') || 'all runs';
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push({run, x: keyed[i][x]});
  });
  const xs = [...new Set(keyed.map((k) => k[x]))].sort((a, b) => a - b);
  const charts = [
    ['sweep-latency', 'latency p50 (ms)', (r) => r.latency_ms.median, 3],
    ['sweep-throughput', 'throughput (items/s)', (r) => r.throughput_per_s, 1],
    ['sweep-gflops', 'effective GFLOP/s', (r) => r.gflops, 1],
  ];
  const row = h('div', {class: 'row3'});
  card.append(row);
  for (const [id, title, get, digits] of charts) {
    const el = h('div', {class: 'chart small', id: id + '-chart'});
    row.append(h('div', null, h('h3', null, title + ' vs ' + x), el));
    Charts.show(el, (theme) => ({
      grid: {left: 56, right: 16, top: 28, bottom: 40},
      legend: groups.size > 1 ? {top: 0, textStyle: {color: theme.muted}} : undefined,
      tooltip: {trigger: 'item', formatter: (p) => tipRows(view.runs[p.data.run].label, [[title, fixed(p.data.value[1], digits)]])},
      xAxis: Charts.axis(theme, {type: 'category', data: xs.map(String), name: x, nameGap: 26, boundaryGap: false}),
      yAxis: Charts.axis(theme, {type: 'value', scale: false}),
      series: [...groups].map(([name, pts], gi) => ({
        type: 'line', name, id: id + ':' + gi, symbolSize: 7, lineStyle: {width: 2},
        color: gi === 0 ? theme.accent : OP_PALETTE[(gi + 1) % OP_PALETTE.length],
        // Data items carry the run's index, not the run: ECharts copies option data, and a run holds every layer.
        data: pts.sort((a, b) => a.x - b.x).map((p) => ({value: [String(p.x), get(p.run)], run: p.run.index})),
      })),
    }));
  }
  return card;
}
