// Every row is its own CSS grid, so column widths must not depend on a row's content: each track has a fixed
// minimum (never 'auto' or max-content) and long names are cut with an ellipsis (full name in the title).
// The layer table (or, for a static report, the node table): sortable, filterable by op type, name regex and a
// free-text search. Only the rows in view exist in the DOM, so 5,000 layers scroll as smoothly as 50.
function makeVirtualTable({columns, rowHeight = 28, onSelect}) {
  const root = h('div', {class: 'vt', role: 'table', 'aria-label': 'layers'});
  root.style.setProperty('--cols', columns.map((c) => c.width).join(' '));
  const head = h('div', {class: 'vt-head', role: 'row'});
  const rowsEl = h('div', {class: 'vt-rows', role: 'rowgroup'});
  const space = h('div', {class: 'vt-space'}, rowsEl);
  root.append(head, space);
  let rows = [], sort = {col: null, dir: 1}, selected = null, queued = false;
  // The elements of the rows in view, kept across repaints: a repaint (a scroll settling, a click that first
  // scrolls its row into view) between a row's mousedown and mouseup must not replace the element under the
  // pointer, or the browser drops the click.
  let painted = new Map();  // row -> its element

  const buttons = columns.map((col) => h('button', {type: 'button', role: 'columnheader', class: col.num ? 'num' : null,
    dataset: {col: col.key}, 'aria-sort': 'none', title: col.title || null, onclick: () => toggleSort(col)}, col.label));
  head.append(...buttons);

  function toggleSort(col) {
    // First click: numbers largest first, text A→Z; a second click reverses.
    sort = sort.col === col ? {col, dir: -sort.dir} : {col, dir: col.num ? -1 : 1};
    buttons.forEach((b, i) => b.setAttribute('aria-sort', columns[i] !== col ? 'none' : sort.dir > 0 ? 'ascending' : 'descending'));
    applySort();
    root.scrollTop = 0;
    paint();
  }

  function applySort() {
    if (!sort.col) return;
    const get = sort.col.sortValue || sort.col.value;
    rows.sort((a, b) => {
      const x = get(a), y = get(b);
      const c = x < y ? -1 : x > y ? 1 : 0;
      return c * sort.dir || a.seq - b.seq;  // ties keep execution order
    });
  }

  function rowEl(row) {
    const el = h('div', {class: 'vt-row' + (row === selected ? ' selected' : ''), role: 'row', tabindex: 0, dataset: {seq: row.seq},
      onclick: () => select(row), onkeydown: (e) => { if (e.key === 'Enter') select(row); }});
    for (const col of columns) {
      const cell = h('span', {role: 'cell', class: col.num ? 'num' : null, dataset: {col: col.key}});
      if (col.cell) cell.append(col.cell(row)); else cell.textContent = col.text(row);
      if (col.tip) cell.title = col.text ? col.text(row) : '';
      el.append(cell);
    }
    return el;
  }

  function paint() {
    queued = false;
    const top = Math.max(0, root.scrollTop - head.offsetHeight);
    const first = Math.max(0, Math.floor(top / rowHeight) - 8);
    // Before the table is in the page its height reads 0: assume the CSS max-height (460px) then.
    const count = Math.ceil((root.clientHeight || 460) / rowHeight) + 16;
    rowsEl.style.transform = 'translateY(' + first * rowHeight + 'px)';
    const next = new Map();
    for (let i = first; i < Math.min(rows.length, first + count); i++) {
      const row = rows[i];
      const el = painted.get(row) || rowEl(row);
      el.classList.toggle('selected', row === selected);
      next.set(row, el);
    }
    painted = next;
    // Move only what changed: a kept row is never taken out of the page (even for an instant), because removing
    // the element under the pointer between mousedown and mouseup makes the browser drop the click.
    const keep = new Set(next.values());
    for (const el of [...rowsEl.children]) if (!keep.has(el)) el.remove();
    let at = rowsEl.firstChild;
    for (const el of next.values()) {
      if (el === at) at = at.nextSibling;
      else rowsEl.insertBefore(el, at);
    }
  }

  function select(row) {
    selected = row;
    paint();
    onSelect(row);
  }

  root.addEventListener('scroll', () => { if (!queued) { queued = true; requestAnimationFrame(paint); } });
  return {
    el: root,
    setRows(list) { rows = list; applySort(); space.style.height = rows.length * rowHeight + 'px'; paint(); },
    reveal(row) {
      const i = rows.indexOf(row);
      if (i >= 0) root.scrollTop = i * rowHeight;
      select(row);
    },
    paint,
  };
}

