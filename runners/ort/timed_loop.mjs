// The timed loop of run_timed and generate, with the same rules as the C++ loop of in-binary runners
// (src/backends/common/timed_loop.*): warm-up ≥ warmup_iterations runs and ≥ warmup_ms; measured ≥ iterations and
// ≥ duration_s, or, adaptive, until the median's distribution-free confidence interval is within ±adaptive_rel_ci;
// always capped by max_iterations / max_duration_s. Only `once` is inside the timer.
// One specification holds the two loops to the same rules: tests/fixtures/timed_loop_spec.json (scripted call
// durations on a fake clock in, stop reason, samples and interval out), run through both by
// tests/runners/timed_loop_spec.test.mjs and tests/unit/test_timed_loop_spec.cpp.
import { nowNs, nsToMs } from './clock.mjs';
import { median, medianCi } from './stats.mjs';

// `timing` is fields.mjs's timingOf(msg); `warmOnce` runs one warm-up iteration (by default `once`); `clock` reads
// now in integer nanoseconds (a BigInt; by default the runner's monotonic clock; the specification's test gives a
// fake one that only the calls advance); `atStart`, when given, is called once between the warm-up and the first
// measured iteration, outside every timer (run.mjs reads the process's page-fault count there).
export async function runTimedLoop(timing, once, warmOnce = once, clock = nowNs, atStart = null) {
  const minIters = timing.iterations, minMs = timing.durationMs;
  const maxIters = timing.maxIterations, maxMs = timing.maxDurationMs;
  const adaptive = timing.adaptive;

  const { warmupIterations: warm, warmupMs } = await warmUp(timing, warmOnce, clock);
  if (atStart) atStart();

  // Measured: at least `iterations` AND at least duration_s; adaptive additionally waits for the median's
  // CI to be within ±rel_ci; capped by max_iterations / max_duration_s.
  const lat = [];
  let stop = null, ci = null, nextCheck = minIters;
  const m0 = clock();
  for (;;) {
    const t0 = clock();
    await once();
    const t1 = clock();
    lat.push(nsToMs(t1 - t0));
    const elapsed = nsToMs(t1 - m0);
    const minMet = lat.length >= minIters && elapsed >= minMs;
    if (minMet && !adaptive) { stop = 'min_reached'; break; }
    if (minMet && adaptive && lat.length >= nextCheck) {
      ci = medianCi(lat, adaptive.confidence);
      if (ci && ci.low >= ci.median * (1 - adaptive.rel_ci) && ci.high <= ci.median * (1 + adaptive.rel_ci)) {
        stop = 'ci_reached';
        break;
      }
      nextCheck = Math.max(lat.length + 1, Math.ceil(lat.length * 1.05));
    }
    if (lat.length >= maxIters) { stop = 'max_iterations'; break; }
    if (elapsed >= maxMs) { stop = 'max_duration'; break; }
  }
  const wallS = Number(clock() - m0) / 1e9;
  if (adaptive && stop !== 'ci_reached') ci = medianCi(lat, adaptive.confidence);
  return { latenciesMs: lat, wallS, warmupIterations: warm, warmupMs, stopReason: stop, medianCi: ci };
}

// Warm-up: at least warmup_iterations runs AND at least warmup_ms (capped by max_duration_s). With
// `timing.untilSteady` it goes on while the runs still get faster: until the median of the last `window` runs
// (`timing.steadyWindow`, 5 unless set) is no more than 5% below the median of the window before, so the measured runs
// never include a phase the process leaves by itself — the engine replacing its baseline code with optimised code
// (web_build.mjs), or the heap still growing under the output copies of a generation's first requests (generate.mjs).
export async function warmUp(timing, warmOnce, clock = nowNs) {
  const w0 = clock();
  const ms = [];
  const window = timing.steadyWindow ?? 5;
  const elapsed = () => nsToMs(clock() - w0);
  const steady = () => {
    if (!timing.untilSteady) return true;
    if (ms.length < 2 * window) return false;
    return median(ms.slice(-window)) >= 0.95 * median(ms.slice(-2 * window, -window));
  };
  while (ms.length < timing.warmupIterations || elapsed() < timing.warmupMs || !steady()) {
    const t0 = clock();
    await warmOnce();
    ms.push(nsToMs(clock() - t0));
    if (elapsed() > timing.maxDurationMs) break;
  }
  return { warmupIterations: ms.length, warmupMs: elapsed() };
}

// run_timed's reply for a loop of runTimedLoop's (both hosts): the process's memory figures are the caller's.
export function timedReply(loop, timing, { peakRssBytes, rssBytes, memory }) {
  return {
    iterations: loop.latenciesMs.length,
    latencies_ms: loop.latenciesMs,
    wall_s: loop.wallS,
    warmup_iterations: loop.warmupIterations,
    warmup_ms: loop.warmupMs,
    stop_reason: loop.stopReason,
    median_ci_ms: timing.adaptive ? (loop.medianCi ? [loop.medianCi.low, loop.medianCi.high] : null) : undefined,
    peak_rss_bytes: peakRssBytes,
    rss_bytes: rssBytes,
    memory,
  };
}
