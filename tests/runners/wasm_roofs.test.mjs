// WebAssembly roofs (runners/ort/wasm_roofs.mjs): the binary encoder writes modules the engine validates and that
// compute what they say; the quick measurement has the properties any CPU's roofs have — bandwidth falls from L1- to
// DRAM-sized arrays, SIMD beats scalar, a second thread adds compute, no WebAssembly roof beats the native one
// `rooflens hw` cached for this machine. Nothing here knows a rate: every comparison is between two measurements.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ModuleBuilder, f32, i32, op, sleb, uleb } from '../../runners/ort/wasm_encode.mjs';
import {
  baseModuleBytes, kChains, kComputeRetakes, levelsFromCaches, measureWasmRoofs, relaxedModuleBytes, sweepSizes,
  sweepSizesAt,
} from '../../runners/ort/wasm_roofs.mjs';
import { cachedNativeRoofs, measureWasmRoofsNode, nodeCpus } from '../../runners/ort/wasm_roofs_node.mjs';

const runner = fileURLToPath(new URL('../../runners/ort/run.mjs', import.meta.url));
const webInstalled = fs.existsSync(fileURLToPath(new URL('../../runners/ort/node_modules/onnxruntime-web/package.json',
                                                         import.meta.url)));

test('LEB128 as the binary format spells integers', () => {
  assert.deepEqual(uleb(0), [0]);
  assert.deepEqual(uleb(127), [0x7f]);
  assert.deepEqual(uleb(128), [0x80, 0x01]);
  assert.deepEqual(uleb(0x105), [0x85, 0x02]);  // f32x4.relaxed_madd's opcode
  assert.deepEqual(uleb(2 ** 32), [0x80, 0x80, 0x80, 0x80, 0x10]);
  assert.deepEqual(sleb(0), [0]);
  assert.deepEqual(sleb(63), [0x3f]);
  assert.deepEqual(sleb(64), [0xc0, 0x00]);
  assert.deepEqual(sleb(-1), [0x7f]);
  assert.deepEqual(sleb(-64), [0x40]);
  assert.deepEqual(sleb(-65), [0xbf, 0x7f]);
  assert.deepEqual(sleb(-(2 ** 31)), [0x80, 0x80, 0x80, 0x80, 0x78]);
});

test('the encoder writes modules the engine validates and runs', async () => {
  const bytes = new ModuleBuilder().importMemory({ min: 1 })
    .func('sub', { params: [i32, i32], results: [i32], body: [op.localGet(0), op.localGet(1), op.i32Sub] })
    .func('scale', { params: [f32], results: [f32], body: [op.localGet(0), op.f32Const(2.5), op.f32Mul] })
    .bytes();
  assert.ok(WebAssembly.validate(bytes));
  const env = { memory: new WebAssembly.Memory({ initial: 1 }) };
  const { instance } = await WebAssembly.instantiate(bytes, { env });
  assert.equal(instance.exports.sub(3, 10), -7);
  assert.equal(instance.exports.scale(4), 10);
  // A shared memory import needs a maximum (and validates with one).
  assert.throws(() => new ModuleBuilder().importMemory({ shared: true }), /maximum/);
  assert.ok(WebAssembly.validate(new ModuleBuilder().importMemory({ min: 1, max: 2, shared: true }).bytes()));
});

