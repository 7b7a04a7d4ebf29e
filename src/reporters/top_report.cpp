#include "reporters/top_report.h"

#include <algorithm>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/units.h"
#include "reporters/columns.h"
#include "reporters/findings_report.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

using json = nlohmann::ordered_json;

// ---- columns: one registry for every format (reporters/columns.h) ----

// A row as the columns see it: the layer (or op-type group), its rank, and whether rows are groups.
struct TopCell {
  const LayerRow* row = nullptr;
  size_t rank = 0;
  bool group = false;
};
using TopColumn = Column<TopCell>;

enum Shown : unsigned { kLayers = 1, kGroups = 2, kBoth = 3 };

std::string top_nodes_text(const LayerRow& r, bool group) {
  if (group) return std::to_string(r.onnx_nodes.size());
  if (r.onnx_nodes.empty()) return "-";
  std::string s = (r.alias ? "alias of " : "") + r.onnx_nodes.front();
  return r.onnx_nodes.size() > 1 ? s + " +" + std::to_string(r.onnx_nodes.size() - 1) : s;
}

std::string with_bound(const LayerRow& r, const std::string& text) { return r.bound.empty() ? "-" : text; }

// Columns of a layer table, and of an aggregated (op type) table: one list, each column marked with the
// tables it belongs to.
const std::vector<TopColumn>& top_columns(bool group) {
  using C = const TopCell&;
  struct Entry {
    unsigned shown;
    TopColumn column;
  };
  static const std::vector<Entry> all{
      {kBoth, {"rank", {"#", true}, true, false, [](C c) { return std::to_string(c.rank); },
               [](C c) { return json(c.rank); }}},
      {kBoth, {"time_ms", {"ms", true}, true, false, [](C c) { return fixed(c.row->time_ms, 3); },
               [](C c) { return json(c.row->time_ms); }}},
      {kBoth, {"share", {"share", true}, true, false, [](C c) { return percent(c.row->share); },
               [](C c) { return json(c.row->share); }}},
      {kBoth, {"cumulative", {"cum", true}, true, false, [](C c) { return percent(c.row->cumulative); },
               [](C c) { return json(c.row->cumulative); }}},
      {kLayers, {"name", {"layer", false, 40}, true, true, [](C c) { return c.row->name; },
                 [](C c) { return json(c.row->name); }}},
      {kLayers, {"op", {"op", false, 20}, true, true, [](C c) { return c.row->op; },
                 [](C c) { return json(c.row->op); }}},
      {kGroups, {"op", {"op", false, 0}, true, true, [](C c) { return c.row->op; },
                 [](C c) { return json(c.row->op); }}},
      {kGroups, {"layers", {"layers", true}, true, false, [](C c) { return std::to_string(c.row->layers); },
                 [](C c) { return json(c.row->layers); }}},
      {kBoth, {"onnx_nodes", {"ONNX nodes", false, 32}, true, true, [](C c) { return top_nodes_text(*c.row, c.group); },
               [](C c) { return json(c.row->onnx_nodes); }}},
      {kBoth, {"flops", {"FLOPs", true}, true, false, [](C c) { return si(c.row->flops); },
               [](C c) { return json(c.row->flops); }}},
      {kBoth, {"macs", {"MACs", true}, false, false, [](C c) { return si(c.row->macs); },
               [](C c) { return json(c.row->macs); }}},
      {kBoth, {"gflops", {"GFLOP/s", true}, true, false, [](C c) { return fixed(c.row->gflops, 1); },
               [](C c) { return json(c.row->gflops); }}},
      {kBoth, {"bytes", {"bytes", true}, true, false, [](C c) { return si_bytes(c.row->bytes); },
               [](C c) { return json(c.row->bytes); }}},
      {kBoth, {"gbps", {"GB/s", true}, true, false, [](C c) { return fixed(c.row->gbps, 1); },
               [](C c) { return json(c.row->gbps); }}},
      {kBoth, {"intensity", {"FLOP/B", true}, true, false, [](C c) { return fixed(c.row->intensity, 1); },
               [](C c) { return json(c.row->intensity); }}},
      {kBoth, {"bound", {"bound"}, true, false, [](C c) { return with_bound(*c.row, c.row->bound); },
               [](C c) { return json(c.row->bound); }}},
      {kBoth, {"efficiency", {"eff", true}, true, false,
               [](C c) { return with_bound(*c.row, percent(c.row->efficiency)); },
               [](C c) { return json(c.row->efficiency); }}},
      {kLayers, {"roof", {"roof"}, false, false, [](C c) { return c.row->roof; },
                 [](C c) { return json(c.row->roof); }}},
      {kBoth, {"provider", {"provider"}, false, true, [](C c) { return c.row->provider; },
               [](C c) { return json(c.row->provider); }}},
      {kBoth, {"cost_known", {"cost known"}, false, false,
               [](C c) { return std::string(c.row->cost_known ? "yes" : "no"); },
               [](C c) { return json(c.row->cost_known); }}},
      {kLayers, {"input_shapes", {"inputs", false, 36}, true, false, [](C c) { return shapes_text(c.row->input_shapes); },
                 [](C c) { return json(c.row->input_shapes); }}},
      {kLayers, {"output_shapes", {"outputs", false, 24}, true, false,
                 [](C c) { return shapes_text(c.row->output_shapes); },
                 [](C c) { return json(c.row->output_shapes); }}},
  };
  auto only = [](unsigned mask) {
    std::vector<TopColumn> out;
    for (const auto& e : all)
      if (e.shown & mask) out.push_back(e.column);
    return out;
  };
  static const std::vector<TopColumn> layers = only(kLayers), groups = only(kGroups);
  return group ? groups : layers;
}

