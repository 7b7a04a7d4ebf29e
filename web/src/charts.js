// Chart lifecycle: every chart is (element, option builder). Sections register charts while they are built,
// detached; flush() draws them once the sections are in the page (ECharts sizes itself from its element).
// The builders read the theme, so a theme switch disposes and rebuilds them all; a resize resizes them.
// rendered() resolves once each chart has drawn (main.js then marks the page ready; the browser tests and
// `make bench` time that).
const Charts = (() => {
  const live = new Map();  // element -> {build, chart, done}

  function base(theme) {
    return {
      animation: false,
      textStyle: {fontFamily: cssVar('--sans') || 'sans-serif', color: theme.text},
      tooltip: {confine: true, backgroundColor: theme.panel, borderColor: theme.border, textStyle: {color: theme.text, fontSize: 12}},
    };
  }

  function axis(theme, extra) {
    return Object.assign({
      axisLine: {lineStyle: {color: theme.faint}}, axisTick: {lineStyle: {color: theme.faint}},
      axisLabel: {color: theme.muted}, splitLine: {lineStyle: {color: theme.grid}},
      nameTextStyle: {color: theme.muted}, nameLocation: 'middle',
    }, extra);
  }

  function draw(el, entry) {
    const t0 = performance.now();
    if (entry.chart) entry.chart.dispose();
    entry.chart = echarts.init(el, null, {renderer: 'canvas'});
    entry.done = new Promise((resolve) => {
      const chart = entry.chart;
      chart.on('finished', function first() {
        chart.off('finished', first);
        performance.mark('rooflens:finished ' + el.id);
        resolve();
      });
    });
    const theme = chartTheme();
    entry.chart.setOption(Object.assign(base(theme), entry.build(theme)));
    if (entry.onReady) entry.onReady(entry.chart);
    performance.measure('rooflens:chart ' + el.id, {start: t0});  // per-chart cost, for `make bench` and profiling
  }

  // onReady(chart): wire events (clicks) after each (re)build.
  function show(el, build, onReady) {
    live.set(el, {build, onReady, chart: null, done: null});
  }

  function flush() {
    for (const [el, entry] of live) if (!entry.chart) draw(el, entry);
  }

  function drop(container) {
    for (const [el, entry] of live) {
      if (container.contains(el)) {
        if (entry.chart) entry.chart.dispose();
        live.delete(el);
      }
    }
  }

  function redrawAll() { for (const [el, entry] of live) draw(el, entry); }
  function resizeAll() { for (const entry of live.values()) if (entry.chart) entry.chart.resize(); }
  function rendered() { return Promise.all([...live.values()].map((e) => e.done)); }

  window.addEventListener('resize', () => resizeAll());
  return {show, flush, drop, redrawAll, rendered, axis};
})();

// The page's light/dark switch (every page: report, history, scores): starts from the system's preference; a switch
// rebuilds the charts, whose builders read the theme.
function themeToggle() {
  const root = document.documentElement;
  const prefersDark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  root.dataset.theme = prefersDark ? 'dark' : 'light';
  document.getElementById('theme-toggle').addEventListener('click', () => {
    root.dataset.theme = root.dataset.theme === 'dark' ? 'light' : 'dark';
    Charts.redrawAll();
  });
}