test('the kernels validate and compute what they say', async () => {
  assert.ok(WebAssembly.validate(baseModuleBytes()), 'the base SIMD128 module');
  // Relaxed SIMD validates exactly where the engine has it (Node 20: behind a flag); either way the module is made.
  assert.equal(typeof WebAssembly.validate(relaxedModuleBytes()), 'boolean');
  const memory = new WebAssembly.Memory({ initial: 2 });
  const { instance } = await WebAssembly.instantiate(baseModuleBytes(), { env: { memory } });
  const x = instance.exports;
  // One step of every chain: acc_i = (1 + i)·0.999999 + 1e-6, summed over the chains (lane 0).
  let want = 0;
  const [m, a] = [Math.fround(0.999999), Math.fround(1e-6)];
  for (let i = 0; i < kChains; ++i) want += Math.fround(Math.fround((1 + i) * m) + a);
  assert.ok(Math.abs(x.fp32_muladd_wasm_simd128(1) - want) < 1e-4, `${x.fp32_muladd_wasm_simd128(1)} vs ${want}`);
  assert.ok(Math.abs(x.fp32_muladd_wasm_scalar(1) - want) < 1e-4);
  // Many steps stay bounded: every chain moves towards 1 (slowly: 1e-6 of the way per step), no infinities.
  const many = x.fp32_muladd_wasm_scalar(1e6);
  assert.ok(many > kChains && many < want, `${many}`);
  // int8: each step acc = dot_i16x8_s(acc, 1001) + 1 in every 16-bit pair, wrapping as i32 lanes do; the chains
  // start at 1001, 2001, …; lane 0 summed. Computed here pair by pair: a wrong opcode gives another number.
  const int8Steps = (steps) => {
    let sum = 0;
    for (let i = 0; i < kChains; ++i) {
      let lo = (1 + i) * 1000 | 1, hi = lo, s = 0;
      for (let k = 0; k < steps; ++k) {
        s = (Math.imul(lo, 1001) + Math.imul(hi, 1001) + 0x10001) | 0;
        lo = (s << 16) >> 16;
        hi = s >> 16;
      }
      sum = (sum + s) | 0;
    }
    return sum;
  };
  assert.equal(x.int8_dot_i16x8_wasm_simd128(1), int8Steps(1));
  assert.equal(x.int8_dot_i16x8_wasm_simd128(7), int8Steps(7));
  // copy moves every byte of a pass; read reads to the end without trapping.
  const u8 = new Uint8Array(memory.buffer);
  for (let i = 0; i < 4096; ++i) u8[i] = i % 251;
  x.copy(0, 8192, 4096, 3);
  assert.deepEqual(u8.slice(8192, 8192 + 4096), u8.slice(0, 4096));
  x.read(0, 2 * 65536, 2);
  assert.throws(() => x.read(65536, 2 * 65536, 1), WebAssembly.RuntimeError, 'a read past the memory traps');
});

// A pool of two workers whose every repetition does 1e6 units a millisecond each, except that the first `slow`
// two-worker measurements of fp32_muladd_wasm_simd128 do 0.4e6 each (the other CPU busy): the calls are recorded.
function scriptedPool(slow) {
  const calls = [];
  return {
    calls,
    size: 2,
    async run(n, taskFor) {
      const t = taskFor(0);
      calls.push(`${t.kernel} x${n}`);
      const each = n > 1 && t.kernel === 'fp32_muladd_wasm_simd128' && slow-- > 0 ? 0.4e6 : 1e6;
      return Array.from({ length: n }, () => ({ intervals_ms: [1, 1], work: [each, each],
                                                warmup: { ms: 0, rose_until_ms: 0, first_rate: 0 } }));
    },
  };
}

test('a multi-thread compute roof below the 1-thread one is measured again', async () => {
  const options = { quick: true, cpus: 2, computeRounds: 1, kernels: [], threadsOk: true };
  const settled = scriptedPool(2);  // the round and the first retake disturbed, the second not
  const a = await measureWasmRoofs({ pool: settled, ...options });
  assert.equal(settled.calls.filter((c) => c === 'fp32_muladd_wasm_simd128 x2').length, 3);
  assert.equal(settled.calls.filter((c) => c === 'fp32_muladd_wasm_scalar x2').length, 1);  // never below: once
  const x2 = a.compute.find((c) => c.name === 'fp32_muladd_wasm_simd128' && c.threads === 2);
  assert.equal(x2.gflops, 2e6 / 1e6);
  assert.ok(!a.notes.some((n) => n.includes('stayed below')), a.notes.join('\n'));

  const busy = scriptedPool(Infinity);  // disturbed every time: retaken, then said
  const b = await measureWasmRoofs({ pool: busy, ...options });
  assert.equal(busy.calls.filter((c) => c === 'fp32_muladd_wasm_simd128 x2').length, 1 + kComputeRetakes);
  assert.ok(b.notes.some((n) => /fp32_muladd_wasm_simd128 x2 stayed below x1 .* busy/.test(n)), b.notes.join('\n'));
});

