// The baseline for `make bench` (perf/profile/bench_profile.cpp): the plainest onnxruntime-node loop we can
// write, to compare `rooflens profile`'s end-to-end latency against. Nothing from runners/ort/run.mjs is used;
// only the onnxruntime-node package it installs.
//
//   node bare_ort.mjs --ort-package /abs/runners/ort/package.json --model m.onnx
//                     [--threads 2] [--dim batch=1 ...] [--warmup-ms 200] [--duration 2] [--build web]
//
// --build web: onnxruntime-web (its Node entry, the WebAssembly build) instead, with its threads set the way its
// documentation says (env.wasm.numThreads) and the model read as bytes; no freeDimensionOverrides (`-B ortweb` sends
// none: docs/ortweb.md; --dim sizes the inputs only). Give it the warm-up rooflens' web runs have in all (the tier-up
// rule's 2 s, then the warm-up asked): an ORT Web process's runs slow down as it ages, so both must sample at one age.
//
// --ort-package may also come from ROOFLENS_ORT_PACKAGE. ESM resolves bare specifiers relative to this file,
// which lives outside runners/ort, so onnxruntime-node is loaded with createRequire(<that package.json>).
//
// Inference session options are what `rooflens profile --threads N` sends by default: intraOpNumThreads and
// freeDimensionOverrides for the model's symbolic dims; ORT's defaults for everything else. Inputs are
// float32 (or the input's integer/bool type), random, built once before the warm-up. Only
// `await session.run(feeds)` is timed. Prints one JSON line: {mean_ms, median_ms, n, wall_s, warmup_n}.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

function parseArgs(argv) {
  const a = { ortPackage: process.env.ROOFLENS_ORT_PACKAGE ?? '', model: '', threads: 0, dims: {}, warmupMs: 200,
              duration: 2, build: 'node' };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i], v = argv[i + 1];
    if (v === undefined) throw new Error(`${k} needs a value`);
    ++i;
    if (k === '--ort-package') a.ortPackage = v;
    else if (k === '--model') a.model = v;
    else if (k === '--threads') a.threads = Number(v);
    else if (k === '--warmup-ms') a.warmupMs = Number(v);
    else if (k === '--duration') a.duration = Number(v);
    else if (k === '--build') a.build = v;
    else if (k === '--dim') {
      const [name, size] = v.split('=');
      a.dims[name] = Number(size);
    } else throw new Error(`unknown argument ${k}`);
  }
  if (!a.ortPackage || !a.model) throw new Error('need --ort-package (or ROOFLENS_ORT_PACKAGE) and --model');
  return a;
}

function randomTensor(ort, meta, dims) {
  const shape = meta.shape.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    if (dims[d] === undefined) throw new Error(`input ${meta.name}: symbolic dim '${d}' needs --dim ${d}=N`);
    return dims[d];
  });
  const n = shape.reduce((p, d) => p * d, 1);
  switch (meta.type) {
    case 'float32': return new ort.Tensor('float32', Float32Array.from({ length: n }, () => Math.random() * 2 - 1), shape);
    case 'int64': return new ort.Tensor('int64', BigInt64Array.from({ length: n }, () => BigInt(Math.floor(Math.random() * 100))), shape);
    case 'int32': return new ort.Tensor('int32', Int32Array.from({ length: n }, () => Math.floor(Math.random() * 100)), shape);
    case 'bool': return new ort.Tensor('bool', Uint8Array.from({ length: n }, () => (Math.random() < 0.5 ? 1 : 0)), shape);
    default: throw new Error(`input ${meta.name}: type ${meta.type} not supported by this baseline`);
  }
}

const args = parseArgs(process.argv.slice(2));
const web = args.build === 'web';
const require = createRequire(args.ortPackage);
const ort = web ? await import(require.resolve('onnxruntime-web')) : require('onnxruntime-node');

const options = {};
if (web) {
  if (args.threads > 0) ort.env.wasm.numThreads = args.threads;
} else {
  if (args.threads > 0) options.intraOpNumThreads = args.threads;
  if (Object.keys(args.dims).length) options.freeDimensionOverrides = { ...args.dims };
}
const inferenceSession = await ort.InferenceSession.create(web ? readFileSync(args.model) : args.model, options);

const feeds = {};
for (const meta of inferenceSession.inputMetadata) feeds[meta.name] = randomTensor(ort, meta, args.dims);

const now = () => process.hrtime.bigint();
const ms = (ns) => Number(ns) / 1e6;

// Warm-up: at least one run and at least warmupMs.
let warmupN = 0;
const w0 = now();
do {
  await inferenceSession.run(feeds);
  ++warmupN;
} while (ms(now() - w0) < args.warmupMs);

// Measured: at least 10 runs and at least `duration` seconds.
const lat = [];
const m0 = now();
for (;;) {
  const t0 = now();
  await inferenceSession.run(feeds);
  const t1 = now();
  lat.push(ms(t1 - t0));
  if (lat.length >= 10 && ms(t1 - m0) >= args.duration * 1000) break;
}
const wallS = Number(now() - m0) / 1e9;
await inferenceSession.release();

const sorted = [...lat].sort((x, y) => x - y);
const mid = sorted.length >> 1;
const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
const mean = lat.reduce((s, x) => s + x, 0) / lat.length;
process.stdout.write(JSON.stringify({ mean_ms: mean, median_ms: median, n: lat.length, wall_s: wallS,
                                      warmup_n: warmupN }) + '\n');
