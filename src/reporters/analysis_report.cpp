#include "reporters/analysis_report.h"

#include <algorithm>
#include <numeric>

#include "core/units.h"

namespace rooflens {
namespace {

using SortKey = std::function<double(const NodeAnalysis&)>;

const std::map<std::string, SortKey>& numeric_keys() {
  static const std::map<std::string, SortKey> keys{
      {"flops", [](const NodeAnalysis& n) { return static_cast<double>(n.flops); }},
      {"macs", [](const NodeAnalysis& n) { return static_cast<double>(n.macs); }},
      {"params", [](const NodeAnalysis& n) { return static_cast<double>(n.params); }},
      {"bytes", [](const NodeAnalysis& n) { return static_cast<double>(n.bytes_read) + n.bytes_written; }},
      {"intensity", [](const NodeAnalysis& n) { return n.intensity; }},
  };
  return keys;
}

std::vector<const NodeAnalysis*> selected_nodes(const Report& r, const AnalysisView& v) {
  std::vector<const NodeAnalysis*> nodes;
  for (const auto& n : r.model.analysis.nodes) nodes.push_back(&n);
  if (auto it = numeric_keys().find(v.sort); it != numeric_keys().end()) {
    const auto& key = it->second;
    std::stable_sort(nodes.begin(), nodes.end(), [&](auto* a, auto* b) { return key(*a) > key(*b); });
  } else if (v.sort == "name" || v.sort == "op") {
    bool by_name = v.sort == "name";
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](auto* a, auto* b) { return by_name ? a->name < b->name : a->op < b->op; });
  }
  if (v.top && nodes.size() > v.top) nodes.resize(v.top);
  return nodes;
}

std::string shape_text(const std::vector<int64_t>& s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
  return out;
}

std::string share(uint64_t part, uint64_t total) {
  return total ? fixed(100.0 * static_cast<double>(part) / static_cast<double>(total), 1) + "%" : "-";
}

std::string op_label(const std::string& op, const std::string& domain) {
  return domain.empty() ? op : domain + ":" + op;
}

std::string totals_text(const Report& r) {
  const auto& a = r.model.analysis;
  const auto& t = a.totals;
  std::string out = "model " + r.model.path + " — " + std::to_string(t.nodes) + " nodes, " +
                    with_commas(t.params) + " params (" + si_bytes(static_cast<double>(r.model.weight_bytes)) +
                    " weights)\n";
  out += "total  FLOPs " + si(static_cast<double>(t.flops)) + "  MACs " + si(static_cast<double>(t.macs)) +
         "  read " + si_bytes(static_cast<double>(t.bytes_read)) + "  written " +
         si_bytes(static_cast<double>(t.bytes_written)) + "  intensity " + fixed(t.intensity, 2) + " FLOP/B\n";
  for (const auto& in : r.model.inputs) out += "input  " + in.name + " " + in.dtype + " " + shape_text(in.shape) + "\n";
  if (t.unknown_cost_nodes) {
    out += "cost unknown for " + std::to_string(t.unknown_cost_nodes) + " node(s): ";
    for (size_t i = 0; i < a.unknown_ops.size(); ++i) out += (i ? ", " : "") + a.unknown_ops[i];
    out += "\n";
  }
  if (t.unresolved_nodes) out += "shapes unresolved for " + std::to_string(t.unresolved_nodes) + " node(s)\n";
  for (const auto& note : a.notes) out += "note   " + note + "\n";
  return out;
}

std::string render_table(const Report& r, const AnalysisView& v) {
  std::string out = node_table(r, v).render() + "\n" + op_type_table(r).render() + "\n" + totals_text(r);
  return out;
}

std::string render_md(const Report& r, const AnalysisView& v) {
  std::string out = "## rooflens analyze: " + r.model.name + "\n\n```\n" + totals_text(r) + "```\n\n";
  out += "### Nodes\n\n" + node_table(r, v).markdown() + "\n### Op types\n\n" + op_type_table(r).markdown();
  return out;
}

}  // namespace

