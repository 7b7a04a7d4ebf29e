// proc_threads.mjs reads a process's threads' CPU time from /proc: the sum over the threads picked grows by the CPU
// they spent, a pick no thread passes gives null (the host then cannot wait for V8's compiler, and says so), and the
// threads other than the main one leave the main one out.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { otherThreadIds, threadsCpuNs } from '../../runners/ort/proc_threads.mjs';

// Spins on this thread until the process has run `ms` of CPU (or 20 s have passed): a wall-clock spin gets less CPU
// than its length when the suite runs this test beside others (make test: at SCHED_IDLE, on what the timed tests
// leave), and once ran 92 ms in 200.
const spin = (ms) => {
  const t0 = process.cpuUsage();
  for (const end = Date.now() + 20000; Date.now() < end;) {
    const u = process.cpuUsage(t0);
    if (u.user + u.system >= ms * 1000) return;
  }
};

test('the CPU time of the threads picked grows by what they ran', () => {
  const main = String(process.pid);
  const before = threadsCpuNs(process.pid, (tid) => tid === main);
  const others = threadsCpuNs('self', (tid) => otherThreadIds().has(tid));
  assert.ok(before > 0, String(before));
  const t0 = process.cpuUsage();
  spin(200);
  const ranNs = ((u) => (u.user + u.system) * 1000)(process.cpuUsage(t0));
  const grown = threadsCpuNs(process.pid, (tid) => tid === main) - before;
  assert.ok(ranNs >= 150e6 && grown >= 0.8 * ranNs && grown <= 1.05 * ranNs,
            `grew ${grown} ns, the process ran ${ranNs} ns`);
  // The other threads (V8's platform workers, idle here) barely moved while the main one spun.
  const othersGrown = threadsCpuNs('self', (tid) => otherThreadIds().has(tid)) - others;
  assert.ok(othersGrown < 0.2 * grown, `the other threads ran ${othersGrown} ns`);
  assert.ok(!otherThreadIds().has(main));
});

test('no thread picked, or no such process: null', () => {
  assert.equal(threadsCpuNs(process.pid, (tid, name) => name === 'no-such-thread-name'), null);
  assert.equal(threadsCpuNs(2 ** 22 + 12345, () => true), null);
});
