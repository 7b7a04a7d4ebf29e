// The Chromium host's page side (`run.mjs --build web --host chromium`): this module runs in the headless page that
// chromium_host.mjs serves, never in Node. It holds the page's inference sessions and runs every timed loop here, on
// the page's own clock, so no run is timed across the DevTools round trip; the runner's pure modules (timed_loop.mjs,
// stats.mjs, dtypes.mjs, wasm_memory.mjs) are served to the page beside it, so both hosts keep one set of loop rules
// and one memory guard. The WebAssembly roofs are measured here too, by the page's Web Workers (wasm_roofs_web.mjs),
// so they are Chromium's V8's.
// Every call answers a plain object: `{error: {stage, message}}` carries ONNX Runtime's own text back to the runner.
import { runTimedLoop, warmUp } from './timed_loop.mjs';
import { TYPED } from './dtypes.mjs';
import { guardedRuns, profiledRunGuard, wasmMemoryBytes, watchWasmMemories } from './wasm_memory.mjs';
import { gapRuns } from './profiler_gap.mjs';
import { drawIds } from './decoder_values.mjs';
import { newMeter, oneGeneration, profiledPhases, timedGenerations, tokensPerSequence } from './generation_loop.mjs';

// ORT Web's Emscripten module prints the profile's JSON through console.log, one call per line, and binds
// console.log when it is instantiated (at the first inference session): so the profile can only be diverted by a
// console.log already in place then. This one passes everything through except while endProfiling runs.
const pageLog = console.log;
let captured = null;
console.log = (...args) => {
  if (captured) captured.push(args.join(' '));
  else pageLog.apply(console, args);
};

// The page's monotonic clock in BigInt nanoseconds, as timed_loop.mjs wants it. Its resolution is Chromium's:
// 5 µs in a cross-origin isolated page, 100 µs without isolation.
const clock = () => BigInt(Math.round(performance.now() * 1e6));
const msSince = (t0) => performance.now() - t0;

let ort = null;
// 'main' (load's), 'profiled' (run_profiled's own), 'profiler' (its code's warm-up), 'generation' (generate_profiled's)
const sessions = new Map();
let feeds = {};

const fail = (stage, e) => ({ error: { stage, message: e && e.message ? e.message : String(e) } });

// The profiler's chain's one float (web_build.mjs's profilerWarmModel).
const profilerFeeds = () => ({ x: new ort.Tensor('float32', new Float32Array([1]), [1]) });

// endProfiling with console.log diverted: {text} (the profile, whole, never through the page's console) or {error}.
async function profileText(s) {
  captured = [];
  try {
    await s.endProfiling();
    return { text: captured.join('\n') + '\n' };
  } catch (e) {
    return fail('profile', e);
  } finally {
    captured = null;
  }
}

function decodeTensor(t) {
  if (t.dtype === 'string') return new ort.Tensor('string', t.strings, t.dims);
  const bytes = Uint8Array.from(atob(t.data_b64), (c) => c.charCodeAt(0));
  return new ort.Tensor(t.dtype, new TYPED[t.dtype](bytes.buffer), t.dims);
}

function base64Of(view) {
  const u8 = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let s = '';
  for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(s);
}

function encodeTensor(name, t, shapesOnly) {
  if (shapesOnly) return { name, dtype: t.type, dims: t.dims };
  if (t.type === 'string') return { name, dtype: 'string', dims: t.dims, strings: Array.from(t.data) };
  return { name, dtype: t.type, dims: t.dims, data_b64: base64Of(t.data) };
}

// The renderer's memory, read by the runner from /proc (chromium_host.mjs exposes rooflensHostProbe before the page
// loads): generation_loop.mjs's probe. Each read is a round trip to the runner, so only the untimed memory generation
// uses it; the timed requests run with no probe, nothing between their steps but what a web app's loop does.
const hostProbe = {
  reset: () => globalThis.rooflensHostProbe('reset'),
  hwm: () => globalThis.rooflensHostProbe('hwm'),
  faults: () => globalThis.rooflensHostProbe('faults'),
  js: null,
};

// The page's garbage collected (Chromium runs with --js-flags=--expose-gc): rounds of collection and a task turn until
// the renderer's resident set stops falling (at least two, at most eight), as generate.mjs's collectGarbage does.
async function collectPageGarbage() {
  let before = Infinity;
  for (let round = 0; round < 8; ++round) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const rss = await globalThis.rooflensHostProbe('rss');
    if (round > 0 && rss > before - 65536) return;
    before = rss;
  }
}

