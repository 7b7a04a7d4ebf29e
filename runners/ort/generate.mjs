// Decoder generation inside the runner (messages `generate` and `generate_profiled`, docs/runner-protocol.md), the
// Node host's: the loops are generation_loop.mjs's (the Chromium page runs the same ones); this module gives them this
// process's inference session, clock and memory probe. The KV cache never leaves this process: rooflens sends names
// and sizes, and gets timings (and, when asked, tokens and logits) back.
//
// Both messages use the runner's modules (inference_session, fields, errors), so they answer and fail like every other
// one.
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import { build, ort } from './ort.mjs';
import { MessageError, badMessage, log } from './errors.mjs';
import { optBool, timingOf } from './fields.mjs';
import { nowNs, nsToMs } from './clock.mjs';
import { createInferenceSession, requireLoadedModel, runOnce } from './inference_session.mjs';
import { minorPageFaults, peakRss, procStatus, resetPeak } from './proc_memory.mjs';
import { endProfiling, privateProfileDir, profileFileIn, profilingOptions, readOrtProfile } from './ort_profile.mjs';
import { drawIds, parseDecoderIo } from './decoder_io.mjs';
import { generationTiming, newMeter, oneGeneration, parseShape, profiledPhases, timedGenerations, tokensPerSequence }
  from './generation_loop.mjs';
import { profiledRunGuard } from './wasm_memory.mjs';
import { executedGraphOf, warmProfilerCode, webCompilerQuiet, webTiming } from './web_build.mjs';
import { compileWarnings } from './compiler_quiet.mjs';

// generate_profiled's message checked, and the private directory its profile goes to, for both hosts:
// {st, io, g, t, dir, options, graphFile}.
export function profiledGenerationOf(msg) {
  const st = requireLoadedModel(msg.op);
  const io = parseDecoderIo(st, msg.io);
  const g = parseShape(msg);
  const t = generationTiming(msg);
  const parent = msg.tmp_dir ?? os.tmpdir();
  if (typeof parent !== 'string') throw badMessage("'tmp_dir' must be a path");
  const dir = privateProfileDir(parent);
  const { options, graphFile } = profilingOptions(st.options, dir, optBool(msg, 'dump_graph', false));
  return { st, io, g, t, dir, options, graphFile };
}

