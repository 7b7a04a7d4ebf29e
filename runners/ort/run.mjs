// rooflens' ONNX Runtime runner: a long-lived child process around onnxruntime-node. This file is the entry point
// (`node run.mjs`): the message loop and the core messages; the rest of the runner is one module per concern beside it:
//   ort.mjs          loads onnxruntime-node (exit 69 when it is not installed)
//   errors.mjs       the log line and the errors that become replies
//   fields.mjs       checked message fields and the `timing` object
//   inference_session.mjs
//                    the loaded model and its inference session, ORT's session options, creating and running
//                    inference sessions
//   feeds.mjs        a run's inputs: files, given values or seeded draws (rng.mjs, fp16.mjs, dtypes.mjs,
//                    tensor_files.mjs: TensorProto and .npy)
//   timed_loop.mjs   warm-up and the measured loop's stop rules (stats.mjs: the adaptive stop's interval)
//   memory.mjs       the runner's own memory by phase;  ort_profile.mjs  ORT's profile files;  clock.mjs  the clock
//   generate.mjs     decoder generation (`generate`, `generate_profiled`)
//   serve.mjs        serving for `rooflens capacity` (`prepare`, `infer`, `end_profile`)
//   serve_steps.mjs  serving a decoder step by step (`serve_begin`, `serve_step`, `serve_end`; decoder_io.mjs: the
//                    decoder's I/O, shared with generate.mjs)
//   wasm_roofs.mjs   `wasm_roofs` (--build web): WebAssembly's compute and bandwidth roofs, measured by WebAssembly
//                    kernels (wasm_encode.mjs writes them; wasm_roofs_node.mjs: Node's workers and cache sizes;
//                    wasm_roofs_web.mjs: a page's Web Workers; wasm_roofs_message.mjs: the message's fields)
//   chromium_host.mjs
//                    `--build web --host chromium`: the model runs in a headless Chromium page (chromium_page.mjs)
//
// Protocol (full description in docs/runner-protocol.md): one JSON message per line on stdin, one JSON
// reply per line on stdout, in order. Every reply carries its message's `id` and `ok`. Logs (ours and
// ONNX Runtime's) go to stderr only; stdout carries nothing but replies.
//
// Errors a caller can cause (bad message, model ORT refuses, unreadable input file) become `ok:false`
// replies and the runner keeps serving. Anything else (a bug here) is logged to stderr and the process
// exits non-zero; the C++ side (the child runner of src/backends/common/child_runner.*, driven by
// src/backends/onnxruntime/ort_runner.*) reports that with the stderr tail.
// ort.mjs first: a runner without its packages says what to install and exits 69.
import { build, host, ort, runtimeVersion } from './ort.mjs';
import { nativeProfilerGap } from './profiler_gap_native.mjs';
import { executedGraphOf, warmProfilerCode, wasmSettings, webCompilerQuiet, webProfiledTiming, webTiming }
  from './web_build.mjs';
import { compileWarnings } from './compiler_quiet.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { MessageError, badMessage, inputError, ortError, log } from './errors.mjs';
import { optBool, optNum, timingOf } from './fields.mjs';
import { nowNs, nsToMs } from './clock.mjs';
import {
  createInferenceSession, loadedModel, releaseLoadedModel, requireLoadedModel, runOnce, sessionOptions, setLoadedModel,
  valueMeta,
} from './inference_session.mjs';
import { buildFeeds, encodeTensor } from './feeds.mjs';
import { runTimedLoop, timedReply, warmUp } from './timed_loop.mjs';
import { minorPageFaults, peakRss, procStatus, resetPeak } from './proc_memory.mjs';
import { runtimeCost } from './runtime_cost_cache.mjs';
import { guardedRuns, profiledRunGuard, wasmMemoryBytes } from './wasm_memory.mjs';
import { endProfiling, profiledReply, profiledSessionPlace, profilingOf } from './ort_profile.mjs';
import { makeGenerateOps } from './generate.mjs';
import { makeServeOps } from './serve.mjs';
import { makeServeStepOps } from './serve_steps.mjs';
import { measureWasmRoofsNode, nodeCpus } from './wasm_roofs_node.mjs';
import { wasmRoofsOptions } from './wasm_roofs_message.mjs';
import { closeHost, makeChromiumOps } from './chromium_host.mjs';

