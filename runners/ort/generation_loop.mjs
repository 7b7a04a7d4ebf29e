// Decoder generation's loops, pure (no node: imports): one prefill over the prompt, then decode steps of one token per
// sequence, each feeding the previous step's present.N.key|value back as past_key_values.N.key|value. The Node host
// (generate.mjs) and the Chromium page (chromium_page.mjs, which is served this module) run the same loops, each with
// its `env`:
//   {Tensor, run(feeds) → outputs, clock() → BigInt ns, probe}
// `probe` (null: none) reads the process's memory between runs, never inside a timer: {reset(), hwm(), faults(), js}
// — reset the resident set's high-water mark, read it, read the minor page faults so far, and `js(meter, phase)` the
// JavaScript side (null where the host cannot read it). Any of them may answer a promise (the page's go through the
// runner, which reads the renderer's /proc).
import { MessageError, badMessage } from './errors.mjs';
import { timingOf } from './fields.mjs';
import { nsToMs } from './clock.mjs';
import { KV_ARRAYS, argmaxRows, idTensorOf, lastPositionRows } from './decoder_values.mjs';
import { runTimedLoop } from './timed_loop.mjs';
import { guardedRuns } from './wasm_memory.mjs';

// The message's `timing` (every field required, as for run_timed): a generation request counts as one iteration.
// The warm-up goes on until a request's time stops falling (windows of 2 requests): onnxruntime-node copies every
// output into a new ArrayBuffer, and until V8's first collection under external-memory pressure (about 64 MB of
// copies: the first one or two requests of a 2 MB cache) each copy lands on memory the process never touched — a
// page fault per 4 KiB. Measured (2-layer llama, prompt 512): decode steps of 7 ms with ~520 faults each, then 0.6 ms
// with none, TTFT 60 ms then 9 ms; one warm-up request left the measured ones inside that phase.
export function generationTiming(msg) {
  const t = timingOf(msg);
  if (t.adaptive) throw badMessage("'timing.adaptive' is not supported by generate: give a number of requests");
  return { ...t, untilSteady: true, steadyWindow: 2 };
}

