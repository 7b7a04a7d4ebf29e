#pragma once
// The selection behind `rooflens top`, after MegEngine's profile_analyze. From one run's layers, in this order:
//   1. filter      --type (op is one of) and --name (regex searched in the layer name and its ONNX node names)
//   2. time filter --min-time / --max-time on each layer's own time (ms, inclusive)
//   3. aggregate   --aggregate-by type: one row per op type; --aggregate sum|mean|max|min applied to time,
//                  FLOPs, MACs, bytes (and efficiency); FLOP/s, GB/s and intensity derived from the results
//   4. sort        --order-by COL (descending; +COL ascending), ties in execution order
//   5. top         --top N rows (0 = all)
// Shares are of the whole run's layer time (filters never inflate them); cumulative is the running share in
// sorted order.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/report_run.h"

namespace rooflens {

struct LayerQuery {
  std::vector<std::string> types;                 // op types to keep (empty = all)
  std::string name_regex;                         // ECMAScript regex ("" = all)
  std::optional<double> min_time_ms, max_time_ms;
  std::string aggregate_by;                       // "" = one row per layer; a key of layer_group_keys()
  std::string aggregate = "sum";                  // a key of layer_aggregates()
  std::string order_by = "time";                  // a key of layer_sort_keys(), "+key" for ascending
  size_t top = 10;                                // 0 = all rows
};

// One row of the selection: a layer, or a group of layers when aggregated.
struct LayerRow {
  std::string name, op;                           // group rows: name = op = the group key
  std::vector<std::string> onnx_nodes;
  int64_t layers = 1;                             // layers in this row
  int64_t index = 0;                              // execution position of the (first) layer
  double time_ms = 0, share = 0, cumulative = 0;
  double flops = 0, macs = 0, bytes = 0;          // double: a mean over a group is fractional
  double gflops = 0, gbps = 0, intensity = 0, efficiency = 0;
  std::string bound;                              // "compute" | "memory" | "mixed" (groups) | "" (no roofs)
  std::string roof, provider;
  bool alias = false, cost_known = true;
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;  // layers only
};

struct LayerSelection {
  std::vector<LayerRow> rows;                     // sorted and cut to --top
  bool aggregated = false;
  size_t layers_in_run = 0, layers_matched = 0;   // matched = after filter and time filter
  size_t rows_before_top = 0;
  double run_time_ms = 0;                         // Σ time of every layer of the run (the share denominator)
  double matched_time_ms = 0, matched_flops = 0, matched_bytes = 0;
};

// Throws UsageError naming the flag for an unknown column, aggregate, group key or a bad regex.
LayerSelection select_layers(const ProfileRun& run, const LayerQuery& q);

struct OrderBy {
  std::string key;
  bool ascending = false;
};
OrderBy parse_order_by(const std::string& spec);     // "+gflops" -> {gflops, ascending}
void check_name_regex(const std::string& pattern);    // UsageError "--name: ..." when it does not compile

// Registries (the CLI lists their keys in --help).
using RowKey = std::function<double(const LayerRow&)>;
using Aggregate = std::function<double(const std::vector<double>&)>;
using GroupKey = std::function<std::string(const Layer&)>;
const std::map<std::string, RowKey>& layer_sort_keys();      // time, flops, macs, bytes, gflops, gbps, ...
const std::map<std::string, Aggregate>& layer_aggregates();  // sum, mean, max, min
const std::map<std::string, GroupKey>& layer_group_keys();   // type
std::vector<std::string> keys_of_sort();                      // in a fixed, documented order

}  // namespace rooflens