const PROTOCOL_VERSION = 1;

process.on('uncaughtException', (e) => {
  log('fatal:', e && e.stack ? e.stack : String(e));
  process.exit(70);
});
process.on('unhandledRejection', (e) => {
  log('fatal (unhandled rejection):', e && e.stack ? e.stack : String(e));
  process.exit(70);
});

// ---------------------------------------------------------------------------------------------------------
// Messages.

async function opHello() {
  return {
    protocol: PROTOCOL_VERSION,
    runner: 'rooflens-ort-runner',
    build,  // 'node' (onnxruntime-node) or 'web' (onnxruntime-web, `--build web`)
    host,  // where the model runs: 'node' (this process) or 'chromium' (`--host chromium`: a headless page)
    onnxruntime_node: build === 'node' ? runtimeVersion() : null,
    onnxruntime_web: build === 'web' ? runtimeVersion() : null,
    onnxruntime_common: ort.env.versions.common ?? null,
    node: process.versions.node,
    v8: process.versions.v8,
    platform: process.platform,
    arch: process.arch,
    pid: process.pid,
    backends: typeof ort.listSupportedBackends === 'function' ? ort.listSupportedBackends() : [],
  };
}

async function opLoad(msg) {
  if (typeof msg.model !== 'string' || !msg.model) throw badMessage("'load' needs 'model' (path to a .onnx file)");
  const model = path.resolve(msg.model);
  const options = sessionOptions(msg.options);
  if (options.optimizedModelFilePath) options.optimizedModelFilePath = path.resolve(options.optimizedModelFilePath);
  if (loadedModel()) await releaseLoadedModel();
  if (!fs.existsSync(model)) throw inputError(`model file not found: ${model}`);
  // `profile`: the inference session is the profiled one (run_profiled then runs it instead of creating a second
  // inference session). The web build's is created plain and made the profiled one after the tier-up
  // (web_build.mjs's webProfiledTiming).
  const { profiling, sessionOpts } = profilingOf(msg, options);
  // The runtime's calibration constants (its baseline and its cost per node), from a process of their own and cached:
  // nothing of this process goes into them.
  const memory = { start_bytes: procStatus().rss };
  if (optBool(msg, 'runtime_cost', false)) {
    const cost = runtimeCost(options);
    memory.baseline_bytes = cost.baseline_bytes;
    memory.baseline_run_bytes = cost.baseline_run_bytes;
    memory.node_bytes = cost.node_bytes;
    memory.runtime_cost_measured_at = cost.measured_at;
    memory.start_bytes = procStatus().rss;  // reading the cache file is not the model's
  }
  resetPeak();
  const t0 = nowNs();
  let inferenceSession;
  try {
    inferenceSession = await createInferenceSession(model, build === 'web' ? options : sessionOpts);
  } catch (e) {
    if (profiling) fs.rmSync(profiling.dir, { recursive: true, force: true });
    throw e;
  }
  const loadMs = nsToMs(nowNs() - t0);
  const created = procStatus();
  if (build === 'web' && profiling?.graphFile) await executedGraphOf(model, options, profiling.graphFile);
  memory.after_session_bytes = created.rss;
  memory.session_peak_bytes = created.hwm;
  memory.peak_reset = resetPeak();
  const inputs = inferenceSession.inputMetadata.map(valueMeta);
  const outputs = inferenceSession.outputMetadata.map(valueMeta);
  setLoadedModel({ model, options, inferenceSession, inputs, outputs, feedsKey: null, feeds: null, profiling, loadMs });
  // One line per model: when the runtime later crashes, the stderr tail in the failure record says what it held.
  log(`loaded ${model} (${loadMs.toFixed(1)} ms${profiling ? ', profiled inference session' : ''})`);
  // The process settings this runner was started with (rooflens records them with the run; it checks them here).
  const processSettings = { malloc_mmap_threshold: process.env.MALLOC_MMAP_THRESHOLD_ ?? null };
  const res = { model, load_ms: loadMs, inputs, outputs, options, peak_rss_bytes: peakRss(), memory,
                process: processSettings };
  // ONNX Runtime Web: what its WebAssembly module really runs with (threads read back after creation).
  if (build === 'web') res.wasm = wasmSettings();
  if (options.optimizedModelFilePath) {
    res.optimized_model = fs.existsSync(options.optimizedModelFilePath) ? options.optimizedModelFilePath : null;
  }
  return res;
}