std::vector<TopCell> cells_of(const TopResult& t) {
  std::vector<TopCell> cells;
  size_t rank = 0;
  for (const auto& r : t.selection.rows) cells.push_back({&r, ++rank, t.selection.aggregated});
  return cells;
}

json rows_json(const TopResult& t) {
  return column_json(pick_columns(top_columns(t.selection.aggregated), true), cells_of(t));
}

// ---- summary: ordered items, each with a machine value and a human line ----

struct SummaryItem {
  std::string key, text;
  json value;
  bool model_text = false;
};

std::string query_text(const LayerQuery& q) {
  std::vector<std::string> parts;
  if (!q.types.empty()) parts.push_back("type in {" + join(q.types, ", ") + "}");
  if (!q.name_regex.empty()) parts.push_back("name ~ /" + q.name_regex + "/");
  if (q.min_time_ms) parts.push_back("time >= " + exact(*q.min_time_ms) + " ms");
  if (q.max_time_ms) parts.push_back("time <= " + exact(*q.max_time_ms) + " ms");
  if (!q.aggregate_by.empty()) parts.push_back(q.aggregate + " by " + q.aggregate_by);
  OrderBy o = parse_order_by(q.order_by);
  parts.push_back("order by " + o.key + (o.ascending ? " ascending" : " descending"));
  parts.push_back(q.top ? "top " + std::to_string(q.top) : "all rows");
  return join(parts, " · ");
}

json query_json(const LayerQuery& q) {
  json j = json::object();
  j["types"] = q.types;
  j["name"] = q.name_regex;
  j["min_time_ms"] = q.min_time_ms ? json(*q.min_time_ms) : json(nullptr);
  j["max_time_ms"] = q.max_time_ms ? json(*q.max_time_ms) : json(nullptr);
  j["aggregate_by"] = q.aggregate_by;
  j["aggregate"] = q.aggregate_by.empty() ? "" : q.aggregate;
  j["order_by"] = q.order_by;
  j["top"] = q.top;
  return j;
}

SummaryItem run_item(const TopResult& t) {
  const ProfileRun& run = t.run();
  json v = {{"index", t.run_index + 1}, {"of", t.report->runs.size()}, {"batch", run.batch},
            {"dims", run.dims}, {"threads", run.threads}};
  std::string text = std::to_string(t.run_index + 1) + " of " + std::to_string(t.report->runs.size()) + ": " +
                     run.label();
  if (t.report->runs.size() > 1) text += " (--batch N picks another)";
  return {"run", text, v, true};
}

