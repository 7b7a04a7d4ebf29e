// The runner's VmHWM reset (proc_memory.mjs): done when the kernel takes the write, refused when it cannot be made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clearPeakOf, peakRss, procStatus, resetPeak } from '../../runners/ort/proc_memory.mjs';

test('a reset after a freed peak brings the mark down to the resident set, and the whole peak is still answered', () => {
  let big = Buffer.alloc(96 << 20, 1);  // touched: 96 MiB resident
  const peak = procStatus().hwm;
  big = null;
  assert.equal(big, null);
  // Node gives a buffer this large back with munmap once collected; without --expose-gc, allocate until it has been.
  for (let i = 0; i < 200 && procStatus().rss > peak - (48 << 20); ++i) Buffer.alloc(1 << 20);
  assert.ok(procStatus().rss < peak - (48 << 20), 'the 96 MiB buffer was never given back');
  assert.equal(resetPeak(), true);
  assert.ok(procStatus().hwm < peak - (32 << 20), `the mark stayed at ${procStatus().hwm} after a reset from ${peak}`);
  assert.ok(peakRss() >= peak, 'the peak before the reset is still the process peak');
});

test('a process that is not there cannot have its mark reset', () => {
  assert.equal(clearPeakOf(2 ** 22 + 7), false);
});