test('sweep sizes and levels from reported caches', () => {
  assert.deepEqual(sweepSizes(16384, 262144, 4), [16384, 65536, 262144]);
  const sweep = [
    [16384, 100], [65536, 80], [262144, 78], [1 << 20, 60], [4 << 20, 58], [64 << 20, 12], [256 << 20, 11],
  ].map(([b, g]) => ({ kernel: 'read', threads: 1, working_set_bytes: b, gbps: g }));
  const caches = [{ level: 'L1d', size_bytes: 32768, cores_sharing: 1 },
                  { level: 'L2', size_bytes: 524288, cores_sharing: 1 },
                  { level: 'L3', size_bytes: 16 << 20, cores_sharing: 2 }];
  const levels = levelsFromCaches(sweep, caches, [1], ['read']);
  assert.deepEqual(levels.map((l) => [l.level, l.gbps, l.working_set_bytes]),
                   [['L1', 100, 16384], ['L2', 80, 65536], ['L3', 60, 1 << 20], ['DRAM', 12, 64 << 20]]);
  assert.deepEqual(levelsFromCaches(sweep, [], [1], ['read']), [], 'no reported sizes: no levels');
  // The sweep ends at the first working set (all threads together) of 8x the last cache and at least 512 MiB (quick)
  // or 1 GiB; with no sizes, or a cache too large for that within the grid, the whole grid.
  const MiB = 1 << 20, grid = sweepSizes(16384, 1 << 30, 2);
  const end = (n, c, quick) => sweepSizesAt(n, grid, c, quick).at(-1) / MiB;
  assert.equal(end(1, caches, true), 512);
  assert.equal(end(2, caches, true), 256);
  assert.equal(end(2, caches, false), 512);
  const large = [{ level: 'L3', size_bytes: 96 * MiB, cores_sharing: 2 }];
  assert.equal(end(1, large, true), 1024, '8 x 96 MiB: the first grid point above 768 MiB');
  assert.equal(end(2, [{ level: 'L3', size_bytes: 260 * MiB, cores_sharing: 2 }], true), 1024);
  assert.equal(end(2, [], true), 1024);
});

