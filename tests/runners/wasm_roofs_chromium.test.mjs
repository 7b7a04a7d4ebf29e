// WebAssembly roofs in the Chromium host (`run.mjs --build web --host chromium`): measured inside the page, by its Web
// Workers, and labelled as Chromium's; the quick measurement has the properties any roofs have (SIMD beats scalar,
// bandwidth falls from L1- to DRAM-sized arrays, a second thread adds compute), and a page without cross-origin
// isolation measures 1 thread only and says why. Nothing here knows a rate: every comparison is between two
// measurements. Skipped, as web_chromium.test.mjs, when Chromium, playwright-core or onnxruntime-web is missing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';

import { nodeCpus, sysCaches } from '../../runners/ort/wasm_roofs_node.mjs';
import { skipChromium as skip, startChromiumRunner as start } from './chromium_runner.mjs';

const gflops = (r, name, n) => r.compute.find((c) => c.name === name && c.threads === n)?.gflops;

// Every CPU's busy time so far, in ms.
function machineBusyMs() {
  return os.cpus().reduce((s, c) => s + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
}

// The CPU time, in ms, of `root` and every process under it (the runner, Chromium and its renderer, whose worker
// threads measure): what the machine's busy time holds besides other work.
function treeCpuMs(root) {
  const procs = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), { parent: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* gone meanwhile */ }
  }
  const under = (pid) => {
    for (let p = pid; p; p = procs.get(p)?.parent) if (p === root) return true;
    return false;
  };
  const ticks = [...procs].reduce((s, [pid, p]) => s + (under(pid) ? p.ticks : 0), 0);
  return ticks * 10;  // USER_HZ is 100 on Linux
}

test('in a cross-origin isolated page the WebAssembly roofs are Chromium\'s, measured by its workers',
     { skip, timeout: 180_000 }, async (t) => {
  const r = start([]);
  const hello = await r.ask({ op: 'hello' });
  assert.equal(hello.ok, true, JSON.stringify(hello));

  // 1 thread to DRAM-sized arrays: the message's size, by factors of 4 from 256 MiB to 4× the largest
  // reported cache on, at least 256 MiB as in the Node host's test. A machine may report no caches at all (a VM whose
  // /sys has no cache entries: a Zen 5 EPYC guest), and there 64 MiB was still within reach of its L3.
  const largest = Math.max(0, ...sysCaches().map((c) => c.size_bytes));
  let maxBytes = 256 << 20;
  while (maxBytes < 4 * largest && maxBytes < 2 ** 30) maxBytes *= 4;
  const one = await r.ask({ op: 'wasm_roofs', quick: true, threads: [1], max_bytes: maxBytes });
  assert.equal(one.ok, true, JSON.stringify(one));
  t.diagnostic(`${one.elapsed_ms.toFixed(0)} ms; ` +
               one.compute.map((c) => `${c.name} x${c.threads} ${c.gflops.toFixed(1)}`).join(', '));

  // Labelled as the page's engine, never the runner's Node.
  assert.equal(one.engine.host, 'chromium');
  assert.equal(one.engine.chromium, hello.browser);
  assert.equal(one.engine.node, undefined);
  assert.notEqual(one.engine.v8, process.versions.v8);
  assert.equal(one.engine.cross_origin_isolated, true);
  assert.equal(one.engine.threads, true);
  assert.ok(one.notes.some((n) => /measured in the Chromium page/.test(n)), JSON.stringify(one.notes));
  for (const key of ['source', 'quick', 'compute', 'memory', 'sweep', 'caches', 'notes', 'elapsed_ms']) {
    assert.ok(key in one, `reply has ${key}`);
  }

  assert.ok(gflops(one, 'fp32_muladd_wasm_simd128', 1) > 1.5 * gflops(one, 'fp32_muladd_wasm_scalar', 1),
            'SIMD128 (4 lanes) computes more than scalar f32');
  const read = one.sweep.filter((p) => p.kernel === 'read' && p.threads === 1);
  const [small, large] = [read[0], read.at(-1)];
  assert.ok(small.working_set_bytes <= 16384 && large.working_set_bytes >= 4 * largest);
  t.diagnostic(`read x1: ${small.gbps.toFixed(1)} GB/s at ${small.working_set_bytes} B, ${large.gbps.toFixed(1)} at ` +
               `${large.working_set_bytes} B`);
  assert.ok(small.gbps > 2 * large.gbps, `L1-sized ${small.gbps} GB/s vs DRAM-sized ${large.gbps} GB/s`);
  if (largest) {
    const level = (name) => one.memory.find((m) => m.level === name && m.threads === 1);
    assert.ok(level('L1') && level('DRAM') && level('L1').gbps > level('DRAM').gbps, JSON.stringify(one.memory));
  }

  const cpus = Math.min(nodeCpus(), one.engine.cpus);
  const refused = await r.ask({ op: 'wasm_roofs', threads: [cpus + 1] });
  assert.equal(refused.error.code, 'bad_message');

  // A second thread adds compute (compute at 1 and 2 threads in one message; a tiny sweep). On a shared machine other
  // processes can hold the CPUs: measured up to three times, and where it still fails while other processes used at
  // least half a CPU meanwhile (the machine's busy time less the runner's and its browser's) it is skipped, saying so.
  if (cpus >= 2) {
    for (let attempt = 0; ; ++attempt) {
      const [busy0, tree0, wall0] = [machineBusyMs(), treeCpuMs(r.pid), performance.now()];
      const two = await r.ask({ op: 'wasm_roofs', quick: true, threads: [1, 2], max_bytes: 65536 });
      assert.equal(two.ok, true, JSON.stringify(two));
      const others = (machineBusyMs() - busy0 - (treeCpuMs(r.pid) - tree0)) / (performance.now() - wall0);
      const [x1, x2] = [gflops(two, 'fp32_muladd_wasm_simd128', 1), gflops(two, 'fp32_muladd_wasm_simd128', 2)];
      const what = `2 threads ${x2.toFixed(1)} GFLOP/s vs 1 thread ${x1.toFixed(1)}`;
      if (x2 > 1.3 * x1) break;
      if (attempt === 2) {
        if (others >= 0.5) {
          t.skip(`${what}, while other processes used ${others.toFixed(2)} of ${cpus} CPUs`);
          break;
        }
        assert.fail(`${what} (other processes used ${others.toFixed(2)} CPUs)`);
      }
      t.diagnostic(`${what}: measuring again`);
    }
  } else {
    t.diagnostic(`${cpus} CPU: no second thread to measure`);
  }
  await r.quit();
});

test('without cross-origin isolation the page measures 1 thread and says why', { skip, timeout: 120_000 },
     async () => {
  const r = start(['--isolation', 'off']);
  const res = await r.ask({ op: 'wasm_roofs', quick: true, max_bytes: 1 << 20 });
  assert.equal(res.ok, true, JSON.stringify(res));
  assert.equal(res.engine.cross_origin_isolated, false);
  assert.equal(res.engine.threads, false);
  assert.deepEqual([...new Set([...res.compute, ...res.sweep].map((x) => x.threads))], [1]);
  assert.ok(res.compute.some((c) => c.name === 'fp32_muladd_wasm_simd128' && c.gflops > 0));
  assert.ok(res.notes.some((n) => /not cross-origin isolated/.test(n)), JSON.stringify(res.notes));
  // 2 threads cannot run there: refused, not answered with no figure.
  const two = await r.ask({ op: 'wasm_roofs', threads: [1, 2] });
  assert.equal(two.error.code, 'bad_message');
  assert.match(two.error.message, /not cross-origin isolated/);
  await r.quit();
});
