// What ORT's profiler itself spends between two kernel events, per kernel — measured where the model is profiled (the
// same WebAssembly module, threads and tier-up), on a chain of one-float kernels, so the report can tell the model's
// own time between kernels from the profiler's (docs/ortweb.md, "What ORT's profiler costs"). Both hosts: the Node
// host runs it on its own module (web_build.mjs), the page on its own (chromium_page.mjs); the parsing is the host's.
//
// A profiled run of the chain spends, between one kernel event's end and the next one's start, the executor's own
// step plus the profiler's bookkeeping (recording the event that ended, gathering the next kernel's input sizes and
// shapes, resetting the thread pool's counters). A plain run spends, per kernel, the executor's step *and* the kernel
// itself: the difference of two plain chains' times (kLongChainNodes and kShortChainNodes long, timed around the call,
// so the call's own cost cancels) over their difference in kernels. So
//   profiled gap − plain time per kernel  ≤  the profiler's bookkeeping per kernel,
// a lower bound: subtracting it from a model's time between kernels never takes away more than the profiler added.
// ORT writes whole microseconds and truncates each event's duration, so a gap read from the profile is ~0.5 µs long;
// the model's time between kernels is read from the same events and carries the same bias, which the subtraction
// removes.
import { median } from './stats.mjs';

export const kLongChainNodes = 64;   // the long chain: the profiler's warm-up model too (web_build.mjs)
export const kProfilerWarmMs = 300;  // the profiler's warm-up on it, at least (web_build.mjs's profilerWarmTiming)
export const kShortChainNodes = 8;
export const kGapBlocks = 5;          // blocks of plain runs, each followed by profiled runs
export const kGapProfiledRuns = 12;   // profiled runs per block
export const kGapPlainRuns = 100;     // plain runs of each chain per block, timed as one: a page's clock without
                                      // cross-origin isolation ticks in 100 µs, more than a run of the chain takes

// Blocks of plain runs of the long and the short chain, each block followed by profiled runs of the long one, after
// one untimed block of each: the inference sessions are new, and their first runs were measured up to 3x slower in a
// fresh Chromium page (a plain kernel 1.0 µs in the first block against 0.3 µs later), which made the bound
// 0.7–2.4 µs from one runner to the next. Returns the plain runs' mean ms per block ({long, short}) and how many
// profiled runs were measured (the last model_run events of the profiled inference session's profile).
export async function gapRuns({ plainLong, plainShort, profiled }, clock) {
  for (const run of [plainLong, plainShort])
    for (let i = 0; i < kGapPlainRuns; i++) await run();
  for (let i = 0; i < kGapProfiledRuns; i++) await profiled();
  const timedBlock = async (run) => {
    const t0 = clock();
    for (let i = 0; i < kGapPlainRuns; i++) await run();
    return Number(clock() - t0) / 1e6 / kGapPlainRuns;
  };
  const plainMs = { long: [], short: [] };
  for (let b = 0; b < kGapBlocks; b++) {
    plainMs.long.push(await timedBlock(plainLong));
    plainMs.short.push(await timedBlock(plainShort));
    for (let i = 0; i < kGapProfiledRuns; i++) await profiled();
  }
  return { plainMs, profiledRuns: kGapBlocks * kGapProfiledRuns };
}

// The whole measurement in one process: `create(which)` makes the inference session of 'long', 'short' (plain) or
// 'profiled' (the long chain, profiling), each run on `feeds`; gapRuns on `clock`; `profileText(session)` ends the
// profiled one's profiling and answers its text. The sessions are released whatever happens. Returns
// profilerGapOfText's answer. (The Chromium page's sessions are made by the runner, so the page calls gapRuns itself.)
export async function chainGap({ create, feeds, profileText, clock }) {
  const sessions = [];
  try {
    for (const which of ['long', 'short', 'profiled']) sessions.push(await create(which));
    const [plainLong, plainShort, profiled] = sessions;
    const runs = await gapRuns({ plainLong: () => plainLong.run(feeds), plainShort: () => plainShort.run(feeds),
                                 profiled: () => profiled.run(feeds) }, clock);
    return profilerGapOfText(await profileText(profiled), runs, kLongChainNodes);
  } finally {
    for (const s of sessions) await s.release().catch(() => {});
  }
}

// The mean stretch between consecutive kernel events inside one model_run event, in µs, or null without two kernels.
function meanGapUs(kernels) {
  if (kernels.length < 2) return null;
  let sum = 0;
  for (let i = 1; i < kernels.length; i++) sum += kernels[i].ts - (kernels[i - 1].ts + kernels[i - 1].dur);
  return sum / (kernels.length - 1);
}

// From the profiled chain's events (ORT's profile, parsed) and gapRuns' result: {gap_us, profiled_gap_us,
// plain_kernel_us, kernels, runs}, gap_us never negative; null when the profile has no such runs (a profile without
// kernel events cannot say). `nodes`: the long chain's length.
export function profilerGapOf(events, { plainMs, profiledRuns }, nodes) {
  if (!Array.isArray(events) || !plainMs.long.length || !plainMs.short.length || nodes <= kShortChainNodes) return null;
  const runs = events.filter((e) => e && e.cat === 'Session' && e.name === 'model_run')
    .sort((a, b) => a.ts - b.ts).slice(-profiledRuns);
  const kernels = events.filter((e) => e && e.cat === 'Node' && typeof e.name === 'string' &&
                                       e.name.endsWith('_kernel_time')).sort((a, b) => a.ts - b.ts);
  const gaps = [];
  let k = 0;
  for (const r of runs) {
    while (k < kernels.length && kernels[k].ts < r.ts) k++;
    const inRun = [];
    for (let j = k; j < kernels.length && kernels[j].ts <= r.ts + r.dur; j++) inRun.push(kernels[j]);
    const g = meanGapUs(inRun);
    if (g !== null && inRun.length === nodes) gaps.push(g);
  }
  if (!gaps.length) return null;
  const profiledGapUs = median(gaps);
  // The quickest block of each chain: a block a preemption or a collection lands in is only ever slower, and the
  // median of a few blocks once took such a block of the short chain for its time (a plain kernel of 0 µs).
  const plainKernelUs = Math.max(0, (Math.min(...plainMs.long) - Math.min(...plainMs.short)) * 1000 /
                                    (nodes - kShortChainNodes));
  return { gap_us: Math.max(0, profiledGapUs - plainKernelUs), profiled_gap_us: profiledGapUs,
           plain_kernel_us: plainKernelUs, kernels: nodes, runs: gaps.length };
}

// The same from the profile's text (the chain's node names need no repair: readOrtProfile's case does not arise);
// null when the text does not parse.
export function profilerGapOfText(text, runs, nodes) {
  let events;
  try {
    events = JSON.parse(text);
  } catch {
    return null;
  }
  return profilerGapOf(events, runs, nodes);
}
