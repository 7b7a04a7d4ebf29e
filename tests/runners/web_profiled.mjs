// What a run_profiled reply of the web build shows in either host (web_build.mjs's webProfiledTiming, wasm_memory.mjs):
// V8's tier-up ran before profiling, plain (at least 2 s, until the runs stop getting faster), and the profiler's own
// code on a small model of its own (at least kProfilerWarmMs, until steady); the profiled inference session then
// warmed up for `timing.warmup_iterations` runs only (each profiled run keeps WebAssembly memory); the memory guard
// saw the module's memory (at least the 256 pages ORT Web's glue starts with, within 4 GiB) and, for a small model,
// had nothing to stop; the profiler's gap was measured; the profiled runs waited for V8's compiler
// (assertWaitedForTheCompiler).
import assert from 'node:assert/strict';
import { kQuietShare, kQuietWindowMs } from '../../runners/ort/compiler_quiet.mjs';
import { kProfilerWarmMs } from '../../runners/ort/profiler_gap.mjs';

export function assertWebProfiledWarmUp(profiled, timing) {
  assert.ok(profiled.tier_up.model.warmup_ms >= 2000, JSON.stringify(profiled.tier_up));
  assert.ok(profiled.tier_up.profiler.warmup_ms >= kProfilerWarmMs, JSON.stringify(profiled.tier_up));
  assert.equal(profiled.warmup_iterations, timing.warmup_iterations);
  assert.equal(profiled.stopped_early, undefined);
  assert.ok(profiled.wasm_memory_bytes >= 256 * 65536 && profiled.wasm_memory_bytes <= 2 ** 32,
            String(profiled.wasm_memory_bytes));
  // The profiler's gap (profiler_gap.mjs), measured after that warm-up on the chain: every profiled run of it read,
  // a profiled gap and a plain time per kernel both measured, and the bound between 0 and the profiled gap.
  const g = profiled.profiler_gap;
  assert.ok(g, 'no profiler_gap in the reply');
  assert.equal(g.kernels, 64);
  assert.equal(g.runs, 60, JSON.stringify(g));
  assert.ok(g.profiled_gap_us > 0 && g.plain_kernel_us > 0, JSON.stringify(g));
  assert.ok(g.gap_us >= 0 && g.gap_us < g.profiled_gap_us, JSON.stringify(g));
  assertWaitedForTheCompiler(profiled.tier_up.compile, profiled);
}

// compiler_quiet.mjs's wait, as a reply reports it: V8's compiler threads were read (the page's renderer's, or the
// runner's own), at least one window was waited, and either the compiler went quiet or the reply warns that the runs
// did not wait it out.
export function assertWaitedForTheCompiler(compile, reply) {
  assert.ok(compile && typeof compile.busy_share === 'number', JSON.stringify(compile));
  assert.ok(compile.waited_ms >= kQuietWindowMs, JSON.stringify(compile));
  if (compile.quiet) assert.ok(compile.busy_share < kQuietShare && !reply.warnings, JSON.stringify(compile));
  else assert.match(reply.warnings.join(' '), /V8 was still compiling/);
}