// The quick measurement, and its properties. The machine may be shared: a property about threads is retried with
// a fresh compute measurement before it fails (a second thread adds nothing while another process holds the CPU).
test('quick WebAssembly roofs have the properties of any roofs', { timeout: 120_000 }, async (t) => {
  const cpus = nodeCpus();
  const roofs = await measureWasmRoofsNode({ quick: true });
  const gflops = (name, n, r = roofs) => r.compute.find((c) => c.name === name && c.threads === n)?.gflops;
  t.diagnostic(`load ${roofs.load_average.toFixed(2)}, ${roofs.elapsed_ms.toFixed(0)} ms; ` +
               roofs.compute.map((c) => `${c.name} x${c.threads} ${c.gflops.toFixed(1)}`).join(', '));

  assert.equal(roofs.engine.simd128, true);
  for (const c of roofs.compute) assert.ok(c.gflops > 0 && c.median_gflops <= c.gflops, JSON.stringify(c));
  assert.ok(gflops('fp32_muladd_wasm_simd128', 1) > 1.5 * gflops('fp32_muladd_wasm_scalar', 1),
            'SIMD128 (4 lanes) computes more than scalar f32');

  const read1 = roofs.sweep.filter((p) => p.kernel === 'read' && p.threads === 1);
  const [small, large] = [read1[0], read1.at(-1)];
  assert.ok(small.working_set_bytes <= 16384 && large.working_set_bytes >= 256 << 20);
  assert.ok(small.gbps > 2 * large.gbps, `L1-sized ${small.gbps} GB/s vs DRAM-sized ${large.gbps} GB/s`);
  if (roofs.caches.length) assert.ok(roofs.memory.some((m) => m.level === 'DRAM' && m.threads === 1));

  // No WebAssembly roof above the native one of the same thread count (5% for two measurements' noise).
  const native = cachedNativeRoofs();
  if (!native) t.diagnostic('no `rooflens hw` roofs cached for this machine: native comparison skipped');
  for (const c of native ? roofs.compute : []) {
    const peak = Math.max(...native.compute.filter((n) => n.dtype === c.dtype && n.threads === c.threads)
      .map((n) => n.gflops));
    if (!Number.isFinite(peak)) continue;
    assert.ok(c.gflops <= 1.05 * peak, `${c.name} x${c.threads} ${c.gflops} > native ${peak}`);
  }
  for (const n of native ? new Set(roofs.sweep.map((p) => p.threads)) : []) {
    const wasm = Math.max(...roofs.sweep.filter((p) => p.threads === n).map((p) => p.gbps));
    const peak = Math.max(...native.memory.filter((m) => m.threads === n).map((m) => m.gbps));
    if (Number.isFinite(peak)) assert.ok(wasm <= 1.05 * peak, `x${n}: ${wasm} GB/s > native ${peak}`);
  }

  // A second thread adds compute, when the machine has two CPUs for it: on a shared machine other processes can hold
  // them, so the check is measured again (compute only) up to twice, and where it still fails while other processes
  // used at least half a CPU meanwhile (the machine's busy time less this process's) it is skipped, saying so.
  if (cpus < 2) return;
  let r = roofs, others = 0;
  for (let attempt = 0; ; ++attempt) {
    const [one, two] = [gflops('fp32_muladd_wasm_simd128', 1, r), gflops('fp32_muladd_wasm_simd128', 2, r)];
    const what = `2 threads ${two.toFixed(1)} GFLOP/s vs 1 thread ${one.toFixed(1)}`;
    if (two >= 1.3 * one) break;
    if (attempt === 2) {
      if (others >= 0.5) {
        t.skip(`${what}, while other processes used ${others.toFixed(2)} of ${cpus} CPUs`);
        return;
      }
      assert.fail(`${what} (other processes used ${others.toFixed(2)} CPUs)`);
    }
    t.diagnostic(`${what}: measuring again`);
    const [busy0, own0, wall0] = [machineBusyMs(), process.cpuUsage(), performance.now()];
    r = await measureWasmRoofsNode({ quick: true, bandwidthThreads: [], computeRounds: 4 });
    const own = process.cpuUsage(own0);
    others = (machineBusyMs() - busy0 - (own.user + own.system) / 1000) / (performance.now() - wall0);
  }
});

// Every CPU's busy time so far, in ms.
function machineBusyMs() {
  return os.cpus().reduce((s, c) => s + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
}

// The runner's op: only with --build web, and it answers with the roofs (a small setting: 1 thread, to 1 MiB).
const notInstalled = !webInstalled && 'onnxruntime-web not installed (make deps)';
test('the runner measures WebAssembly roofs with --build web only', { skip: notInstalled, timeout: 60_000 },
     async () => {
  const converse = (args, msgs) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const replies = [];
    readline.createInterface({ input: child.stdout }).on('line', (l) => replies.push(JSON.parse(l)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, replies }));
    child.stdin.end(msgs.map((m, i) => JSON.stringify({ id: i + 1, ...m })).join('\n') + '\n');
  });
  const small = { op: 'wasm_roofs', quick: true, threads: [1], max_bytes: 1 << 20 };
  const web = await converse(['--build', 'web'], [small, { op: 'wasm_roofs', threads: [0] }]);
  assert.equal(web.code, 0);
  const [ok, bad] = web.replies;
  assert.equal(ok.ok, true, JSON.stringify(ok));
  assert.deepEqual([...new Set(ok.compute.map((c) => c.threads))], [1]);
  assert.ok(ok.compute.some((c) => c.name === 'fp32_muladd_wasm_simd128' && c.gflops > 0));
  assert.ok(ok.sweep.length >= 2 && ok.sweep.at(-1).working_set_bytes === 1 << 20);
  assert.equal(bad.error.code, 'bad_message');
  const native = await converse([], [small]);
  assert.equal(native.replies[0].ok, false);
  assert.match(native.replies[0].error.message, /--build web/);
});
