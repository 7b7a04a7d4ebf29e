// The Chromium host of the web build (`node run.mjs --build web --host chromium [--isolation off]`): the same messages
// and replies as the Node host, but the model runs with onnxruntime-web inside a real headless Chromium page, the way
// a web app runs it. This process keeps what it does for the Node host — checking messages, building the inputs
// (feeds.mjs), writing the profile file — and the page (chromium_page.mjs) creates the inference sessions and times
// every run on its own clock.
// - One browser and one page for the runner's lifetime (starting Chromium costs about a second), started by the first
//   message that needs them (`hello`, which the C++ side sends first, or `load`) and closed on quit or end of stdin.
// - The network is off: a server of this process on 127.0.0.1 (random port) serves the page, the runner modules it
//   imports, the onnxruntime-web files of its WebAssembly build and the loaded model; every other URL is aborted and
//   no host name resolves.
// - With isolation on (the default) every response carries COOP/COEP, so the page is cross-origin isolated:
//   SharedArrayBuffer exists and WebAssembly threads run. Off, ORT Web runs 1 thread whatever was asked; `load`'s
//   `wasm` object says what ran, read back in the page.
// - Memory is the renderer's (the page's process, where the WebAssembly memory and its worker threads live), from
//   /proc/<pid>/status — never this process's numbers, which say nothing about the page.
// - A page that crashes answers the message it was running with an `ort` error, then the runner exits 71.
// - `wasm_roofs` is measured in the page, by its Web Workers (wasm_roofs_web.mjs): the roofs of Chromium's V8, which
//   runs a web app's layers, never Node's (another V8 version). This process gives the page what it cannot read
//   itself: the CPUs it may use and the cache sizes of /sys.
// - `generate` and `generate_profiled` run generation_loop.mjs's loops in the page, so the KV cache stays in the page's
//   WebAssembly module as a web app's does; the renderer's memory between runs comes from this process through
//   rooflensHostProbe (the untimed memory generation only). Chromium runs with --expose-gc for that generation.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isolation } from './ort.mjs';
import { MessageError, badMessage, inputError, log } from './errors.mjs';
import { optBool, timingOf } from './fields.mjs';
import { loadedModel, releaseLoadedModel, requireLoadedModel, sessionOptions, setLoadedModel, valueMeta }
  from './inference_session.mjs';
import { buildFeeds, encodeTensor } from './feeds.mjs';
import { profiledReply, profiledSessionPlace, profilingOf, readOrtProfile } from './ort_profile.mjs';
import { profiledGenerationOf } from './generate.mjs';
import { timedReply } from './timed_loop.mjs';
import { clearPeakOf, minorPageFaultsOf, procStatus } from './proc_memory.mjs';
import { threadsCpuNs } from './proc_threads.mjs';
import { compileWarnings, compilerQuiet } from './compiler_quiet.mjs';
import { parseDecoderIo } from './decoder_io.mjs';
import { generationTiming, parseShape } from './generation_loop.mjs';
import { executedGraphOf, profilerShortModel, profilerWarmModel, profilerWarmTiming, webOptionsFor,
  webProfiledTiming, webTiming } from './web_build.mjs';
import { kLongChainNodes, profilerGapOfText } from './profiler_gap.mjs';
import { nodeCpus, sysCaches } from './wasm_roofs_node.mjs';
import { wasmRoofsOptions } from './wasm_roofs_message.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ortDist = path.join(here, 'node_modules', 'onnxruntime-web', 'dist');
// The browser this host drives: Debian's package unless ROOFLENS_CHROMIUM names another build.
export const CHROMIUM = process.env.ROOFLENS_CHROMIUM || '/usr/bin/chromium';
// Headless flags known to work as root; nothing phones home. The host resolver maps every name to nothing, so even a
// request the route below missed (a worker's, a prefetch) cannot leave the machine. No spare renderer: the page's
// renderer is then the only one, which is how its memory is found.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
  '--disable-extensions', '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  '--disable-features=SpareRendererForSitePerProcess', '--js-flags=--expose-gc'];

// What the server hands out: the page, the runner's modules the page imports (pure ones only: no node: imports), and
// ORT Web's WebAssembly build (the entry a browser imports when the wasm files are served apart, its Emscripten glue
// and module).
const PAGE = '<!doctype html><meta charset="utf-8"><title>rooflens ORT Web host</title>' +
  '<script type="module" src="/runner/chromium_page.mjs"></script>';
