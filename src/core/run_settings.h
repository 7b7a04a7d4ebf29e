#pragma once
// What a run really ran with, in neutral terms: every option that shapes performance with its effective value and
// where that value came from, what the runtime's own profile showed of its thread pool, and where the time between
// kernels went. A backend fills them (it alone knows its options' names and defaults); assemble_run carries them
// into the run; the views show them. JSON in docs/report-schema.md ("settings", "threads_observed", "dispatch").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rooflens {

// Where an effective value came from.
enum class SettingSource {
  user,             // the user gave it (--threads, -B key=value, a model list's options)
  rooflens,         // rooflens chose it and passed it to the runtime explicitly (the note says why)
  runtime_default,  // not passed: the runtime's documented default applies (the value is that default, labelled so)
  observed,         // read back from the runtime while it ran (its own report of the value)
};
NLOHMANN_JSON_SERIALIZE_ENUM(SettingSource, {{SettingSource::user, "user"},
                                             {SettingSource::rooflens, "rooflens"},
                                             {SettingSource::runtime_default, "runtime_default"},
                                             {SettingSource::observed, "observed"}})
const char* to_string(SettingSource s);

// One performance option of a run. Names are neutral and shared by every backend: intra_op_threads,
// inter_op_threads, execution_mode, spinning, affinity, opt_level, device, memory_arena, memory_pattern, fusion.
struct RunSetting {
  std::string name;
  std::string value;     // the effective value as text ("2", "on", "all", "unpinned")
  SettingSource source = SettingSource::runtime_default;
  std::string option;    // how the backend spells the option ("intraOpNumThreads"); "" when it has none
  std::string note;      // why this value: rooflens' reason, or where the runtime documents its default
};

// The intra-op thread pool as the runtime's own profile of the measured iterations shows it.
struct ThreadsObserved {
  int64_t pool = 0;                // threads of the pool, the calling thread included (1: no pool)
  std::optional<int64_t> working;  // of those, threads that ran part of a kernel (absent: the source cannot tell)
};

// Where "between kernels" goes: medians per profiled iteration, in ms, of what the source timed. Each part is a
// median of its own, so the parts need not add up to between_kernels_ms exactly; absent = the source has no such
// timing. Pool figures are time *inside* kernels (the calling thread's share of each parallel kernel).
struct DispatchBreakdown {
  int64_t kernels = 0;                          // kernels per iteration
  std::optional<double> outside_executor_ms;    // the run's span outside the runtime's executor (entering the
                                                // inference session, checking and binding inputs, fetching outputs)
  std::optional<double> executor_gaps_ms;       // inside the executor, between one kernel's end and the next's start
  std::optional<double> fences_ms;              // waits the runtime timed as fences around kernels
  std::optional<double> longest_gap_ms;         // the longest single stretch between the end of every kernel so far
                                                // and the next kernel's start: small when the time between kernels
                                                // is dispatch spread over every kernel, large when one place holds
                                                // it (work the profile did not time)
  std::optional<double> profiler_ms;            // profiled median − plain median (both timed around the call): what
                                                // profiling itself adds per iteration, mostly between kernels
  std::optional<double> profiler_gap_ms;        // the profiler's own bookkeeping between two kernel events, per
                                                // kernel, at least: the source's calibration on a chain of one-float
                                                // kernels in the same process (runners/ort/profiler_gap.mjs)
  std::optional<double> profiler_bookkeeping_ms;  // of the time between kernels in the executor, what that bound
                                                // puts on the profiler: min(executor gaps, kernels x gap)
  std::optional<double> coverage_without_profiler;  // median over iterations of Σ kernel ms / (run ms − that
                                                // bookkeeping): how much of the run the kernels cover once the
                                                // profiler's own time between them is set aside (core/coverage.h)
  std::optional<int64_t> parallel_kernels;      // kernels per iteration that handed work to the thread pool
  std::optional<double> pool_handoff_ms;        // inside those kernels: the calling thread handing out work
  std::optional<double> pool_wait_ms;           // inside those kernels: the calling thread waiting for the workers
};

// Per measured profiled iteration, what a source timed of its own dispatch (aligned with Measurement::
// profiled_runs_ms; a list is empty when the source has no such timing). assemble_run makes the breakdown.
struct DispatchSamples {
  std::vector<double> executor_ms;      // the executor's span in the run
  std::vector<double> fences_ms;
  std::vector<double> longest_gap_ms;   // per iteration: the longest stretch between consecutive kernels
  std::vector<double> pool_handoff_ms, pool_wait_ms;
  std::optional<int64_t> parallel_kernels;
  std::optional<double> profiler_gap_ms;  // the source's calibration of its profiler's bookkeeping per kernel
};

// The settings as one line: "intra_op_threads 2 (rooflens) · spinning on (runtime default) · ...".
std::string settings_text(const std::vector<RunSetting>& settings);
const RunSetting* find_setting(const std::vector<RunSetting>& settings, const std::string& name);

}  // namespace rooflens
