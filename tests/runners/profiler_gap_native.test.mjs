// The native build's profiler gap (runners/ort/profiler_gap_native.mjs) with the real onnxruntime-node: the chains run,
// the bound is the warmed second calibration's, below the profiled stretch it is taken from, and no profile file is
// left behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';

import { nativeProfilerGap } from '../../runners/ort/profiler_gap_native.mjs';
import { kGapBlocks, kGapProfiledRuns } from '../../runners/ort/profiler_gap.mjs';

const profileDirs = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('rooflens-ort-prof-')).sort();

test('the native calibration measures the profiler\'s bookkeeping per kernel and cleans up', async () => {
  const before = profileDirs();
  const g = await nativeProfilerGap({ intraOpNumThreads: 1 });
  assert.ok(g, 'the calibration ran');
  assert.equal(g.kernels, 64);
  assert.equal(g.runs, kGapBlocks * kGapProfiledRuns);
  assert.ok(g.plain_kernel_us > 0 && g.plain_kernel_us < g.profiled_gap_us, JSON.stringify(g));
  assert.ok(g.gap_us > 0 && g.gap_us < g.profiled_gap_us, JSON.stringify(g));
  assert.deepEqual(profileDirs(), before);
});

test('options the chains cannot take are a null gap, not a guess', async () => {
  const g = await nativeProfilerGap({ intraOpNumThreads: 1, executionProviders: ['no-such-provider'] });
  assert.equal(g, null);
});