SummaryItem e2e_item(const ProfileRun& run) {
  const LatencyStats& s = run.latency_ms;
  json v = {{"median_ms", s.median}, {"p90_ms", s.p90},          {"p99_ms", s.p99},
            {"cv", s.cv},            {"throughput_per_s", run.throughput_per_s}, {"coverage", run.coverage}};
  std::string text = "median " + fixed(s.median, 3) + " ms · p90 " + fixed(s.p90, 3) + " · p99 " + fixed(s.p99, 3) +
                     " · CV " + percent(s.cv) + " · " + fixed(run.throughput_per_s, 1) + " items/s · coverage " +
                     (run.coverage > 0 ? percent(run.coverage) : "-");  // imported runs may have nothing to cover
  return {"e2e", text, v};
}

SummaryItem layers_item(const LayerSelection& s) {
  double share = s.run_time_ms > 0 ? s.matched_time_ms / s.run_time_ms : 0;
  double gflops = s.matched_time_ms > 0 ? s.matched_flops / (s.matched_time_ms * 1e6) : 0;
  json v = {{"in_run", s.layers_in_run},        {"matched", s.layers_matched},   {"run_time_ms", s.run_time_ms},
            {"matched_time_ms", s.matched_time_ms}, {"matched_share", share},    {"matched_flops", s.matched_flops},
            {"matched_bytes", s.matched_bytes}, {"matched_gflops", gflops},      {"rows", s.rows_before_top},
            {"shown", s.rows.size()}};
  std::string text = std::to_string(s.layers_in_run) + " in the run, " + std::to_string(s.layers_matched) +
                     " selected: " + fixed(s.matched_time_ms, 3) + " ms (" + percent(share) + " of " +
                     fixed(s.run_time_ms, 3) + " ms), " + si(s.matched_flops) + " FLOPs, " + fixed(gflops, 1) +
                     " GFLOP/s";
  return {"layers", text, v};
}

// What rooflens lint found in this run (reports written before lint carry none: no item).
std::optional<SummaryItem> findings_item(const TopResult& t) {
  if (!t.report->findings) return std::nullopt;
  std::string label = t.run().label();
  std::vector<Finding> mine;
  for (const auto& f : *t.report->findings)
    if (f.run == label || f.run.empty()) mine.push_back(f);
  int64_t n[3] = {0, 0, 0};
  std::string rules;
  for (const auto& f : mine) {
    ++n[static_cast<int>(f.severity)];
    rules += (rules.empty() ? "" : ", ") + f.rule;
  }
  json v = {{"count", mine.size()}, {"errors", n[2]}, {"warnings", n[1]}, {"info", n[0]}, {"rules", rules}};
  std::string text = mine.empty() ? "none" : severity_counts(mine) + ": " + rules + " (rooflens lint REPORT.json)";
  return SummaryItem{"findings", text, v};
}

std::vector<SummaryItem> summary_items(const TopResult& t) {
  const Report& r = *t.report;
  std::string backend = runtimes_text(r);
  std::vector<SummaryItem> items{
      {"model", r.model.name, json(r.model.name), true},
      {"report", t.view.source, json(t.view.source), true},
      {"backend", backend.empty() ? "-" : backend, json(backend), true},
      run_item(t),
      e2e_item(t.run()),
      layers_item(t.selection),
      {"query", query_text(t.view.query), query_json(t.view.query), true},
  };
  if (t.view.source.empty()) items.erase(items.begin() + 1);
  if (auto f = findings_item(t)) items.push_back(*f);
  return items;
}

bool wants(const TopResult& t, const std::string& part) { return t.view.print_only.empty() || t.view.print_only == part; }

std::string rows_footer(const TopResult& t) {
  const LayerSelection& s = t.selection;
  std::string what = s.aggregated ? "op types" : "layers";
  if (s.rows.empty()) return "(no " + what + " match)\n";
  if (s.rows.size() == s.rows_before_top) return "";
  std::string out = "(";
  out += std::to_string(s.rows.size()) + " of " + std::to_string(s.rows_before_top) + " " + what;
  return out + "; --top 0 shows all)\n";
}

