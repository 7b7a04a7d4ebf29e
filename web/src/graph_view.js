// The graph view: the user's ONNX graph top-down (graph_model.js lays it out with dagre, a segment at a time),
// drawn on one canvas that follows the scroll position, nodes coloured by their layer's time share or by bound
// and efficiency, fused layers outlined, subgraphs collapsible (click the ▸ badge). Clicking a node shows its
// layer and the findings that name it. Only what is in view is drawn; the rest is laid out in the background.
const GRAPH_RAMP = ['#fff5d6', '#fed976', '#fd8d3c', '#e31a1c', '#800026'];  // time share, low -> high
const GraphViews = {pending: [], ready() { return Promise.all(this.pending); }};

function rampColor(stops, t) {
  const x = Math.max(0, Math.min(1, t)) * (stops.length - 1), k = Math.min(stops.length - 2, Math.floor(x)), f = x - k;
  const a = hexRgb(stops[k]), b = hexRgb(stops[k + 1]);
  return 'rgb(' + a.map((v, i) => Math.round(v + (b[i] - v) * f)).join(',') + ')';
}
function hexRgb(hex) { return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)); }

// Per node: its layer (seq) in the run, and the colour of each mode.
function graphColoring(view, run, model) {
  const layerOf = new Int32Array(model.nodes.length).fill(-1);
  const layers = run ? run.layers : [];
  layers.forEach((l, seq) => { if (!l.alias) for (const name of l.onnx_nodes || []) { const n = view.nodeIndex.get(name); if (n !== undefined) layerOf[n] = seq; } });
  const maxShare = Math.max(1e-12, ...layers.map((l) => l.share || 0));
  const maxFlops = Math.max(1, ...model.nodes.map((n) => Number(n.flops) || 0));
  return {
    layerOf,
    color(i, mode) {
      const seq = layerOf[i];
      if (mode === 'flops' || !run) return rampColor(GRAPH_RAMP, Math.sqrt((Number(model.nodes[i].flops) || 0) / maxFlops));
      if (seq < 0) return null;  // folded / eliminated: drawn hollow
      const l = layers[seq];
      if (mode === 'bound') {
        if (!l.bound) return '#b8bec8';
        const stops = l.bound === 'memory' ? ['#deebf7', '#08519c'] : ['#fee6ce', '#a63603'];
        return rampColor(stops, Math.min(1, l.efficiency || 0));
      }
      return rampColor(GRAPH_RAMP, Math.sqrt((l.share || 0) / maxShare));
    },
  };
}