const LAYER_COLUMNS = (view) => [
  {key: 'seq', label: '#', width: '52px', num: true, value: (l) => l.seq, text: (l) => l.seq},
  {key: 'name', label: 'layer', width: 'minmax(220px, 2.4fr)', value: (l) => l.name, text: (l) => l.name, tip: true},
  {key: 'op', label: 'op', width: 'minmax(110px, 1fr)', value: (l) => l.op, text: (l) => l.op, cell: (l) => opCell(view, l.op)},
  {key: 'time', label: 'ms', width: '78px', num: true, value: (l) => l.time_ms, text: (l) => ms(l.time_ms)},
  {key: 'share', label: 'share', width: '64px', num: true, value: (l) => l.share, text: (l) => pct(l.share)},
  {key: 'flops', label: 'FLOPs', width: '76px', num: true, value: (l) => l.flops, text: (l) => si(l.flops)},
  {key: 'bytes', label: 'bytes', width: '80px', num: true, value: (l) => l.bytes, text: (l) => bytes(l.bytes)},
  {key: 'intensity', label: 'FLOP/B', width: '68px', num: true, value: (l) => l.intensity, text: (l) => fixed(l.intensity, 1)},
  {key: 'gflops', label: 'GFLOP/s', width: '76px', num: true, value: (l) => l.gflops, text: (l) => fixed(l.gflops, 1)},
  {key: 'gbps', label: 'GB/s', width: '64px', num: true, value: (l) => l.gbps, text: (l) => fixed(l.gbps, 1)},
  {key: 'bound', label: 'bound', width: '82px', value: (l) => l.bound, text: (l) => l.bound || '—', cell: (l) => boundTag(l.bound)},
  {key: 'efficiency', label: 'eff', width: '60px', num: true, value: (l) => l.efficiency, text: (l) => (l.attribution_error ? '⚠ ' + pct(l.efficiency) : l.roof ? pct(l.efficiency) : '—')},
  {key: 'nodes', label: 'nodes', width: '58px', num: true, value: (l) => (l.onnx_nodes || []).length, text: (l) => (l.alias ? 'alias' : (l.onnx_nodes || []).length)},
];

const NODE_COLUMNS = (view) => [
  {key: 'seq', label: '#', width: '52px', num: true, value: (n) => n.seq, text: (n) => n.seq},
  {key: 'name', label: 'node', width: 'minmax(220px, 2.4fr)', value: (n) => n.name, text: (n) => n.name, tip: true},
  {key: 'op', label: 'op', width: 'minmax(110px, 1fr)', value: (n) => n.op, text: (n) => n.op, cell: (n) => opCell(view, n.op)},
  {key: 'shape', label: 'output shape', width: 'minmax(110px, 1fr)', value: (n) => shapesText(n.output_shapes), text: (n) => shapesText(n.output_shapes)},
  {key: 'flops', label: 'FLOPs', width: '76px', num: true, value: (n) => n.flops, text: (n) => (n.cost_known ? si(n.flops) : '?')},
  {key: 'macs', label: 'MACs', width: '76px', num: true, value: (n) => n.macs, text: (n) => si(n.macs)},
  {key: 'params', label: 'params', width: '72px', num: true, value: (n) => n.params, text: (n) => si(n.params)},
  {key: 'bytes', label: 'bytes', width: '80px', num: true, value: (n) => n.bytes_read + n.bytes_written, text: (n) => bytes(n.bytes_read + n.bytes_written)},
  {key: 'intensity', label: 'FLOP/B', width: '68px', num: true, value: (n) => n.intensity, text: (n) => fixed(n.intensity, 1)},
  {key: 'share', label: 'FLOP share', width: '82px', num: true, value: (n) => n.share, text: (n) => pct(n.share)},
];

function opCell(view, op) {
  return h('span', null, h('span', {class: 'swatch', style: 'background:' + view.opColor(op)}), op);
}
function boundTag(bound) { return bound ? h('span', {class: 'tag ' + bound}, bound) : '—'; }

// The table's last row: what the kernels do not cover (between_kernels_ms, measured per profiled iteration), so
// the layers add up to the run; the rest is noise inside kernels, which the per-kernel medians drop.
function runBalance(run) {
  if (!run || run.between_kernels_ms === undefined || run.profiled_run_ms === undefined) return null;
  const layers = run.layers.reduce((s, l) => s + l.time_ms, 0), between = run.between_kernels_ms, total = run.profiled_run_ms;
  const rest = total - layers - between;
  return h('div', {class: 'balance muted', id: 'layer-balance'}, '+ between kernels ' + ms(between) + ' ms (the runtime ' +
    'between its kernels, median per profiled iteration; kernels cover ' + pct(run.coverage) + ' of each run' +
    (run.dispatch && run.dispatch.coverage_without_profiler !== undefined
      ? ', ' + pct(run.dispatch.coverage_without_profiler) + ' without the profiler\'s bookkeeping' : '') +
    ') = layers ' +
    ms(layers) + ' + ' + ms(between) + ' = ' + ms(layers + between) + ' ms; profiled run ' + ms(total) + ' ms' +
    (Math.abs(rest) > 0.05 * total ? ' (' + ms(rest) + ' ms of noise inside kernels: the per-kernel medians drop it)' : '') + '.',
    dispatchText(run));
}

