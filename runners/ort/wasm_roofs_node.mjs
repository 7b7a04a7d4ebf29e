// Node's host for wasm_roofs.mjs: its workers (worker_threads; this same file is the workers' entry), the CPUs it may
// use and the cache sizes Linux reports (/sys). A browser page's host is wasm_roofs_web.mjs (Web Workers), given the
// sizes read here by the Chromium host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { measureWasmRoofs, workerTask } from './wasm_roofs.mjs';

if (!isMainThread && workerData?.wasmRoofsWorker) {
  parentPort.on('message', (task) => {
    try {
      parentPort.postMessage({ ok: true, result: workerTask(task) });
    } catch (e) {
      parentPort.postMessage({ ok: false, error: e && e.stack ? e.stack : String(e) });
    }
  });
}

// The CPUs this process may run on (libuv reads the affinity mask): one worker per CPU.
export const nodeCpus = () => (os.availableParallelism ? os.availableParallelism() : os.cpus().length);

// Data and unified caches of CPU 0 as Linux reports them, in `rooflens hw`'s shape (machine.caches[]). Hints only: a
// VM may report them wrong (docs/roofs.md).
export function sysCaches(root = '/sys/devices/system/cpu/cpu0/cache') {
  let dirs;
  try {
    dirs = fs.readdirSync(root).filter((d) => /^index\d+$/.test(d));
  } catch {
    return [];
  }
  const read = (d, f) => fs.readFileSync(path.join(root, d, f), 'utf8').trim();
  const cpusIn = (list) => list.split(',').reduce((n, r) => {
    const [a, b] = r.split('-').map(Number);
    return n + (b === undefined ? 1 : b - a + 1);
  }, 0);
  const out = [];
  for (const d of dirs) {
    try {
      const type = read(d, 'type');
      if (type === 'Instruction') continue;
      const m = /^(\d+)([KMG]?)$/.exec(read(d, 'size'));
      if (!m) continue;
      const size = Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2]];
      const level = Number(read(d, 'level'));
      out.push({ level: level === 1 ? 'L1d' : `L${level}`, size_bytes: size,
                 cores_sharing: cpusIn(read(d, 'shared_cpu_list')) });
    } catch { /* a cache without these files is not reported */ }
  }
  return out.sort((a, b) => a.size_bytes - b.size_bytes);
}

// `size` workers of this file, kept for the whole measurement (each keeps its instances and its grown memory).
export function nodeWorkerPool(size) {
  const url = new URL(import.meta.url);
  const workers = Array.from({ length: size }, () => new Worker(url, { workerData: { wasmRoofsWorker: true } }));
  const ask = (w, task) => new Promise((resolve, reject) => {
    const onMessage = (m) => { w.off('error', onError); m.ok ? resolve(m.result) : reject(new Error(m.error)); };
    const onError = (e) => { w.off('message', onMessage); reject(e); };
    w.once('message', onMessage);
    w.once('error', onError);
    w.postMessage(task);
  });
  return {
    size,
    run: (n, taskFor) => Promise.all(workers.slice(0, n).map((w, rank) => ask(w, taskFor(rank)))),
    close: () => Promise.all(workers.map((w) => w.terminate())),
  };
}

// Every WebAssembly roof of this machine (wasm_roofs.mjs's measureWasmRoofs), with Node's workers and /sys's caches.
export async function measureWasmRoofsNode(options = {}) {
  const pool = nodeWorkerPool(options.cpus ?? nodeCpus());
  try {
    const res = await measureWasmRoofs({ pool, caches: sysCaches(), ...options, cpus: pool.size });
    res.engine = { ...res.engine, node: process.versions.node, v8: process.versions.v8 };
    // Other work on the machine lowers every figure (each is a best of repetitions, but 2 threads need both CPUs at
    // once): the load when the measurement ended says how far to trust them.
    res.load_average = os.loadavg()[0];
    return res;
  } finally {
    await pool.close();
  }
}

