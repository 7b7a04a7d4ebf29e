// Page assembly: read the embedded report, draw every section, re-draw the run-dependent ones when another run
// is picked, and mark the page ready (html[data-ready] = ms since navigation) once every chart has drawn.
performance.mark('rooflens:start');
const report = JSON.parse(document.getElementById('rooflens-data').textContent);
performance.mark('rooflens:parsed');
const view = buildView(report);
const main = document.getElementById('main');
const state = {run: 0, table: null};

const SECTIONS = [['summary', 'Summary'], ['generation', 'Generation'], ['capacity', 'Capacity'], ['serving', 'Serving'], ['runtimes', 'Runtimes'],
  ['roofline', 'Roofline'], ['layers', null], ['graph', 'Graph'], ['breakdown', 'Breakdown'], ['latency', 'Latency'],
  ['sweep', 'Sweep'], ['timeline', 'Timeline'], ['memory', 'Memory'], ['whatif', 'What if'], ['findings', 'Findings']];

function pickLayer(seq) {
  if (state.table) state.table.reveal(seq);
  document.getElementById('layers').scrollIntoView({behavior: 'auto', block: 'start'});
}

// A finding's layer: switch to its run when another one is shown, then open the layer in the table.
function openLayer(runLabel, name) {
  const index = view.runs.findIndex((r) => r.label === runLabel);
  if (index >= 0 && index !== state.run) {
    select.value = String(index);
    state.run = index;
    drawRunSections(runHolder);
  }
  const seq = (view.runs[state.run] || {layers: []}).layers.findIndex((l) => l.name === name);
  if (seq >= 0) pickLayer(seq);
}

// The sections that show one run; replaced in place when the run changes.
function runSections() {
  const run = view.runs[state.run];
  if (!run) {
    const table = renderLayerTable(view, null);
    state.table = table;
    return [table.el, renderGraph(view, null, pickLayer), renderBreakdown(view, null, pickLayer),
      renderMemory(view, null, pickLayer)].filter(Boolean);
  }
  // A run without layer times (--no-layers) still has the model's nodes: show them as a static report does.
  const layered = run.layers.length > 0 ? run : null;
  const table = renderLayerTable(view, layered);
  state.table = table;
  return [renderRoofline(view, run, pickLayer), table.el, renderGraph(view, layered, pickLayer),
    renderBreakdown(view, layered, pickLayer), renderLatency(view, run), renderTimeline(view, run, pickLayer),
    renderMemory(view, run, pickLayer)].filter(Boolean);
}

function drawRunSections(holder) {
  Charts.drop(holder);
  clear(holder);
  for (const el of runSections()) holder.append(el);
  performance.mark('rooflens:run-sections-built');
  Charts.flush();
  performance.mark('rooflens:run-charts-drawn');
}

function header() {
  const m = view.model;
  document.title = (m.name || 'model') + ' · rooflens report';
  document.getElementById('model-name').textContent = m.name || m.path || 'report';
  const backends = view.report.backends || [];
  document.getElementById('model-sub').textContent = backends.length
    ? backends.map((b) => b.runtime || b.name).join(' + ')
    : 'static analysis · ' + (view.report.tool || {}).command;
  const select = document.getElementById('run-select');
  view.runs.forEach((run, i) => select.append(h('option', {value: i}, run.label)));
  select.parentElement.hidden = view.runs.length < 2;
  return select;
}

function nav() {
  const present = SECTIONS.filter(([id]) => document.getElementById(id));
  // The table's section is "Layers" or "Nodes": take the label from its heading.
  document.getElementById('nav').append(...present.map(([id, label]) =>
    h('a', {href: '#' + id}, label || document.querySelector('#' + id + ' > h2').textContent)));
}

function footer() {
  const t = view.report.tool || {};
  document.getElementById('foot').textContent = 'Written by rooflens ' + (t.version || '') + ' (' + (t.command || '') +
    '), schema ' + view.report.schema + '. Self-contained: charts by Apache ECharts, inlined; no network access.';
}

themeToggle();
const select = header();
main.append(renderSummary(view));
if (report.generation) main.append(renderGeneration(view));  // `rooflens generate` reports (generation.js)
if (report.capacity) main.append(renderCapacity(view));  // `rooflens capacity` reports (capacity.js)
if (report.serving || report.serving_search) main.append(renderServing(view));  // a decoder's (serving.js)
if ((view.report.runtime_comparisons || []).length) main.append(renderRuntimes(view));
const runHolder = h('div', {style: 'display:contents'});
main.append(runHolder);
drawRunSections(runHolder);
if (view.runs.length) main.append(renderSweep(view));  // all runs at once, after the picked run's sections
if (view.report.whatif) main.append(renderWhatIf(view));
main.append(renderFindings(view, openLayer));
// Another run redraws the run's own sections in place (runHolder); summary, sweep and findings stay.
select.addEventListener('change', () => { state.run = Number(select.value); drawRunSections(runHolder); });
Charts.flush();
nav();
footer();
Promise.all([Charts.rendered(), GraphViews.ready()]).then(() => { document.documentElement.dataset.ready = String(Math.round(performance.now())); });
