// Summary: what was measured, where, with what, and the end-to-end table (one row per run).
function renderSummary(view) {
  const r = view.report;
  const imported = (r.tool || {}).command === 'import';
  const caption = view.mode === 'profile' && imported
    ? 'Imported from another tool\'s files: end-to-end and layer times are as that tool measured them (rooflens ran nothing).'
    : view.mode === 'profile'
    ? 'End-to-end figures come from a run with profiling off; layer times from a second, profiled run.'
    : r.generation ? 'A generation report: the measured phases are in the Generation section; below is the static analysis at the first configuration\'s prefill.'
    : r.capacity ? 'A capacity report: the serving runs are in the Capacity section; below is the static analysis at one sample.'
    : (r.backends || []).length ? 'No configuration of this profile finished (see the findings); below is the static analysis.'
      : 'Static analysis only: shapes and cost of every node. Profile the model (rooflens profile) for timings.';
  const card = section('summary', 'Summary', caption);
  card.append(totalsStrip(view), h('div', {class: 'facts'}, modelFacts(view), hostFacts(view), backendFacts(view)));
  if (view.runs.length) card.append(h('h3', {class: 'caption'}, 'End-to-end latency (ms; percentiles nearest-rank)'), e2eTable(view));
  return card;
}

function kv(pairs) {
  const dl = h('dl', {class: 'kv'});
  for (const [k, v] of pairs) if (v !== undefined && v !== null && v !== '') dl.append(h('dt', null, k), h('dd', null, v));
  return dl;
}

function fact(title, pairs) { return h('div', {class: 'fact'}, h('h3', null, title), kv(pairs)); }

function totalsStrip(view) {
  const t = view.analysis.totals || {};
  const items = [
    ['FLOPs', si(t.flops)], ['MACs', si(t.macs)], ['params', grouped(t.params)],
    ['nodes', grouped(t.nodes)], ['FLOP/byte', fixed(t.intensity, 2)],
  ];
  const first = view.runs[0];
  if (first) {
    const best = view.runs.reduce((a, b) => (b.throughput_per_s > a.throughput_per_s ? b : a));
    items.unshift(['p50 latency, ' + first.label, fixed(first.latency_ms.median, 2) + ' ms'],
      ['best throughput, ' + best.label, fixed(best.throughput_per_s, 1) + '/s']);
  }
  return h('div', {class: 'totals'}, items.map(([k, v]) => h('div', {class: 'total'}, h('div', {class: 'v'}, v), h('div', {class: 'k'}, k))));
}

function modelFacts(view) {
  const m = view.model;
  const opsets = Object.entries(m.opsets || {}).map(([d, v]) => d + ' ' + v).join(', ');
  const inputs = (m.inputs || []).map((t) => t.name + ' ' + t.dtype + '[' + shapeText(t.shape) + ']').join('; ');
  return fact('Model', [
    ['name', m.name], ['file', m.path], ['size', bytes(m.file_bytes)], ['inputs', inputs], ['opsets', opsets],
    ['producer', [m.producer_name, m.producer_version].filter(Boolean).join(' ')],
    ['weights', bytes(m.weight_bytes) + ' in ' + grouped(m.initializers) + ' initializers'],
  ]);
}

function hostFacts(view) {
  const hw = view.hardware;
  if (!hw) return fact('Host', [['roofs', 'none in this report (profiled with --no-roofs, or a static analysis)']]);
  const m = hw.machine || {};
  const roofs = hw.source === 'datasheet' ? 'datasheet ceilings' + (m.model ? ' of ' + m.model : '') + ', not measured here'
    : hw.source === 'profile' ? 'the peaks the imported profile states' + (m.model ? ' for ' + m.model : '') + ', not measured by rooflens'
    : 'measured by rooflens hw' + (hw.quick ? ' --quick' : '') + (hw.measured_at ? ' at ' + hw.measured_at : '');
  // Datasheet and profile roofs are of the device the files name (a GPU, an NPU), not of a CPU rooflens measured.
  const device = hw.source === 'datasheet' || hw.source === 'profile';
  return fact(device ? 'Device' : 'Host', [
    [device ? 'device' : 'CPU', m.model], ['cores', m.cores ? m.cores + ' cores, ' + m.threads + ' threads, ' + m.sockets + ' socket(s)' : ''],
    ['memory', m.memory_bytes ? bytes(m.memory_bytes) : ''], ['OS', [m.os, m.kernel].filter(Boolean).join(' · ')],
    ['caches', (m.caches || []).map((c) => c.level + ' ' + bytes(c.size_bytes) + ' x' + c.instances).join(', ')],
    ['roofs', roofs],
  ]);
}

