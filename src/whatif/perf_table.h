#pragma once
// The sparse perf-ratio table (Neural Engine semantics): for a weight shape, a sparsity pattern and a target
// sparse ratio, the perf ratio = dense latency / sparse latency; a sparse layer's target latency = its measured
// latency / perf ratio. Users edit the table: `whatif --write-perf-table FILE` lists the weight shapes of a
// report with the ratio rooflens would assume, `--perf-table FILE` reads it back.
//
// CSV, one row per entry, header `weight_shape,pattern,sparse_ratio,perf_ratio`:
//   768x3072,4x1,0.9,3.2      an exact weight shape ("768x3072"; a Conv weight "64x64x3x3")
//   *,4x1,0.9,2.5             any shape with this pattern and ratio
// Lookup: exact shape, else "*", else the ideal ratio 1 / (1 - sparse_ratio) (every zero skipped for free: an
// upper bound, labelled as such).
#include <optional>
#include <string>
#include <vector>

namespace rooflens {

struct PerfRatioRow {
  std::string weight_shape;   // "768x3072" or "*"
  std::string pattern;        // "4x1"
  double sparse_ratio = 0;    // 0.9
  double perf_ratio = 1;      // dense / sparse latency
};

struct PerfTable {
  std::vector<PerfRatioRow> rows;
};

struct PerfRatio {
  double value = 1;
  std::string source;         // "table row 768x3072", "table row *", "ideal 1/(1-0.9)"
};

// Throws UserError naming the file and line on malformed input.
PerfTable parse_perf_table(const std::string& text, const std::string& source);
PerfRatio lookup_perf_ratio(const PerfTable& t, const std::string& weight_shape, const std::string& pattern,
                            double sparse_ratio);
std::string perf_table_csv(const PerfTable& t);

}  // namespace rooflens