// The messages' handlers, with the per-phase peaks they keep between messages.
export function makeGenerateOps() {
  // The JavaScript side of a phase (V8's own counters: 0.35 us, no system call): the largest external memory (the
  // ArrayBuffers the loop holds — feeds, the copies of the outputs, and earlier steps' copies the garbage collector
  // has not freed yet) and the largest heap.
  function sampleJs(meter, phase) {
    const h = v8.getHeapStatistics();
    const p = meter.js[phase];
    p.external = Math.max(p.external, h.external_memory);
    p.heap = Math.max(p.heap, h.total_heap_size);
  }
  // This process's memory between runs (generation_loop.mjs's probe): VmHWM (clear_refs), getrusage's faults, V8's.
  const probe = { reset: resetPeak, hwm: () => procStatus().hwm, faults: minorPageFaults, js: sampleJs };
  const envOf = (inferenceSession) => ({ Tensor: ort.Tensor, run: (feeds) => runOnce(inferenceSession, feeds),
                                         clock: nowNs, probe });

  // The caller's garbage, collected: onnxruntime-node frees an output's buffer through a finalizer that a collection
  // schedules and the event loop runs, and the buffer's memory with a later collection, which V8 may finish on a
  // background thread (memory.md). Rounds of collection and an event-loop turn until neither V8's external memory
  // nor the resident set falls (at least two, at most eight), so no buffer is freed during the run that follows. With
  // the external count alone, one decode phase of a bench part 9 sweep held about one KV cache more than its
  // neighbours (5% off): the resident set also says whether the last round still gave memory back.
  async function collectGarbage() {
    let before = { external: Infinity, rss: Infinity };
    for (let round = 0; round < 8; ++round) {
      globalThis.gc();
      await new Promise((resolve) => setImmediate(resolve));
      const now = { external: v8.getHeapStatistics().external_memory, rss: procStatus().rss };
      if (round > 0 && now.external > before.external - 65536 && now.rss > before.rss - 65536) return;
      before = now;
    }
  }

  function jsFigures(start, meter) {
    return { start_external_bytes: start.external_memory, start_heap_bytes: start.total_heap_size,
      prefill_external_bytes: meter.js.prefill.external, prefill_heap_bytes: meter.js.prefill.heap,
      decode_external_bytes: meter.js.decode.external, decode_heap_bytes: meter.js.decode.heap };
  }

  async function opGenerate(msg) {
    const st = requireLoadedModel(msg.op);
    const io = parseDecoderIo(st, msg.io);
    const g = parseShape(msg);
    // The web build's warm-up also covers its tier-up (web_build.mjs's webTiming): requests on baseline code are not
    // the steady state any other figure describes.
    const t = build === 'web' ? webTiming(generationTiming(msg)) : generationTiming(msg);
    const keepLogits = optBool(msg, 'return_logits', false);
    const memoryGeneration = optBool(msg, 'memory_generation', false);
    if (memoryGeneration && typeof globalThis.gc !== 'function') {
      throw badMessage("'memory_generation' needs the runner started with node --expose-gc");
    }
    const prompt = drawIds(g.seed, 'prompt', g.batch * g.prompt, io.vocab);
    const fixed = drawIds(g.seed, 'decode', g.batch * (g.gen + 1), io.vocab);
    const env = envOf(st.inferenceSession);
    // The memory generation first, untimed (its tokens and times are not reported): after the timed requests the
    // resident set would start with what the allocator kept of their uncollected copies.
    let collected = null;
    if (memoryGeneration) {
      const meter = newMeter(collectGarbage);
      await collectGarbage();
      const start = v8.getHeapStatistics();
      await oneGeneration(env, io, g, prompt, fixed, false, meter);
      collected = { prefill_peak_bytes: meter.prefill, decode_peak_bytes: meter.decode, js: jsFigures(start, meter) };
    }
    const compile = build === 'web' ? await webCompilerQuiet() : null;
    const peakReset = resetPeak();  // the requests' own peaks (the inference session's creation had its own)
    const jsStart = v8.getHeapStatistics();
    const timed = newMeter(null);
    const { loop, requests, first } = await timedGenerations(env, t, io, g, prompt, fixed, keepLogits, timed);
    const endPeak = procStatus().hwm;  // before the reply's own arrays
    const memory = { run_peak_bytes: Math.max(timed.prefill, timed.decode, endPeak), peak_reset: peakReset,
      prefill_peak_bytes: timed.prefill, decode_peak_bytes: timed.decode, js: jsFigures(jsStart, timed) };
    if (collected) memory.collected = collected;
    const res = {
      requests, wall_s: loop.wallS, warmup_requests: loop.warmupIterations, warmup_ms: loop.warmupMs,
      stop_reason: loop.stopReason, tokens: tokensPerSequence(g, first),
      peak_rss_bytes: peakRss(), rss_bytes: process.memoryUsage().rss, memory,
      ...(compile ? { compile, ...compileWarnings(compile) } : {}),
    };
    if (keepLogits) {
      res.prompt_ids = Array.from({ length: g.batch }, (_, b) => prompt.slice(b * g.prompt, (b + 1) * g.prompt));
      res.logits = first.logits.map((rows, step) => ({ step, dims: [g.batch, io.vocab],
        data_b64: Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength).toString('base64') }));
    }
    return res;
  }

  // Per-layer profiles of both phases in one profiled inference session: the prefill's feeds run warmup + iterations
  // times; then gen - 1 decode steps grow the cache to the last step's context, whose feeds run warmup + iterations
  // times.
  async function opGenerateProfiled(msg) {
    const { st, io, g, t, dir, options, graphFile } = profiledGenerationOf(msg);
    const warm = t.warmupIterations, iters = t.profileIterations;
    const prompt = drawIds(g.seed, 'prompt', g.batch * g.prompt, io.vocab);
    const fixed = drawIds(g.seed, 'decode', g.batch * (g.gen + 1), io.vocab);
    let inferenceSession = null;
    try {
      // The web build's profiler is WebAssembly code of its own that no plain run tiered up: cold, it ran inside the
      // kernels' spans and made a 2-layer llama's prefill kernels add up to 7 ms against a 1.3 ms plain run. Warmed
      // on its chain first, as run_profiled does (web_build.mjs's warmProfilerCode).
      if (build === 'web') await warmProfilerCode(webTiming(timingOf(msg)), { measureGap: false });
      const t0 = nowNs();
      inferenceSession = await createInferenceSession(st.model, options);
      const createMs = nsToMs(nowNs() - t0);
      // The web build writes no graph: the native build's optimisation of the model stands in (web_build.mjs), or
      // the kernels ORT's optimiser named (Transpose_token_N) map to nothing.
      if (build === 'web' && graphFile) await executedGraphOf(st.model, st.options, graphFile);
      const compile = build === 'web' ? await webCompilerQuiet() : null;
      const guard = build === 'web' ? profiledRunGuard() : null;
      const { phases, runs, stoppedEarly } = await profiledPhases({ ...envOf(inferenceSession), probe: null }, io, g,
                                                                  prompt, fixed, warm, iters, guard);
      if (stoppedEarly) log(stoppedEarly);
      try {
        endProfiling(inferenceSession, dir);
      } catch (e) {
        throw new MessageError('ort', e.message, { stage: 'profile' });
      }
      const file = profileFileIn(dir);
      const events = readOrtProfile(file);  // repairs unescaped names in place
      const modelRuns = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').length;
      if (modelRuns !== runs) log(`warning: profile has ${modelRuns} model_run events, expected ${runs}`);
      return { profile_dir: dir, profile_file: file, session_create_ms: createMs, runs, phases,
        peak_rss_bytes: peakRss(), optimized_model: graphFile && fs.existsSync(graphFile) ? graphFile : null,
        ...(stoppedEarly ? { stopped_early: stoppedEarly } : {}),
        ...(compile ? { compile, ...compileWarnings(compile) } : {}) };
    } catch (e) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    } finally {
      if (inferenceSession) {
        try { await inferenceSession.release(); } catch (e) { log('release failed:', e.message); }
      }
    }
  }

  return { generate: opGenerate, generate_profiled: opGenerateProfiled };
}
