// CSV export: exact values (shortest round-trip decimals, integers as integers), RFC 4180 quoting via
// TextTable::csv, one table per file. Lists inside a cell are joined with ';', shapes written 1x3x224x224.
#include <set>
#include <utility>

#include "core/errors.h"
#include "core/repetitions.h"
#include "core/text_table.h"
#include "reporters/export.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

template <class T>
using Columns = std::vector<std::pair<std::string, std::function<std::string(const T&)>>>;

std::string num(uint64_t v) { return std::to_string(v); }
std::string num(int64_t v) { return std::to_string(v); }
std::string num(double v) { return exact(v); }
std::string flag(bool v) { return v ? "true" : "false"; }

// Every dim name any run or failure fixed, so all rows have the same columns.
std::vector<std::string> dim_names(const Report& r) {
  std::set<std::string> names;
  for (const auto& run : r.runs)
    for (const auto& kv : run.dims) names.insert(kv.first);
  for (const auto& f : r.failures)
    for (const auto& kv : f.dims) names.insert(kv.first);
  return {names.begin(), names.end()};
}

std::string dim_value(const std::map<std::string, int64_t>& dims, const std::string& name) {
  auto it = dims.find(name);
  return it == dims.end() ? "" : std::to_string(it->second);
}

// run (1-based), batch, threads, dim:NAME... — the configuration columns that start every row.
void add_config_columns(TextTable& t, const std::vector<std::string>& dims) {
  for (const char* c : {"run", "batch", "threads"}) t.columns.push_back({c});
  for (const auto& d : dims) t.columns.push_back({"dim:" + d});
}

std::vector<std::string> config_cells(const std::string& run, int64_t batch, int64_t threads,
                                      const std::map<std::string, int64_t>& dims, const std::vector<std::string>& names) {
  std::vector<std::string> cells{run, num(batch), num(threads)};
  for (const auto& d : names) cells.push_back(dim_value(dims, d));
  return cells;
}

const Columns<Layer>& layer_columns() {
  static const Columns<Layer> cols{
      {"name", [](const Layer& l) { return l.name; }},
      {"op", [](const Layer& l) { return l.op; }},
      {"provider", [](const Layer& l) { return l.provider; }},
      {"alias", [](const Layer& l) { return flag(l.alias); }},
      {"onnx_nodes", [](const Layer& l) { return join(l.onnx_nodes, ";"); }},
      {"time_ms", [](const Layer& l) { return num(l.time_ms); }},
      {"share", [](const Layer& l) { return num(l.share); }},
      {"start_ms", [](const Layer& l) { return num(l.start_ms); }},
      {"flops", [](const Layer& l) { return num(l.flops); }},
      {"macs", [](const Layer& l) { return num(l.macs); }},
      {"bytes", [](const Layer& l) { return num(l.bytes); }},
      {"cost_known", [](const Layer& l) { return flag(l.cost_known); }},
      {"intensity", [](const Layer& l) { return num(l.intensity); }},
      {"gflops", [](const Layer& l) { return num(l.gflops); }},
      {"gbps", [](const Layer& l) { return num(l.gbps); }},
      {"bound", [](const Layer& l) { return l.bound; }},
      {"efficiency", [](const Layer& l) { return num(l.efficiency); }},
      {"roof", [](const Layer& l) { return l.roof; }},
      {"input_shapes", [](const Layer& l) { return shapes_text(l.input_shapes, ";"); }},
      {"output_shapes", [](const Layer& l) { return shapes_text(l.output_shapes, ";"); }},
  };
  return cols;
}

std::string layers_csv(const Report& r) {
  auto dims = dim_names(r);
  TextTable t;
  add_config_columns(t, dims);
  t.columns.push_back({"index"});
  for (const auto& c : layer_columns()) t.columns.push_back({c.first});
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const ProfileRun& run = r.runs[i];
    for (size_t k = 0; k < run.layers.size(); ++k) {
      auto row = config_cells(std::to_string(i + 1), run.batch, run.threads, run.dims, dims);
      row.push_back(std::to_string(k));
      for (const auto& c : layer_columns()) row.push_back(c.second(run.layers[k]));
      t.rows.push_back(std::move(row));
    }
  }
  return t.csv();
}

