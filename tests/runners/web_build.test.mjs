// The ORT runner with `--build web` (onnxruntime-web's WebAssembly build in Node) on a model it writes itself: the
// threads its module ran are read back — 2 as asked where WebAssembly threads can run, 1 in a Node without
// SharedArrayBuffer (as in a page without cross-origin isolation) — and the profile ORT Web prints to stdout is
// captured into the reply, never mixed into the runner's replies. Skipped when onnxruntime-web is not installed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chainModel } from '../../runners/ort/onnx_chain.mjs';
import { assertWaitedForTheCompiler, assertWebProfiledWarmUp } from './web_profiled.mjs';

const runner = fileURLToPath(new URL('../../runners/ort/run.mjs', import.meta.url));
const installed = fs.existsSync(fileURLToPath(new URL('../../runners/ort/node_modules/onnxruntime-web/package.json',
                                                      import.meta.url)));
const TIMING = { warmup_iterations: 1, warmup_ms: 0, iterations: 2, duration_s: 0, max_iterations: 2,
                 max_duration_s: 30, profile_iterations: 2, adaptive: false };

// Sends `messages` to a web runner started with `nodeFlags`; resolves with every stdout line parsed.
function converse(nodeFlags, messages) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, runner, '--build', 'web'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = [];
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    readline.createInterface({ input: child.stdout }).on('line', (l) => lines.push(l));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code, stderr, replies: lines.map((l) => JSON.parse(l)) });
      } catch (e) {
        reject(new Error(`stdout carried a line that is not a reply: ${e.message}\n${lines.join('\n').slice(0, 500)}`));
      }
    });
    child.stdin.end(messages.map((m, i) => JSON.stringify({ id: i + 1, ...m })).join('\n') + '\n');
  });
}

function modelFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rooflens-web-build-'));
  const file = path.join(dir, 'chain.onnx');
  fs.writeFileSync(file, chainModel(16));
  return { dir, file };
}

test('the threads ORT Web ran are read back, and its profile reaches the reply', { skip: !installed && 'onnxruntime-web not installed (make deps)' }, async () => {
  const { dir, file } = modelFile();
  try {
    const load = { op: 'load', model: file, options: { intraOpNumThreads: 2 } };
    const withThreads = await converse([], [{ op: 'hello' }, load,
                                            { op: 'run_profiled', timing: TIMING, return_events: true },
                                            { op: 'run_timed', timing: TIMING }]);
    assert.equal(withThreads.code, 0, withThreads.stderr);
    const [hello, loaded, profiled, timed] = withThreads.replies;
    assert.equal(hello.build, 'web');
    assert.match(hello.onnxruntime_web, /^\d+\.\d+\.\d+$/);
    assert.deepEqual(loaded.wasm, { threads: 2, shared_memory: true, simd: true });
    assert.equal(profiled.ok, true, JSON.stringify(profiled));
    // Warmed up past the tier-up unprofiled (web_profiled.mjs), then two profiled runs: each run's kernels, none
    // lost to stdout.
    assertWebProfiledWarmUp(profiled, TIMING);
    const runs = TIMING.warmup_iterations + 2;
    const kernels = profiled.events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
    assert.equal(profiled.model_runs.length, runs);
    assert.ok(kernels.length > 0 && kernels.length % runs === 0, `${kernels.length} kernel events over ${runs} runs`);
    // The timed runs: the tier-up (≥ 2 s), V8's compiler waited for, then the warm-up asked for, counted together.
    assert.equal(timed.ok, true, JSON.stringify(timed));
    assert.ok(timed.warmup_ms >= 2000 && timed.warmup_iterations > TIMING.warmup_iterations, JSON.stringify(timed));
    assertWaitedForTheCompiler(timed.compile, timed);

    const noSab = await converse(['--no-harmony-sharedarraybuffer'], [{ op: 'hello' }, load]);
    assert.equal(noSab.code, 0, noSab.stderr);
    assert.deepEqual(noSab.replies[1].wasm, { threads: 1, shared_memory: false, simd: true });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