// The timing of a loop of runs: the web build's warm-up also covers its JS engine's tier-up (web_build.mjs).
function loopTiming(msg) {
  return build === 'web' ? webTiming(timingOf(msg)) : timingOf(msg);
}

async function opRunTimed(msg) {
  const st = requireLoadedModel(msg.op);
  const timing = loopTiming(msg);
  const memory = { peak_reset: resetPeak() };
  const feeds = buildFeeds(msg);
  // The memory probe, before the warm-up: the inference session's first run with its own peak — what a run needs,
  // without the copies of earlier outputs that wait for the garbage collector during a loop of runs.
  if (optBool(msg, 'memory_probe', false)) {
    await runOnce(st.inferenceSession, feeds);
    memory.probe_peak_bytes = procStatus().hwm;
    memory.peak_reset = resetPeak() && memory.peak_reset;
  }
  // The process's minor page faults over the measured runs: onnxruntime-node copies every output into a new buffer,
  // and whether those land on pages the process already holds is a state of the process that can last for many
  // runs (docs/compare.md) — the count lets the report name it.
  let faults = 0;
  const run = () => runOnce(st.inferenceSession, feeds);
  // The web build: the tier-up, then V8's compiler done (compiler_quiet.mjs), then the warm-up asked for.
  const tierUp = build === 'web' ? await warmUp(timing, run) : null;
  const compile = tierUp ? await webCompilerQuiet() : null;
  const loop = await runTimedLoop(tierUp ? timingOf(msg) : timing, run, run, undefined,
                                  () => { faults = minorPageFaults(); });
  faults = minorPageFaults() - faults;
  memory.run_peak_bytes = procStatus().hwm;
  if (tierUp) {
    loop.warmupIterations += tierUp.warmupIterations;
    loop.warmupMs += tierUp.warmupMs;
  }
  const reply = timedReply(loop, timing, { peakRssBytes: peakRss(), rssBytes: process.memoryUsage().rss, memory });
  reply.page_faults = faults;
  return compile ? { ...reply, compile, ...compileWarnings(compile) } : reply;
}

async function opRunProfiled(msg) {
  const st = requireLoadedModel(msg.op);
  // The profiled runs come after warmup_iterations runs (docs/runner-protocol.md); the web build's also after its
  // tier-up, run on the loaded inference session, plain (webProfiledTiming).
  const timing = { ...timingOf(msg), warmupMs: 0 };
  const feeds = buildFeeds(msg);
  const iters = timing.profileIterations;
  const returnEvents = optBool(msg, 'return_events', false);
  const keep = optBool(msg, 'keep_profile', !returnEvents);
  const { own, dir, graphFile, options } = profiledSessionPlace(msg, st);
  let inferenceSession = null;
  try {
    const web = build === 'web' ? await warmWebBeforeProfiling(st, own, feeds, msg) : null;
    // The profiler's own time between kernels (profiler_gap.mjs): the web build measures it in its warm-up above.
    const profilerGap = web ? web.tierUp.profiler.gap : await nativeProfilerGap(st.options);
    const t0 = nowNs();
    inferenceSession = own ? st.inferenceSession : await createInferenceSession(st.model, options);
    const createMs = own ? (web?.createMs ?? st.loadMs) : nsToMs(nowNs() - t0);
    if (build === 'web' && !own && graphFile) await executedGraphOf(st.model, st.options, graphFile);
    if (web) web.tierUp.compile = await webCompilerQuiet();
    const runMs = [];
    const timedRun = async () => {
      const a = nowNs();
      await runOnce(inferenceSession, feeds);
      runMs.push(nsToMs(nowNs() - a));
    };
    // The warm-up's runs are in the profile too: the first warmIters of its model_run events.
    const warm = await warmUp(build === 'web' ? webProfiledTiming(timing) : timing, timedRun);
    const { done, stoppedEarly } = await guardedRuns(iters, timedRun, build === 'web' ? profiledRunGuard() : null);
    if (stoppedEarly) log(stoppedEarly);
    try { endProfiling(inferenceSession, dir); } catch (e) { throw ortError('profile', e); }
    return profiledReply({ dir, keep, warm, iters: done, createMs, runMs, graphFile, returnEvents,
                           peakRssBytes: peakRss(), tierUp: web?.tierUp, profilerGap, stoppedEarly,
                           wasmMemoryBytes: web ? wasmMemoryBytes() : undefined,
                           ...(web ? compileWarnings(web.tierUp.compile) : {}) });
  } finally {
    if (inferenceSession && !own) {
      try { await inferenceSession.release(); } catch (e) { log('release failed:', e.message); }
    }
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    else if (!fs.readdirSync(dir).length) fs.rmSync(dir, { recursive: true, force: true });
  }
}

