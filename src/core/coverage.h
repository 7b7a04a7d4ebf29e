#pragma once
// Coverage per iteration: how much of each profiled run its kernels account for. Σ of per-kernel medians over the
// median run reads noise as missing time (a preemption lands in a different kernel each iteration, and every
// kernel's median drops it); per iteration, Σ kernel times of iteration i / that iteration's run, then the median
// over iterations, does not. What the kernels do not cover is the runtime's own time between them (scheduling,
// thread-pool wake-ups, allocations, the executor's loop): the report's "between kernels" row.
#include <cstddef>
#include <vector>

#include "core/run_settings.h"

namespace rooflens {

// Layers adding up to this many plain runs carry the profiler's own cost inside their spans (lint's
// profiled-layers-inflated; generate's phases against their plain steps).
constexpr double kInflatedLayers = 1.25;

struct IterationCoverage {
  double coverage = 0;            // median over iterations of Σ kernel ms / run ms (0 without iterations)
  double between_kernels_ms = 0;  // median over iterations of run ms - Σ kernel ms, never negative
  size_t iterations = 0;          // iterations that had both a run time and kernel times
};

// kernel_ms[k][i]: kernel k's time in iteration i (0 when it did not run); run_ms[i]: iteration i's run as the
// runtime's own profile timed it (the clock the kernels are on). Iterations beyond either list are ignored.
IterationCoverage iteration_coverage(const std::vector<std::vector<double>>& kernel_ms, const std::vector<double>& run_ms);

// The parts of the time between kernels that the source timed per iteration (its executor's span, fences, the
// calling thread's share of parallel kernels), as medians over the iterations that have a run time and kernel
// times. `kernels`: kernels per iteration. profiler_ms is left to the caller (it needs the plain run's timing).
// With the source's calibration of its profiler (samples.profiler_gap_ms), also the profiler's bookkeeping between
// kernels and the coverage without it: per iteration, bookkeeping = min(the executor's time between kernels,
// kernels x gap) — the calibration is a lower bound, so this never sets aside more than the profiler spent — and
// coverage = Σ kernel ms / (run ms − bookkeeping).
DispatchBreakdown dispatch_breakdown(const std::vector<std::vector<double>>& kernel_ms, const std::vector<double>& run_ms,
                                     const DispatchSamples& samples, int64_t kernels);

}  // namespace rooflens
