// A synthetic profile report with N layers (default 5,000) for the browser tests and `make bench`: a large
// model's shape without profiling one. Deterministic (seeded), valid rooflens.report/1 (rooflens report reads it),
// ceilings from a datasheet (so the page must label them as such), two runs (batch 1 and 8) for the sweep charts,
// the second timed as two repetitions.
//   node tests/browser/make_synthetic_report.mjs OUT.json [LAYERS]
import fs from 'node:fs';

// Op types and how their layers look: [op, share of layers, FLOP/byte range, fused nodes].
const OPS = [
  ['Conv', 0.30, [8, 200], ['Conv', 'BatchNormalization', 'Relu']], ['MatMul', 0.16, [4, 120], ['MatMul']],
  ['Add', 0.10, [0.05, 0.2], ['Add']], ['Relu', 0.07, [0.1, 0.2], ['Relu']],
  ['LayerNormalization', 0.06, [0.5, 2], ['LayerNormalization']], ['Softmax', 0.05, [0.5, 3], ['Softmax']],
  ['Gemm', 0.05, [2, 60], ['Gemm']], ['Mul', 0.05, [0.05, 0.2], ['Mul']], ['Transpose', 0.04, [0, 0], ['Transpose']],
  ['MaxPool', 0.04, [0.2, 1], ['MaxPool']], ['Gelu', 0.04, [1, 4], ['Gelu']], ['Concat', 0.04, [0, 0], ['Concat']],
];

function rng(seed) {  // mulberry32
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stats = (xs) => {
  const s = xs.slice().sort((a, b) => a - b), n = s.length, rank = (p) => s[Math.max(0, Math.ceil((p / 100) * n) - 1)];
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / Math.max(1, n - 1));
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return {n, min: s[0], max: s[n - 1], mean, median, p90: rank(90), p95: rank(95), p99: rank(99), std, cv: std / mean};
};

export const DATASHEET = {
  source: 'datasheet', cache_key: '', measured_at: '', quick: false,
  machine: {vendor: 'GenuineIntel', model: 'Synthetic CPU (datasheet)', sockets: 1, cores: 2, threads: 4, numa_nodes: 1,
    memory_bytes: 25769803776, mhz: 2500, os: 'Debian GNU/Linux 12', kernel: '6.1',
    isa: ['avx2', 'avx512f', 'fma'], caches: [{level: 'L1d', size_bytes: 49152, instances: 2, cores_sharing: 1},
      {level: 'L2', size_bytes: 2097152, instances: 2, cores_sharing: 1}, {level: 'L3', size_bytes: 37748736, instances: 1, cores_sharing: 2}]},
  compute: [
    {name: 'fp32_fma_avx512', isa: 'avx512f', dtype: 'fp32', threads: 2, gflops: 320},
    {name: 'fp32_fma_avx2', isa: 'avx2', dtype: 'fp32', threads: 2, gflops: 160},
  ],
  memory: [
    {level: 'L1', kernel: 'read', threads: 2, gbps: 700, working_set_bytes: 0},
    {level: 'L2', kernel: 'read', threads: 2, gbps: 190, working_set_bytes: 0},
    {level: 'L3', kernel: 'read', threads: 2, gbps: 90, working_set_bytes: 0},
    {level: 'DRAM', kernel: 'read', threads: 2, gbps: 30, working_set_bytes: 0},
  ],
  sweep: [], notes: ['synthetic datasheet for the browser tests'], errors: [],
};

