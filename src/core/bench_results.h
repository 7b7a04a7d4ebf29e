#pragma once
// BenchResults: what `rooflens bench` finds when it runs a zoo of models (model × configuration), and what
// `rooflens compare` reads back from a results directory. It is the zoo-level sibling of Report: one entry per
// model × configuration, with the same latency statistics and raw samples as a profile run. Its JSON form
// ("schema": "rooflens.bench/1", results.json) is documented in docs/report-schema.md and round-trips
// losslessly (write -> read -> write gives the same bytes).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/output_check.h"
#include "core/report_hardware.h"
#include "core/report_run.h"
#include "core/tool_info.h"

namespace rooflens {

inline constexpr const char* kBenchSchema = "rooflens.bench/1";

// Where the work ran: per execution provider, its kernels and their share of the profiled time.
struct ProviderShare {
  std::string provider;           // "CPUExecutionProvider"
  int64_t nodes = 0;              // kernels of the optimized graph on this provider
  double time_ms = 0;             // Σ kernel medians on this provider
  double time_share = 0;          // time_ms / Σ over all providers
};

struct BenchMetrics {
  int64_t model_nodes = 0;        // nodes of the user's graph (main graph)
  int64_t kernels = 0;            // nodes of the graph the runtime ran (optimized graph)
  double fused_ratio = 0;         // 1 - kernels / model_nodes (0 when nothing was fused; can be < 0)
  std::vector<ProviderShare> providers;
};

struct BenchEntry {
  std::string model;              // display name, unique in the results (test directory name or file stem)
  std::string model_path;
  std::string config;             // the configuration's label (BenchConfig::label)
  std::string status;             // "pass" | "fail" | "timeout" | "crash" | "skip"
  std::string stage;              // where it stopped: "load" | "run" | "validate" | "" (pass)
  std::string error_type;         // short class for grouping: "ort", "input", "mismatch", "shape", ...
  std::string message;            // one line (ORT's own text for load/run errors; the reason for a skip)
  std::string stderr_tail;        // the runner's last stderr lines for crashes and timeouts
  double load_ms = 0;             // inference session creation
  double wall_s = 0;              // time this entry took, end to end
  LatencyStats latency_ms;        // benchmark mode; n = 0 otherwise
  std::vector<double> latencies_ms;  // raw samples behind latency_ms (for compare), round after round
  std::vector<int64_t> repetitions;  // samples per round (--repeat), partitioning latencies_ms; empty when not
                                     // timed, or from a run before --repeat (= one repetition)
  double throughput_per_s = 0;
  uint64_t peak_rss_bytes = 0;
  std::optional<Validation> validation;  // validate mode
  std::optional<BenchMetrics> metrics;   // benchmark mode, when the optimized graph could be read
};

struct BenchConfig {
  std::string label;              // "onnxruntime" or "onnxruntime:graphOptimizationLevel=all" (as given to -B)
  BackendInfo backend;
};

struct BenchOptionsUsed {          // what the run was asked to do (so a resumed run can check it matches)
  std::string mode;               // "benchmark" | "validate" | "both"
  double rtol = 0, atol = 0, percent_mismatch = 0;
  double timeout_s = 0;
  std::vector<std::string> sources;
  std::string filter;
  // Benchmark-mode timing (as `profile` spells it): warm-up runs (at least N and at least ms), measured runs
  // (at least N and at least s, at most max_iterations), profiled iterations for metrics (0: no profiled run).
  int64_t warmup_iterations = 0;
  double warmup_ms = 0;
  int64_t iterations = 0;
  double duration_s = 0;
  int64_t profile_iterations = 0;
  int64_t max_iterations = 0;     // cap on measured runs (keeps raw samples of sub-millisecond models bounded)
  int64_t repeat = 1;             // rounds over the zoo: timed runs per model × configuration, each a fresh runner
  std::string shard;              // "I/N" (--shard): which part of the models this run took; "" = all
};

struct BenchResults {
  std::string schema = kBenchSchema;
  ToolInfo tool;
  BenchOptionsUsed options;
  std::optional<MachineDesc> system;
  std::vector<BenchConfig> configs;
  std::vector<BenchEntry> entries;  // in completion order
  bool partial = false;           // the run was interrupted before every entry finished
};

std::string bench_results_to_json(const BenchResults& r, int indent = 2);
// Throws UserError with a one-line message on malformed input or a foreign schema.
BenchResults bench_results_from_json(const std::string& text);

// One entry as compact single-line JSON (no newline), as results directories journal them; and back.
// `round` > 1 marks a later round of --repeat (its own samples only, merged into the entry on reading the journal);
// it is written as a "round" key, absent for round 1. bench_entry_from_json throws UserError on malformed text and
// sets *round (1 when absent).
std::string bench_entry_to_json_line(const BenchEntry& e, int64_t round = 1);
BenchEntry bench_entry_from_json(const std::string& text, int64_t* round = nullptr);

}  // namespace rooflens
