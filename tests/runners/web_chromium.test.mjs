// The ORT runner's Chromium host (`--build web --host chromium`) on a model it writes itself: the page's threads and
// isolation are read back (2 threads in a cross-origin isolated page, 1 without isolation), the profile ORT Web prints
// in the page reaches the reply with every run's kernels, the runs are timed in the page, the memory is the
// renderer's, and the failures end as one-line replies: an op ORT Web refuses, a missing Chromium, a crashed page
// (then the runner exits 71). Skipped when Chromium, playwright-core or onnxruntime-web is not installed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { chainModel } from '../../runners/ort/onnx_chain.mjs';
import { skipChromium as skip, startChromiumRunner as start } from './chromium_runner.mjs';
import { assertWaitedForTheCompiler, assertWebProfiledWarmUp } from './web_profiled.mjs';

const TIMING = { warmup_iterations: 1, warmup_ms: 0, iterations: 2, duration_s: 0, max_iterations: 2,
                 max_duration_s: 30, profile_iterations: 2, adaptive: false };

function modelFile(bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-web-chromium-'));
  const file = path.join(dir, 'chain.onnx');
  fs.writeFileSync(file, bytes);
  return { dir, file };
}

test('in a cross-origin isolated page ORT Web runs the threads asked, profiles every run and times in the page',
     { skip, timeout: 120000 }, async () => {
  const { dir, file } = modelFile(chainModel(16));
  const r = start([]);
  try {
    const hello = await r.ask({ op: 'hello' });
    assert.equal(hello.ok, true, JSON.stringify(hello));
    assert.equal(hello.host, 'chromium');
    assert.match(hello.browser, /^\d+\.\d+\.\d+\.\d+$/);

    const loaded = await r.ask({ op: 'load', model: file, options: { intraOpNumThreads: 2 } });
    assert.equal(loaded.ok, true, JSON.stringify(loaded));
    assert.deepEqual(loaded.wasm, { threads: 2, shared_memory: true, cross_origin_isolated: true, simd: true,
                                    host: 'chromium', browser: hello.browser });
    // The renderer's memory, named as such: never the runner's own.
    assert.equal(loaded.memory.process, 'chromium_renderer');
    assert.notEqual(loaded.memory.pid, hello.pid);
    assert.ok(loaded.memory.after_session_bytes > 0 && loaded.peak_rss_bytes >= loaded.memory.after_session_bytes);

    const profiled = await r.ask({ op: 'run_profiled', timing: TIMING, return_events: true });
    assert.equal(profiled.ok, true, JSON.stringify(profiled).slice(0, 500));
    // Warmed up past the tier-up unprofiled (web_profiled.mjs), then two profiled runs: each run's kernels, none
    // lost.
    assertWebProfiledWarmUp(profiled, TIMING);
    const runs = TIMING.warmup_iterations + 2;
    assert.equal(profiled.model_runs.length, runs);
    assert.equal(profiled.run_latencies_ms.length, 2);
    const kernels = profiled.events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
    // Every run's 16 kernels: none of the profile lost on its way out of the page.
    for (const run of profiled.model_runs) {
      const inRun = kernels.filter((k) => k.ts >= run.ts_us && k.ts <= run.ts_us + run.dur_us);
      assert.equal(inRun.length, 16, `run at ${run.ts_us} µs has ${inRun.length} kernels`);
    }

    const timed = await r.ask({ op: 'run_timed', timing: TIMING });
    assert.equal(timed.ok, true, JSON.stringify(timed));
    assert.equal(timed.latencies_ms.length, 2);
    assert.ok(timed.latencies_ms.every((ms) => ms >= 0 && ms < 1000), JSON.stringify(timed.latencies_ms));
    assert.ok(timed.warmup_ms >= 2000 && timed.stop_reason === 'min_reached');
    assert.equal(timed.memory.pid, loaded.memory.pid);
    assertWaitedForTheCompiler(timed.compile, timed);

    // The outputs are the page's: Relu of the input the runner generated.
    const out = await r.ask({ op: 'outputs', return_inputs: true });
    const x = Buffer.from(out.inputs[0].data_b64, 'base64').readFloatLE(0);
    assert.equal(Buffer.from(out.outputs[0].data_b64, 'base64').readFloatLE(0), Math.max(0, x));

    // Serving is the Node host's (a page serves one user): refused by name. Generation runs in the page.
    const refused = await r.ask({ op: 'serve_begin' });
    assert.equal(refused.error.code, 'bad_message');
    assert.match(refused.error.message, /'serve_begin' needs the Node host/);
    assert.match(refused.error.message, /generate_profiled/);
    await r.quit();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('without cross-origin isolation the page has no SharedArrayBuffer and ORT Web runs 1 thread',
     { skip, timeout: 60000 }, async () => {
  const { dir, file } = modelFile(chainModel(4));
  const r = start(['--isolation', 'off']);
  try {
    const loaded = await r.ask({ op: 'load', model: file, options: { intraOpNumThreads: 2 } });
    assert.equal(loaded.ok, true, JSON.stringify(loaded));
    assert.equal(loaded.wasm.threads, 1);
    assert.equal(loaded.wasm.shared_memory, false);
    assert.equal(loaded.wasm.cross_origin_isolated, false);
    // A model ORT Web refuses: ORT's own message, and the runner goes on serving.
    const bad = modelFile(chainModel(1, 'Mish'));  // Mish is opset 18; the chain is opset 17
    const refused = await r.ask({ op: 'load', model: bad.file });
    fs.rmSync(bad.dir, { recursive: true, force: true });
    assert.equal(refused.ok, false);
    assert.deepEqual([refused.error.code, refused.error.stage], ['ort', 'load']);
    assert.match(refused.error.message, /No Op registered for Mish/);
    assert.equal((await r.ask({ op: 'hello' })).ok, true);
    await r.quit();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a crashed page answers the message it was running, then the runner exits 71', { skip, timeout: 60000 },
     async () => {
  const { dir, file } = modelFile(chainModel(4));
  const r = start([]);
  try {
    const loaded = await r.ask({ op: 'load', model: file });
    assert.equal(loaded.ok, true, JSON.stringify(loaded));
    const long = { ...TIMING, warmup_ms: 20000 };
    const running = r.ask({ op: 'run_timed', timing: long });
    // The renderer dies mid-run, as under the OOM killer.
    setTimeout(() => process.kill(loaded.memory.pid, 'SIGKILL'), 1000);
    const reply = await running;
    assert.equal(reply.ok, false);
    assert.deepEqual([reply.error.code, reply.error.stage], ['ort', 'run']);
    assert.match(reply.error.message, /crash/);
    assert.equal(await r.exited, 71, r.stderr());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing Chromium is a one-line reply naming the package', { skip, timeout: 30000 }, async () => {
  const r = start([], { ROOFLENS_CHROMIUM: path.join(os.tmpdir(), 'no-such-chromium') });
  const hello = await r.ask({ op: 'hello' });
  assert.equal(hello.ok, false);
  assert.equal(hello.error.code, 'host');
  assert.match(hello.error.message, /package `chromium` \(`make deps`\)/);
  await r.quit();
});
