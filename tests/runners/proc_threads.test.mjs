// proc_threads.mjs reads another process's threads' CPU time from /proc: the sum grows by the CPU a thread of that name
// spent, and a name no thread has gives null (the Chromium host then cannot wait for V8's compiler, and says so).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { threadsCpuNs } from '../../runners/ort/proc_threads.mjs';

test('the CPU time of the threads of a name grows by what they ran', () => {
  const before = threadsCpuNs(process.pid, 'node');
  assert.ok(before > 0, String(before));
  const t0 = process.cpuUsage();
  for (const end = Date.now() + 200; Date.now() < end;) { /* spin on this thread */ }
  const ranNs = ((u) => (u.user + u.system) * 1000)(process.cpuUsage(t0));
  const grown = threadsCpuNs(process.pid, 'node') - before;
  assert.ok(grown >= 0.9 * ranNs && ranNs >= 150e6, `grew ${grown} ns, the process ran ${ranNs} ns`);
});

test('no thread of the name, or no such process: null', () => {
  assert.equal(threadsCpuNs(process.pid, 'no-such-thread-name'), null);
  assert.equal(threadsCpuNs(2 ** 22 + 12345, 'node'), null);
});
