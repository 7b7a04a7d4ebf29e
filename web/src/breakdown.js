// Where the time (or, for a static report, the FLOPs) goes: a treemap op type → layer. Within an op type, layers
// past the 40 largest or under 0.1% of the total are merged into one "N smaller layers" tile, so 5,000 layers
// draw a few hundred tiles.
const KEEP_PER_OP = 40, MIN_TILE_SHARE = 0.001;

function breakdownTree(view, items, valueOf, unit) {
  const total = items.reduce((s, it) => s + valueOf(it), 0) || 1;
  const byOp = new Map();
  for (const it of items) {
    if (valueOf(it) <= 0) continue;
    if (!byOp.has(it.op)) byOp.set(it.op, []);
    byOp.get(it.op).push(it);
  }
  const tree = [];
  for (const [op, list] of byOp) {
    list.sort((a, b) => valueOf(b) - valueOf(a));
    const color = view.opColor(op);
    const kept = list.filter((it, i) => i < KEEP_PER_OP && valueOf(it) / total >= MIN_TILE_SHARE);
    const rest = list.slice(kept.length);
    const tile = {color};
    const children = kept.map((it) => ({name: it.name, value: valueOf(it), seq: it.seq, itemStyle: tile}));
    if (rest.length) {
      children.push({name: rest.length + ' smaller ' + op + ' ' + unit.noun, value: rest.reduce((s, it) => s + valueOf(it), 0),
        merged: rest.length, itemStyle: Object.assign({}, tile, {opacity: 0.6})});
    }
    // ECharts paints an op type's header strip (upperLabel) in its border colour.
    tree.push({name: op, value: list.reduce((s, it) => s + valueOf(it), 0), children, itemStyle: {color, borderColor: darker(color)}});
  }
  return {tree: tree.sort((a, b) => b.value - a.value), total};
}

// Layer tiles are outlined in the page's panel colour (light or dark: the tree is rebuilt on a theme switch).
function withTileBorders(tree, border) {
  return tree.map((op) => Object.assign({}, op, {children: op.children.map((c) =>
    Object.assign({}, c, {itemStyle: Object.assign({}, c.itemStyle, {borderColor: border})}))}));
}

function renderBreakdown(view, run, onPick) {
  const isStatic = !run;
  const unit = isStatic ? {noun: 'nodes', what: 'FLOPs', fmt: (v) => si(v) + ' FLOPs'} : {noun: 'layers', what: 'time', fmt: (v) => ms(v) + ' ms'};
  const items = isStatic ? view.nodes : run.layers;
  const {tree, total} = breakdownTree(view, items, isStatic ? (n) => Number(n.flops) || 0 : (l) => l.time_ms, unit);
  const card = section('breakdown', 'Op-type breakdown', 'Share of ' + unit.what + ' by op type, then by ' +
    (isStatic ? 'node' : 'layer') + ' (small ones merged). Click an op type to zoom in.');
  if (!tree.length) {
    card.append(emptyNote('Nothing to break down: no ' + unit.what + ' recorded.'));
    return card;
  }
  const el = h('div', {class: 'chart', id: 'breakdown-chart'});
  card.append(el);
  Charts.show(el, (theme) => ({
    tooltip: {formatter: (p) => tipRows(p.name, [[unit.what, unit.fmt(p.value)], ['share', pct(p.value / total)]].concat(
      p.data && p.data.merged ? [['merged', p.data.merged + ' ' + unit.noun]] : []))},
    series: [{
      type: 'treemap', id: 'breakdown', name: 'all op types', data: withTileBorders(tree, theme.panel), roam: false, animation: false, nodeClick: 'zoomToNode', top: 8, bottom: 36, left: 4, right: 4,
      breadcrumb: {bottom: 4, itemStyle: {color: theme.panel, borderColor: theme.border, textStyle: {color: theme.text}}},
      label: {color: '#fff', fontSize: 11, overflow: 'truncate'},
      upperLabel: {show: true, height: 22, color: '#fff', fontWeight: 600, fontSize: 12},
      // levels[0] is the root, [1] the op types (a header strip names each), [2] their layers.
      levels: [
        {itemStyle: {borderWidth: 0, gapWidth: 3}, upperLabel: {show: false}},
        {itemStyle: {borderWidth: 2, gapWidth: 1}},
        {itemStyle: {borderWidth: 1, gapWidth: 0}},
      ],
    }],
  }), (chart) => chart.on('click', (p) => { if (p.data && p.data.seq !== undefined && !isStatic) onPick(p.data.seq); }));
  return card;
}
