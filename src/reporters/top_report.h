#pragma once
// `rooflens top`: the layers of one profiled run after select_layers (filter → time filter → aggregate → sort →
// top), with a short summary of the run, rendered as a terminal table, CSV, JSON or Markdown. The columns are
// one registry shared by every format: the terminal and Markdown show human units, CSV and JSON exact values.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/report.h"
#include "core/text_table.h"
#include "reporters/layer_query.h"

namespace rooflens {

struct TopView {
  LayerQuery query;
  std::optional<int64_t> batch;       // the run whose batch is this (first such run); default: the first run
  std::string print_only;             // "" (both) | "summary" | "layers"
  std::string source;                 // the report's path, shown in the summary
};

struct TopResult {
  const Report* report = nullptr;
  size_t run_index = 0;
  LayerSelection selection;
  TopView view;
  const ProfileRun& run() const { return report->runs.at(run_index); }
};

// Index of the run --batch chooses; UsageError "--batch N: ..." listing the report's batches when none matches.
size_t choose_run(const Report& r, std::optional<int64_t> batch);
// Chooses the run and selects its layers (UserError when the run has no layer times and layers are wanted).
TopResult run_top(const Report& r, const TopView& v);

using TopFormatter = std::function<std::string(const TopResult&)>;
const std::map<std::string, TopFormatter>& top_formats();   // table, csv, json, md
const std::vector<std::string>& top_print_only_values();      // summary, layers

// The rows as a table: human units (terminal, Markdown) or exact values with machine keys as titles (CSV).
// `only` keeps just these column keys (rank, time_ms, share, cumulative, name, op, layers, onnx_nodes, flops,
// macs, gflops, bytes, gbps, intensity, bound, efficiency, roof, provider, cost_known, input_shapes,
// output_shapes), in registry order; empty = every column of the mode.
TextTable top_table(const TopResult& t, bool exact, const std::vector<std::string>& only = {});
// The human table as GitHub-flavoured Markdown, model-supplied names in code spans.
std::string top_markdown_table(const TopResult& t, const std::vector<std::string>& only = {});

}  // namespace rooflens