// Where "between kernels" goes, as far as the runtime timed it (runs[].dispatch); '' without a breakdown.
function dispatchText(run) {
  const d = run.dispatch;
  if (!d) return '';
  const parts = [['outside the executor', d.outside_executor_ms], ['in the executor between kernels', d.executor_gaps_ms],
    ['fences', d.fences_ms]].filter(([, v]) => v !== undefined).map(([k, v]) => k + ' ' + ms(v) + ' ms');
  let text = ' Between kernels, as the runtime timed it: ' + (parts.length ? parts.join(' + ') : '—');
  if (d.executor_gaps_ms !== undefined && d.kernels > 0) text += ' (' + fixed(d.executor_gaps_ms * 1000 / d.kernels, 1) + ' µs per kernel, ' + d.kernels + ' kernels)';
  if (d.profiler_ms !== undefined) text += '; profiling itself adds ' + ms(d.profiler_ms) + ' ms per run';
  if (d.profiler_bookkeeping_ms !== undefined && d.profiler_gap_ms !== undefined)
    text += '; of the time between kernels, at least ' + ms(d.profiler_bookkeeping_ms) + ' ms is the profiler\'s own ' +
      'bookkeeping (' + fixed(d.profiler_gap_ms * 1000, 1) + ' µs a kernel or more, calibrated in the runner on a chain of ' +
      'one-float kernels)';
  if (d.pool_wait_ms !== undefined || d.pool_handoff_ms !== undefined)
    text += '; inside kernels the calling thread handed work to the pool ' + ms(d.pool_handoff_ms || 0) + ' ms and waited for its workers ' +
      ms(d.pool_wait_ms || 0) + ' ms' + (d.parallel_kernels !== undefined ? ' (' + d.parallel_kernels + ' parallel kernels)' : '');
  return text + '.';
}

// rows: layers of a run, or the analysis nodes (static). Returns {el, reveal(seq)} so the roofline can point here.
function renderLayerTable(view, run) {
  const isStatic = !run;
  const rows = isStatic ? staticRows(view) : run.layers;
  const noun = isStatic ? 'nodes' : 'layers';
  const card = section('layers', isStatic ? 'Nodes' : 'Layers', isStatic
    ? 'Every node of the model in graph order, with its static cost. Click a row for shapes and dtypes.'
    : 'Kernels as the runtime ran them (' + run.label + '), mapped to your ONNX nodes. Click a row for the original nodes, shapes, dtypes and provider.');
  const details = h('div', {class: 'details', id: 'layer-details'}, h('span', {class: 'muted'}, 'Select a row to see its details.'));
  const table = makeVirtualTable({columns: (isStatic ? NODE_COLUMNS : LAYER_COLUMNS)(view), onSelect: (row) => showDetails(view, details, row, isStatic)});

  const ops = [...new Set(rows.map((r) => r.op))].sort();
  const opSelect = h('select', {id: 'filter-op', 'aria-label': 'op type'}, h('option', {value: ''}, 'all op types'),
    ops.map((op) => h('option', {value: op}, op)));
  const regex = h('input', {type: 'text', id: 'filter-name', placeholder: 'name regex', 'aria-label': 'name regex', spellcheck: 'false'});
  const search = h('input', {type: 'search', id: 'filter-search', placeholder: 'search', 'aria-label': 'search'});
  const count = h('span', {class: 'count', id: 'filter-count'});

  function apply() {
    let re = null;
    regex.classList.remove('invalid');
    if (regex.value) {
      try { re = new RegExp(regex.value); } catch (e) { regex.classList.add('invalid'); }
    }
    const op = opSelect.value, needle = search.value.trim().toLowerCase();
    const kept = rows.filter((r) => (!op || r.op === op) &&
      (!re || re.test(r.name) || (r.onnx_nodes || []).some((n) => re.test(n))) &&
      (!needle || searchText(r).includes(needle)));
    table.setRows(kept);
    count.textContent = kept.length + ' of ' + rows.length + ' ' + noun;
  }
  for (const input of [opSelect, regex, search]) input.addEventListener('input', apply);
  card.append(h('div', {class: 'table-tools'}, opSelect, regex, search, count), table.el, runBalance(run), details);
  apply();
  // Open on the heaviest row (by time, or FLOPs for nodes), so the details panel shows what a fused layer is.
  const heaviest = rows.reduce((best, r) => (best === null || weightOf(r) > weightOf(best) ? r : best), null);
  if (heaviest) showDetails(view, details, heaviest, isStatic);
  return {el: card, reveal: (seq) => { opSelect.value = ''; regex.value = ''; search.value = ''; apply(); table.reveal(rows[seq]); }};
}

function weightOf(row) { return row.time_ms !== undefined ? row.time_ms : Number(row.flops) || 0; }

function staticRows(view) {
  const total = Number((view.analysis.totals || {}).flops) || 0;
  return view.nodes.map((n, i) => Object.assign(n, {seq: i, share: total ? n.flops / total : 0}));
}

function searchText(row) {
  if (!row._search) {
    row._search = [row.name, row.op, ...(row.onnx_nodes || []), shapesText(row.input_shapes), shapesText(row.output_shapes)]
      .join('\n').toLowerCase();
  }
  return row._search;
}