const FILES = new Map([
  ...['chromium_page.mjs', 'timed_loop.mjs', 'clock.mjs', 'stats.mjs', 'dtypes.mjs', 'wasm_memory.mjs',
      'wasm_roofs_web.mjs', 'wasm_roofs.mjs', 'wasm_encode.mjs', 'profiler_gap.mjs', 'generation_loop.mjs',
      'decoder_values.mjs', 'errors.mjs', 'fields.mjs', 'rng.mjs', 'fp16.mjs']
    .map((f) => [`/runner/${f}`, path.join(here, f)]),
  ...['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm']
    .map((f) => [`/ort/${f}`, path.join(ortDist, f)]),
]);
const TYPES = { '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.onnx': 'application/octet-stream' };

let hostState = null;  // {server, origin, browser, context, page, version, page_info, renderer}
let starting = null;
let crashed = null;  // why the page is gone, once it is
const models = new Map();  // URL path → model file
let modelCount = 0;
let sentFeeds = null;  // the feeds object (feeds.mjs's cache) the page holds
// The page's WebAssembly module: its threads are fixed by its first inference session (web_build.mjs's rule).
const pageModule = { created: false, asked: undefined, threads: undefined };

function hostError(text) {
  return new MessageError('host', text);
}

function serve(req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  const file = url.pathname === '/' ? null : FILES.get(url.pathname) ?? models.get(url.pathname);
  const headers = { 'Cache-Control': 'no-store' };
  if (isolation) {
    headers['Cross-Origin-Opener-Policy'] = 'same-origin';
    headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
  }
  if (url.pathname === '/') {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
    return res.end(PAGE);
  }
  if (!file) {
    log(`chromium host: 404 ${url.pathname}`);
    res.writeHead(404, headers);
    return res.end();
  }
  res.writeHead(200, { ...headers, 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
  fs.createReadStream(file).on('error', (e) => res.destroy(e)).pipe(res);
}

// The processes under this runner whose command line says renderer: Chromium forks its renderers from its zygote,
// so they are grandchildren of the browser process this runner started, found by walking /proc's parent links.
function rendererPids() {
  const parent = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone meanwhile */ }
  }
  const under = (pid) => {
    for (let p = parent.get(pid); p; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  // Chromium rewrites its command line in place (one string, spaces between the flags). Its own renderers for
  // browser UI (--top-chrome-webui) and extensions cannot host a page from our server.
  return [...parent.keys()].filter((pid) => {
    if (!under(pid)) return false;
    try {
      const flags = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      return flags.includes('--type=renderer') && !flags.includes('--top-chrome-webui') &&
        !flags.includes('--extension-process');
    } catch {
      return false;
    }
  });
}

// The renderer's memory: VmRSS and VmHWM, its peak reset per phase through clear_refs as for the runner itself
// (proc_memory.mjs). Everything null, with the reason, when the renderer cannot be told apart.
const renderer = {
  pid: null, reason: null, peakBeforeReset: 0,
  status() {
    if (!this.pid) return null;
    const s = procStatus(this.pid);
    return s.rss ? s : null;
  },
  reset() {
    const before = this.status();
    if (!before) return false;
    if (!clearPeakOf(this.pid)) return false;
    this.peakBeforeReset = Math.max(this.peakBeforeReset, before.hwm);
    return true;
  },
  peak() {
    const s = this.status();
    return s ? Math.max(s.hwm, this.peakBeforeReset) : null;
  },
  // Names the memory's source in every memory object of a reply.
  label() {
    return this.pid ? { process: 'chromium_renderer', pid: this.pid } : { process: null, unavailable: this.reason };
  },
};

// The renderer's memory as the page's generation_loop.mjs probe asks for it (chromium_page.mjs's hostProbe); 0 where
// the renderer cannot be told apart.
function probeRenderer(what) {
  switch (what) {
    case 'reset': return renderer.reset();
    case 'hwm': return renderer.status()?.hwm ?? 0;
    case 'rss': return renderer.status()?.rss ?? 0;
    case 'faults': return renderer.pid ? minorPageFaultsOf(renderer.pid) : 0;
    default: throw new Error(`unknown probe ${what}`);
  }
}

async function launch() {
  let chromium;
  try {
    const require = createRequire(path.resolve(here, '..', '..', 'web', 'package.json'));
    ({ chromium } = require('playwright-core'));
  } catch (e) {
    throw hostError('the Chromium host needs playwright-core in web/node_modules: run `make deps`');
  }
  if (!fs.existsSync(CHROMIUM)) {
    throw hostError(`no Chromium at ${CHROMIUM}: install Debian's package \`chromium\` (\`make deps\`) or set ` +
                    'ROOFLENS_CHROMIUM to a Chromium binary');
  }
  const server = http.createServer(serve);
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  let browser;
  try {
    // playwright-core's own SIGTERM/SIGHUP handlers close the browser and then leave this process running, waiting on
    // stdin: a runner told to end would not. Without them the signal ends the runner, and Chromium, whose DevTools
    // pipe was this process, ends with it.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, handleSIGTERM: false,
                                      handleSIGHUP: false });
  } catch (e) {
    server.close();
    throw hostError(`cannot start Chromium (${CHROMIUM}): ${String(e.message).split('\n')[0]}`);
  }
  try {
    return await openPage(server, origin, browser);
  } catch (e) {
    // A page that cannot start (ORT Web's files missing, a timeout) leaves no browser or server behind.
    await browser.close().catch(() => {});
    server.close();
    throw hostError(`the Chromium page did not start: ${String(e.message).split('\n')[0]}`);
  }
}