// The web build's runs before profiling (web_build.mjs's webProfiledTiming): the model's tier-up on the loaded
// inference session, plain, then the profiler's code. When load asked for the profiled inference session (`own`), it
// replaces the loaded one afterwards, so one holds WebAssembly memory at a time. Returns {tierUp, createMs: that
// inference session's creation, or null}.
async function warmWebBeforeProfiling(st, own, feeds, msg) {
  const timing = webTiming(timingOf(msg));
  const tierUp = { model: await warmUp(timing, () => runOnce(st.inferenceSession, feeds)),
                   profiler: await warmProfilerCode(timing) };
  if (!own) return { tierUp, createMs: null };
  await st.inferenceSession.release();
  st.inferenceSession = null;
  const t0 = nowNs();
  st.inferenceSession = await createInferenceSession(st.model, own.options);
  return { tierUp, createMs: nsToMs(nowNs() - t0) };
}

async function opOutputs(msg) {
  const st = requireLoadedModel(msg.op);
  const feeds = buildFeeds(msg);
  const out = await runOnce(st.inferenceSession, feeds);
  // shapes_only: every output's type and dims without its data (rooflens analyze --check-runtime exposes every
  // intermediate tensor as an output and needs only their shapes).
  const shapesOnly = optBool(msg, 'shapes_only', false);
  const encode = (n, t) => (shapesOnly ? { name: n, dtype: t.type, dims: t.dims } : encodeTensor(n, t));
  const res = { outputs: st.inferenceSession.outputNames.filter((n) => out[n]).map((n) => encode(n, out[n])) };
  if (optBool(msg, 'return_inputs', false)) res.inputs = Object.entries(feeds).map(([n, t]) => encodeTensor(n, t));
  return res;
}

// WebAssembly's roofs on this machine: what a layer of ONNX Runtime Web can at best compute and stream. Only with
// --build web: the native build's layers are held against `rooflens hw`'s native roofs.
async function opWasmRoofs(msg) {
  if (build !== 'web') throw badMessage("'wasm_roofs' needs a runner started with --build web (ONNX Runtime Web)");
  const options = wasmRoofsOptions(msg, nodeCpus(), "this process's CPUs");
  return measureWasmRoofsNode({ ...options, log });
}

async function opUnload() {
  const had = loadedModel() !== null;
  await releaseLoadedModel();
  return { unloaded: had };
}

async function opSleep(msg) {
  const ms = optNum(msg, 'ms', 0);
  log(`sleep ${ms} ms (debug message)`);
  await new Promise((r) => setTimeout(r, ms));
  return { slept_ms: ms };
}