function renderGraph(view, run, onPick) {
  const model = buildGraphModel(view);
  const timed = !!(run && run.layers.length);
  const card = section('graph', 'Graph', model.main.length + ' nodes of your ONNX graph' +
    (model.subOf.size ? ' (+' + (model.nodes.length - model.main.length) + ' in subgraphs, collapsed: click ▸ to open)' : '') +
    (timed ? ', coloured by their layer\'s time share; fused layers outlined. Click a node for its layer.' : ', coloured by FLOPs.'));
  const mode = h('select', {id: 'graph-color', 'aria-label': 'colour nodes by'},
    timed ? h('option', {value: 'time'}, 'time share') : null, timed ? h('option', {value: 'bound'}, 'bound & efficiency') : null,
    h('option', {value: 'flops'}, 'FLOPs'));
  const zoomOut = h('button', {type: 'button', title: 'zoom out'}, '−'), zoomIn = h('button', {type: 'button', title: 'zoom in'}, '+');
  const legend = h('span', {class: 'graph-legend muted', id: 'graph-legend'});
  const canvas = h('canvas', {id: 'graph-canvas'});
  const spacer = h('div', {class: 'graph-spacer'});
  const port = h('div', {class: 'graph-port', id: 'graph-port', tabindex: 0}, canvas, spacer);
  const details = h('div', {class: 'graph-details', id: 'graph-details'}, emptyNote('Click a node.'));
  card.append(h('div', {class: 'graph-tools'}, 'colour by ', mode, zoomOut, zoomIn, legend), port, details);
  const coloring = graphColoring(view, run, model);
  const state = {zoom: 1, selected: -1, drawn: new Set(), frame: 0, mode: mode.value, allLaid: false};
  const crossEdges = [];
  model.main.forEach((j) => { for (const i of model.preds[j]) if (model.segOf[i] !== model.segOf[j]) crossEdges.push([i, j]); });

  function resize() {
    spacer.style.width = Math.ceil((model.width + 40) * state.zoom) + 'px';
    spacer.style.height = Math.ceil(model.height * state.zoom) + 'px';
  }
  const cx = () => (model.width + 40) / 2;  // graph x = 0 sits here (zoom 1 pixels)

  function draw() {
    state.frame = 0;
    const dpr = window.devicePixelRatio || 1, w = port.clientWidth, hgt = port.clientHeight;
    if (canvas.width !== Math.round(w * dpr)) { canvas.width = Math.round(w * dpr); canvas.style.width = w + 'px'; }
    if (canvas.height !== Math.round(hgt * dpr)) { canvas.height = Math.round(hgt * dpr); canvas.style.height = hgt + 'px'; }
    const z = state.zoom, top = port.scrollTop / z, bottom = (port.scrollTop + hgt) / z;
    // Lay out what is in view first (a segment above that grows pushes the view: keep it where it was).
    for (const seg of model.segments) {
      if (seg.y > bottom || seg.y + seg.height < top || seg.laid) continue;
      const above = seg.y + seg.height < top;
      const delta = layoutSegment(model, seg);
      resize();
      if (above && delta) port.scrollTop += delta * z;
    }
    const ctx = canvas.getContext('2d');
    const theme = chartTheme(), sans = cssVar('--sans') || 'sans-serif';
    theme.fontOp = '600 11px ' + sans;
    theme.fontName = '10px ' + sans;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    ctx.setTransform(dpr * z, 0, 0, dpr * z, -port.scrollLeft * dpr, -port.scrollTop * dpr);
    const visible = model.segments.filter((s) => s.laid && s.y <= bottom && s.y + s.height >= top);
    drawEdges(ctx, visible, theme, top, bottom);
    drawGroups(ctx, visible, theme);
    for (const seg of visible) for (const i of segmentMembers(model, seg)) drawNode(ctx, seg, i, theme);
    legend.textContent = legendText();
  }

  function drawEdges(ctx, visible, theme, top, bottom) {
    ctx.strokeStyle = theme.faint;
    ctx.lineWidth = 1 / Math.max(state.zoom, 0.5);
    ctx.beginPath();
    for (const seg of visible) for (const e of seg.edges) {
      e.points.forEach(([x, y], k) => (k ? ctx.lineTo : ctx.moveTo).call(ctx, cx() + x, seg.y + y));
    }
    for (const [i, j] of crossEdges) {
      const si = model.segments[model.segOf[i]], sj = model.segments[model.segOf[j]];
      if (!si.laid || !sj.laid || si.y > bottom || sj.y + sj.height < top) continue;
      const [xi, yi] = graphNodeXY(model, i), [xj, yj] = graphNodeXY(model, j);
      ctx.moveTo(cx() + xi, yi + GRAPH_NODE_H / 2);
      ctx.lineTo(cx() + xj, yj - GRAPH_NODE_H / 2);
    }
    ctx.stroke();
  }

  // Fused layers: a dashed outline around the nodes one layer computes (within a segment).
  function drawGroups(ctx, visible, theme) {
    if (!timed) return;
    const boxes = new Map();
    for (const seg of visible) for (let k = seg.start; k < seg.end; k++) {
      const i = model.main[k], seq = coloring.layerOf[i];
      if (seq < 0 || run.layers[seq].onnx_nodes.length < 2) continue;
      const key = seq + ':' + seg.index, [x, y] = graphNodeXY(model, i);
      const b = boxes.get(key) || [Infinity, Infinity, -Infinity, -Infinity];
      boxes.set(key, [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)]);
    }
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = 1.2;
    for (const [x0, y0, x1, y1] of boxes.values())
      ctx.strokeRect(cx() + x0 - GRAPH_NODE_W / 2 - 5, y0 - GRAPH_NODE_H / 2 - 5, x1 - x0 + GRAPH_NODE_W + 10, y1 - y0 + GRAPH_NODE_H + 10);
    ctx.setLineDash([]);
  }

  function drawNode(ctx, seg, i, theme) {
    const n = model.nodes[i], x = cx() + model.x[i] - GRAPH_NODE_W / 2, y = seg.y + model.y[i] - GRAPH_NODE_H / 2;
    const fill = coloring.color(i, state.mode);
    ctx.fillStyle = fill || theme.panel;
    ctx.fillRect(x, y, GRAPH_NODE_W, GRAPH_NODE_H);
    ctx.strokeStyle = i === state.selected ? theme.accent : theme.muted;
    ctx.lineWidth = i === state.selected ? 3 : 0.8;
    if (!fill) ctx.setLineDash([3, 2]);
    ctx.strokeRect(x, y, GRAPH_NODE_W, GRAPH_NODE_H);
    ctx.setLineDash([]);
    state.drawn.add(i);
    if (state.zoom < 0.45) return;
    ctx.fillStyle = fill && luminance(fill) < 0.45 ? '#ffffff' : '#1c2230';
    ctx.font = theme.fontOp;
    const badge = model.subOf.has(i) ? (model.expanded.has(i) ? ' ▾' : ' ▸') + model.subOf.get(i).length : '';
    ctx.fillText(clip(ctx, n.op + badge, GRAPH_NODE_W - 8), x + 4, y + 11);
    ctx.font = theme.fontName;
    ctx.fillText(clip(ctx, n.name, GRAPH_NODE_W - 8), x + 4, y + 22);
  }

  function legendText() {
    if (state.mode === 'bound') return 'blue: memory-bound, orange: compute-bound; darker = closer to its roof. Dashed: folded/eliminated.';
    if (state.mode === 'flops' || !timed) return 'light → dark red: FLOPs (square root of the share of the largest node).';
    return 'light → dark red: time share of the node\'s layer (square root of its share of the heaviest). Dashed: folded/eliminated.';
  }

  function schedule() { if (!state.frame) state.frame = requestAnimationFrame(draw); }

  // Background layout, one segment per task, so scrolling anywhere finds its segment ready.
  function layoutRest() {
    if (!port.isConnected) return;  // another run's sections replaced this view
    const seg = model.segments.find((s) => !s.laid);
    if (!seg) {
      state.allLaid = true;
      port.dataset.laidOut = 'all';
      performance.mark('rooflens:graph-laid-out');
      schedule();
      return;
    }
    const above = seg.y + seg.height < port.scrollTop / state.zoom;
    const delta = layoutSegment(model, seg);
    resize();
    if (above && delta) port.scrollTop += delta * state.zoom;
    setTimeout(layoutRest, 0);
  }

  function hit(ev) {
    const r = canvas.getBoundingClientRect();
    const gx = (ev.clientX - r.left + port.scrollLeft) / state.zoom - cx(), gy = (ev.clientY - r.top + port.scrollTop) / state.zoom;
    for (const seg of model.segments) {
      if (!seg.laid || gy < seg.y || gy > seg.y + seg.height) continue;
      for (const i of segmentMembers(model, seg)) {
        const x = model.x[i], y = seg.y + model.y[i];
        if (Math.abs(gx - x) <= GRAPH_NODE_W / 2 && Math.abs(gy - y) <= GRAPH_NODE_H / 2) return {i, badge: gx - x > GRAPH_NODE_W / 2 - 40 && gy - y < 0};
      }
    }
    return null;
  }

  function select(i) {
    state.selected = i;
    clear(details).append(...graphNodeDetails(view, run, model, coloring, i, onPick));
    schedule();
  }

  let downAt = null;
  port.addEventListener('pointerdown', (ev) => { downAt = [ev.clientX, ev.clientY, port.scrollLeft, port.scrollTop]; });
  port.addEventListener('pointermove', (ev) => {
    if (!downAt || !(ev.buttons & 1)) return;
    port.scrollLeft = downAt[2] - (ev.clientX - downAt[0]);
    port.scrollTop = downAt[3] - (ev.clientY - downAt[1]);
  });
  port.addEventListener('pointerup', (ev) => {
    const moved = downAt && Math.hypot(ev.clientX - downAt[0], ev.clientY - downAt[1]) > 4;
    downAt = null;
    if (moved) return;
    const found = hit(ev);
    if (!found) return;
    if (found.badge && toggleSubgraphs(model, found.i)) resize();
    select(found.i);
  });
  port.addEventListener('scroll', schedule);
  port.addEventListener('wheel', (ev) => {
    if (!ev.ctrlKey) return;
    ev.preventDefault();
    zoomBy(ev.deltaY < 0 ? 1.25 : 0.8);
  }, {passive: false});
  function zoomBy(f) {
    const midY = (port.scrollTop + port.clientHeight / 2) / state.zoom;
    state.zoom = Math.min(3, Math.max(0.05, state.zoom * f));
    resize();
    port.scrollTop = midY * state.zoom - port.clientHeight / 2;
    schedule();
  }
  zoomIn.addEventListener('click', () => zoomBy(1.25));
  zoomOut.addEventListener('click', () => zoomBy(0.8));
  mode.addEventListener('change', () => { state.mode = mode.value; schedule(); });
  new ResizeObserver(schedule).observe(port);
  // The light/dark switch: node outlines, text and edges follow the page's colours.
  new MutationObserver(schedule).observe(document.documentElement, {attributes: true, attributeFilter: ['data-theme']});

  // The page's API for tests and `make bench`: what was drawn, where a node is, its colour.
  port.graphView = {
    nodeCount: () => model.nodes.length, mainCount: () => model.main.length, drawnCount: () => state.drawn.size,
    drawn: (i) => state.drawn.has(i), allLaidOut: () => state.allLaid, layerOf: (i) => coloring.layerOf[i],
    nodeIndex: (name) => view.nodeIndex.get(name),
    // Scrolls node i into view; returns its centre in client pixels.
    reveal(i) {
      port.scrollIntoView({block: 'center'});
      const [x, y] = graphNodeXY(model, i);
      port.scrollTop = y * state.zoom - port.clientHeight / 2;
      port.scrollLeft = (cx() + x) * state.zoom - port.clientWidth / 2;
      draw();
      const r = canvas.getBoundingClientRect(), [x2, y2] = graphNodeXY(model, i);
      return [r.left + (cx() + x2) * state.zoom - port.scrollLeft, r.top + y2 * state.zoom - port.scrollTop];
    },
    color: (i) => coloring.color(i, state.mode),
    redraw: draw,
  };
  GraphViews.pending.push(new Promise((resolve) => requestAnimationFrame(() => {
    resize();
    draw();
    performance.mark('rooflens:graph-first-frame');
    setTimeout(layoutRest, 0);
    resolve();
  })));
  return card;
}

