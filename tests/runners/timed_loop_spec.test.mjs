// The ORT runner's timed loop (runners/ort/timed_loop.mjs) and its median interval (stats.mjs) against the timed loop's
// specification, tests/fixtures/timed_loop_spec.json, which tests/unit/test_timed_loop_spec.cpp holds the C++ loop to.
// On a fake clock: no ONNX Runtime, no network, no real time (ctest runner_spec).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { timingOf } from '../../runners/ort/fields.mjs';
import { medianCi } from '../../runners/ort/stats.mjs';
import { runTimedLoop, warmUp } from '../../runners/ort/timed_loop.mjs';

const spec = JSON.parse(readFileSync(new URL('../fixtures/timed_loop_spec.json', import.meta.url), 'utf8'));

// [1, {"ms": 2, "times": 3}] → [1, 2, 2, 2]
function expandMs(entries) {
  return entries.flatMap((e) => (typeof e === 'number' ? [e] : Array(e.times).fill(e.ms)));
}

// The spec's fake clock: BigInt nanoseconds, as nowNs reads them, moved on only by the calls.
function scriptedCalls(callsMs) {
  const durationsNs = expandMs(callsMs).map((ms) => BigInt(Math.round(ms * 1e6)));
  let nowNs = 0n, calls = 0;
  return {
    clock: () => nowNs,
    call: async () => { nowNs += durationsNs[calls++ % durationsNs.length]; },
    calls: () => calls,
  };
}

// The runner reads its timing from the message through timingOf, as run.mjs does; profile_iterations is not the
// loop's, but the message must carry it.
function timingOfCase(c) {
  const { about, ...defaults } = spec.timing_defaults;
  return timingOf({ timing: { ...defaults, ...c.timing, profile_iterations: 1 } });
}

for (const c of spec.loops) {
  test(`loop: ${c.name}`, async () => {
    const script = scriptedCalls(c.calls_ms);
    const r = await runTimedLoop(timingOfCase(c), script.call, script.call, script.clock);
    const e = c.expect;
    assert.equal(r.stopReason, e.stop_reason);
    assert.equal(r.warmupIterations, e.warmup_iterations);
    assert.equal(r.warmupMs, e.warmup_ms);
    assert.deepEqual(r.latenciesMs, expandMs(e.latencies_ms));
    assert.equal(r.wallS, e.wall_s);
    assert.deepEqual(r.medianCi ? [r.medianCi.low, r.medianCi.high] : null, e.median_ci_ms);
    assert.equal(script.calls(), e.warmup_iterations + r.latenciesMs.length);
  });
}

function samplesOf(s) {
  return Array.isArray(s) ? s : Array.from({ length: s.count_down_from }, (_, i) => s.count_down_from - i);
}

for (const c of spec.median_ci.cases) {
  test(`median_ci: ${c.name}`, () => {
    assert.deepEqual(medianCi(samplesOf(c.samples), c.confidence), c.expect);
  });
}

// A JIT's warm-up (ONNX Runtime Web: V8 replaces baseline WebAssembly with optimised code while the runs go on): with
// untilSteady the warm-up outlasts its minimum while the runs still get faster and stops within two windows of five
// runs once they no longer do; without it, it stops at the minimum. (A flat baseline phase before the speed-up looks
// steady: the web build's minimum warm-up, web_build.mjs's kTierUpMs, outlasts it.)
test('warm-up until steady goes on while the runs still get faster', async () => {
  const timing = { warmupIterations: 1, warmupMs: 100, maxDurationMs: 60000 };
  const calls = [{ ms: 40, times: 5 }, { ms: 30, times: 5 }, { ms: 20, times: 5 }, { ms: 10, times: 5 }, { ms: 5, times: 100 }];
  const script = scriptedCalls(calls);
  const r = await warmUp({ ...timing, untilSteady: true }, script.call, script.clock);
  assert.ok(r.warmupIterations >= 25 && r.warmupIterations <= 30, `${r.warmupIterations} warm-up runs`);
  const plain = scriptedCalls(calls);
  assert.equal((await warmUp(timing, plain.call, plain.clock)).warmupIterations, 3);
});

// A generation's warm-up (generate.mjs: windows of two requests): a fresh process's first requests are slow while its
// heap grows under the binding's output copies (120 then 100 ms, then 14); one warm-up request asked for, the warm-up
// runs until two requests in a row are no faster than the two before — never into the slow ones.
test('warm-up until steady in windows of two requests leaves the slow first requests behind', async () => {
  const timing = { warmupIterations: 1, warmupMs: 0, maxDurationMs: 60000 };
  const calls = [{ ms: 120, times: 1 }, { ms: 100, times: 1 }, { ms: 14, times: 100 }];
  const script = scriptedCalls(calls);
  const r = await warmUp({ ...timing, untilSteady: true, steadyWindow: 2 }, script.call, script.clock);
  assert.equal(r.warmupIterations, 6);  // 120 100 | 14 14 (faster) | 14 14 (steady against 14 14)
  const capped = scriptedCalls([{ ms: 120, times: 1 }, { ms: 100, times: 1 }, { ms: 14, times: 100 }]);
  const short = await warmUp({ ...timing, maxDurationMs: 200, untilSteady: true, steadyWindow: 2 }, capped.call,
    capped.clock);
  assert.equal(short.warmupIterations, 2);  // max_duration_s ends it, as it ends every warm-up
});
