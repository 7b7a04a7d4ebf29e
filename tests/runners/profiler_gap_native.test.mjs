// The native build's profiler gap (runners/ort/profiler_gap_native.mjs) with the real onnxruntime-node: the chains run,
// the bound is the warmed second calibration's, below the profiled stretch it is taken from, and no profile file is
// left behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { nativeProfilerGap } from '../../runners/ort/profiler_gap_native.mjs';
import { kGapBlocks, kGapProfiledRuns } from '../../runners/ort/profiler_gap.mjs';

// The calibration's profile directory goes under os.tmpdir(), which reads TMPDIR at each call: a private one for the
// test, because the system's is shared with every runner of the integration tests that run beside this suite (their
// own rooflens-ort-prof-* come and go while it runs).
function withPrivateTmpdir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-gap-test-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  t.after(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

test('the native calibration measures the profiler\'s bookkeeping per kernel and cleans up', async (t) => {
  const tmp = withPrivateTmpdir(t);
  const g = await nativeProfilerGap({ intraOpNumThreads: 1 });
  assert.ok(g, 'the calibration ran');
  assert.equal(g.kernels, 64);
  assert.equal(g.runs, kGapBlocks * kGapProfiledRuns);
  assert.ok(g.plain_kernel_us > 0 && g.plain_kernel_us < g.profiled_gap_us, JSON.stringify(g));
  assert.ok(g.gap_us > 0 && g.gap_us < g.profiled_gap_us, JSON.stringify(g));
  assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.startsWith('rooflens-ort-prof-')), [], 'no profile left behind');
});

test('options the chains cannot take are a null gap, not a guess', async () => {
  const g = await nativeProfilerGap({ intraOpNumThreads: 1, executionProviders: ['no-such-provider'] });
  assert.equal(g, null);
});