async function openPage(server, origin, browser) {
  const context = await browser.newContext();
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(origin + '/')) return route.continue();
    log(`chromium host: refused ${u}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('crash', () => {
    crashed = `the Chromium page crashed${renderer.pid ? ` (renderer pid ${renderer.pid})` : ''}`;
    log(crashed);
  });
  browser.on('disconnected', () => {
    crashed ??= 'Chromium exited';
  });
  // The page's console goes to stderr with the runner's logs (ORT Web's warnings among them); the profile does not
  // pass through it (chromium_page.mjs diverts it).
  page.on('console', (m) => log(`page ${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log(`page error: ${e.message}`));
  await page.exposeFunction('rooflensHostProbe', probeRenderer);
  await page.goto(origin + '/', { waitUntil: 'load' });
  await page.waitForFunction(() => globalThis.rooflensPage !== undefined, null, { timeout: 30000 });
  const info = await page.evaluate((a) => globalThis.rooflensPage.init(a),
                                   { ortUrl: `${origin}/ort/ort.wasm.min.mjs`, wasmPaths: `${origin}/ort/` });
  const pids = rendererPids();
  if (pids.length === 1) renderer.pid = pids[0];
  else renderer.reason = `${pids.length} renderer processes under the runner; cannot tell which one is the page's`;
  log(`chromium host: ${browser.version()} at ${origin}, isolation ${isolation ? 'on' : 'off'}, ` +
      `renderer ${renderer.pid ?? renderer.reason}`);
  return { server, origin, browser, context, page, version: browser.version(), info };
}

export async function startHost() {
  if (hostState) return hostState;
  starting ??= launch();
  try {
    hostState = await starting;
  } finally {
    starting = null;
  }
  return hostState;
}

// Closes the page, the browser and the server (quit, end of stdin); never throws.
export async function closeHost() {
  const h = hostState;
  hostState = null;
  if (!h) return;
  try {
    await h.browser.close();
  } catch (e) {
    log('chromium host: close failed:', e.message);
  }
  h.server.close();
}

// One call into the page. ORT's failures come back as `{error}` and become `ort` errors with ORT's text; a page that
// is gone becomes a fatal error (run.mjs answers it, then exits 71) instead of a hang.
async function call(fn, arg, stage) {
  const h = await startHost();
  if (crashed) throw lost(stage);
  let r;
  try {
    r = await h.page.evaluate(([f, a]) => globalThis.rooflensPage[f](a), [fn, arg]);
  } catch (e) {
    if (crashed || h.page.isClosed() || !h.browser.isConnected() || /crash|closed/i.test(e.message)) {
      crashed ??= `the Chromium page is gone: ${String(e.message).split('\n')[0]}`;
      throw lost(stage);
    }
    throw e;  // a bug in chromium_page.mjs: run.mjs logs it and exits 70
  }
  if (r && r.error) throw new MessageError('ort', r.error.message, { stage: r.error.stage });
  return r;
}