function luminance(rgb) {
  const m = rgb.match(/\d+/g);
  if (!m) return 1;
  const [r, g, b] = m.map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

function clip(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (ctx.measureText(text.slice(0, mid) + '…').width <= width) lo = mid; else hi = mid - 1; }
  return text.slice(0, lo) + '…';
}

// The clicked node: what it is, its layer (with a link into the layer table), the findings naming either.
function graphNodeDetails(view, run, model, coloring, i, onPick) {
  const n = model.nodes[i], seq = coloring.layerOf[i];
  const rows = [['node', n.name], ['op', n.op], ['graph', n.graph || 'main'],
    ['output', (n.output_shapes || []).map(shapeText).join(', ')], ['FLOPs', si(n.flops)]];
  const out = [h('h3', null, n.op + ' · ' + n.name), kvTable(rows)];
  if (run && seq >= 0) {
    const l = run.layers[seq];
    out.push(h('h4', {id: 'graph-layer'}, 'layer ' + l.name),
      kvTable([['op', l.op], ['time', ms(l.time_ms) + ' ms (' + pct(l.share) + ' of layer time)'],
        ['nodes', String(l.onnx_nodes.length)], ['bound', l.bound ? l.bound + ', ' + pct(l.efficiency) + ' of ' + l.roof : 'no roofs']]),
      h('button', {type: 'button', onclick: () => onPick(seq)}, 'show in the layer table'));
  } else if (run) {
    out.push(h('p', {class: 'muted'}, 'No layer computes this node: folded into a constant or eliminated by the runtime.'));
  }
  const findings = (view.report.findings || []).filter((f) => (run ? f.run === run.label : true) &&
    ((f.onnx_nodes || []).includes(n.name) || (run && seq >= 0 && (f.layers || []).includes(run.layers[seq].name))));
  if (findings.length) out.push(h('h4', null, 'findings'), h('ul', {class: 'findings'}, findings.map((f) =>
    h('li', {class: severityClass(f.severity)}, h('span', {class: 'src'}, f.severity + ' · ' + f.rule), f.title))));
  return out;
}

function kvTable(rows) {
  return h('table', {class: 'plain gkv'}, rows.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v))));
}
