// The native build's profiler gap: profiler_gap.mjs's measurement made with onnxruntime-node, as web_build.mjs's
// warmProfilerCode makes it for the web build. ORT's native profiler does the same bookkeeping between two kernel
// events (records the event that ended, gathers the next kernel's input shapes and sizes, resets the pool's counters),
// and a model of many small kernels (swin_t: 2,437 kernels, 12 us between each two at 2 threads) reads as if the
// runtime lost that time. Measured in the runner, right before the model's profiled runs, on inference sessions with
// the model's own options (threads, spinning, optimisation level), each chain's profile in a private directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ort } from './ort.mjs';
import { nowNs } from './clock.mjs';
import { log } from './errors.mjs';
import { privateProfileDir, profileFileIn } from './ort_profile.mjs';
import { chainGap, kGapBlocks, kGapProfiledRuns } from './profiler_gap.mjs';
import { profilerShortModel, profilerWarmModel } from './web_build.mjs';

// One calibration: the chains' inference sessions with the model's options, the profiled one writing into `dir`.
function calibrateOnce(options, dir) {
  const profiled = { ...options, enableProfiling: true, profileFilePrefix: path.join(dir, 'ort_profile') };
  return chainGap({
    create: (which) => ort.InferenceSession.create(which === 'short' ? profilerShortModel() : profilerWarmModel(),
                                                   which === 'profiled' ? profiled : options),
    feeds: { x: new ort.Tensor('float32', new Float32Array([1]), [1]) },
    profileText: (s) => {
      s.endProfiling();
      const file = profileFileIn(dir);
      const text = fs.readFileSync(file, 'utf8');
      fs.rmSync(file);
      return text;
    },
    clock: nowNs });
}

// The profiled chain alone, run as often as the calibration runs it, its profile dropped: what warms the C allocator
// for the profiler's events.
async function warmProfiler(options, dir) {
  const s = await ort.InferenceSession.create(profilerWarmModel(), { ...options, enableProfiling: true,
                                                                    profileFilePrefix: path.join(dir, 'ort_profile') });
  try {
    const feeds = { x: new ort.Tensor('float32', new Float32Array([1]), [1]) };
    for (let i = 0; i < kGapProfiledRuns * (kGapBlocks + 1); i++) await s.run(feeds);
    s.endProfiling();
    fs.rmSync(profileFileIn(dir));
  } finally {
    await s.release().catch(() => {});
  }
}

// {gap_us, profiled_gap_us, plain_kernel_us, kernels, runs} (profiler_gap.mjs's), or null when the calibration could
// not run (it is then left out, never guessed). The profiler is warmed first: a process's first calibration read ~11 us
// a kernel against ~5 us for every later one (Zen 5, onnxruntime-node 1.30, 1 or 2 threads) — the profiler's first
// events land on memory the C allocator had not handed out yet — and the model's profiled inference session, created
// after it, runs on memory the calibration's sessions gave back: the warmed figure is the bound.
export async function nativeProfilerGap(options) {
  const dir = privateProfileDir(os.tmpdir());
  const base = { ...options };
  delete base.optimizedModelFilePath;
  try {
    await warmProfiler(base, dir);
    return await calibrateOnce(base, dir);
  } catch (e) {
    log(`no profiler gap: the calibration chains did not run (${String(e.message).split('\n')[0]})`);
    return null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
