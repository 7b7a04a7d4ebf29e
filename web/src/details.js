// The details of one layer (with the ONNX nodes it computes) or, in a static report, of one node.
function showDetails(view, box, row, isStatic) {
  clear(box);
  if (isStatic) return box.append(...nodeDetails(row));
  const l = row;
  box.append(h('h3', null, l.name), kv4([
    ['op', l.op], ['provider', l.provider], ['time', ms(l.time_ms) + ' ms'], ['share', pct(l.share, 2)],
    ['FLOPs', grouped(l.flops) + (l.cost_known ? '' : ' (lower bound: an op of unknown cost)')], ['MACs', grouped(l.macs)],
    ['bytes', grouped(l.bytes) + ' (' + bytesOrigin(l.bytes_source) + ')'], ['intensity', fixed(l.intensity, 2) + ' FLOP/B'],
    ['GFLOP/s', fixed(l.gflops, 2)], ['GB/s', fixed(l.gbps, 2)],
    ['roofline', l.attribution_error ? 'NOT PLACED: ' + l.attribution_error
      : l.roof ? l.bound + ' bound under ' + l.roof + ', ' + pct(l.efficiency) + ' efficient' : 'no roofs'],
    ...(l.padding_macs ? [['padding MACs', grouped(l.padding_macs) + ' of the MACs fall on zero padding: GFLOP/s and efficiency count the work without them']] : []),
    ['starts at', ms(l.start_ms) + ' ms into the profiled iteration'],
    ['input shapes', shapesText(l.input_shapes) || '—'], ['output shapes', shapesText(l.output_shapes) || '—'],
  ]));
  const nodes = nodesOf(view, l.onnx_nodes);
  box.append(h('p', {class: 'caption'}, l.alias
    ? 'A layout/copy kernel (alias): it computes no node of yours; it carries the tensor of:'
    : nodes.length + ' original ONNX node(s) computed by this kernel:'));
  if (nodes.length) box.append(nodeTable(nodes));
}

// Where a layer's bytes come from (report field bytes_source; docs/mapping.md).
function bytesOrigin(source) {
  return {
    runtime_writes: 'reads of your tensors as analysed, writes as the runtime reported them',
    runtime: 'the tensors the runtime says the kernel read and wrote',
    view: 'a view: no data moves',
    source: 'as the imported profile gives them',
  }[source] || 'boundary tensors of the nodes it computes';
}

function kv4(pairs) {
  const dl = h('dl', {class: 'kv'});
  for (const [k, v] of pairs) dl.append(h('dt', null, k), h('dd', null, v));
  return dl;
}

function tensorList(names, shapes, dtypes) {
  return (names || []).map((name, i) => (name || '(omitted)') + ': ' + ((dtypes || [])[i] || '?') + ' ' + shapeText((shapes || [])[i])).join('\n');
}

function nodeTable(nodes) {
  const head = h('tr', null, ['node', 'op', 'inputs (dtype shape)', 'outputs (dtype shape)', 'FLOPs'].map((t) => h('th', null, t)));
  const body = nodes.map((n) => h('tr', null,
    h('td', {class: 'mono'}, n.name), h('td', null, n.unknown ? 'not in the analysis' : n.op),
    h('td', {class: 'mono', style: 'white-space:pre'}, tensorList(n.inputs, n.input_shapes, n.input_dtypes)),
    h('td', {class: 'mono', style: 'white-space:pre'}, tensorList(n.outputs, n.output_shapes, n.output_dtypes)),
    h('td', {class: 'num'}, n.unknown ? '' : n.cost_known ? si(n.flops) : '?')));
  return h('div', {class: 'scroll-x'}, h('table', {class: 'plain', id: 'details-nodes'}, h('thead', null, head), h('tbody', null, body)));
}

function nodeDetails(n) {
  return [
    h('h3', null, n.name),
    kv4([
      ['op', (n.domain ? n.domain + ':' : '') + n.op], ['graph', n.graph], ['FLOPs', n.cost_known ? grouped(n.flops) : 'unknown'],
      ['MACs', grouped(n.macs)], ['params', grouped(n.params)], ['bytes read', grouped(n.bytes_read)],
      ['bytes written', grouped(n.bytes_written)], ['intensity', fixed(n.intensity, 2) + ' FLOP/B'],
      ['shapes', n.shapes_resolved ? 'resolved' : 'some unresolved (bytes are a lower bound)'], ['note', n.note || '—'],
    ]),
    nodeTable([n]),
  ];
}