std::vector<std::string> analysis_sort_keys() {
  std::vector<std::string> keys{"", "name", "op"};
  for (const auto& [k, _] : numeric_keys()) keys.push_back(k);
  return keys;
}

TextTable node_table(const Report& r, const AnalysisView& v) {
  TextTable t;
  t.columns = {{"#", true},         {"name", false, 40}, {"op", false, 28}, {"output shape", false, 24},
               {"FLOPs", true},     {"MACs", true},      {"params", true},  {"bytes", true},
               {"intensity", true}, {"share", true}};
  const uint64_t total = r.model.analysis.totals.flops;
  for (const NodeAnalysis* n : selected_nodes(r, v)) {
    std::string shape = n->output_shapes.empty() ? "" : shape_text(n->output_shapes[0]);
    if (n->output_shapes.size() > 1) shape += " (+" + std::to_string(n->output_shapes.size() - 1) + ")";
    if (!n->shapes_resolved && n->output_shapes.size() == 1 && n->output_shapes[0].empty()) shape = "?";
    // Body nodes of If/Loop/Scan carry their subgraph path so the table shows where they live.
    std::string name = n->graph == "main" || n->graph.rfind("main/", 0) != 0 ? n->name : n->graph.substr(5) + "/" + n->name;
    t.rows.push_back({std::to_string(n->index), name, op_label(n->op, n->domain), shape,
                      n->cost_known ? si(static_cast<double>(n->flops)) : "unknown",
                      si(static_cast<double>(n->macs)), si(static_cast<double>(n->params)),
                      si_bytes(static_cast<double>(n->bytes_read + n->bytes_written)), fixed(n->intensity, 2),
                      share(n->flops, total)});
  }
  return t;
}

TextTable op_type_table(const Report& r) {
  TextTable t;
  t.columns = {{"op type", false, 36}, {"count", true}, {"FLOPs", true}, {"MACs", true},
               {"params", true},       {"bytes", true}, {"share", true}, {"unknown", true}};
  const uint64_t total = r.model.analysis.totals.flops;
  for (const auto& s : r.model.analysis.op_types)
    t.rows.push_back({op_label(s.op, s.domain), std::to_string(s.count), si(static_cast<double>(s.flops)),
                      si(static_cast<double>(s.macs)), si(static_cast<double>(s.params)),
                      si_bytes(static_cast<double>(s.bytes_read + s.bytes_written)), share(s.flops, total),
                      s.unknown ? std::to_string(s.unknown) : ""});
  return t;
}

const std::map<std::string, AnalysisReporter>& analysis_reporters() {
  static const std::map<std::string, AnalysisReporter> reporters{
      {"table", render_table},
      {"md", render_md},
      {"csv", [](const Report& r, const AnalysisView& v) {
         // CSV carries exact integers (not SI-rounded) so spreadsheets can sum them.
         TextTable t;
         t.columns = {{"index"}, {"name"}, {"op"}, {"domain"}, {"graph"}, {"output_shape"}, {"flops"}, {"macs"},
                      {"params"}, {"bytes_read"}, {"bytes_written"}, {"intensity"}, {"cost_known"}};
         for (const NodeAnalysis* n : selected_nodes(r, v))
           t.rows.push_back({std::to_string(n->index), n->name, n->op, n->domain, n->graph,
                             n->output_shapes.empty() ? "" : shape_text(n->output_shapes[0]),
                             std::to_string(n->flops), std::to_string(n->macs), std::to_string(n->params),
                             std::to_string(n->bytes_read), std::to_string(n->bytes_written),
                             fixed(n->intensity, 4), n->cost_known ? "true" : "false"});
         return t.csv();
       }},
      {"json", [](const Report& r, const AnalysisView&) { return report_to_json(r); }},
  };
  return reporters;
}

}  // namespace rooflens
