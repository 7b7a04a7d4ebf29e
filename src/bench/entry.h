#pragma once
// One model × configuration, start to finish, on a live runner: load, (test fault), validate, benchmark,
// unload. Every outcome becomes a BenchEntry — pass, fail (stage load|run|validate), timeout, crash or skip,
// with a reason; nothing a model does escapes as an exception.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "bench/plan.h"
#include "bench/model_source.h"
#include "core/bench_results.h"

namespace rooflens::bench {

// What the configurations of one model share: how to generate its inputs, the reference outputs when it has no
// test data (the first configuration's), its node count.
struct ModelContext {
  explicit ModelContext(const BenchModel& m) : model(m) {}
  const BenchModel& model;
  std::optional<FeedSpec> generated;                   // inputs when there is no test data
  std::optional<std::vector<TensorValue>> reference;   // first configuration's outputs (no test data)
  std::string reference_label;
  bool reference_tried = false;                        // the first configuration ran (or was tried) for it
  std::optional<int64_t> model_nodes;
};

struct EntrySetup {
  const BenchPlan& plan;
  std::string config_label;
  bool is_reference_config = false;   // the first configuration (its outputs are the reference without test data)
  bool has_other_configs = false;
  std::filesystem::path work_dir;     // for profiled runs
  int64_t round = 1;                  // --repeat: rounds after the first only time the model (no validation,
                                      // no profiled run for metrics)
};

// Round 1 is the whole entry; a later round returns just that round (its samples, or why it did not pass).
BenchEntry run_entry(ModelContext& ctx, const EntrySetup& setup, LiveRunner& runner);

// Loads the model with the first configuration and keeps its outputs as the reference (resumed runs, where the
// first configuration finished earlier). Never throws; on failure the context stays without a reference.
void compute_reference(ModelContext& ctx, const BenchPlan& plan, const std::string& label, LiveRunner& runner);

// "a b c": newlines and tabs as spaces, at most `max` characters (…).
std::string one_line(const std::string& text, size_t max = 1000);

}  // namespace rooflens::bench