export function syntheticReport(layerCount = 5000, seed = 42) {
  const rand = rng(seed);
  const pick = () => { let x = rand(); for (const o of OPS) { if ((x -= o[1]) <= 0) return o; } return OPS[0]; };
  const nodes = [], layerDefs = [];
  const firstNode = [];  // layer -> index of its first node
  for (let i = 0; i < layerCount; i++) {
    firstNode.push(nodes.length);
    const [op, , [lo, hi], fused] = pick();
    const block = 'block' + Math.floor(i / 12) + '.' + op.toLowerCase() + i;
    const owned = fused.map((nop, k) => {
      const out = [1, 64 + (i % 8) * 32, 28, 28];
      const node = {index: nodes.length, name: block + '/' + nop + (k ? '_' + k : ''), op: nop, domain: '', graph: 'main',
        inputs: ['t' + nodes.length], outputs: ['t' + (nodes.length + 1)], input_shapes: [out], output_shapes: [out],
        input_dtypes: ['float'], output_dtypes: ['float'], flops: 0, macs: 0, params: 0, bytes_read: 0, bytes_written: 0,
        intensity: 0, cost_known: true, shapes_resolved: true, note: ''};
      nodes.push(node);
      return node;
    });
    // The graph is not a plain chain: every 6th layer also reads the output of the layer 6 before (a skip
    // connection), and every 400th layer's first node carries a 3-node subgraph (If/Loop bodies), for the graph view.
    if (i % 6 === 5 && i >= 6) owned[0].inputs.push('t' + (firstNode[i - 6] + 1));
    if (i % 400 === 200) {
      const parent = owned[0].name;
      for (let k = 0; k < 3; k++) {
        nodes.push({index: nodes.length, name: parent + '/body/n' + k, op: ['Add', 'Mul', 'Identity'][k], domain: '',
          graph: 'main/' + parent + ':body', inputs: [k ? parent + '/b' + (k - 1) : 'x_body'], outputs: [parent + '/b' + k],
          input_shapes: [[1, 64]], output_shapes: [[1, 64]], input_dtypes: ['float'], output_dtypes: ['float'], flops: 64,
          macs: 0, params: 0, bytes_read: 256, bytes_written: 256, intensity: 0.125, cost_known: true, shapes_resolved: true, note: ''});
      }
    }
    const bytes = Math.round(1e3 + rand() * 1e5);
    const intensity = lo + (hi - lo) * rand();
    const flops = Math.round(bytes * intensity);
    owned[0].flops = flops;
    owned[0].macs = ['Conv', 'MatMul', 'Gemm'].includes(op) ? Math.round(flops / 2) : 0;
    owned[0].bytes_read = Math.round(bytes * 0.6);
    owned[0].bytes_written = bytes - owned[0].bytes_read;
    owned[0].intensity = flops / bytes;
    layerDefs.push({op, owned, flops, bytes, weight: 0.2 + rand() ** 3 * 30});
  }
  const totalFlops = layerDefs.reduce((s, l) => s + l.flops, 0);
  const runs = [1, 8].map((batch) => makeRun(rand, layerDefs, batch, totalFlops));
  return {
    schema: 'rooflens.report/1', tool: {name: 'rooflens', version: '0.1.0', command: 'profile'},
    model: {
      path: 'synthetic-' + layerCount + '.onnx', name: 'synthetic-' + layerCount, file_bytes: 123456789, ir_version: 8,
      producer_name: 'make_synthetic_report.mjs', producer_version: '1', opsets: {'ai.onnx': 17},
      inputs: [{name: 'input', dtype: 'float', shape: [1, 64, 28, 28], dim_names: ['batch', '', '', '']}],
      outputs: [{name: 'output', dtype: 'float', shape: [1, 64, 28, 28], dim_names: ['batch', '', '', '']}],
      initializers: 0, weight_bytes: 0,
      analysis: {
        totals: {flops: totalFlops, macs: nodes.reduce((s, n) => s + n.macs, 0), params: 0,
          bytes_read: nodes.reduce((s, n) => s + n.bytes_read, 0), bytes_written: nodes.reduce((s, n) => s + n.bytes_written, 0),
          nodes: nodes.length, unknown_cost_nodes: 0, unresolved_nodes: 0, intensity: 1},
        op_types: [], unknown_ops: [], notes: ['synthetic report: ' + layerCount + ' layers'], nodes,
      },
    },
    hardware: DATASHEET,
    backend: {name: 'onnxruntime', version: '1.30.0', runtime: 'synthetic', options: {}},
    partial: false, runs, failures: [], warnings: [],
  };
}

function makeRun(rand, defs, batch, totalFlops) {
  const peak = 320, bw = 90;
  let start = 0;
  const layers = defs.map((d, i) => {
    const flops = d.flops * batch, bytes = d.bytes * batch;
    const attainable = flops ? Math.min(peak, (flops / bytes) * bw) : bw;
    const efficiency = 0.05 + 0.9 * rand() ** 2;
    const seconds = flops ? flops / (attainable * efficiency * 1e9) : bytes / (bw * efficiency * 1e9);
    const time_ms = seconds * 1e3;
    const layer = {
      name: d.owned[0].name.replace(/\/\w+$/, '') + (d.owned.length > 1 ? '_fused' : ''), op: d.op,
      provider: 'CPUExecutionProvider', onnx_nodes: d.owned.map((n) => n.name), alias: flops === 0 && d.op === 'Transpose',
      time_ms, share: 0, flops, macs: d.owned[0].macs * batch, bytes, cost_known: true,
      intensity: flops / bytes, gflops: flops / seconds / 1e9, gbps: bytes / seconds / 1e9,
      bound: flops && (flops / bytes) * bw >= peak ? 'compute' : 'memory', efficiency,
      roof: flops && (flops / bytes) * bw >= peak ? 'fp32_fma_avx512 x2' : 'L3 read x2',
      input_shapes: [[batch, 64, 28, 28]], output_shapes: [[batch, 64, 28, 28]], start_ms: start,
    };
    start += time_ms * (0.97 + 0.03 * rand());
    return layer;
  });
  const total = layers.reduce((s, l) => s + l.time_ms, 0);
  for (const l of layers) l.share = l.time_ms / total;
  const latencies = Array.from({length: 40}, () => total * (1.02 + 0.06 * rand() ** 2));
  const st = stats(latencies);
  return {
    batch, dims: {batch}, threads: 2, latency_ms: st, throughput_per_s: (batch * 1000) / st.mean,
    wall_s: latencies.reduce((a, b) => a + b, 0) / 1000, stop_reason: 'min_reached', load_ms: 900,
    profiled_latency_ms: Object.assign({}, st, {mean: st.mean * 1.04}), profiling_overhead: 1.04, coverage: total / st.median,
    peak_rss_bytes: 512 * 1024 * 1024, flops: totalFlops * batch, macs: 0, gflops: (totalFlops * batch) / st.median / 1e6,
    layers, unowned: [], unmapped_kernels: 0, warnings: [], latencies_ms: latencies,
    // batch 8 was timed as with --repeat 2 (runs of 15 and 25 samples); batch 1 as one run.
    ...(batch === 8 ? {repetitions: [15, 25]} : {}),
  };
}

if (import.meta.url === 'file://' + process.argv[1]) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: make_synthetic_report.mjs OUT.json [LAYERS]');
    process.exit(2);
  }
  fs.writeFileSync(out, JSON.stringify(syntheticReport(Number(process.argv[3] || 5000)), null, 1) + '\n');
}
