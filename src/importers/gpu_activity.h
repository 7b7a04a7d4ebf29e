#pragma once
// What the GPU-trace importers (kineto, nsys) share: activities a GPU ran (kernels, copies, memsets), each already
// placed in one iteration of the run, turned into the measurement's kernels, per-iteration times and the run time
// the "between kernels" row is measured against. A GPU trace times every activity on the device's own clock, so
// the time between kernels is where the GPU sat idle, not a CPU runtime's dispatch.
#include <cstddef>
#include <string>
#include <vector>

#include "core/measurement.h"

namespace rooflens::importers {

struct GpuActivity {
  std::string key;       // activities with one key are one kernel record across iterations (the format chooses)
  KernelRecord record;   // name, op, device, kind, ... (per_iteration_ms and start_ms are filled here)
  double start_ms = 0, end_ms = 0;  // on the trace's clock
  size_t iteration = 0;  // index into the iterations the importer found
};

// How repeats of one key inside an iteration become records.
enum class Repeats {
  apart,  // the k-th launch of a key in an iteration is a record of its own (one kernel per launch position)
  summed, // one record per key; its time in an iteration is the sum over its launches there, its bytes (when
          // the activities have them) the mean per iteration of their sum
};

struct GpuRun {
  size_t iterations = 0;           // iterations that had at least one activity (the others are dropped)
  size_t overlapped_iterations = 0; // iterations where activities ran at once on several streams
};

// Fills m.kernels (in order of first start), m.profiled_runs_ms and, when `wall_ms` (per iteration, as the source
// timed it on the host; empty: not timed) is empty, the latencies from the GPU span. The run time of an iteration
// is Σ activity time + the GPU's idle gaps between its first start and last end: the span when nothing overlapped,
// so "between kernels" (run − Σ) is exactly the idle time even when streams ran at once.
GpuRun fill_gpu_measurement(Measurement& m, std::vector<GpuActivity> activities, size_t iterations,
                            const std::vector<double>& wall_ms, Repeats repeats);

// The base name of a C++ kernel name as CUPTI demangles it: "void at::native::foo<float, 4>(int, float*)" ->
// "at::native::foo" ("(anonymous namespace)::" dropped); names without templates or arguments are kept.
std::string kernel_base_name(const std::string& demangled);

// "ProfilerStep#12" / "Step 10 to 20" -> "ProfilerStep#" / "Step # to #": the name a series of iteration ranges
// shares once its counters are set aside.
std::string without_digits(const std::string& name);

}  // namespace rooflens::importers