const GENERATE_OPS = makeGenerateOps();  // generate, generate_profiled: rooflens generate
const SERVE_OPS = makeServeOps();  // prepare, infer, end_profile: rooflens capacity
const SERVE_STEP_OPS = makeServeStepOps();  // serve_begin, serve_step, serve_end: rooflens capacity on a decoder

const NODE_OPS = {
  hello: opHello, load: opLoad, run_timed: opRunTimed, run_profiled: opRunProfiled, outputs: opOutputs,
  unload: opUnload, sleep: opSleep, wasm_roofs: opWasmRoofs, ...GENERATE_OPS, ...SERVE_OPS, ...SERVE_STEP_OPS,
};
// The Chromium host answers the measuring messages in its page (wasm_roofs too: the roofs of the page's engine, never
// Node's; generation too: a web app's decoder loop runs in its page); serving is the Node host's only (a page serves
// one user, not a load generator's requests), so it is refused by name rather than run in the wrong place.
function chromiumOps() {
  const ops = { ...makeChromiumOps(opHello), unload: opUnload, sleep: opSleep };
  const served = [...Object.keys(ops), 'quit'].join(', ');
  for (const name of Object.keys(NODE_OPS)) {
    ops[name] ??= async () => {
      throw badMessage(`'${name}' needs the Node host (--host chromium answers ${served})`);
    };
  }
  return ops;
}
const OPS = host === 'chromium' ? chromiumOps() : NODE_OPS;

// ---------------------------------------------------------------------------------------------------------
// The loop: messages are handled strictly one at a time, in arrival order.

// The next message is handled as soon as the reply is in the stream's buffer, not when the write's callback runs:
// that callback comes an event-loop turn later (~0.1 ms measured under `capacity`, a gap between two calls that a
// closed session.run loop never has). Only a full buffer is waited for; before the process exits, everything is.
function send(obj) {
  if (process.stdout.write(JSON.stringify(obj) + '\n')) return Promise.resolve();
  return new Promise((resolve) => process.stdout.once('drain', resolve));
}

function flushed() {
  return new Promise((resolve) => process.stdout.write('', resolve));
}

async function handle(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return send({ id: null, ok: false, error: { code: 'bad_message', message: `message is not JSON: ${e.message}` } });
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
    return send({ id: null, ok: false, error: { code: 'bad_message', message: 'message must be a JSON object' } });
  }
  const id = msg.id ?? null;
  if (msg.op === 'quit') {
    await releaseLoadedModel();
    await closeHost();
    await send({ id, ok: true, op: 'quit' });
    await flushed();
    process.exit(0);
  }
  const fn = Object.hasOwn(OPS, msg.op) ? OPS[msg.op] : null;
  if (!fn) {
    return send({ id, ok: false, op: msg.op ?? null, error: { code: 'bad_message',
      message: `unknown op ${JSON.stringify(msg.op)} (known: ${[...Object.keys(OPS), 'quit'].join(', ')})` } });
  }
  try {
    const result = await fn(msg);
    return send({ id, ok: true, op: msg.op, ...result });
  } catch (e) {
    if (!(e instanceof MessageError)) throw e;  // a bug: the process handlers log it and exit non-zero
    await send({ id, ok: false, op: msg.op, error: { code: e.code, message: e.message, ...e.extra } });
    // The Chromium host's page crashed: the reply says so, and the exit makes the C++ side see a crashed runner (the
    // crash record, a restart) as it does for a native crash, instead of a runner that can no longer run anything.
    if (e.fatal) {
      await closeHost();
      await flushed();
      process.exit(71);
    }
  }
}

const queue = [];
let busy = false, closed = false;
async function pump() {
  if (busy) return;
  busy = true;
  while (queue.length) await handle(queue.shift());
  busy = false;
  if (closed) {
    await releaseLoadedModel();
    await closeHost();
    await flushed();
    process.exit(0);
  }
}

const where = host === 'chromium' ? ' in Chromium' : '';
log(`ready (onnxruntime-${build} ${runtimeVersion()}${where}, node ${process.versions.node})`);
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  queue.push(line);
  pump();
});
rl.on('close', () => {
  closed = true;
  pump();
});
