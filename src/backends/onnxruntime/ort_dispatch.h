#pragma once
// What an ORT profile says about the time between kernels and about its intra-op thread pool, per measured run:
//   - `SequentialExecutor::Execute` (a `Session` event) inside each `model_run`: the executor's span (the outermost
//     one: a subgraph's executor runs inside it); the rest of the run is inference session entry and exit (input
//     checks and binding, output fetching);
//   - `<node>_fence_before` / `_fence_after` (Node events, older versions and some providers): waits around kernels;
//   - each kernel's args.thread_scheduling_stats: "" when the inference session has no pool (one thread), else
//     {"main_thread": {..., "block_size": [...], "Distribution", "DistributionEnqueue", "Run", "Wait", "WaitRevoke"
//     (µs of this kernel)}, "sub_threads": {"<tid>": {"num_run" (tasks run so far in the inference session), "core"}}}.
// The pool is 1 + the number of sub_threads (the calling thread takes part in every parallel section); a worker
// worked when its num_run grew during the measured runs.
#include <optional>

#include "backends/onnxruntime/ort_profile.h"
#include "core/run_settings.h"

namespace rooflens::ort {

bool is_fence(const OrtProfileEvent& e);

// Per run of [first_run, first_run + runs): executor span, fences, the calling thread's pool hand-off and wait
// (summed over the run's kernels), ms; and the kernels per run that ran a parallel section (median over runs).
// Lists stay empty when the profile has no such events.
DispatchSamples dispatch_samples(const OrtProfile& profile, int first_run, int runs);

// The pool as the kernels of those runs show it; nullopt when no kernel carries thread_scheduling_stats.
std::optional<ThreadsObserved> threads_observed(const OrtProfile& profile, int first_run, int runs);

}  // namespace rooflens::ort
