// Timeline of one profiled iteration: each layer a bar from its start in the first measured profiled iteration.
// Its length is the layer's median time, which can exceed that iteration's own duration a little; so a kernel
// opens a new lane (parallel execution) only when it starts before the previous one in the lane is half done,
// and a bar is cut where the next one in its lane starts.
function timelineLanes(layers) {
  const last = [];  // per lane: the item drawn last
  const items = [];
  for (const l of layers.slice().sort((a, b) => a.start_ms - b.start_ms)) {
    let lane = last.findIndex((it) => l.start_ms >= it[0] + (it[1] - it[0]) / 2);
    if (lane < 0) lane = last.length;
    if (last[lane]) last[lane][1] = Math.min(last[lane][1], l.start_ms);
    const item = [l.start_ms, l.start_ms + l.time_ms, lane, l.seq];
    last[lane] = item;
    items.push(item);
  }
  return items;
}

function renderTimeline(view, run, onPick) {
  const card = section('timeline', 'Timeline', 'One profiled iteration of ' + run.label + ': layers as bars at their start time, ' +
    'for their median duration. Scroll or drag the slider to zoom.');
  const layers = run.layers.filter((l) => l.time_ms > 0);
  if (!layers.length) {
    card.append(emptyNote('No layer times in this run (profiled with --no-layers?).'));
    return card;
  }
  // Sources that time layers without placing them in time (trtexec's per-layer averages, OpenVINO's counters)
  // leave every start at 0: stacking them there would draw a timeline that never happened.
  if (layers.length > 1 && layers.every((l) => !l.start_ms)) {
    card.append(emptyNote('The profile this run comes from records no layer start times.'));
    return card;
  }
  const data = timelineLanes(layers);
  const laneCount = Math.max(...data.map((d) => d[2])) + 1;
  const el = h('div', {class: 'chart small', id: 'timeline-chart'});
  card.append(el);
  Charts.show(el, (theme) => ({
    grid: {left: 56, right: 24, top: 16, bottom: 70},
    tooltip: {formatter: (p) => {
      const l = run.layers[p.data[3]];
      return tipRows(l.name, [['op', l.op], ['start', ms(l.start_ms) + ' ms'], ['time', ms(l.time_ms) + ' ms (' + pct(l.share) + ')']]);
    }},
    dataZoom: [{type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter'},
      {type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', height: 18, bottom: 10, borderColor: theme.border, textStyle: {color: theme.muted}}],
    xAxis: Charts.axis(theme, {type: 'value', name: 'ms', nameGap: 24, min: 0}),
    yAxis: Charts.axis(theme, {type: 'category', data: Array.from({length: laneCount}, (_, i) => 'lane ' + (i + 1)), splitLine: {show: false}}),
    series: [{
      type: 'custom', id: 'timeline', data, encode: {x: [0, 1], y: 2}, progressive: 4000,
      renderItem: (params, api) => {
        const a = api.coord([api.value(0), api.value(2)]), b = api.coord([api.value(1), api.value(2)]);
        const height = api.size([0, 1])[1] * 0.7;
        const rect = echarts.graphic.clipRectByRect({x: a[0], y: a[1] - height / 2, width: Math.max(1, b[0] - a[0]), height},
          {x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height});
        return rect && {type: 'rect', shape: rect, style: {fill: view.opColor(run.layers[api.value(3)].op)}};
      },
    }],
  }), (chart) => chart.on('click', (p) => { if (p.seriesId === 'timeline') onPick(p.data[3]); }));
  return card;
}
