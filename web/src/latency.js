// Latency histogram of one run's measured iterations (profiling off), with its percentile markers.
function histogram(samples) {
  const lo = Math.min(...samples), hi = Math.max(...samples);
  const bins = Math.max(6, Math.min(40, Math.ceil(Math.sqrt(samples.length) * 2)));
  const width = hi > lo ? (hi - lo) / bins : Math.max(lo * 0.01, 1e-3);
  const counts = new Array(bins).fill(0);
  for (const s of samples) counts[Math.min(bins - 1, Math.floor((s - lo) / width))]++;
  return counts.map((c, i) => [lo + i * width, lo + (i + 1) * width, c]);
}

function renderLatency(view, run) {
  const samples = run.latencies_ms || [];
  const card = section('latency', 'Latency distribution', samples.length + ' measured iterations of ' + run.label +
    ' (profiling off, warm-up excluded); markers at the nearest-rank percentiles.');
  if (!samples.length) {
    card.append(emptyNote('This run recorded no latency samples.'));
    return card;
  }
  const el = h('div', {class: 'chart small', id: 'latency-chart'});
  card.append(el);
  const st = run.latency_ms;
  const marks = [['p50', st.median], ['p90', st.p90], ['p99', st.p99]];
  Charts.show(el, (theme) => ({
    grid: {left: 56, right: 24, top: 30, bottom: 44},
    tooltip: {formatter: (p) => (p.componentType === 'markLine' ? tipRows(p.name, [['ms', ms(p.value)]])
      : tipRows(ms(p.data[0]) + '–' + ms(p.data[1]) + ' ms', [['iterations', p.data[2]]]))},
    xAxis: Charts.axis(theme, {type: 'value', name: 'latency (ms)', nameGap: 28, scale: true}),
    yAxis: Charts.axis(theme, {type: 'value', name: 'iterations', nameGap: 36, minInterval: 1}),
    series: [{
      type: 'custom', id: 'histogram', data: histogram(samples), encode: {x: [0, 1], y: 2},
      renderItem: (params, api) => {
        const a = api.coord([api.value(0), api.value(2)]), b = api.coord([api.value(1), 0]);
        return {type: 'rect', shape: {x: a[0] + 1, y: a[1], width: Math.max(1, b[0] - a[0] - 2), height: b[1] - a[1]},
          style: {fill: theme.accent, opacity: 0.75}};
      },
      markLine: {symbol: 'none', silent: false, lineStyle: {color: theme.warn, type: 'dashed'},
        label: {color: theme.muted, formatter: (p) => p.name + ' ' + ms(p.value)},
        data: marks.map(([name, v]) => ({name, xAxis: v}))},
    }],
  }));
  return card;
}
