// A browser page's host for wasm_roofs.mjs: its workers are module Web Workers (this same file is their entry, as
// wasm_roofs_node.mjs is for worker_threads), so the roofs are those of the page's own engine and its threads. The
// Chromium host's page (chromium_page.mjs) imports it; the cache sizes come from the runner, since a page cannot read
// /sys. Pure ES module: no node: imports.
import { measureWasmRoofs, workerTask } from './wasm_roofs.mjs';

const inWorker = typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope;
if (inWorker) {
  self.onmessage = (e) => {
    try {
      self.postMessage({ ok: true, result: workerTask(e.data) });
    } catch (err) {
      self.postMessage({ ok: false, error: err && err.stack ? err.stack : String(err) });
    }
  };
}

// `size` module workers of this file, kept for the whole measurement (each keeps its instances and its grown memory).
// A task carries the compiled WebAssembly.Module (the workers share its code and its tier-up) and, for more than one
// thread, the barrier's SharedArrayBuffer.
export function webWorkerPool(size) {
  const workers = Array.from({ length: size }, () => new Worker(new URL(import.meta.url), { type: 'module' }));
  const ask = (w, task) => new Promise((resolve, reject) => {
    w.onmessage = (e) => (e.data.ok ? resolve(e.data.result) : reject(new Error(e.data.error)));
    w.onerror = (e) => reject(new Error(`wasm_roofs worker: ${e.message ?? 'failed to start'}`));
    w.onmessageerror = () => reject(new Error('wasm_roofs worker: a message could not be cloned'));
    w.postMessage(task);
  });
  return {
    size,
    run: (n, taskFor) => Promise.all(workers.slice(0, n).map((w, rank) => ask(w, taskFor(rank)))),
    close: async () => workers.forEach((w) => w.terminate()),
  };
}

// The step of this page's clock in ms: Chromium coarsens performance.now() (5 µs cross-origin isolated, 100 µs
// without), and a repetition must be long against it, or its best would be a clock step's luck.
export function clockStepMs(samples = 200) {
  let step = Infinity;
  for (let i = 0; i < samples; ++i) {
    const a = performance.now();
    let b = performance.now();
    while (b === a) b = performance.now();
    step = Math.min(step, b - a);
  }
  return step;
}

// Repetitions last at least 100 clock steps (1% of one), and never less than wasm_roofs.mjs's 1 ms.
const kStepsPerRep = 100;

// Every WebAssembly roof of this page's engine: workers up to `cpus` (what the runner may use; the page's
// hardwareConcurrency when larger is not what the runner's process may use), threads only when the page is
// cross-origin isolated (the barrier needs SharedArrayBuffer), `caches` as the runner read them.
export async function measureWasmRoofsWeb({ cpus, caches = [], log = () => {}, ...options }) {
  const threadsOk = self.crossOriginIsolated === true && typeof SharedArrayBuffer !== 'undefined';
  const stepMs = clockStepMs();
  const repMs = Math.max(1, Math.ceil(kStepsPerRep * stepMs));
  const pool = webWorkerPool(cpus);
  try {
    const res = await measureWasmRoofs({ pool, caches, threadsOk, log, computeRepMs: repMs, bandwidthRepMs: repMs,
                                         ...options, cpus: pool.size });
    res.engine = { ...res.engine, cross_origin_isolated: self.crossOriginIsolated === true,
                   hardware_concurrency: navigator.hardwareConcurrency, clock_step_ms: stepMs };
    if (repMs > 1) {
      res.notes.push(`repetitions of ${repMs} ms instead of 1: this page's clock steps by ${+(stepMs * 1000)
        .toFixed(1)} µs (Chromium coarsens performance.now() without cross-origin isolation)`);
    }
    if (!threadsOk) {
      res.notes.push('no SharedArrayBuffer because the page is not cross-origin isolated (served without COOP/COEP, ' +
                     'as with --isolation off): ONNX Runtime Web runs 1 thread in such a page too');
    }
    return res;
  } finally {
    await pool.close();
  }
}
