// Parallel service in onnxruntime-node: N worker threads with an inference session each, in one process, against N
// processes with an inference session each (`make bench` capacity part; docs/capacity.md "Worker threads or
// processes"). Every worker runs a closed `session.run` loop (the next run when the previous one returned) on its own
// random inputs for the same wall time; the figure is the total runs per second over all of them.
//
//   node workers_vs_processes.mjs --ort-package /abs/runners/ort/package.json --model m.onnx --mode workers|processes
//                                 [--n 2] [--threads 1] [--duration 5] [--warmup-ms 500] [--dim batch=1]
// Prints one JSON line: {mode, n, threads, runs_per_s, per_worker: [...]}.
import {spawn} from 'node:child_process';
import {createRequire} from 'node:module';
import {Worker, isMainThread, parentPort, workerData} from 'node:worker_threads';
import {fileURLToPath} from 'node:url';

function parseArgs(argv) {
  const a = {ortPackage: process.env.ROOFLENS_ORT_PACKAGE ?? '', model: '', mode: 'workers', n: 2, threads: 1,
    duration: 5, warmupMs: 500, dims: {}, child: false};
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    if (k === '--child') { a.child = true; continue; }
    const v = argv[++i];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--ort-package') a.ortPackage = v;
    else if (k === '--model') a.model = v;
    else if (k === '--mode') a.mode = v;
    else if (k === '--n') a.n = Number(v);
    else if (k === '--threads') a.threads = Number(v);
    else if (k === '--duration') a.duration = Number(v);
    else if (k === '--warmup-ms') a.warmupMs = Number(v);
    else if (k === '--dim') { const [d, s] = v.split('='); a.dims[d] = Number(s); }
    else throw new Error(`unknown argument ${k}`);
  }
  return a;
}

// One closed loop: warm up, then count runs until `startAt + duration`. All loops share the same start time, so
// they measure the same seconds of the machine.
async function loop(a, startAt) {
  const ort = createRequire(a.ortPackage)('onnxruntime-node');
  const options = {intraOpNumThreads: a.threads, freeDimensionOverrides: a.dims};
  const inferenceSession = await ort.InferenceSession.create(a.model, options);
  const feeds = {};
  for (const m of inferenceSession.inputMetadata) {
    const shape = m.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : a.dims[d] ?? 1));
    const n = shape.reduce((p, d) => p * d, 1);
    feeds[m.name] = new ort.Tensor('float32', Float32Array.from({length: n}, () => Math.random() * 2 - 1), shape);
  }
  while (Date.now() < startAt) await inferenceSession.run(feeds);  // warm-up until the common start
  let runs = 0;
  const t0 = process.hrtime.bigint();
  while (Date.now() < startAt + a.duration * 1000) {
    await inferenceSession.run(feeds);
    ++runs;
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  await inferenceSession.release();
  return runs / wall;
}

async function main() {
  if (!isMainThread) {
    parentPort.postMessage(await loop(workerData.a, workerData.startAt));
    return;
  }
  const a = parseArgs(process.argv.slice(2));
  if (a.child) {
    process.stdout.write(JSON.stringify(await loop(a, Number(process.env.START_AT))) + '\n');
    return;
  }
  // Every worker gets the time to load its inference session before the common start.
  const startAt = Date.now() + 3000 + a.warmupMs;
  const self = fileURLToPath(import.meta.url);
  let rates;
  if (a.mode === 'workers') {
    rates = await Promise.all(Array.from({length: a.n}, () => new Promise((resolve, reject) => {
      const w = new Worker(self, {workerData: {a, startAt}});
      w.on('message', resolve);
      w.on('error', reject);
    })));
  } else {
    rates = await Promise.all(Array.from({length: a.n}, () => new Promise((resolve, reject) => {
      const p = spawn(process.execPath, [self, '--child', ...process.argv.slice(2)],
        {env: {...process.env, START_AT: String(startAt)}, stdio: ['ignore', 'pipe', 'inherit']});
      let out = '';
      p.stdout.on('data', (d) => { out += d; });
      p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error('child exited ' + code))));
    })));
  }
  process.stdout.write(JSON.stringify({mode: a.mode, n: a.n, threads: a.threads,
    runs_per_s: rates.reduce((s, r) => s + r, 0), per_worker: rates}) + '\n');
}

await main();
