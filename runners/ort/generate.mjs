// Decoder generation inside the runner (messages `generate` and `generate_profiled`, docs/runner-protocol.md):
// one prefill over the prompt, then decode steps of one token per sequence, each feeding the previous step's
// present.N.key|value back as past_key_values.N.key|value. The KV cache never leaves this process: rooflens sends
// names and sizes, and gets timings (and, when asked, tokens and logits) back.
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
import { KV_ARRAYS, argmaxRows, drawIds, idTensor, lastPositionRows, parseDecoderIo } from './decoder_io.mjs';
import { runTimedLoop } from './timed_loop.mjs';
import { guardedRuns, profiledRunGuard } from './wasm_memory.mjs';
import { executedGraphOf } from './web_build.mjs';

// The messages' handlers, with the per-phase peaks they keep between messages.
export function makeGenerateOps() {

  // The message's `timing` (every field required, as for run_timed): a generation request counts as one iteration.
  // The warm-up goes on until a request's time stops falling (windows of 2 requests): onnxruntime-node copies every
  // output into a new ArrayBuffer, and until V8's first collection under external-memory pressure (about 64 MB of
  // copies: the first one or two requests of a 2 MB cache) each copy lands on memory the process never touched — a
  // page fault per 4 KiB. Measured (2-layer llama, prompt 512): decode steps of 7 ms with ~520 faults each, then 0.6 ms
  // with none, TTFT 60 ms then 9 ms; one warm-up request left the measured ones inside that phase.
  function generationTiming(msg) {
    const t = timingOf(msg);
    if (t.adaptive) throw badMessage("'timing.adaptive' is not supported by generate: give a number of requests");
    return { ...t, untilSteady: true, steadyWindow: 2 };
  }

  // The message's shape and token choice: every field required (the C++ side decides them all).
  function parseShape(msg) {
    const need = (key, min) => {
      const v = msg[key];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
        throw badMessage(`'${key}' must be an integer >= ${min}, got ${JSON.stringify(v)}`);
      }
      return v;
    };
    const g = { batch: need('batch', 1), prompt: need('prompt_tokens', 1), gen: need('gen_tokens', 0),
                seed: need('seed', 0), nextToken: msg.next_token };
    if (g.nextToken !== 'greedy' && g.nextToken !== 'fixed') throw badMessage("'next_token' must be greedy or fixed");
    return g;
  }

  // Every step's feeds, from the tokens it feeds (one row per sequence), the past length and the previous present.
  function stepFeeds(io, g, tokens, past, cache) {
    const steps = tokens.length / g.batch;
    const total = past + steps;
    const feeds = { [io.ids]: idTensor(io.idsDtype, tokens, [g.batch, steps]) };
    if (io.mask) feeds[io.mask] = idTensor(io.maskDtype, new Array(g.batch * total).fill(1), [g.batch, total]);
    if (io.positions) {
      const pos = [];
      for (let b = 0; b < g.batch; ++b) for (let i = 0; i < steps; ++i) pos.push(past + i);
      feeds[io.positions] = idTensor(io.positionsDtype, pos, [g.batch, steps]);
    }
    io.past.forEach(([k, v], i) => {
      if (cache) {
        feeds[k] = cache[io.present[i][0]];
        feeds[v] = cache[io.present[i][1]];
      } else {  // the prefill: an empty cache, [batch, kv_heads, 0, head_dim]
        const empty = new ort.Tensor(io.kvDtype, new KV_ARRAYS[io.kvDtype](0), [g.batch, io.kvHeads, 0, io.headDim]);
        feeds[k] = empty;
        feeds[v] = empty;
      }
    });
    return feeds;
  }

  // The logits of each sequence's last position, as float32 rows [batch, vocab].
  function lastLogits(io, out, g) {
    const t = out[io.logits];
    const [b, , v] = t.dims;
    if (b !== g.batch || v !== io.vocab) {
      throw new MessageError('ort', `output '${io.logits}' has dims [${t.dims}], expected [${g.batch}, S, ${io.vocab}]`,
        { stage: 'run' });
    }
    return lastPositionRows(t);
  }

  // One generation — a timed request, or the memory generation: prefill, then g.gen decode steps. Times (ms):
  // ttft = feeds ready -> first tokens picked; steps[i] = previous tokens picked -> this step's tokens picked
  // (inter-token latency: building the feeds, the run, picking); runs[i] = the step's session.run alone.
  // `meter` keeps each phase's own peak over the requests it serves (memory.md): VmHWM reset before the prefill and
  // after it, outside the timers (before t0; before the first step's clock starts), read after each phase; and the
  // JavaScript side of each phase, read just before and just after every run (V8's own counters: 0.35 us, no system
  // call): the largest external memory (the ArrayBuffers the loop holds — feeds, the copies of the outputs, and
  // earlier steps' copies the garbage collector has not freed yet) and the largest heap. No collection starts while
  // the JS thread waits in session.run, but buffers an earlier collection found dead can be freed by V8's background
  // sweeper during it, so the count before the run is the one the run started with.
  // With meter.collect (the memory generation) the loop collects its garbage before the prefill and before every decode
  // step, outside every clock, so a phase's peak holds what its step holds and nothing an earlier step left behind.
  function newMeter(collect) {
    return { collect, prefill: 0, decode: 0,
      js: { prefill: { external: 0, heap: 0 }, decode: { external: 0, heap: 0 } } };
  }
  function sampleJs(meter, phase) {
    const h = v8.getHeapStatistics();
    const p = meter.js[phase];
    p.external = Math.max(p.external, h.external_memory);
    p.heap = Math.max(p.heap, h.total_heap_size);
  }
  // The logits' copy is dropped as soon as the tokens are picked: only the presents go on to the next step.
  function presentsOnly(io, out) {
    const kept = {};
    for (const pair of io.present) for (const n of pair) kept[n] = out[n];
    return kept;
  }
  async function oneGeneration(inferenceSession, io, g, prompt, fixed, keep, meter) {
    if (meter.collect) await meter.collect();
    const feeds0 = stepFeeds(io, g, prompt, 0, null);
    resetPeak();
    sampleJs(meter, 'prefill');
    const f0 = minorPageFaults();
    const t0 = nowNs();
    let out = await runOnce(inferenceSession, feeds0);
    const r0 = nowNs();
    sampleJs(meter, 'prefill');
    let rows = lastLogits(io, out, g);
    let next = g.nextToken === 'greedy' ? argmaxRows(rows, g.batch, io.vocab) : fixed.slice(0, g.batch);
    const ttftEnd = nowNs();
    const f1 = minorPageFaults();
    meter.prefill = Math.max(meter.prefill, procStatus().hwm);
    out = presentsOnly(io, out);
    if (meter.collect) await meter.collect();  // the prefill's logits, before the decode phase's peak starts
    resetPeak();
    let faults = minorPageFaults();
    let prev = nowNs();
    const ttftMs = nsToMs(ttftEnd - t0);
    const res = { ttft_ms: ttftMs, prefill_run_ms: nsToMs(r0 - t0), steps_ms: [], step_runs_ms: [],
                  prefill_page_faults: f1 - f0, step_page_faults: [] };
    const tokens = [next];
    const logits = keep ? [rows] : null;
    for (let s = 0; s < g.gen; ++s) {
      if (meter.collect && s > 0) {
        await meter.collect();
        faults = minorPageFaults();
        prev = nowNs();
      }
      let feeds = stepFeeds(io, g, next, g.prompt + s, out);
      out = null;
      sampleJs(meter, 'decode');
      const a = nowNs();
      out = await runOnce(inferenceSession, feeds);
      const b = nowNs();
      // Dropped explicitly: an async function keeps its locals in a register file that outlives the loop's block,
      // so the last past would stay reachable through the next step's collection.
      feeds = null;
      sampleJs(meter, 'decode');
      rows = lastLogits(io, out, g);
      next = g.nextToken === 'greedy' ? argmaxRows(rows, g.batch, io.vocab)
        : fixed.slice((s + 1) * g.batch, (s + 2) * g.batch);
      const c = nowNs();
      // The step's page faults, read between the steps: the next step's clock starts after the read (~1 us later).
      const now = minorPageFaults();
      res.step_page_faults.push(now - faults);
      faults = now;
      res.steps_ms.push(nsToMs(c - prev));
      res.step_runs_ms.push(nsToMs(b - a));
      prev = nowNs();
      out = presentsOnly(io, out);
      tokens.push(next);
      if (keep) logits.push(rows);
    }
    if (g.gen > 0) meter.decode = Math.max(meter.decode, procStatus().hwm);
    return { res, tokens, logits };
  }

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
    const t = generationTiming(msg);
    const keepLogits = optBool(msg, 'return_logits', false);
    const memoryGeneration = optBool(msg, 'memory_generation', false);
    if (memoryGeneration && typeof globalThis.gc !== 'function') {
      throw badMessage("'memory_generation' needs the runner started with node --expose-gc");
    }
    const prompt = drawIds(g.seed, 'prompt', g.batch * g.prompt, io.vocab);
    const fixed = drawIds(g.seed, 'decode', g.batch * (g.gen + 1), io.vocab);
    // The memory generation first, untimed (its tokens and times are not reported): after the timed requests the
    // resident set would start with what the allocator kept of their uncollected copies.
    let collected = null;
    if (memoryGeneration) {
      const meter = newMeter(collectGarbage);
      await collectGarbage();
      const start = v8.getHeapStatistics();
      await oneGeneration(st.inferenceSession, io, g, prompt, fixed, false, meter);
      collected = { prefill_peak_bytes: meter.prefill, decode_peak_bytes: meter.decode, js: jsFigures(start, meter) };
    }
    const peakReset = resetPeak();  // the requests' own peaks (the inference session's creation had its own)
    const jsStart = v8.getHeapStatistics();
    const timed = newMeter(null);

    const requests = [];
    let first = null;
    const loop = await runTimedLoop(t, async () => {
      const r = await oneGeneration(st.inferenceSession, io, g, prompt, fixed, keepLogits && first === null, timed);
      if (first === null) first = r;
      requests.push(r.res);
    }, () => oneGeneration(st.inferenceSession, io, g, prompt, fixed, false, timed));
    const endPeak = procStatus().hwm;  // before the reply's own arrays
    const memory = { run_peak_bytes: Math.max(timed.prefill, timed.decode, endPeak), peak_reset: peakReset,
      prefill_peak_bytes: timed.prefill, decode_peak_bytes: timed.decode, js: jsFigures(jsStart, timed) };
    if (collected) memory.collected = collected;
    const res = {
      requests, wall_s: loop.wallS, warmup_requests: loop.warmupIterations, warmup_ms: loop.warmupMs,
      stop_reason: loop.stopReason,
      // Generated ids per sequence of the first measured request: the prefill's token, then each decode step's.
      tokens: Array.from({ length: g.batch }, (_, b) => first.tokens.map((t) => t[b])),
      peak_rss_bytes: peakRss(), rss_bytes: process.memoryUsage().rss, memory,
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
    const st = requireLoadedModel(msg.op);
    const io = parseDecoderIo(st, msg.io);
    const g = parseShape(msg);
    const t = generationTiming(msg);
    const warm = t.warmupIterations, iters = t.profileIterations;
    const parent = msg.tmp_dir ?? os.tmpdir();
    if (typeof parent !== 'string') throw badMessage("'tmp_dir' must be a path");
    const dir = privateProfileDir(parent);
    const { options, graphFile } = profilingOptions(st.options, dir, optBool(msg, 'dump_graph', false));
    const prompt = drawIds(g.seed, 'prompt', g.batch * g.prompt, io.vocab);
    const fixed = drawIds(g.seed, 'decode', g.batch * (g.gen + 1), io.vocab);
    let inferenceSession = null, runs = 0;
    const timed = async (feeds) => {
      const a = nowNs();
      const out = await runOnce(inferenceSession, feeds);
      ++runs;
      return { out, ms: nsToMs(nowNs() - a) };
    };
    try {
      const t0 = nowNs();
      inferenceSession = await createInferenceSession(st.model, options);
      const createMs = nsToMs(nowNs() - t0);
      // The web build writes no graph: the native build's optimisation of the model stands in (web_build.mjs), or
      // the kernels ORT's optimiser named (Transpose_token_N) map to nothing.
      if (build === 'web' && graphFile) await executedGraphOf(st.model, st.options, graphFile);
      const phases = {};
      // ORT Web keeps memory for every profiled run (wasm_memory.mjs): a phase's measured runs stop when another might
      // not fit, and the decode phase, which needs gen - 1 more runs to reach its context, is then not profiled.
      const guard = build === 'web' ? profiledRunGuard() : null;
      let stoppedEarly = null;
      const measure = async (what, feeds, ms) => {
        let last = null;
        for (let i = 0; i < warm; ++i) last = await timed(feeds);
        const r = await guardedRuns(iters, async () => { last = await timed(feeds); ms.push(last.ms); }, guard);
        if (r.stoppedEarly) stoppedEarly = `${what}: ${r.stoppedEarly}`;
        return last;
      };
      const prefillMs = [];
      const last = await measure('prefill', stepFeeds(io, g, prompt, 0, null), prefillMs);
      phases.prefill = { first_run: 0, warmup_iterations: warm, iterations: prefillMs.length, past: 0,
        tokens: g.prompt, run_latencies_ms: prefillMs };
      if (g.gen > 0 && stoppedEarly) stoppedEarly += '; the decode phase was not profiled';
      if (g.gen > 0 && !stoppedEarly) {
        let out = last.out;
        let next = g.nextToken === 'greedy' ? argmaxRows(lastLogits(io, out, g), g.batch, io.vocab) : fixed.slice(0, g.batch);
        for (let s = 0; s + 1 < g.gen && !stoppedEarly; ++s) {
          out = (await timed(stepFeeds(io, g, next, g.prompt + s, out))).out;
          next = g.nextToken === 'greedy' ? argmaxRows(lastLogits(io, out, g), g.batch, io.vocab)
            : fixed.slice((s + 1) * g.batch, (s + 2) * g.batch);
          if (guard && !guard.roomForAnother()) {
            stoppedEarly = guard.why(`decode not profiled: ${s + 1} of the ${g.gen - 1} steps to its context ran`);
          }
        }
        if (!stoppedEarly) {
          const first = runs, decodeMs = [];
          await measure('decode', stepFeeds(io, g, next, g.prompt + g.gen - 1, out), decodeMs);
          phases.decode = { first_run: first, warmup_iterations: warm, iterations: decodeMs.length,
            past: g.prompt + g.gen - 1, tokens: 1, run_latencies_ms: decodeMs };
        }
      }
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
        ...(stoppedEarly ? { stopped_early: stoppedEarly } : {}) };
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