// The message's shape and token choice: every field required (the C++ side decides them all).
export function parseShape(msg) {
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
function stepFeeds(Tensor, io, g, tokens, past, cache) {
  const steps = tokens.length / g.batch;
  const total = past + steps;
  const feeds = { [io.ids]: idTensorOf(Tensor, io.idsDtype, tokens, [g.batch, steps]) };
  if (io.mask) feeds[io.mask] = idTensorOf(Tensor, io.maskDtype, new Array(g.batch * total).fill(1), [g.batch, total]);
  if (io.positions) {
    const pos = [];
    for (let b = 0; b < g.batch; ++b) for (let i = 0; i < steps; ++i) pos.push(past + i);
    feeds[io.positions] = idTensorOf(Tensor, io.positionsDtype, pos, [g.batch, steps]);
  }
  io.past.forEach(([k, v], i) => {
    if (cache) {
      feeds[k] = cache[io.present[i][0]];
      feeds[v] = cache[io.present[i][1]];
    } else {  // the prefill: an empty cache, [batch, kv_heads, 0, head_dim]
      const empty = new Tensor(io.kvDtype, new KV_ARRAYS[io.kvDtype](0), [g.batch, io.kvHeads, 0, io.headDim]);
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

// The logits' copy is dropped as soon as the tokens are picked: only the presents go on to the next step.
function presentsOnly(io, out) {
  const kept = {};
  for (const pair of io.present) for (const n of pair) kept[n] = out[n];
  return kept;
}

function nextTokens(io, g, out, fixed, s) {
  return g.nextToken === 'greedy' ? argmaxRows(lastLogits(io, out, g), g.batch, io.vocab)
    : fixed.slice((s + 1) * g.batch, (s + 2) * g.batch);
}

// Each phase's peaks over the requests a meter serves (memory.md); with `collect` (the memory generation) the loop
// collects its garbage before the prefill and before every decode step, outside every clock, so a phase's peak holds
// what its step holds and nothing an earlier step left behind.
export function newMeter(collect) {
  return { collect, prefill: 0, decode: 0,
    js: { prefill: { external: 0, heap: 0 }, decode: { external: 0, heap: 0 } } };
}

// One generation — a timed request, or the memory generation: prefill, then g.gen decode steps. Times (ms):
// ttft = feeds ready -> first tokens picked; steps[i] = previous tokens picked -> this step's tokens picked
// (inter-token latency: building the feeds, the run, picking); runs[i] = the step's run alone.
// With a probe, the high-water mark is reset before the prefill and after it, outside the timers (before t0; before the
// first step's clock starts), and read after each phase; the JavaScript side is read just before and just after every
// run (V8's own counters: no collection starts while the JS thread waits in run, but buffers an earlier collection
// found dead can be freed by V8's background sweeper during it, so the count before the run is the one the run started
// with); the page faults of the prefill and of each step are read between them.
export async function oneGeneration(env, io, g, prompt, fixed, keep, meter) {
  const p = env.probe;
  const js = (phase) => { if (p && p.js) p.js(meter, phase); };
  if (meter.collect) await meter.collect();
  const feeds0 = stepFeeds(env.Tensor, io, g, prompt, 0, null);
  if (p) await p.reset();
  js('prefill');
  const f0 = p ? await p.faults() : 0;
  const t0 = env.clock();
  let out = await env.run(feeds0);
  const r0 = env.clock();
  js('prefill');
  let rows = lastLogits(io, out, g);
  let next = g.nextToken === 'greedy' ? argmaxRows(rows, g.batch, io.vocab) : fixed.slice(0, g.batch);
  const ttftEnd = env.clock();
  const f1 = p ? await p.faults() : 0;
  if (p) meter.prefill = Math.max(meter.prefill, await p.hwm());
  out = presentsOnly(io, out);
  if (meter.collect) await meter.collect();  // the prefill's logits, before the decode phase's peak starts
  if (p) await p.reset();
  let faults = p ? await p.faults() : 0;
  let prev = env.clock();
  const res = { ttft_ms: nsToMs(ttftEnd - t0), prefill_run_ms: nsToMs(r0 - t0), steps_ms: [], step_runs_ms: [] };
  if (p) {
    res.prefill_page_faults = f1 - f0;
    res.step_page_faults = [];
  }
  const tokens = [next];
  const logits = keep ? [rows] : null;
  for (let s = 0; s < g.gen; ++s) {
    if (meter.collect && s > 0) {
      await meter.collect();
      if (p) faults = await p.faults();
      prev = env.clock();
    }
    let feeds = stepFeeds(env.Tensor, io, g, next, g.prompt + s, out);
    out = null;
    js('decode');
    const a = env.clock();
    out = await env.run(feeds);
    const b = env.clock();
    // Dropped explicitly: an async function keeps its locals in a register file that outlives the loop's block,
    // so the last past would stay reachable through the next step's collection.
    feeds = null;
    js('decode');
    rows = lastLogits(io, out, g);
    next = g.nextToken === 'greedy' ? argmaxRows(rows, g.batch, io.vocab)
      : fixed.slice((s + 1) * g.batch, (s + 2) * g.batch);
    const c = env.clock();
    if (p) {  // the step's page faults, read between the steps: the next step's clock starts after the read
      const now = await p.faults();
      res.step_page_faults.push(now - faults);
      faults = now;
    }
    res.steps_ms.push(nsToMs(c - prev));
    res.step_runs_ms.push(nsToMs(b - a));
    prev = env.clock();
    out = presentsOnly(io, out);
    tokens.push(next);
    if (keep) logits.push(rows);
  }
  if (p && g.gen > 0) meter.decode = Math.max(meter.decode, await p.hwm());
  return { res, tokens, logits };
}

// The timed requests (runTimedLoop on env's clock): the first measured one keeps its tokens, and its logits when
// asked. Returns {loop, requests, first}.
export async function timedGenerations(env, timing, io, g, prompt, fixed, keepLogits, meter) {
  const requests = [];
  let first = null;
  const loop = await runTimedLoop(timing, async () => {
    const r = await oneGeneration(env, io, g, prompt, fixed, keepLogits && first === null, meter);
    if (first === null) first = r;
    requests.push(r.res);
  }, () => oneGeneration(env, io, g, prompt, fixed, false, meter), env.clock);
  return { loop, requests, first };
}

// Generated ids per sequence of a request: the prefill's token, then each decode step's.
export function tokensPerSequence(g, first) {
  return Array.from({ length: g.batch }, (_, b) => first.tokens.map((t) => t[b]));
}

// Both phases of one profiled inference session (env.run is its run): the prefill's feeds run warm + iters times; then
// gen - 1 decode steps grow the cache to the last step's context, whose feeds run warm + iters times. `guard`
// (wasm_memory.mjs's profiledRunGuard; null for the native build): ORT Web keeps memory for every profiled run, so a
// phase's measured runs stop when another might not fit, and the decode phase, which needs gen - 1 more runs to reach
// its context, is then not profiled. Returns {phases, runs, stoppedEarly}.
export async function profiledPhases(env, io, g, prompt, fixed, warm, iters, guard) {
  let runs = 0;
  const timed = async (feeds) => {
    const a = env.clock();
    const out = await env.run(feeds);
    ++runs;
    return { out, ms: nsToMs(env.clock() - a) };
  };
  let stoppedEarly = null;
  const measure = async (what, feeds, ms) => {
    let last = null;
    for (let i = 0; i < warm; ++i) last = await timed(feeds);
    const r = await guardedRuns(iters, async () => { last = await timed(feeds); ms.push(last.ms); }, guard);
    if (r.stoppedEarly) stoppedEarly = `${what}: ${r.stoppedEarly}`;
    return last;
  };
  const phases = {};
  const prefillMs = [];
  const last = await measure('prefill', stepFeeds(env.Tensor, io, g, prompt, 0, null), prefillMs);
  phases.prefill = { first_run: 0, warmup_iterations: warm, iterations: prefillMs.length, past: 0,
    tokens: g.prompt, run_latencies_ms: prefillMs };
  if (g.gen > 0 && stoppedEarly) stoppedEarly += '; the decode phase was not profiled';
  if (g.gen > 0 && !stoppedEarly) {
    let out = last.out;
    let next = g.nextToken === 'greedy' ? argmaxRows(lastLogits(io, out, g), g.batch, io.vocab) : fixed.slice(0, g.batch);
    for (let s = 0; s + 1 < g.gen && !stoppedEarly; ++s) {
      out = (await timed(stepFeeds(env.Tensor, io, g, next, g.prompt + s, out))).out;
      next = nextTokens(io, g, out, fixed, s);
      if (guard && !guard.roomForAnother()) {
        stoppedEarly = guard.why(`decode not profiled: ${s + 1} of the ${g.gen - 1} steps to its context ran`);
      }
    }
    if (!stoppedEarly) {
      const first = runs, decodeMs = [];
      await measure('decode', stepFeeds(env.Tensor, io, g, next, g.prompt + g.gen - 1, out), decodeMs);
      phases.decode = { first_run: first, warmup_iterations: warm, iterations: decodeMs.length,
        past: g.prompt + g.gen - 1, tokens: 1, run_latencies_ms: decodeMs };
    }
  }
  return { phases, runs, stoppedEarly };
}
