#pragma once
// What `compare` compares: a profile report (Report) or bench results (BenchResults) turned into one form,
// items keyed by model × configuration, each with its status, failure, raw timing samples and (reports only)
// layers. The comparison never looks at a Report or BenchResults itself.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/bench_results.h"
#include "core/report.h"

namespace rooflens {

struct CompareItem {
  std::string model, config;
  std::string status;                    // status::k* (comparison.h)
  std::string error;                     // "stage: message" when failing or skipped ("" otherwise)
  std::vector<double> samples_ms;        // raw end-to-end latencies (profiling off)
  std::vector<int64_t> repetitions;      // samples per repetition (run) of samples_ms; empty = one run
  bool live_turns = false;               // repetitions after the first are turns of one live runner, not fresh
                                         // runs (core/repetitions.h; ProfileRun::repetitions_are_fresh_runs)
  LatencyStats stats;                    // as the source summarised them (n = 0 when not timed)
  uint64_t peak_rss_bytes = 0;           // the runner's own peak resident set (0: not measured)
  std::optional<double> page_faults_per_run;  // the runner's minor page faults per measured run (absent: not counted)
  std::optional<std::vector<Layer>> layers;  // profile reports: the run's layers (empty with --no-layers)
  // Profile reports only: the run's key. A failure that happened before the model loaded records the configuration
  // as requested (batch 0 and missing dims: "the model's own / the backend's default"; config_requested), a run
  // the one that ran (resolved), so such a failure can only be matched to a run through the key, never its label.
  std::optional<RunKey> profile_config;
  bool config_requested = false;
  // Profile reports: what can say why one side is slower (compare/why_slower.h).
  int64_t threads = 0;                   // the intra-op threads the run used (0: not known)
  std::string threads_note;              // why, when the runtime decided them (its intra_op_threads setting's note)
  std::string roofs_engine;              // ProfileRun::roofs_engine: "" the machine's native roofs
  std::string compute_roof;              // the highest fp32 compute roof its layers met, "name xN" ("" none)
  double compute_roof_gflops = 0;
};

// True when a failure's requested configuration could be the run's resolved one.
bool could_be_same_config(const RunKey& requested, const RunKey& ran);

struct CompareSource {
  std::string path;
  std::string kind;                      // "report" | "bench"
  std::string description;               // "squeezenet1_0 on onnxruntime-node 1.30.0 on node 20.20.2"
  std::string runtime;                   // compared between sides to warn when they differ ("" unknown)
  std::string backend_options;           // reports: "key=value ..." as applied (bench: part of each config)
  bool partial = false;
  std::vector<CompareItem> items;        // unique keys, in the source's order
};

inline constexpr const char* kReportSource = "report";
inline constexpr const char* kBenchSource = "bench";

// One configuration per run (its label, as `profile` prints it) and per failure. Failure kinds map to
// statuses: error -> fail, timeout -> timeout, died -> crash, interrupted -> skip (never ran to the end).
// A failure of exactly a run's configuration (a later repetition of --repeat failed) turns that run's item into
// the failure: a configuration that fails now and then is failing.
CompareSource source_from_report(const Report& report, const std::string& path);
// One item per entry (model × config label). A later entry with the same key replaces an earlier one (a
// resumed run that redid it).
CompareSource source_from_bench(const BenchResults& results, const std::string& path);

// PATH is a report JSON file, a bench results directory, or its results.json; the kind comes from the
// document's "schema". Throws UserError (one line naming the file) when it cannot be read or is neither.
CompareSource load_compare_source(const std::string& path);

}  // namespace rooflens
