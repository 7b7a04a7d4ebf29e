// What ONNX Runtime Web (the WebAssembly build, `--build web`) does differently from the native build, in one place:
// - threads are the WebAssembly module's (ort.env.wasm.numThreads), fixed when the first inference session creates
//   the module; the build lowers them to 1 where WebAssembly threads cannot run (no SharedArrayBuffer), so what ran is
//   read back from ort.env.wasm after the first creation, never taken from what was asked;
// - its kernels are WebAssembly, which the JS engine first runs as baseline code and replaces with optimised code
//   while the runs go on (V8's tier-up: ~15 runs of a 5 ms model ran 5x slower here), so every loop of the web build
//   warms up for at least kTierUpMs and until its runs stop getting faster (webTiming);
// - it reads a model from bytes, not from a path;
// - it cannot write files (optimizedModelFilePath aborts the module), and its profiler prints the profile's JSON to
//   the process's stdout instead of a file: captured here and written where the native build writes its profile;
// - so the graph it executed comes from the native build of the same ORT core (executedGraphOf), optimised as the web
//   build optimises: the same options without the x86 NCHWc layout pass, which WebAssembly has no kernels for. The
//   C++ side checks it against every kernel of the web profile (names and ops) before mapping with it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ort } from './ort.mjs';
import { MessageError, log } from './errors.mjs';
import { chainModel } from './onnx_chain.mjs';
import { warmUp } from './timed_loop.mjs';
import { nowNs } from './clock.mjs';
import { chainGap, kLongChainNodes, kProfilerWarmMs, kShortChainNodes } from './profiler_gap.mjs';
import { compilerQuiet } from './compiler_quiet.mjs';
import { otherThreadIds, threadsCpuNs } from './proc_threads.mjs';

// How long the first runs of a fresh WebAssembly module may still run baseline code: V8 compiles the hot functions
// with its optimising tier in the background once they have run enough (measured: ~0.6 s for onnxruntime-web on a
// 5 ms model, Zen 3, Node 20).
export const kTierUpMs = 2000;

// V8's compiler in this process (compiler_quiet.mjs): the threads there were before ORT Web made its workers — Node's
// platform workers, which compile for every isolate — read when this module loads, before any inference session.
const engineThreads = otherThreadIds();
export const webCompilerQuiet = () => compilerQuiet(() => threadsCpuNs('self', (tid) => engineThreads.has(tid)));

// The web build's timing: its warm-up covers the tier-up (timed_loop.mjs's warmUp goes on until steady).
export function webTiming(timing) {
  return { ...timing, warmupMs: Math.max(timing.warmupMs, kTierUpMs), untilSteady: true };
}

// A profiled inference session of the web build keeps WebAssembly memory for every run it profiles, and WebAssembly
// memory never shrinks (measured, onnxruntime-web 1.30 in Node: ~200-230 MB a run for the 1024x1024 isnet models, 1
// thread or 2, arena and memory pattern on or off; ~170 KB a run for ppocr_mobile_v2_cls; nothing without
// profiling). Warming up until steady on it ran those models out of the 4 GiB: ≥ 10 profiled warm-up runs plus the
// profiled ones. So the tier-up (webTiming) runs on a plain inference session of the same module first — its
// optimised code serves every inference session of the module after it — and the profiled one warms up for
// warmup_iterations runs only (at least one: a new inference session's first run allocates what later runs reuse).
export function webProfiledTiming(timing) {
  return { ...timing, warmupIterations: Math.max(1, timing.warmupIterations), warmupMs: 0, untilSteady: false };
}

// The profiler's own WebAssembly code (each kernel event's names, shapes and times) runs in profiled inference
// sessions only, so the plain tier-up leaves it baseline code: without more, the first ~15 profiled runs of
// ppocr_mobile_v2_cls ran 2-4x slower than the ones after (Node 20, Zen 3). It tiers up on a small profiled model
// first — a chain of kLongChainNodes nodes over one float, run until steady, its profile dropped — which keeps next
// to nothing: afterwards the first profiled run of ppocr ran at the speed of its later ones. The warm-up is short:
// the profiler's code is a few functions run once per kernel event, hot after a few hundred ms of the chain's runs,
// and the compiler's wait after it (compiler_quiet.mjs) sees their optimised code installed. Every run adds
// kLongChainNodes events to a profile that is printed whole at the end, and the print is the cost: warmed up for
// kTierUpMs, the chain made ~117k events, and dropping its profile took ~10 s of a Chromium page (Zen 5).
export const profilerWarmTiming = (timing) => ({ ...timing, warmupMs: kProfilerWarmMs, untilSteady: true });
export const profilerWarmModel = () => chainModel(kLongChainNodes);
export const profilerShortModel = () => chainModel(kShortChainNodes);

// The Node host's: the profiler's code tiered up in this process's module, then, unless `measureGap` is false (a caller
// that only needs the profiler warm), the profiler's gap measured on fresh inference sessions of the same chain
// (profiler_gap.mjs). Returns {warm, gap} (gap null when not measured).
export async function warmProfilerCode(timing, { measureGap = true } = {}) {
  const model = profilerWarmModel();
  const feeds = { x: new ort.Tensor('float32', new Float32Array([1]), [1]) };
  const s = await ort.InferenceSession.create(model, { executionProviders: ['wasm'], enableProfiling: true });
  let warm;
  try {
    warm = await warmUp(profilerWarmTiming(timing), () => s.run(feeds));
  } finally {
    captureWebProfile(s);
    await s.release();
  }
  if (!measureGap) return { warm, gap: null };
  await webCompilerQuiet();  // the calibration on optimised code, alone on the CPUs
  const plain = { executionProviders: ['wasm'] };
  const gap = await chainGap({
    create: (which) => ort.InferenceSession.create(which === 'short' ? profilerShortModel() : model,
                                                   which === 'profiled' ? { ...plain, enableProfiling: true } : plain),
    feeds, profileText: captureWebProfile, clock: nowNs });
  return { warm, gap };
}