function lost(stage) {
  const e = new MessageError('ort', `${crashed}; the runner exits`, { stage, host: 'chromium' });
  e.fatal = true;
  return e;
}

// The inference session run.mjs's loaded model holds: a name in the page, with its inputs' and outputs' names.
function pageSession(key, inputNames, outputNames) {
  return {
    key, inputNames, outputNames,
    async release() {
      if (hostState && !crashed) await call('release', { key }, 'release');
    },
  };
}

// The inputs, built here as for the Node host and sent to the page once per distinct set.
async function sendFeeds(msg) {
  const feeds = buildFeeds(msg);
  if (feeds !== sentFeeds) {
    await call('setFeeds', { tensors: Object.entries(feeds).map(([n, t]) => encodeTensor(n, t)) }, 'run');
    sentFeeds = feeds;
  }
  return feeds;
}

// Creates an inference session in the page under `key`; its creation time is the page's.
async function createPageSession(key, model, options) {
  const { options: webOptions, threads } = webOptionsFor(options, pageModule);
  const url = `/model/${++modelCount}${path.extname(model) || '.onnx'}`;
  models.set(url, model);
  try {
    const r = await call('create', { key, modelUrl: url, options: webOptions, threads }, 'load');
    pageModule.created = true;
    pageModule.threads = r.wasm.threads;
    return r;
  } finally {
    models.delete(url);
  }
}

async function opHello(base) {
  const h = await startHost();
  return { ...base, host: 'chromium', isolation, browser: h.version, page: h.info };
}

async function opLoad(msg) {
  if (typeof msg.model !== 'string' || !msg.model) throw badMessage("'load' needs 'model' (path to a .onnx file)");
  const model = path.resolve(msg.model);
  const options = sessionOptions(msg.options);
  if (optBool(msg, 'runtime_cost', false)) {
    throw new MessageError('bad_option', 'runtime_cost: the native runtime\'s calibration does not describe a ' +
                           'Chromium page');
  }
  const h = await startHost();
  if (loadedModel()) await releaseLoadedModel();
  if (!fs.existsSync(model)) throw inputError(`model file not found: ${model}`);
  // The page writes no files: no graph option. Created plain: run_profiled makes it the profiled one after the
  // tier-up (web_build.mjs's webProfiledTiming).
  const { profiling } = profilingOf(msg, options);
  const memory = { start_bytes: renderer.status()?.rss ?? null };
  const reset = renderer.reset();
  let r;
  try {
    r = await createPageSession('main', model, options);
  } catch (e) {
    if (profiling) fs.rmSync(profiling.dir, { recursive: true, force: true });
    throw e;
  }
  const created = renderer.status();
  if (profiling?.graphFile) await executedGraphOf(model, options, profiling.graphFile);  // the page writes no files
  memory.after_session_bytes = created?.rss ?? null;
  memory.session_peak_bytes = created?.hwm ?? null;
  memory.peak_reset = reset && renderer.reset();
  Object.assign(memory, renderer.label());
  const inputs = r.inputs.map(valueMeta), outputs = r.outputs.map(valueMeta);
  setLoadedModel({ model, options, inferenceSession: pageSession('main', inputs.map((m) => m.name), r.output_names), inputs, outputs, feedsKey: null, feeds: null,
                   profiling, loadMs: r.create_ms });
  sentFeeds = null;
  log(`loaded ${model} in Chromium (${r.create_ms.toFixed(1)} ms${profiling ? ', profiled inference session' : ''})`);
  return {
    model, load_ms: r.create_ms, inputs, outputs, options, peak_rss_bytes: renderer.peak(), memory,
    process: { malloc_mmap_threshold: null },
    wasm: { ...r.wasm, simd: true, host: 'chromium', browser: h.version },
  };
}

