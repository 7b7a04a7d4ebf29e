// CSV and JSON renderings of a Comparison: exact values (shortest round-trip decimals) for spreadsheets and
// scripts. CSV is one table, one row per item, the columns of export_csv's conventions (RFC 4180, empty cells
// where a value does not apply); JSON ("rooflens.compare/1") holds everything, including every layer delta.
#include <nlohmann/json.hpp>

#include "core/text_table.h"
#include "reporters/compare_report.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

using json = nlohmann::ordered_json;

std::string truth(bool v) { return v ? "true" : "false"; }

const std::vector<const char*>& latency_columns() {
  static const std::vector<const char*> cols{
      "base_n",  "new_n",   "base_runs", "new_runs", "base_blocks", "new_blocks", "unit", "base_median_ms",
      "new_median_ms", "ratio", "change", "ci_low", "ci_high", "p_value", "df", "u_new", "exact", "tested",
      "significant", "single_run"};
  return cols;
}

std::vector<std::string> latency_cells(const std::optional<LatencyComparison>& l) {
  if (!l) return std::vector<std::string>(latency_columns().size());
  bool r = l->base_median_ms > 0 && l->new_median_ms > 0, runs = l->unit == test_unit::kRuns || l->unit == test_unit::kPairs;
  auto tested = [&](double v) { return l->tested ? exact(v) : std::string(); };
  return {std::to_string(l->base_n), std::to_string(l->new_n), std::to_string(l->base_runs),
          std::to_string(l->new_runs), std::to_string(l->base_blocks), std::to_string(l->new_blocks), l->unit,
          exact(l->base_median_ms), exact(l->new_median_ms), r ? exact(l->ratio) : "", r ? exact(l->change) : "",
          tested(l->ci_low), tested(l->ci_high), tested(l->p_value), runs ? tested(l->df) : "",
          l->tested && !runs ? exact(l->u_new) : "", l->tested && !runs ? truth(l->exact) : "", truth(l->tested),
          truth(l->significant), truth(l->single_run())};
}

json source_json(const CompareSourceInfo& s) {
  return json{{"path", s.path}, {"kind", s.kind}, {"description", s.description}, {"items", s.items},
              {"partial", s.partial}};
}

json compare_latency_json(const LatencyComparison& l) {
  return json{{"base_n", l.base_n},     {"new_n", l.new_n},         {"base_runs", l.base_runs},
              {"new_runs", l.new_runs}, {"base_blocks", l.base_blocks}, {"new_blocks", l.new_blocks},
              {"unit", l.unit},         {"base_median_ms", l.base_median_ms},
              {"new_median_ms", l.new_median_ms}, {"ratio", l.ratio}, {"change", l.change},
              {"tested", l.tested},     {"ci_low", l.ci_low},       {"ci_high", l.ci_high},
              {"p_value", l.p_value},   {"df", l.df},               {"u_new", l.u_new},
              {"exact", l.exact},       {"significant", l.significant}, {"single_run", l.single_run()}};
}

json layer_json(const LayerDelta& d) {
  json j{{"name", d.name},         {"op", d.op},
              {"onnx_nodes", d.onnx_nodes}, {"alias", d.alias},
              {"base_ms", d.base_ms},   {"new_ms", d.new_ms},
              {"delta_ms", d.delta_ms()}, {"base_share", d.base_share},
              {"new_share", d.new_share}, {"delta_share", d.delta_share()}};
  if (!d.base_name.empty()) j["base_name"] = d.base_name;
  return j;
}

json layers_json(const std::vector<LayerDelta>& v) {
  json a = json::array();
  for (const auto& d : v) a.push_back(layer_json(d));
  return a;
}

json groups_json(const std::vector<LayerGroupDelta>& v) {
  json a = json::array();
  for (const auto& d : v)
    a.push_back(json{{"base_layers", d.base_layers}, {"new_layers", d.new_layers}, {"onnx_nodes", d.onnx_nodes},
                     {"base_ms", d.base_ms},         {"new_ms", d.new_ms},         {"delta_ms", d.delta_ms()},
                     {"base_share", d.base_share},   {"new_share", d.new_share}});
  return a;
}

json item_json(const ItemComparison& i) {
  json j{{"model", i.model},           {"config", i.config},       {"verdict", i.verdict},
         {"base_status", i.base_status}, {"new_status", i.new_status}, {"base_error", i.base_error},
         {"new_error", i.new_error}};
  if (i.latency) j["latency"] = compare_latency_json(*i.latency);
  if (i.base_peak_rss_bytes)
    j["memory"] = json{{"base_peak_rss_bytes", i.base_peak_rss_bytes}, {"new_peak_rss_bytes", i.new_peak_rss_bytes},
                       {"change", i.memory_change()}};
  if (i.layers)
    j["layers"] = json{{"matched", layers_json(i.layers->matched)},
                       {"regrouped", groups_json(i.layers->regrouped)},
                       {"only_base", layers_json(i.layers->only_base)},
                       {"only_new", layers_json(i.layers->only_new)}};
  if (!i.why_slower.empty()) j["why_slower"] = i.why_slower;
  return j;
}

json summary_json(const Comparison& c) {
  VerdictCounts n = count_verdicts(c);
  size_t single = 0, runs = 0;
  for (const auto& i : c.items) {
    if (!i.latency || !i.latency->tested) continue;
    (i.latency->single_run() ? single : runs) += 1;
  }
  return json{{"regressions", n.regressions},   {"improvements", n.improvements},
              {"below_threshold", n.below_threshold}, {"within_noise", n.within_noise},
              {"insufficient_samples", n.insufficient}, {"not_timed", n.not_timed},
              {"new_failures", n.new_failures}, {"fixed", n.fixed},
              {"still_failing", n.still_failing}, {"status_changed", n.status_changed},
              {"skipped", n.skipped},           {"only_base", n.only_base},
              {"only_new", n.only_new},         {"tested_on_runs", runs},
              {"tested_on_single_runs", single}, {"fails_check", fails_check(n)}};
}

}  // namespace

std::string compare_csv(const Comparison& c, const CompareView&) {
  TextTable t;
  for (const char* col : {"model", "config", "verdict", "base_status", "new_status"}) t.columns.push_back({col});
  for (const char* col : latency_columns()) t.columns.push_back({col});
  for (const char* col : {"base_error", "new_error"}) t.columns.push_back({col});
  for (const auto& i : c.items) {
    std::vector<std::string> row{i.model, i.config, i.verdict, i.base_status, i.new_status};
    for (auto& cell : latency_cells(i.latency)) row.push_back(std::move(cell));
    row.push_back(i.base_error);
    row.push_back(i.new_error);
    t.rows.push_back(std::move(row));
  }
  return t.csv();
}

std::string compare_json(const Comparison& c, const CompareView&) {
  const CompareOptions& o = c.options;
  json items = json::array();
  for (const auto& i : c.items) items.push_back(item_json(i));
  json j{{"schema", kCompareSchema},
         {"base", source_json(c.base)},
         {"new", source_json(c.head)},
         {"options", {{"threshold", o.threshold}, {"alpha", o.alpha}, {"confidence", 1 - o.alpha},
                      {"resamples", o.resamples}, {"min_samples", o.min_samples}, {"paired", o.paired}}},
         {"summary", summary_json(c)},
         {"items", std::move(items)},
         {"notes", c.notes}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rooflens
