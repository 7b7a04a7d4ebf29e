#pragma once
// What the one-shot backend (`profile`) and the live runner (`bench`) both do with a loaded model: a timed run
// with profiling off, then, when asked, a profiled run in its own inference session whose kernel times are summed per
// optimized-graph node. Shared so both measure the same way.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/onnxruntime/ort_runner.h"

namespace rooflens::ort {

// The timed run with profiling off on a loaded runner: the e2e samples, and with `memory_probe` the inference session's
// first run before the warm-up with a peak of its own (MemoryMeasured::probe_peak_bytes). Throws RunnerError.
Measurement timed_measurement(OrtRunner& runner, const Inputs& inputs, const TimingOptions& timing,
                              std::chrono::milliseconds timeout, bool memory_probe = false);
// The profiled run on a loaded runner (its loaded inference session when that is the profiled one): kernels, dispatch,
// threads, and the executed graph — the profiled inference session's own (read from the graph it dumped: node names ORT
// generates differ between inference sessions). When the runtime refuses the profiled run but the runner lives,
// `m.profile_error` says why. Throws RunnerError otherwise.
void add_profiled_measurement(Measurement& m, OrtRunner& runner, const Inputs& inputs, const TimingOptions& timing,
                              const std::filesystem::path& work_dir, std::chrono::milliseconds timeout);
// Both on one loaded runner (the live runner: `bench`, turns). Sets `stage` to "run" or "profile" before each step,
// so a RunnerError caught by the caller can say where it happened.
Measurement measure_loaded(OrtRunner& runner, const Inputs& inputs, const TimingOptions& timing,
                           const std::filesystem::path& work_dir, std::chrono::milliseconds timeout,
                           std::string& stage, bool memory_probe = false);

// Per-node kernel times of the measured profiled iterations, in execution order of the first one.
std::vector<KernelRecord> kernel_records(const ProfiledRunResult& p);
// The same for runs [first_run, first_run + runs) of a profile (one phase of a generation profile).
std::vector<KernelRecord> kernel_records(const OrtProfile& profile, int first_run, int runs);

// The graph ORT ran, read from the file it dumped (then deleted: it can be as large as the model). A file that
// cannot be read leaves the kernels to be matched by name: `problem` then says why.
std::optional<GraphView> executed_graph(const std::optional<std::filesystem::path>& file, std::string& problem);

// The message fields for feeding the model as `feed` says.
Inputs inputs_of(const FeedSpec& feed);

// The runner's memory around inference session creation (from `load`) joined to the timed runs' peak measure_loaded
// took; the measurement's memory is dropped when either side is missing.
void add_load_memory(Measurement& m, const LoadResult& load);
// The runtime's calibration constants a load returned (LoadExtras::runtime_cost: measured in a process of their own).
void add_runtime_cost(Measurement& m, const LoadResult& calibrated);

// A RunnerError as the backend interface reports it: kind error|timeout|died, the runner's error code.
BackendError backend_error(const std::string& stage, const RunnerError& e);

// Applies one `-B onnxruntime:key=value` option: ORT's own names (OrtSessionOptions::set) plus the short forms
// opt=LEVEL and threads=N. Throws UsageError.
void apply_ort_option(OrtSessionOptions& o, const std::string& key, const std::string& value);

// The inference session options of a -B spec: its options, and --opt-level as graphOptimizationLevel unless an option
// set it. Throws UsageError.
OrtSessionOptions session_options(const BackendSpec& spec);

}  // namespace rooflens::ort