// ---- formats ----

std::string format_table(const TopResult& t) {
  std::string out;
  if (wants(t, "summary")) {
    auto items = summary_items(t);
    size_t w = 0;
    for (const auto& item : items) w = std::max(w, item.key.size());
    for (const auto& item : items) out += item.key + std::string(w + 2 - item.key.size(), ' ') + item.text + "\n";
  }
  if (wants(t, "layers")) {
    if (!out.empty()) out += "\n";
    out += top_table(t, false).render() + rows_footer(t);
  }
  return out;
}

std::string format_md(const TopResult& t) {
  std::string out;
  if (wants(t, "summary")) {
    out += "### rooflens top: " + md_code(t.report->model.name) + "\n\n";
    for (const auto& item : summary_items(t))
      out += "- **" + item.key + "**: " + (item.model_text ? md_code(item.text) : item.text) + "\n";
  }
  if (wants(t, "layers")) {
    if (!out.empty()) out += "\n";
    std::string footer = rows_footer(t);
    out += top_markdown_table(t) + (footer.empty() ? "" : "\n" + footer);
  }
  return out;
}

// One CSV document is one table: the layers, or with --print-only summary the summary as key,value rows.
std::string format_csv(const TopResult& t) {
  if (t.view.print_only != "summary") return top_table(t, true).csv();
  TextTable s;
  s.columns = {{"key"}, {"value"}};
  for (const auto& item : summary_items(t)) {
    if (!item.value.is_object()) {
      s.rows.push_back({item.key, csv_cell(item.value)});
      continue;
    }
    for (const auto& el : item.value.items()) s.rows.push_back({item.key + "." + el.key(), csv_cell(el.value())});
  }
  return s.csv();
}

std::string format_json(const TopResult& t) {
  json j = json::object();
  if (wants(t, "summary")) {
    json s = json::object();
    for (const auto& item : summary_items(t)) s[item.key] = item.value;
    j["summary"] = std::move(s);
  }
  if (wants(t, "layers")) {
    j["aggregated"] = t.selection.aggregated;
    j["rows"] = rows_json(t);
  }
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

TextTable top_table(const TopResult& t, bool exact_values, const std::vector<std::string>& only) {
  return column_table(pick_columns(top_columns(t.selection.aggregated), exact_values, only), cells_of(t), exact_values);
}

std::string top_markdown_table(const TopResult& t, const std::vector<std::string>& only) {
  return column_markdown(pick_columns(top_columns(t.selection.aggregated), false, only), cells_of(t));
}

size_t choose_run(const Report& r, std::optional<int64_t> batch) {
  if (r.runs.empty()) throw UserError("the report has no profile runs");
  if (!batch) return 0;
  for (size_t i = 0; i < r.runs.size(); ++i)
    if (r.runs[i].batch == *batch) return i;
  std::set<int64_t> batches;
  for (const auto& run : r.runs) batches.insert(run.batch);
  std::string list;
  for (int64_t b : batches) list += (list.empty() ? "" : ", ") + std::to_string(b);
  throw UsageError("--batch " + std::to_string(*batch) + ": the report has no run with that batch (batches: " + list +
                   ")");
}

TopResult run_top(const Report& r, const TopView& v) {
  TopResult t;
  t.report = &r;
  t.view = v;
  t.run_index = choose_run(r, v.batch);
  const ProfileRun& run = t.run();
  if (run.layers.empty() && v.print_only != "summary")
    throw UserError("run " + run.label() + " has no layer times (profiled with --no-layers?); "
                    "--print-only summary shows its end-to-end numbers");
  t.selection = select_layers(run, v.query);
  return t;
}

const std::map<std::string, TopFormatter>& top_formats() {
  static const std::map<std::string, TopFormatter> formats{
      {"table", format_table}, {"csv", format_csv}, {"json", format_json}, {"md", format_md}};
  return formats;
}

const std::vector<std::string>& top_print_only_values() {
  static const std::vector<std::string> values{"summary", "layers"};
  return values;
}

}  // namespace rooflens
