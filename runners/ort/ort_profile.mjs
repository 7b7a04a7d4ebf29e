// ORT's profiling output: the private directory a profiled inference session writes into, the one file it leaves there,
// and reading it (repaired when ORT wrote a node name it did not escape). run_profiled, generate_profiled and serving's
// profiled inference session (serve.mjs) all go through here.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { MessageError, badMessage, log } from './errors.mjs';
import { optBool } from './fields.mjs';
import { build } from './ort.mjs';
import { endWebProfiling } from './web_build.mjs';

// A private directory per profiled inference session: two runners (or two rooflens processes) never share a file name.
export function privateProfileDir(parent) {
  try {
    return fs.mkdtempSync(path.join(parent, 'rooflens-ort-prof-'));
  } catch (e) {
    throw new MessageError('io', `cannot create a temp dir in ${parent}: ${e.code || e.message}`);
  }
}

// A profiled inference session's options: the loaded inference session's, writing its profile into `dir`, and, when
// asked, the graph this very inference session executed: the names ORT generates while it rewrites a graph
// (ReorderOutput_token_N, InsertedPrecisionFreeCast_...) differ from one inference session to the next, so only this
// inference session's own graph matches the names in its profile.
// ONNX Runtime Web writes no files: its graph is the native build's of the same options (web_build.mjs's
// executedGraphOf, written after the inference session exists: `graphFile` is where).
export function profilingOptions(sessionOptions, dir, dumpGraph) {
  const options = { ...sessionOptions, enableProfiling: true, profileFilePrefix: path.join(dir, 'ort_profile') };
  const graphFile = dumpGraph ? path.join(dir, 'optimized.onnx') : null;
  if (graphFile && build !== 'web') options.optimizedModelFilePath = graphFile;
  else delete options.optimizedModelFilePath;
  return { options, graphFile };
}

// A load message's `profile` ({tmp_dir, dump_graph}): the inference session is then the profiled one, in a private
// directory, with the graph it executes dumped when asked. Returns {profiling: {dir, graphFile, used, options} or
// null, sessionOpts: the options to create it with (`options` too: the web build creates it later)}.
export function profilingOf(msg, options) {
  if (msg.profile === undefined) return { profiling: null, sessionOpts: options };
  const p = msg.profile;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw badMessage("'profile' must be an object");
  const parent = p.tmp_dir ?? os.tmpdir();
  if (typeof parent !== 'string') throw badMessage("'profile.tmp_dir' must be a path");
  const dir = privateProfileDir(parent);
  const po = profilingOptions(options, dir, optBool(p, 'dump_graph', false));
  return { profiling: { dir, graphFile: po.graphFile, used: false, options: po.options }, sessionOpts: po.options };
}

// Where run_profiled profiles: the loaded inference session when `load` made it the profiled one (once: ORT writes one
// profile per inference session), else a second one of the loaded model's options, to be created with `options` in
// a private directory under the message's tmp_dir. Returns {own, dir, graphFile, options}.
export function profiledSessionPlace(msg, st) {
  const own = st.profiling && !st.profiling.used ? st.profiling : null;
  if (own) {
    own.used = true;
    return { own, dir: own.dir, graphFile: own.graphFile, options: null };
  }
  const parent = msg.tmp_dir ?? os.tmpdir();
  if (typeof parent !== 'string') throw badMessage("'tmp_dir' must be a path");
  const dir = privateProfileDir(parent);
  const { options, graphFile } = profilingOptions(st.options, dir, optBool(msg, 'dump_graph', false));
  return { own: null, dir, graphFile, options };
}

// Ends a profiled inference session's profiling: its profile is in `dir` afterwards, whichever build wrote it.
export function endProfiling(inferenceSession, dir) {
  if (build === 'web') endWebProfiling(inferenceSession, dir);
  else inferenceSession.endProfiling();
}

// The profile file ORT wrote into `dir` (after endProfiling): exactly one.
export function profileFileIn(dir) {
  const files = fs.readdirSync(dir).filter((f) => f.startsWith('ort_profile') && f.endsWith('.json'));
  if (files.length !== 1) throw new MessageError('io', `expected one profile file in ${dir}, found ${files.length}`);
  return path.join(dir, files[0]);
}

