#include "reporters/top_report.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/units.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

using json = nlohmann::ordered_json;

// ---- columns: one registry for every format ----

enum Shown : unsigned { kLayers = 1, kGroups = 2, kBoth = 3 };

struct TopColumn {
  std::string key;                      // CSV header and JSON field
  TextTable::Column display;            // terminal / Markdown title, alignment, clipping
  unsigned shown = kBoth;               // in which mode the column exists
  bool human = true;                    // false: only in the exact formats (CSV, JSON)
  bool model_text = false;              // model-supplied text (code span in Markdown)
  std::function<std::string(const LayerRow&, size_t rank, bool group)> text;
  std::function<json(const LayerRow&, size_t rank)> value;
};

std::string nodes_text(const LayerRow& r, bool group) {
  if (group) return std::to_string(r.onnx_nodes.size());
  if (r.onnx_nodes.empty()) return "-";
  std::string s = (r.alias ? "alias of " : "") + r.onnx_nodes.front();
  return r.onnx_nodes.size() > 1 ? s + " +" + std::to_string(r.onnx_nodes.size() - 1) : s;
}

std::string with_bound(const LayerRow& r, const std::string& text) { return r.bound.empty() ? "-" : text; }

const std::vector<TopColumn>& top_columns() {
  using R = const LayerRow&;
  static const std::vector<TopColumn> cols{
      {"rank", {"#", true}, kBoth, true, false, [](R, size_t k, bool) { return std::to_string(k); },
       [](R, size_t k) { return json(k); }},
      {"time_ms", {"ms", true}, kBoth, true, false, [](R r, size_t, bool) { return fixed(r.time_ms, 3); },
       [](R r, size_t) { return json(r.time_ms); }},
      {"share", {"share", true}, kBoth, true, false, [](R r, size_t, bool) { return percent(r.share); },
       [](R r, size_t) { return json(r.share); }},
      {"cumulative", {"cum", true}, kBoth, true, false, [](R r, size_t, bool) { return percent(r.cumulative); },
       [](R r, size_t) { return json(r.cumulative); }},
      {"name", {"layer", false, 40}, kLayers, true, true, [](R r, size_t, bool) { return r.name; },
       [](R r, size_t) { return json(r.name); }},
      {"op", {"op", false, 20}, kBoth, true, true, [](R r, size_t, bool) { return r.op; },
       [](R r, size_t) { return json(r.op); }},
      {"layers", {"layers", true}, kGroups, true, false, [](R r, size_t, bool) { return std::to_string(r.layers); },
       [](R r, size_t) { return json(r.layers); }},
      {"onnx_nodes", {"ONNX nodes", false, 32}, kBoth, true, true,
       [](R r, size_t, bool group) { return nodes_text(r, group); }, [](R r, size_t) { return json(r.onnx_nodes); }},
      {"flops", {"FLOPs", true}, kBoth, true, false, [](R r, size_t, bool) { return si(r.flops); },
       [](R r, size_t) { return json(r.flops); }},
      {"macs", {"MACs", true}, kBoth, false, false, [](R r, size_t, bool) { return si(r.macs); },
       [](R r, size_t) { return json(r.macs); }},
      {"gflops", {"GFLOP/s", true}, kBoth, true, false, [](R r, size_t, bool) { return fixed(r.gflops, 1); },
       [](R r, size_t) { return json(r.gflops); }},
      {"bytes", {"bytes", true}, kBoth, true, false, [](R r, size_t, bool) { return si_bytes(r.bytes); },
       [](R r, size_t) { return json(r.bytes); }},
      {"gbps", {"GB/s", true}, kBoth, true, false, [](R r, size_t, bool) { return fixed(r.gbps, 1); },
       [](R r, size_t) { return json(r.gbps); }},
      {"intensity", {"FLOP/B", true}, kBoth, true, false, [](R r, size_t, bool) { return fixed(r.intensity, 1); },
       [](R r, size_t) { return json(r.intensity); }},
      {"bound", {"bound"}, kBoth, true, false, [](R r, size_t, bool) { return with_bound(r, r.bound); },
       [](R r, size_t) { return json(r.bound); }},
      {"efficiency", {"eff", true}, kBoth, true, false,
       [](R r, size_t, bool) { return with_bound(r, percent(r.efficiency)); },
       [](R r, size_t) { return json(r.efficiency); }},
      {"roof", {"roof"}, kLayers, false, false, [](R r, size_t, bool) { return r.roof; },
       [](R r, size_t) { return json(r.roof); }},
      {"provider", {"provider"}, kBoth, false, true, [](R r, size_t, bool) { return r.provider; },
       [](R r, size_t) { return json(r.provider); }},
      {"cost_known", {"cost known"}, kBoth, false, false,
       [](R r, size_t, bool) { return std::string(r.cost_known ? "yes" : "no"); },
       [](R r, size_t) { return json(r.cost_known); }},
      {"input_shapes", {"inputs", false, 36}, kLayers, true, false,
       [](R r, size_t, bool) { return shapes_text(r.input_shapes); }, [](R r, size_t) { return json(r.input_shapes); }},
      {"output_shapes", {"outputs", false, 24}, kLayers, true, false,
       [](R r, size_t, bool) { return shapes_text(r.output_shapes); },
       [](R r, size_t) { return json(r.output_shapes); }},
  };
  return cols;
}

