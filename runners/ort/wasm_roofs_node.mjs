// Node's host for wasm_roofs.mjs: its workers (worker_threads; this same file is the workers' entry), the CPUs it may
// use and the cache sizes Linux reports (/sys). A browser page would give measureWasmRoofs Web Workers and no sizes.
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
    if (j.source !== 'measured' || !m || m.memory_bytes !== os.totalmem()) continue;
    const same = caches.length > 0 && caches.every((c) => (m.caches ?? []).some(
      (n) => n.level === c.level && n.size_bytes === c.size_bytes));
    if (same && (!best || j.measured_at > best.measured_at)) best = j;
  }
  return best;
}