// A decoder's generation in this page (generation_loop.mjs): its inference session, the page's clock.
function generationOf(key, g, io) {
  const s = sessions.get(key);
  return {
    env: { Tensor: ort.Tensor, run: (f) => s.run(f), clock, probe: null },
    prompt: drawIds(g.seed, 'prompt', g.batch * g.prompt, io.vocab),
    fixed: drawIds(g.seed, 'decode', g.batch * (g.gen + 1), io.vocab),
  };
}

const plainMeta = (m) => ({ name: m.name, isTensor: m.isTensor, type: m.type, shape: m.shape });

globalThis.rooflensPage = {
  async init({ ortUrl, wasmPaths }) {
    watchWasmMemories();  // before the import: ORT Web's glue creates its WebAssembly memory (wasm_memory.mjs)
    ort = await import(ortUrl);
    ort.env.wasm.wasmPaths = wasmPaths;
    return { version: ort.env.versions.web ?? null, cross_origin_isolated: self.crossOriginIsolated === true,
             shared_memory: typeof SharedArrayBuffer !== 'undefined' };
  },

  // Fetches the model from the runner's server and creates an inference session; `threads` (set only before the
  // page's first inference session) becomes the module's thread count, read back afterwards as what ran.
  async create({ key, modelUrl, options, threads }) {
    if (threads !== undefined) ort.env.wasm.numThreads = threads;
    const t0 = performance.now();
    let s;
    try {
      const res = await fetch(modelUrl);
      if (!res.ok) throw new Error(`model fetch failed: HTTP ${res.status}`);
      s = await ort.InferenceSession.create(new Uint8Array(await res.arrayBuffer()), options);
    } catch (e) {
      return fail('load', e);
    }
    const createMs = msSince(t0);
    sessions.set(key, s);
    return {
      create_ms: createMs, inputs: s.inputMetadata.map(plainMeta), outputs: s.outputMetadata.map(plainMeta),
      output_names: s.outputNames,
      wasm: { threads: ort.env.wasm.numThreads, shared_memory: typeof SharedArrayBuffer !== 'undefined',
              cross_origin_isolated: self.crossOriginIsolated === true },
    };
  },

  async release({ key }) {
    const s = sessions.get(key);
    sessions.delete(key);
    if (s) {
      try { await s.release(); } catch (e) { return fail('release', e); }
    }
    return {};
  },

  // The runner builds the inputs (feeds.mjs) and sends them once per distinct set; they stay here for the runs.
  setFeeds({ tensors }) {
    feeds = {};
    for (const t of tensors) feeds[t.name] = decodeTensor(t);
    return {};
  },

  async runOnce({ key }) {
    try { await sessions.get(key).run(feeds); } catch (e) { return fail('run', e); }
    return {};
  },

  async runTimed({ key, timing }) {
    const s = sessions.get(key);
    try {
      const loop = await runTimedLoop(timing, () => s.run(feeds), undefined, clock);
      return { loop };
    } catch (e) {
      return fail('run', e);
    }
  },

  // A warm-up alone: run_profiled's tier-up on the plain inference session before the profiled one runs, and the
  // profiler's code on its small model (`feeds: 'profiler'`: its one float; web_build.mjs's warmProfilerCode).
  async warm({ key, timing, feeds: which }) {
    const s = sessions.get(key);
    const f = which === 'profiler' ? profilerFeeds() : feeds;
    try {
      return { warm: await warmUp(timing, () => s.run(f), clock) };
    } catch (e) {
      return fail('run', e);
    }
  },

  // endProfiling with its text dropped (the profiler's warm-up).
  async dropProfile({ key }) {
    const r = await profileText(sessions.get(key));
    return r.error ? r : {};
  },

  // profiler_gap.mjs's runs on the profiler's chains (`keys`: {plainLong, plainShort, profiled}), then the profiled
  // one's profile as text, parsed by the runner.
  async profilerGap({ keys }) {
    const f = profilerFeeds();
    const run = (key) => { const s = sessions.get(key); return () => s.run(f); };
    let runs;
    try {
      runs = await gapRuns({ plainLong: run(keys.plainLong), plainShort: run(keys.plainShort),
                             profiled: run(keys.profiled) }, clock);
    } catch (e) {
      return fail('run', e);
    }
    const r = await profileText(sessions.get(keys.profiled));
    return r.error ? r : { runs, profile: r.text };
  },

  // Warm-up then `iterations` runs of a profiled inference session, each timed like run_timed's, then endProfiling
  // with console.log diverted: the profile's text comes back whole, never through the page's console.
  async runProfiled({ key, timing, iterations }) {
    const s = sessions.get(key);
    const runMs = [];
    const timedRun = async () => {
      const a = clock();
      await s.run(feeds);
      runMs.push(Number(clock() - a) / 1e6);
    };
    let warm, done, stoppedEarly;
    try {
      warm = await warmUp(timing, timedRun, clock);
      ({ done, stoppedEarly } = await guardedRuns(iterations, timedRun, profiledRunGuard()));
    } catch (e) {
      return fail('run', e);
    }
    const t0 = performance.now();
    const r = await profileText(s);
    if (r.error) return r;
    return { warm, runMs, done, stopped_early: stoppedEarly, wasm_memory_bytes: wasmMemoryBytes(),
             profile: r.text, end_ms: msSince(t0) };
  },

  // The memory generation (generate.mjs's): untimed, the page's garbage collected before every run, the renderer's
  // high-water mark per phase.
  async memoryGeneration({ key, io, g }) {
    const { env, prompt, fixed } = generationOf(key, g, io);
    const meter = newMeter(collectPageGarbage);
    try {
      await collectPageGarbage();
      await oneGeneration({ ...env, probe: hostProbe }, io, g, prompt, fixed, false, meter);
    } catch (e) {
      return fail('run', e);
    }
    return { prefill_peak_bytes: meter.prefill, decode_peak_bytes: meter.decode };
  },

  // The timed requests, on the page's clock; the first measured one's tokens (and logits when asked).
  async generate({ key, io, g, timing, keepLogits }) {
    const { env, prompt, fixed } = generationOf(key, g, io);
    let r;
    try {
      r = await timedGenerations(env, timing, io, g, prompt, fixed, keepLogits, newMeter(null));
    } catch (e) {
      return fail('run', e);
    }
    const out = { loop: r.loop, requests: r.requests, tokens: tokensPerSequence(g, r.first) };
    if (keepLogits) {
      out.prompt_ids = Array.from({ length: g.batch }, (_, b) => prompt.slice(b * g.prompt, (b + 1) * g.prompt));
      out.logits = r.first.logits.map((rows, step) => ({ step, dims: [g.batch, io.vocab], data_b64: base64Of(rows) }));
    }
    return out;
  },

  // Both phases on a profiled inference session, then its profile as text (generate_profiled).
  async generateProfiled({ key, io, g, warm, iters }) {
    const { env, prompt, fixed } = generationOf(key, g, io);
    let r;
    try {
      r = await profiledPhases(env, io, g, prompt, fixed, warm, iters, profiledRunGuard());
    } catch (e) {
      return fail('run', e);
    }
    const p = await profileText(sessions.get(key));
    return p.error ? p : { phases: r.phases, runs: r.runs, stopped_early: r.stoppedEarly, profile: p.text };
  },

  async outputs({ key, shapesOnly }) {
    const s = sessions.get(key);
    let out;
    try { out = await s.run(feeds); } catch (e) { return fail('run', e); }
    return { outputs: s.outputNames.filter((n) => out[n]).map((n) => encodeTensor(n, out[n], shapesOnly)) };
  },

  // What the page offers the WebAssembly roofs before they are measured: its CPUs and its isolation.
  wasmRoofsPage() {
    return { hardware_concurrency: navigator.hardwareConcurrency,
             cross_origin_isolated: self.crossOriginIsolated === true };
  },

  // The WebAssembly roofs measured here, by this page's Web Workers (wasm_roofs_web.mjs, imported only when asked, so
  // a page that never measures them never loads it). Progress goes to the console, which the runner logs on stderr.
  async wasmRoofs({ options, cpus, caches }) {
    try {
      const { measureWasmRoofsWeb } = await import('./wasm_roofs_web.mjs');
      const log = (line) => console.log(`wasm_roofs: ${line}`);
      return await measureWasmRoofsWeb({ ...options, cpus, caches, log });
    } catch (e) {
      return fail('wasm_roofs', e);
    }
  },
};
document.documentElement.dataset.ready = '1';