// The options ORT Web takes, from the native spelling the runner's messages use (intraOpNumThreads: the module's
// threads), for one WebAssembly module: this process's, or a Chromium page's (chromium_host.mjs). `module` is
// {created, asked}: whether the module exists, and the threads its first inference session asked for. Returns the
// options and the thread count to set before creating (undefined: leave it). Refuses what the build cannot do.
export function webOptionsFor(options, module) {
  const o = { ...options };
  if (o.optimizedModelFilePath) {
    throw new MessageError('bad_option', 'optimizedModelFilePath: ONNX Runtime Web cannot write files (the ' +
                           'WebAssembly build has no file system); its executed graph is not available');
  }
  // Left out as the native build leaves them out (onnxruntime-node 1.30's Linux binding has no freeDimensionOverrides:
  // it ignores them): the inputs' shapes come with the feeds either way, and the two builds then optimise one graph,
  // so the native build's graph is the one the web build runs (executedGraphOf).
  delete o.freeDimensionOverrides;
  const threads = o.intraOpNumThreads;
  delete o.intraOpNumThreads;
  let setThreads;
  if (threads !== undefined) {
    if (!module.created) {
      setThreads = threads;
      module.asked = threads;
    } else if (threads !== module.asked) {
      throw new MessageError('bad_option', `intraOpNumThreads ${threads}: ONNX Runtime Web fixed its threads at ` +
                             `${module.threads} when this runner's first inference session was created`);
    }
  }
  if (o.executionProviders === undefined) o.executionProviders = ['wasm'];
  return { options: o, threads: setThreads };
}

// This process's module (the Node host): `threads` is what it runs once created.
const nodeModule = { created: false, asked: undefined, get threads() { return ort.env.wasm.numThreads; } };

export function webSessionOptions(options) {
  const { options: o, threads } = webOptionsFor(options, nodeModule);
  if (threads !== undefined) ort.env.wasm.numThreads = threads;
  return o;
}

export async function createWebSession(model, options) {
  const bytes = fs.readFileSync(model);
  const s = await ort.InferenceSession.create(bytes, webSessionOptions(options));
  nodeModule.created = true;
  return s;
}

// What the WebAssembly module runs with, read back after it was created (null before).
export function wasmSettings() {
  if (!nodeModule.created) return null;
  return {
    threads: ort.env.wasm.numThreads,
    shared_memory: typeof SharedArrayBuffer !== 'undefined',
    simd: true,  // onnxruntime-web ships only SIMD builds since 1.19
  };
}

// endProfiling, with the JSON ORT Web prints to stdout (Emscripten's fs.writeSync(1, ...)) captured instead of
// reaching the runner's replies, and written as `dir`/ort_profile_web.json, where profileFileIn finds it.
export function endWebProfiling(inferenceSession, dir) {
  fs.writeFileSync(path.join(dir, 'ort_profile_web.json'), captureWebProfile(inferenceSession));
}

// endProfiling of the Node host's module, returning the profile's text.
function captureWebProfile(inferenceSession) {
  const chunks = [];
  const write = fs.writeSync;
  fs.writeSync = (fd, data, ...rest) => {
    if (fd === 1 && typeof data === 'string') {
      chunks.push(data);
      return Buffer.byteLength(data);
    }
    return write.call(fs, fd, data, ...rest);
  };
  try {
    inferenceSession.endProfiling();
  } finally {
    fs.writeSync = write;
  }
  return chunks.join('');
}

// The graph ORT's native build makes of `model` with the web inference session's `options`, minus what only x86 has
// (the NCHWc transformer), written to `graphFile`: the executed graph's stand-in for a build that writes no files.
// onnxruntime-node 1.30.0 and onnxruntime-web 1.30.0 share the optimiser; measured on the corpus (vit_b_16,
// ppocr_mobile_v2_cls, isnet_quint8): every web kernel is a node of this graph with the same op. Returns the file,
// or null when the native build cannot make it (the mapping then uses the user's graph and ORT's names alone).
export async function executedGraphOf(model, options, graphFile) {
  let native;
  try {
    native = createRequire(import.meta.url)('onnxruntime-node');
  } catch (e) {
    log(`no executed graph: onnxruntime-node cannot be loaded (${String(e.message).split('\n')[0]})`);
    return null;
  }
  const o = { ...options, intraOpNumThreads: 1, optimizedModelFilePath: graphFile };
  delete o.executionProviders;
  const extra = { ...(o.extra ?? {}) };
  const off = extra['optimization.disable_specified_optimizers'];
  extra['optimization.disable_specified_optimizers'] = off ? `${off},NchwcTransformer` : 'NchwcTransformer';
  o.extra = extra;
  try {
    const s = await native.InferenceSession.create(model, o);
    await s.release();
  } catch (e) {
    log(`no executed graph: the native build could not optimise ${model} (${String(e.message).split('\n')[0]})`);
    return null;
  }
  const written = fs.existsSync(graphFile);
  log(written ? `executed graph: onnxruntime-node's optimisation of ${model}` : `no executed graph: none was written`);
  return written ? graphFile : null;
}
