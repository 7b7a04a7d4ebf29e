#include "reporters/analysis_report.h"

#include <algorithm>
#include <numeric>

#include "core/units.h"
#include "reporters/columns.h"
#include "reporters/memory_text.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

using json = nlohmann::ordered_json;

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

std::string share(uint64_t part, uint64_t total) {
  return total ? fixed(100.0 * static_cast<double>(part) / static_cast<double>(total), 1) + "%" : "-";
}

std::string op_label(const std::string& op, const std::string& domain) {
  return domain.empty() ? op : domain + ":" + op;
}

// ---- columns (reporters/columns.h): the same registry for the terminal, Markdown and CSV ----

struct NodeRow {
  const NodeAnalysis* node = nullptr;
  uint64_t total_flops = 0;  // the model's, for the share column
};

std::string output_shape_text(const NodeAnalysis& n) {
  if (!n.shapes_resolved && n.output_shapes.size() == 1 && n.output_shapes[0].empty()) return "?";
  std::string shape = n.output_shapes.empty() ? "" : n.output_shapes[0].empty() ? "scalar" : shape_text(n.output_shapes[0]);
  if (n.output_shapes.size() > 1) shape += " (+" + std::to_string(n.output_shapes.size() - 1) + ")";
  return shape;
}

// Body nodes of If/Loop/Scan carry their subgraph path so the table shows where they live.
std::string display_name(const NodeAnalysis& n) {
  return n.graph == "main" || n.graph.rfind("main/", 0) != 0 ? n.name : n.graph.substr(5) + "/" + n.name;
}

const std::vector<Column<NodeRow>>& node_columns() {
  using R = const NodeRow&;
  static const std::vector<Column<NodeRow>> cols{
      {"index", {"#", true}, true, false, [](R r) { return std::to_string(r.node->index); },
       [](R r) { return json(r.node->index); }},
      {"name", {"name", false, 40}, true, true, [](R r) { return display_name(*r.node); },
       [](R r) { return json(r.node->name); }},
      {"op", {"op", false, 28}, true, true, [](R r) { return op_label(r.node->op, r.node->domain); },
       [](R r) { return json(r.node->op); }},
      {"domain", {"domain"}, false, true, [](R r) { return r.node->domain; }, [](R r) { return json(r.node->domain); }},
      {"graph", {"graph"}, false, true, [](R r) { return r.node->graph; }, [](R r) { return json(r.node->graph); }},
      {"output_shapes", {"output shape", false, 24}, true, false, [](R r) { return output_shape_text(*r.node); },
       [](R r) {  // an unresolved shape is unknown, not a scalar: an empty cell
         const NodeAnalysis& n = *r.node;
         bool unknown = !n.shapes_resolved && n.output_shapes.size() == 1 && n.output_shapes[0].empty();
         return unknown ? json(nullptr) : json(n.output_shapes);
       }},
      {"flops", {"FLOPs", true}, true, false,
       [](R r) { return r.node->cost_known ? si(static_cast<double>(r.node->flops)) : std::string("unknown"); },
       [](R r) { return json(r.node->flops); }},
      {"macs", {"MACs", true}, true, false, [](R r) { return si(static_cast<double>(r.node->macs)); },
       [](R r) { return json(r.node->macs); }},
      {"params", {"params", true}, true, false, [](R r) { return si(static_cast<double>(r.node->params)); },
       [](R r) { return json(r.node->params); }},
      {"bytes", {"bytes", true}, true, false,
       [](R r) { return si_bytes(static_cast<double>(r.node->bytes_read + r.node->bytes_written)); },
       [](R r) { return json(r.node->bytes_read + r.node->bytes_written); }},
      {"bytes_read", {"read", true}, false, false, [](R r) { return si_bytes(static_cast<double>(r.node->bytes_read)); },
       [](R r) { return json(r.node->bytes_read); }},
      {"bytes_written", {"written", true}, false, false,
       [](R r) { return si_bytes(static_cast<double>(r.node->bytes_written)); },
       [](R r) { return json(r.node->bytes_written); }},
      {"intensity", {"intensity", true}, true, false, [](R r) { return fixed(r.node->intensity, 2); },
       [](R r) { return json(r.node->intensity); }},
      {"share", {"share", true}, true, false, [](R r) { return share(r.node->flops, r.total_flops); },
       [](R r) { return json(r.total_flops ? static_cast<double>(r.node->flops) / static_cast<double>(r.total_flops) : 0.0); }},
      {"cost_known", {"cost known"}, false, false, [](R r) { return std::string(r.node->cost_known ? "yes" : "no"); },
       [](R r) { return json(r.node->cost_known); }},
  };
  return cols;
}