std::vector<const TopColumn*> columns_for(bool group, bool exact, const std::vector<std::string>& only = {}) {
  std::vector<const TopColumn*> out;
  for (const auto& c : top_columns()) {
    bool wanted = only.empty() ? exact || c.human : std::find(only.begin(), only.end(), c.key) != only.end();
    if ((c.shown & (group ? kGroups : kLayers)) && wanted) out.push_back(&c);
  }
  return out;
}

// A JSON value as one CSV cell: numbers exact, lists joined with ';', shapes as 1x3x224x224.
std::string cell_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) return exact(v.get<double>());
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) {
      if (!e.is_array()) {
        parts.push_back(cell_of(e));
        continue;
      }
      std::vector<int64_t> shape;
      for (const auto& d : e) shape.push_back(d.is_number_integer() ? d.get<int64_t>() : -1);
      parts.push_back(shape_text(shape));
    }
    return join(parts, ";");
  }
  return v.is_null() ? "" : v.dump(-1, ' ', false, json::error_handler_t::replace);
}

json rows_json(const TopResult& t) {
  json rows = json::array();
  size_t rank = 0;
  for (const auto& r : t.selection.rows) {
    json row = json::object();
    ++rank;
    for (const TopColumn* c : columns_for(t.selection.aggregated, true)) row[c->key] = c->value(r, rank);
    rows.push_back(std::move(row));
  }
  return rows;
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
                     run_label(run);
  if (t.report->runs.size() > 1) text += " (--batch N picks another)";
  return {"run", text, v, true};
}

SummaryItem e2e_item(const ProfileRun& run) {
  const LatencyStats& s = run.latency_ms;
  json v = {{"median_ms", s.median}, {"p90_ms", s.p90},          {"p99_ms", s.p99},
            {"cv", s.cv},            {"throughput_per_s", run.throughput_per_s}, {"coverage", run.coverage}};
  std::string text = "median " + fixed(s.median, 3) + " ms · p90 " + fixed(s.p90, 3) + " · p99 " + fixed(s.p99, 3) +
                     " · CV " + percent(s.cv) + " · " + fixed(run.throughput_per_s, 1) + " items/s · coverage " +
                     percent(run.coverage);
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

std::vector<SummaryItem> summary_items(const TopResult& t) {
  const Report& r = *t.report;
  std::string backend = r.backend ? r.backend->runtime : "";
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
      s.rows.push_back({item.key, cell_of(item.value)});
      continue;
    }
    for (const auto& el : item.value.items()) s.rows.push_back({item.key + "." + el.key(), cell_of(el.value())});
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
  bool group = t.selection.aggregated;
  auto cols = columns_for(group, exact_values, only);
  TextTable table;
  for (const TopColumn* c : cols) {
    TextTable::Column col = c->display;
    if (exact_values) col = {c->key, false, 0};
    if (group && c->key == "op") col.max_width = 0;
    table.columns.push_back(col);
  }
  size_t rank = 0;
  for (const auto& r : t.selection.rows) {
    ++rank;
    std::vector<std::string> row;
    for (const TopColumn* c : cols) row.push_back(exact_values ? cell_of(c->value(r, rank)) : c->text(r, rank, group));
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string top_markdown_table(const TopResult& t, const std::vector<std::string>& only) {
  TextTable table = top_table(t, false, only);
  auto cols = columns_for(t.selection.aggregated, false, only);
  for (auto& row : table.rows)
    for (size_t c = 0; c < cols.size() && c < row.size(); ++c)
      if (cols[c]->model_text) row[c] = md_code(row[c]);
  return table.markdown();
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
    throw UserError("run " + run_label(run) + " has no layer times (profiled with --no-layers?); "
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