// "intra_op_threads 2 (rooflens; profile: pool 2, 2 working); runtime defaults: spinning on, ...": every option that
// shapes performance, its effective value and where it came from (report-schema.md, runs[].settings); the options
// nobody passed, at the runtime's documented defaults, in one group.
const SETTING_SOURCES = {user: 'user', rooflens: 'rooflens', observed: 'observed'};
function settingsText(run) {
  const chosen = [], defaults = [];
  for (const s of run.settings || []) {
    if (s.source === 'runtime_default') {
      defaults.push(s.name + ' ' + s.value);
      continue;
    }
    let why = SETTING_SOURCES[s.source] || s.source;
    const t = run.threads_observed;
    if (s.name === 'intra_op_threads' && t) why += '; profile: pool ' + t.pool + (t.working !== undefined ? ', ' + t.working + ' working' : '');
    chosen.push(s.name + ' ' + s.value + ' (' + why + ')');
  }
  return [chosen.join(' · '), defaults.length ? 'runtime defaults: ' + defaults.join(', ') : ''].filter(Boolean).join('; ');
}

function backendFacts(view) {
  const r = view.report;
  const backends = r.backends || [];
  const tool = r.tool || {};
  const pairs = [];
  for (const b of backends) {
    const prefix = backends.length > 1 ? b.label + ': ' : '';
    pairs.push([prefix + 'backend', b.name + ' ' + b.version], [prefix + 'runtime', b.runtime]);
    const opts = Object.entries(b.options || {}).map(([k, v]) => k + '=' + v).join(', ');
    pairs.push([prefix + 'options', opts || 'runtime defaults']);
  }
  // Each run's performance options with their source (runs with the same settings as the one before: once).
  let last = null;
  for (const run of view.runs) {
    const text = settingsText(run);
    if (!text || text === last) continue;
    pairs.push([(view.runs.length > 1 ? run.label + ': ' : '') + 'run settings', text]);
    last = text;
  }
  pairs.push(['rooflens', (tool.version || '') + ' (' + (tool.command || '') + ')'], ['schema', r.schema]);
  if (r.partial) pairs.push(['status', 'partial: interrupted before every configuration ran']);
  return fact(backends.length ? (backends.length > 1 ? 'Backends & versions' : 'Backend & versions') : 'Versions', pairs);
}

function e2eTable(view) {
  const cols = [
    ['run', (r) => r.label, false], ['n', (r) => r.latency_ms.n, true], ['min', (r) => ms(r.latency_ms.min), true],
    ['p50', (r) => ms(r.latency_ms.median), true], ['p90', (r) => ms(r.latency_ms.p90), true],
    ['p95', (r) => ms(r.latency_ms.p95), true], ['p99', (r) => ms(r.latency_ms.p99), true],
    ['max', (r) => ms(r.latency_ms.max), true], ['mean', (r) => ms(r.latency_ms.mean), true],
    ['CV', (r) => pct(r.latency_ms.cv), true], ['items/s', (r) => fixed(r.throughput_per_s, 1), true],
    ['GFLOP/s', (r) => fixed(r.gflops, 1), true], ['peak RSS', (r) => bytes(r.peak_rss_bytes), true],
    ['coverage', (r) => (r.coverage ? pct(r.coverage) : '—'), true],
    ['overhead', (r) => (r.profiling_overhead ? fixed(r.profiling_overhead, 3) + 'x' : '—'), true],
    ['load ms', (r) => fixed(r.load_ms, 0), true],
  ];
  // With --repeat: how many runs and how far apart their medians lie (run to run), next to the CV (within a run).
  if (view.runs.some((r) => r.spread)) {
    cols.splice(cols.findIndex(([name]) => name === 'CV') + 1, 0,
      ['runs', (r) => (r.spread ? r.spread.count : 1), true],
      ['run medians', (r) => (r.spread ? ms(r.spread.min) + '–' + ms(r.spread.max) : '—'), true],
      ['run spread', (r) => (r.spread ? pct(r.spread.spread) : '—'), true]);
  }
  const head = h('tr', null, cols.map(([name, , num]) => h('th', {class: num ? 'num' : null}, name)));
  const rows = view.runs.map((run) => h('tr', null, cols.map(([, get, num]) => h('td', {class: num ? 'num' : null}, get(run)))));
  return h('div', {class: 'scroll-x'}, h('table', {class: 'plain', id: 'e2e-table'}, h('thead', null, head), h('tbody', null, rows)));
}