async function opRunTimed(msg) {
  const st = requireLoadedModel(msg.op);
  const timing = webTiming(timingOf(msg));
  await sendFeeds(msg);
  const memory = { peak_reset: renderer.reset() };
  if (optBool(msg, 'memory_probe', false)) {
    await call('runOnce', { key: st.inferenceSession.key }, 'run');
    memory.probe_peak_bytes = renderer.status()?.hwm ?? null;
    memory.peak_reset = renderer.reset() && memory.peak_reset;
  }
  // The tier-up, then V8's compiler done (pageCompilerQuiet), then the runs with the warm-up asked for.
  const key = st.inferenceSession.key;
  const { warm } = await call('warm', { key, timing }, 'run');
  const compile = await pageCompilerQuiet();
  const { loop } = await call('runTimed', { key, timing: timingOf(msg) }, 'run');
  loop.warmupIterations += warm.warmupIterations;
  loop.warmupMs += warm.warmupMs;
  memory.run_peak_bytes = renderer.status()?.hwm ?? null;
  Object.assign(memory, renderer.label());
  return { ...timedReply(loop, timing, { peakRssBytes: renderer.peak(), rssBytes: renderer.status()?.rss ?? null,
                                         memory }), compile, ...compileWarningsLogged(compile) };
}

// V8's compiler in the page (compiler_quiet.mjs): the renderer's ThreadPoolForegroundWorker threads.
const pageCompilerQuiet = () => compilerQuiet(
  () => (renderer.pid ? threadsCpuNs(renderer.pid, (tid, name) => name.startsWith('ThreadPoolForeg')) : null));

// compileWarnings, logged.
function compileWarningsLogged(c) {
  const w = compileWarnings(c);
  if (w.warnings) log(`warning: ${w.warnings[0]}`);
  return w;
}