// The native roofs `rooflens hw` cached for this machine (the newest file whose cache key names this machine's
// cores, caches and memory), or null. Read only: for comparing, never for measuring.
export function cachedNativeRoofs(dir = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
                                                  'rooflens')) {
  let files;
  try {
    files = fs.readdirSync(dir).filter((f) => /^hw-[0-9a-f]+\.json$/.test(f));
  } catch {
    return null;
  }
  const caches = sysCaches();
  let best = null;
  for (const f of files) {
    let j;
    try {
      j = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    } catch {
      continue;
    }
    const m = j.machine;
    // An engine's roofs are kept in files of this form too, with no native compute roofs: not these.
    if (j.source !== 'measured' || !m || !j.compute?.length || m.memory_bytes !== os.totalmem()) continue;
    const same = caches.length > 0 && caches.every((c) => (m.caches ?? []).some(
      (n) => n.level === c.level && n.size_bytes === c.size_bytes));
    if (same && (!best || j.measured_at > best.measured_at)) best = j;
  }
  return best;
}

// `node wasm_roofs_node.mjs [--quick] [--json]`: measures and prints the roofs as a table beside the native ones
// `rooflens hw` cached for this machine (or, with --json, what the runner's `wasm_roofs` op replies).
const fmtBytes = (b) => (b >= 1024 ** 2 ? `${+(b / 1024 ** 2).toFixed(2)} MiB` : `${+(b / 1024).toFixed(2)} KiB`);

export function printTable(r, native) {
  const rows = [['compute roof', 'threads', 'GFLOP/s', 'median', 'native peak of its dtype', 'share']];
  for (const c of r.compute) {
    const peak = native?.compute.filter((n) => n.dtype === c.dtype && n.threads === c.threads)
      .reduce((a, b) => (b.gflops > a.gflops ? b : a), { gflops: 0 });
    rows.push([c.name, c.threads, c.gflops.toFixed(1), c.median_gflops.toFixed(1),
               peak?.gflops ? `${peak.gflops.toFixed(1)} ${peak.name}` : '-',
               peak?.gflops ? `${(c.gflops / peak.gflops).toFixed(2)}x` : '-']);
  }
  const bw = [['kernel', 'threads', 'working set', 'GB/s', 'median']];
  for (const p of r.sweep) {
    bw.push([p.kernel, p.threads, fmtBytes(p.working_set_bytes), p.gbps.toFixed(1), p.median_gbps.toFixed(1)]);
  }
  const lv = [['level', 'kernel', 'threads', 'GB/s', 'at', 'native read']];
  for (const m of r.memory) {
    const n = native?.memory.find((x) => x.level === m.level && x.kernel === 'read' && x.threads === m.threads);
    lv.push([m.level, m.kernel, m.threads, m.gbps.toFixed(1), fmtBytes(m.working_set_bytes),
             n ? n.gbps.toFixed(1) : '-']);
  }
  for (const t of [rows, bw, lv]) {
    const w = t[0].map((_, i) => Math.max(...t.map((row) => String(row[i]).length)));
    for (const [i, row] of t.entries()) {
      console.log(row.map((x, j) => (j === 0 ? String(x).padEnd(w[j]) : String(x).padStart(w[j]))).join('  '));
      if (i === 0) console.log('─'.repeat(w.reduce((a, b) => a + b + 2, -2)));
    }
    console.log();
  }
  console.log(`${r.engine.node ? `node ${r.engine.node}, V8 ${r.engine.v8}, ` : ''}relaxed SIMD ` +
              `${r.engine.relaxed_simd ? 'yes' : 'no'}, ${r.engine.cpus} CPUs, load ${r.load_average?.toFixed(2)}, ` +
              `${(r.elapsed_ms / 1000).toFixed(1)} s${native ? `; native roofs measured ${native.measured_at}` : ''}`);
}

if (isMainThread && process.argv[1] && new URL(import.meta.url).pathname === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const log = (s) => process.stderr.write(`${s}\n`);
  const r = await measureWasmRoofsNode({ quick: args.includes('--quick'), log });
  if (args.includes('--json')) console.log(JSON.stringify(r, null, 2));
  else printTable(r, cachedNativeRoofs());
}