std::vector<NodeRow> node_rows(const Report& r, const AnalysisView& v) {
  std::vector<NodeRow> rows;
  for (const NodeAnalysis* n : selected_nodes(r, v)) rows.push_back({n, r.model.analysis.totals.flops});
  return rows;
}

struct OpTypeRow {
  const OpTypeSummary* ops = nullptr;
  uint64_t total_flops = 0;
};

const std::vector<Column<OpTypeRow>>& op_type_columns() {
  using R = const OpTypeRow&;
  static const std::vector<Column<OpTypeRow>> cols{
      {"op", {"op type", false, 36}, true, true, [](R r) { return op_label(r.ops->op, r.ops->domain); },
       [](R r) { return json(r.ops->op); }},
      {"domain", {"domain"}, false, true, [](R r) { return r.ops->domain; }, [](R r) { return json(r.ops->domain); }},
      {"count", {"count", true}, true, false, [](R r) { return std::to_string(r.ops->count); },
       [](R r) { return json(r.ops->count); }},
      {"flops", {"FLOPs", true}, true, false, [](R r) { return si(static_cast<double>(r.ops->flops)); },
       [](R r) { return json(r.ops->flops); }},
      {"macs", {"MACs", true}, true, false, [](R r) { return si(static_cast<double>(r.ops->macs)); },
       [](R r) { return json(r.ops->macs); }},
      {"params", {"params", true}, true, false, [](R r) { return si(static_cast<double>(r.ops->params)); },
       [](R r) { return json(r.ops->params); }},
      {"bytes", {"bytes", true}, true, false,
       [](R r) { return si_bytes(static_cast<double>(r.ops->bytes_read + r.ops->bytes_written)); },
       [](R r) { return json(r.ops->bytes_read + r.ops->bytes_written); }},
      {"share", {"share", true}, true, false, [](R r) { return share(r.ops->flops, r.total_flops); },
       [](R r) { return json(r.total_flops ? static_cast<double>(r.ops->flops) / static_cast<double>(r.total_flops) : 0.0); }},
      {"unknown", {"unknown", true}, true, false,
       [](R r) { return r.ops->unknown ? std::to_string(r.ops->unknown) : std::string(); },
       [](R r) { return json(r.ops->unknown); }},
  };
  return cols;
}

std::vector<OpTypeRow> op_type_rows(const Report& r) {
  std::vector<OpTypeRow> rows;
  for (const auto& s : r.model.analysis.op_types) rows.push_back({&s, r.model.analysis.totals.flops});
  return rows;
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
  out += model_memory_text(r.model);
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
  std::string out = node_table(r, v, false).render() + "\n" + op_type_table(r, false).render() + "\n" + totals_text(r);
  return out;
}

std::string render_md(const Report& r, const AnalysisView& v) {
  std::string out = "## rooflens analyze: " + r.model.name + "\n\n```\n" + totals_text(r) + "```\n\n";
  out += "### Nodes\n\n" + column_markdown(pick_columns(node_columns(), false), node_rows(r, v)) + "\n### Op types\n\n" + column_markdown(pick_columns(op_type_columns(), false), op_type_rows(r));
  return out;
}

}  // namespace

std::vector<std::string> analysis_sort_keys() {
  std::vector<std::string> keys{"", "name", "op"};
  for (const auto& [k, _] : numeric_keys()) keys.push_back(k);
  return keys;
}

TextTable node_table(const Report& r, const AnalysisView& v, bool exact_values) {
  return column_table(pick_columns(node_columns(), exact_values), node_rows(r, v), exact_values);
}

TextTable op_type_table(const Report& r, bool exact_values) {
  return column_table(pick_columns(op_type_columns(), exact_values), op_type_rows(r), exact_values);
}

const std::map<std::string, AnalysisReporter>& analysis_reporters() {
  static const std::map<std::string, AnalysisReporter> reporters{
      {"table", render_table},
      {"md", render_md},
      // CSV carries exact integers (not SI-rounded) so spreadsheets can sum them; one table per document.
      {"csv", [](const Report& r, const AnalysisView& v) { return node_table(r, v, true).csv(); }},
      {"json", [](const Report& r, const AnalysisView&) { return report_to_json(r); }},
  };
  return reporters;
}

}  // namespace rooflens