RepetitionSpread spread_of(const ProfileRun& p) { return repetition_spread(p.latencies_ms, p.repetitions); }

const Columns<ProfileRun>& e2e_columns() {
  using P = const ProfileRun&;
  static const Columns<ProfileRun> cols{
      {"n", [](P p) { return num(p.latency_ms.n); }},
      {"min_ms", [](P p) { return num(p.latency_ms.min); }},
      {"max_ms", [](P p) { return num(p.latency_ms.max); }},
      {"mean_ms", [](P p) { return num(p.latency_ms.mean); }},
      {"median_ms", [](P p) { return num(p.latency_ms.median); }},
      {"p90_ms", [](P p) { return num(p.latency_ms.p90); }},
      {"p95_ms", [](P p) { return num(p.latency_ms.p95); }},
      {"p99_ms", [](P p) { return num(p.latency_ms.p99); }},
      {"std_ms", [](P p) { return num(p.latency_ms.std); }},
      {"cv", [](P p) { return num(p.latency_ms.cv); }},
      // Run to run (--repeat; one run otherwise): the lowest and highest run median and their spread relative to
      // the median of all samples, next to the within-run CV above.
      {"runs", [](P p) { return std::to_string(spread_of(p).count); }},
      {"run_median_min_ms", [](P p) { return num(spread_of(p).min_median); }},
      {"run_median_max_ms", [](P p) { return num(spread_of(p).max_median); }},
      {"run_spread", [](P p) { return num(spread_of(p).spread); }},
      {"throughput_per_s", [](P p) { return num(p.throughput_per_s); }},
      {"wall_s", [](P p) { return num(p.wall_s); }},
      {"stop_reason", [](P p) { return p.stop_reason; }},
      {"load_ms", [](P p) { return num(p.load_ms); }},
      {"profiled_n", [](P p) { return num(p.profiled_latency_ms.n); }},
      {"profiled_median_ms", [](P p) { return num(p.profiled_latency_ms.median); }},
      {"profiling_overhead", [](P p) { return num(p.profiling_overhead); }},
      {"coverage", [](P p) { return num(p.coverage); }},
      {"peak_rss_bytes", [](P p) { return num(p.peak_rss_bytes); }},
      {"flops", [](P p) { return num(p.flops); }},
      {"macs", [](P p) { return num(p.macs); }},
      {"gflops", [](P p) { return num(p.gflops); }},
      {"layers", [](P p) { return std::to_string(p.layers.size()); }},
      {"unmapped_kernels", [](P p) { return num(p.unmapped_kernels); }},
      {"warnings", [](P p) { return join(p.warnings, "; "); }},
  };
  return cols;
}

// One row per run (status ok) and one per failed configuration (status = its kind, statistics empty).
std::string e2e_csv(const Report& r) {
  auto dims = dim_names(r);
  TextTable t;
  add_config_columns(t, dims);
  for (const char* c : {"status", "stage", "message"}) t.columns.push_back({c});
  for (const auto& c : e2e_columns()) t.columns.push_back({c.first});
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const ProfileRun& run = r.runs[i];
    auto row = config_cells(std::to_string(i + 1), run.batch, run.threads, run.dims, dims);
    row.insert(row.end(), {"ok", "", ""});
    for (const auto& c : e2e_columns()) row.push_back(c.second(run));
    t.rows.push_back(std::move(row));
  }
  for (const auto& f : r.failures) {
    auto row = config_cells("", f.batch, f.threads, f.dims, dims);
    row.insert(row.end(), {f.kind, f.stage, f.message});
    row.resize(t.columns.size());
    t.rows.push_back(std::move(row));
  }
  return t.csv();
}

const std::map<std::string, std::string (*)(const Report&)>& tables() {
  static const std::map<std::string, std::string (*)(const Report&)> t{{"layers", layers_csv}, {"e2e", e2e_csv}};
  return t;
}

}  // namespace

std::vector<std::string> csv_tables() { return {"layers", "e2e"}; }

std::string export_csv(const Report& r, const ExportOptions& o) {
  auto it = tables().find(o.what);
  if (it == tables().end()) throw UsageError("--what: unknown table '" + o.what + "' (layers, e2e)");
  return it->second(r);
}

}  // namespace rooflens