// ORT writes its profile by string concatenation: node names go in unescaped, so a name holding '"' or '\\'
// makes the file invalid JSON. Each event is one line of a fixed shape, so a line that does not parse gets its
// name re-encoded (the name runs from `"name" :"` to the line's last `","args" : {`; ORT's own args never hold
// that text), and the repaired file replaces the original for the C++ side, which parses it too.
const ORT_EVENT_LINE = /^(\{"cat" : "[^"]*","pid" :-?\d+,"tid" :-?\d+,"dur" :-?\d+,"ts" :-?\d+,"ph" : "X","name" :)"(.*)"(,"args" : \{.*)$/s;

export function readOrtProfile(file) {
  const text = fs.readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (whole) {
    const events = [];
    for (const raw of text.split('\n')) {
      const line = raw.trim().replace(/,$/, '');
      if (line === '' || line === '[' || line === ']') continue;
      try {
        events.push(JSON.parse(line));
        continue;
      } catch (e) {
        const m = ORT_EVENT_LINE.exec(line);
        if (!m) throw new MessageError('io', `cannot parse ORT profile ${file}: ${whole.message}`);
        try {
          events.push(JSON.parse(m[1] + JSON.stringify(m[2]) + m[3]));
        } catch (e2) {
          throw new MessageError('io', `cannot parse ORT profile ${file}: ${whole.message}`);
        }
      }
    }
    fs.writeFileSync(file, '[\n' + events.map((e) => JSON.stringify(e)).join(',\n') + '\n]\n');
    log(`repaired ${file}: ORT wrote node names unescaped`);
    return events;
  }
}

// run_profiled's reply, from the profile ORT wrote into `dir` (both hosts): `warm` is the warm-up ({warmupIterations,
// warmupMs}: its runs are the profile's first model_run events), `runMs` every run's latency in order, warm-up first;
// `tierUp` the web build's warm-up before profiling ({model, profiler: {warm, gap}}: two warm-ups, web_build.mjs, and
// the profiler's gap measured after the second, profiler_gap.mjs), when it ran; `profilerGap` that gap (the native
// build's from profiler_gap_native.mjs), null when not measured;
// `stoppedEarly` why fewer runs than asked were profiled (wasm_memory.mjs's guard), when that happened;
// `wasmMemoryBytes` the web build's WebAssembly memory after the profiled runs; `warnings` what the run should say
// (the Chromium host's wait for V8's compiler, when it could not wait it out).
export function profiledReply({ dir, keep, warm, iters, createMs, runMs, graphFile, returnEvents, peakRssBytes,
                                tierUp, profilerGap, stoppedEarly, wasmMemoryBytes, warnings }) {
  const file = profileFileIn(dir);
  const events = readOrtProfile(file);
  const warmIters = warm.warmupIterations;
  // `model_run` Session events, one per session.run, in time order; the first warmup_iterations are warm-up.
  const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run')
    .map((e) => ({ ts_us: e.ts, dur_us: e.dur })).sort((a, b) => a.ts_us - b.ts_us);
  if (runs.length !== warmIters + iters) {
    log(`warning: profile has ${runs.length} model_run events, expected ${warmIters + iters}`);
  }
  const res = {
    profile_dir: keep ? dir : null,
    profile_file: keep ? file : null,
    warmup_iterations: warmIters,
    warmup_ms: warm.warmupMs,
    iterations: iters,
    session_create_ms: createMs,
    run_latencies_ms: runMs.slice(warmIters),
    warmup_latencies_ms: runMs.slice(0, warmIters),
    model_runs: runs,
    measured_from_ts_us: runs.length > warmIters ? runs[warmIters].ts_us : null,
    event_count: events.length,
    peak_rss_bytes: peakRssBytes,
    optimized_model: graphFile && fs.existsSync(graphFile) ? graphFile : null,
  };
  if (stoppedEarly) res.stopped_early = stoppedEarly;
  if (wasmMemoryBytes !== undefined) res.wasm_memory_bytes = wasmMemoryBytes;
  if (tierUp) {
    const w = (x) => ({ warmup_iterations: x.warmupIterations, warmup_ms: x.warmupMs });
    res.tier_up = { model: w(tierUp.model), profiler: w(tierUp.profiler.warm) };
    if (tierUp.compile) res.tier_up.compile = tierUp.compile;
  }
  if (warnings) res.warnings = warnings;
  const gap = profilerGap ?? tierUp?.profiler.gap;
  if (gap) res.profiler_gap = gap;
  if (returnEvents) res.events = events;
  return res;
}
