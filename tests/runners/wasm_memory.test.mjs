// wasm_memory.mjs: a WebAssembly memory made after watchWasmMemories is read exactly as it grows (and is still an
// instance of the engine's WebAssembly.Memory), and the profiled-run guard stops before a run that could pass 4 GiB,
// never before one that fits, and never on an unknown memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { guardedRuns, kWasmMemoryLimitBytes, profiledRunGuard, wasmMemoryBytes, watchWasmMemories }
  from '../../runners/ort/wasm_memory.mjs';

const PAGE = 65536;

test('a memory made after watching is read as it grows, and stays a WebAssembly.Memory', () => {
  const Engine = WebAssembly.Memory;
  watchWasmMemories();
  watchWasmMemories();  // twice: still one wrapper
  assert.notEqual(WebAssembly.Memory, Engine);
  const small = new WebAssembly.Memory({ initial: 0, maximum: 0, shared: true });
  const m = new WebAssembly.Memory({ initial: 3, maximum: 64, shared: true });
  assert.ok(m instanceof Engine && small instanceof WebAssembly.Memory);
  assert.equal(wasmMemoryBytes(), 3 * PAGE);
  m.grow(5);
  assert.equal(wasmMemoryBytes(), 8 * PAGE);
  // A module made with the watched memory imports it like the engine's own.
  // (module (import "m" "m" (memory 3 64 shared)))
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 2, 9, 1, 1, 109, 1, 109, 2, 3, 3, 64]);
  assert.ok(new WebAssembly.Instance(new WebAssembly.Module(bytes), { m: { m } }));
});

test('the guard lets runs go on while twice the most one run added still fits, then says why it stopped', () => {
  const MB = 2 ** 20;
  let now = 3000 * MB;
  const guard = profiledRunGuard(() => now);
  now += 200 * MB;  // 3200 MB, +200: 3200 + 400 <= 4096
  assert.equal(guard.roomForAnother(), true);
  now += 150 * MB;  // 3350 MB, the most still 200: 3350 + 400 <= 4096
  assert.equal(guard.roomForAnother(), true);
  now += 200 * MB;  // 3550 MB: 3550 + 400 < 4096
  assert.equal(guard.roomForAnother(), true);
  now += 100 * MB;  // 3650 MB: 3650 + 400 = 4050 <= 4096
  assert.equal(guard.roomForAnother(), true);
  now += 50 * MB;  // 3700 MB: 3700 + 400 > 4096
  assert.equal(guard.roomForAnother(), false);
  assert.match(guard.why('profiled 5 of 10 runs'),
               /^profiled 5 of 10 runs: .* holds 3700 MB of its 4 GiB .* up to 200 MB /);

  // A run that adds nothing never stops, however full the memory.
  now = kWasmMemoryLimitBytes - MB;
  const flat = profiledRunGuard(() => now);
  assert.equal(flat.roomForAnother(), true);
  // Unknown memory (no module seen) never stops the runs.
  assert.equal(profiledRunGuard(() => null).roomForAnother(), true);
});

test('the guarded runs stop after the run the guard refuses another after, never before the first', async () => {
  let runs = 0;
  const run = async () => { ++runs; };
  // A guard that says no when asked the n-th time.
  const refusesAfter = (n) => ({ asked: 0, roomForAnother() { return ++this.asked < n; },
                                 why: (what) => `${what}: full` });
  assert.deepEqual(await guardedRuns(10, run, null), { done: 10, stoppedEarly: null });
  runs = 0;
  assert.deepEqual(await guardedRuns(10, run, refusesAfter(4)),
                   { done: 4, stoppedEarly: 'profiled 4 of 10 runs: full' });
  assert.equal(runs, 4);
  runs = 0;
  // The last run is never followed by a question.
  assert.deepEqual(await guardedRuns(1, run, refusesAfter(1)), { done: 1, stoppedEarly: null });
});