// The page's warmProfilerCode (web_build.mjs): the small profiled model, served from a file of its own, warmed up,
// then, unless `measureGap` is false, the profiler's gap measured on it beside a plain copy (profiler_gap.mjs). Returns
// {warm, gap} (gap null when not measured).
async function warmPageProfilerCode(timing, { measureGap = true } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-profiler-warm-'));
  try {
    const file = path.join(dir, 'chain.onnx');
    fs.writeFileSync(file, profilerWarmModel());
    await createPageSession('profiler', file, { enableProfiling: true });
    let warm;
    try {
      const warming = { key: 'profiler', timing: profilerWarmTiming(timing), feeds: 'profiler' };
      ({ warm } = await call('warm', warming, 'run'));
    } finally {
      await call('dropProfile', { key: 'profiler' }, 'profile');
      await call('release', { key: 'profiler' }, 'release');
    }
    return { warm, gap: measureGap ? await pageProfilerGap(file) : null };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// profiler_gap.mjs's measurement in the page, on fresh inference sessions of the warmed-up chain in `file` and of
// the short chain.
async function pageProfilerGap(file) {
  const short = path.join(path.dirname(file), 'short.onnx');
  fs.writeFileSync(short, profilerShortModel());
  const keys = { plainLong: 'gapPlainLong', plainShort: 'gapPlainShort', profiled: 'gapProfiled' };
  const made = [];
  try {
    for (const [key, f, o] of [[keys.plainLong, file, {}], [keys.plainShort, short, {}],
                               [keys.profiled, file, { enableProfiling: true }]]) {
      await createPageSession(key, f, o);
      made.push(key);
    }
    await pageCompilerQuiet();  // a chain's calibration on optimised code, alone on the CPUs
    const r = await call('profilerGap', { keys }, 'run');
    return profilerGapOfText(r.profile, r.runs, kLongChainNodes);
  } finally {
    for (const key of made) await call('release', { key }, 'release');
  }
}

// As the Node host's run_profiled (run.mjs): the loaded inference session when `load` made it the profiled one, else
// a second one of its options; the page prints the profile, which arrives here as text and is written as
// `<dir>/ort_profile_web.json`, where the Node host's capture writes it.
async function opRunProfiled(msg) {
  const st = requireLoadedModel(msg.op);
  const timing = webProfiledTiming(timingOf(msg));
  await sendFeeds(msg);
  const iters = timing.profileIterations;
  const returnEvents = optBool(msg, 'return_events', false);
  const keep = optBool(msg, 'keep_profile', !returnEvents);
  const { own, dir, graphFile, options } = profiledSessionPlace(msg, st);
  let key = 'main', createMs = st.loadMs;
  let created = false;
  try {
    const tierUp = { model: (await call('warm', { key: 'main', timing: webTiming(timingOf(msg)) }, 'run')).warm,
                     profiler: await warmPageProfilerCode(webTiming(timingOf(msg))) };
    if (own) {  // load made it plain: the profiled one replaces it, so one holds WebAssembly memory at a time
      await call('release', { key }, 'release');
      createMs = (await createPageSession(key, st.model, own.options)).create_ms;
    } else {
      key = 'profiled';
      createMs = (await createPageSession(key, st.model, options)).create_ms;
      created = true;
      if (graphFile) await executedGraphOf(st.model, st.options, graphFile);
    }
    tierUp.compile = await pageCompilerQuiet();
    const t0 = performance.now();
    const r = await call('runProfiled', { key, timing, iterations: iters }, 'run');
    // Where a profiled message's time goes: a long warm-up of a small model makes a profile of tens of MB.
    log(`profile: ${r.profile.length} chars, endProfiling ${r.end_ms.toFixed(0)} ms in the page, whole call ` +
        `${(performance.now() - t0).toFixed(0)} ms`);
    fs.writeFileSync(path.join(dir, 'ort_profile_web.json'), r.profile);
    if (r.stopped_early) log(r.stopped_early);
    return profiledReply({ dir, keep, warm: r.warm, iters: r.done, createMs, runMs: r.runMs, graphFile, returnEvents,
                           peakRssBytes: renderer.peak(), tierUp, stoppedEarly: r.stopped_early,
                           wasmMemoryBytes: r.wasm_memory_bytes, ...compileWarningsLogged(tierUp.compile) });
  } finally {
    if (created && !crashed) {
      try { await call('release', { key }, 'release'); } catch (e) { log('release failed:', e.message); }
    }
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    else if (fs.existsSync(dir) && !fs.readdirSync(dir).length) fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function opOutputs(msg) {
  const st = requireLoadedModel(msg.op);
  const feeds = await sendFeeds(msg);
  const shapesOnly = optBool(msg, 'shapes_only', false);
  const r = await call('outputs', { key: st.inferenceSession.key, shapesOnly }, 'run');
  const res = { outputs: r.outputs };
  if (optBool(msg, 'return_inputs', false)) res.inputs = Object.entries(feeds).map(([n, t]) => encodeTensor(n, t));
  return res;
}

// generate (generate.mjs's message) in the page: the memory generation first when asked, then the timed requests, each
// phase of the renderer's memory read here. The timed requests' per-phase peaks and page faults are not read (a round
// trip to this process between steps would be a pause no web app makes): the reply leaves them out.
async function opGenerate(msg) {
  const st = requireLoadedModel(msg.op);
  const io = parseDecoderIo(st, msg.io);
  const g = parseShape(msg);
  const timing = webTiming(generationTiming(msg));  // the tier-up too (generate.mjs's reason)
  const keepLogits = optBool(msg, 'return_logits', false);
  const key = st.inferenceSession.key;
  const memory = {};
  if (optBool(msg, 'memory_generation', false)) {
    memory.collected = await call('memoryGeneration', { key, io, g }, 'run');
  }
  const compile = await pageCompilerQuiet();
  memory.peak_reset = renderer.reset();  // the requests' own peak
  const r = await call('generate', { key, io, g, timing, keepLogits }, 'run');
  const end = renderer.status();
  if (end) memory.run_peak_bytes = end.hwm;
  Object.assign(memory, renderer.label());
  const res = {
    requests: r.requests, wall_s: r.loop.wallS, warmup_requests: r.loop.warmupIterations, warmup_ms: r.loop.warmupMs,
    stop_reason: r.loop.stopReason, tokens: r.tokens, peak_rss_bytes: renderer.peak() ?? 0, rss_bytes: end?.rss ?? 0,
    memory, compile, ...compileWarningsLogged(compile),
  };
  if (keepLogits) Object.assign(res, { prompt_ids: r.prompt_ids, logits: r.logits });
  return res;
}

// generate_profiled in the page: a profiled inference session of its own ('generation'), both phases, its profile
// written as `<dir>/ort_profile_web.json` and its graph the native build's (executedGraphOf), as for run_profiled.
async function opGenerateProfiled(msg) {
  const { st, io, g, t, dir, options, graphFile } = profiledGenerationOf(msg);
  let created = false;
  try {
    // The profiler's own code, tiered up (generate.mjs's reason); its gap is not used here.
    await warmPageProfilerCode(webTiming(timingOf(msg)), { measureGap: false });
    const createMs = (await createPageSession('generation', st.model, options)).create_ms;
    created = true;
    if (graphFile) await executedGraphOf(st.model, st.options, graphFile);
    const compile = await pageCompilerQuiet();
    const r = await call('generateProfiled', { key: 'generation', io, g, warm: t.warmupIterations,
                                               iters: t.profileIterations }, 'run');
    if (r.stopped_early) log(r.stopped_early);
    const file = path.join(dir, 'ort_profile_web.json');
    fs.writeFileSync(file, r.profile);
    const modelRuns = readOrtProfile(file).filter((e) => e.cat === 'Session' && e.name === 'model_run').length;
    if (modelRuns !== r.runs) log(`warning: profile has ${modelRuns} model_run events, expected ${r.runs}`);
    return { profile_dir: dir, profile_file: file, session_create_ms: createMs, runs: r.runs, phases: r.phases,
      peak_rss_bytes: renderer.peak() ?? 0, optimized_model: graphFile && fs.existsSync(graphFile) ? graphFile : null,
      ...(r.stopped_early ? { stopped_early: r.stopped_early } : {}), compile, ...compileWarningsLogged(compile) };
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  } finally {
    if (created && !crashed) {
      try { await call('release', { key: 'generation' }, 'release'); } catch (e) { log('release failed:', e.message); }
    }
  }
}

// The V8 inside this Chromium, as the browser reports it over DevTools (a page cannot read it: its user agent names
// only the browser); null when the browser does not say.
async function browserV8(h) {
  if (h.v8 === undefined) {
    try {
      const cdp = await h.browser.newBrowserCDPSession();
      h.v8 = (await cdp.send('Browser.getVersion')).jsVersion ?? null;
      await cdp.detach();
    } catch (e) {
      log(`chromium host: no V8 version: ${e.message}`);
      h.v8 = null;
    }
  }
  return h.v8;
}

// The WebAssembly roofs of the page's engine, measured in the page (chromium_page.mjs's wasmRoofs). One worker per CPU
// the runner may use: the page's hardwareConcurrency counts the machine's, which is more under a narrowed affinity
// (taskset, a cgroup's cpuset), where more workers than CPUs would share them and measure less per thread. A page that
// is not cross-origin isolated runs 1 thread only (no SharedArrayBuffer for the barrier): a larger count is refused
// rather than answered with no figure.
async function opWasmRoofs(msg) {
  const h = await startHost();
  const page = await call('wasmRoofsPage', {}, 'wasm_roofs');
  const cpus = Math.min(page.hardware_concurrency, nodeCpus());
  const options = page.cross_origin_isolated
    ? wasmRoofsOptions(msg, cpus, "the page's workers: the runner's CPUs")
    : wasmRoofsOptions(msg, 1, 'the page is not cross-origin isolated (--isolation off): no WebAssembly threads');
  const res = await call('wasmRoofs', { options, cpus, caches: sysCaches() }, 'wasm_roofs');
  res.engine = { ...res.engine, host: 'chromium', chromium: h.version, v8: await browserV8(h) };
  res.notes.push(`measured in the Chromium page (Chromium ${h.version}, V8 ${res.engine.v8 ?? 'unknown'}) by ` +
                 `${cpus} module Web Worker${cpus > 1 ? 's' : ''}; cache sizes from the runner (Linux's /sys)`);
  if (page.hardware_concurrency !== nodeCpus()) {
    res.notes.push(`the page reports ${page.hardware_concurrency} CPUs, the runner may use ${nodeCpus()}: ` +
                   `${cpus} workers`);
  }
  // As the Node host's: the load when the measurement ended says how far to trust the figures.
  res.load_average = os.loadavg()[0];
  return res;
}

// The messages the Chromium host answers itself; run.mjs keeps hello's common fields, unload, sleep and quit, and
// refuses the rest (serving needs the Node host).
export function makeChromiumOps(hello) {
  return {
    hello: async (msg) => opHello(await hello(msg)),
    load: opLoad, run_timed: opRunTimed, run_profiled: opRunProfiled, outputs: opOutputs, wasm_roofs: opWasmRoofs,
    generate: opGenerate, generate_profiled: opGenerateProfiled,
  };
}
