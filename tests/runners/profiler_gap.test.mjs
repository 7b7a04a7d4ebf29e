// The profiler's gap (runners/ort/profiler_gap.mjs) on profiles written here, in ORT's event shape, and on a fake clock:
// the gap read between kernel events, the plain chains' difference taken per kernel, runs that are not the chain's
// left out, and what cannot be measured said as null rather than guessed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { gapRuns, kGapBlocks, kGapPlainRuns, kGapProfiledRuns, kShortChainNodes, profilerGapOf, profilerGapOfText }
  from '../../runners/ort/profiler_gap.mjs';

// One model_run of `nodes` kernels, each `dur` µs, `gap` µs apart, starting at `ts`.
function run(ts, nodes, dur, gap) {
  const events = [];
  let t = ts + 5;
  for (let i = 0; i < nodes; i++) {
    events.push({ cat: 'Node', name: `n${i}_kernel_time`, ts: t, dur });
    t += dur + gap;
  }
  events.push({ cat: 'Session', name: 'model_run', ts, dur: t - ts + 5 });
  return events;
}

const plain = (longMs, shortMs) => ({ long: [longMs, longMs, longMs], short: [shortMs, shortMs, shortMs] });

test('the gap between kernel events, less the plain chains\' time per kernel', () => {
  // Two runs before (a warm-up with other gaps) and three measured, 16 kernels 3 µs apart.
  const events = [...run(0, 16, 2, 9), ...run(1000, 16, 2, 9), ...run(2000, 16, 2, 3), ...run(3000, 16, 2, 3),
                  ...run(4000, 16, 2, 3)];
  // Plain: 16 kernels 0.012 ms, 8 kernels 0.008 ms: 0.5 µs a kernel (the call's own 0.004 ms cancels).
  const g = profilerGapOf(events, { plainMs: plain(0.012, 0.008), profiledRuns: 3 }, 16);
  assert.equal(g.runs, 3);
  assert.equal(g.kernels, 16);
  assert.ok(Math.abs(g.profiled_gap_us - 3) < 1e-9, JSON.stringify(g));
  assert.ok(Math.abs(g.plain_kernel_us - 0.5) < 1e-9, JSON.stringify(g));
  assert.ok(Math.abs(g.gap_us - 2.5) < 1e-9, JSON.stringify(g));
});

test('each chain\'s quickest block is its plain time: a block something else landed in is only ever slower', () => {
  const events = [...run(0, 16, 2, 3), ...run(1000, 16, 2, 3)];
  // The short chain's second block was interrupted (0.030 ms): with it the plain kernel would read 0 µs.
  const plainMs = { long: [0.020, 0.012, 0.013], short: [0.008, 0.030, 0.009] };
  const g = profilerGapOf(events, { plainMs, profiledRuns: 2 }, 16);
  assert.ok(Math.abs(g.plain_kernel_us - 0.5) < 1e-9, JSON.stringify(g));
  assert.ok(Math.abs(g.gap_us - 2.5) < 1e-9, JSON.stringify(g));
});

test('a run with other kernels than the chain is not read; a plain time larger than the gap gives 0', () => {
  const events = [...run(0, 16, 2, 3), ...run(1000, 15, 2, 40), ...run(2000, 16, 2, 5)];
  const g = profilerGapOf(events, { plainMs: plain(0.2, 0.1), profiledRuns: 3 }, 16);
  assert.equal(g.runs, 2);                // the 15-kernel run is left out
  assert.equal(g.profiled_gap_us, 4);     // median of 3 and 5
  assert.equal(g.gap_us, 0);              // 12.5 µs a plain kernel: nothing left to set aside
});

test('what cannot be measured is null', () => {
  const p = { plainMs: plain(0.012, 0.008), profiledRuns: 3 };
  assert.equal(profilerGapOf([], p, 16), null);                                   // no runs
  assert.equal(profilerGapOf(run(0, 1, 2, 3), p, 16), null);                      // one kernel: no gap
  assert.equal(profilerGapOf(run(0, 16, 2, 3), p, kShortChainNodes), null);       // no longer than the short chain
  assert.equal(profilerGapOf(run(0, 16, 2, 3), { plainMs: { long: [], short: [] }, profiledRuns: 1 }, 16), null);
  assert.equal(profilerGapOfText('[{"cat": "Node",', p, 16), null);               // a profile cut short
  assert.equal(profilerGapOfText(JSON.stringify(run(0, 16, 2, 3)), p, 16).runs, 1);
});

test('gapRuns warms every inference session up untimed, then times blocks of plain runs of both chains and makes the ' +
     'profiled runs after each', async () => {
  let now = 0n;
  const clock = () => now;
  const calls = { long: 0, short: 0, profiled: 0 };
  const order = [];
  const runs = await gapRuns({
    plainLong: async () => { calls.long++; now += 30_000n; },   // 30 µs
    plainShort: async () => { calls.short++; now += 10_000n; }, // 10 µs
    profiled: async () => { calls.profiled++; now += 1_000_000n; order.push(calls.long); },
  }, clock);
  // One untimed block of each first.
  assert.deepEqual(calls, { long: (kGapBlocks + 1) * kGapPlainRuns, short: (kGapBlocks + 1) * kGapPlainRuns,
                            profiled: (kGapBlocks + 1) * kGapProfiledRuns });
  assert.deepEqual(runs.plainMs.long, Array(kGapBlocks).fill(0.03));
  assert.deepEqual(runs.plainMs.short, Array(kGapBlocks).fill(0.01));
  assert.equal(runs.profiledRuns, kGapBlocks * kGapProfiledRuns);
  assert.equal(order[0], kGapPlainRuns);  // the warm-up's profiled runs follow its plain ones
  assert.equal(order[kGapProfiledRuns], 2 * kGapPlainRuns);  // the first measured ones follow the first timed block
});
