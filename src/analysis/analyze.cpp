#include "analysis/analyze.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/control_flow.h"
#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "core/saturating.h"
#include "memory/model_memory.h"
#include "model/loader.h"
#include "core/build_info.h"

namespace rooflens {
namespace {

std::string display_domain(const std::string& d) { return d.empty() ? "ai.onnx" : d; }

// Counts one node: arithmetic from the op's registry entry, bytes and params by the shared rules.
// An op that reads only part of an input (OpWork::partial_reads): that input's bytes are the elements it reads.
void apply_partial_reads(const OpWork& w, const CostInput& in, NodeAnalysis& a) {
  if (w.partial_reads.empty()) return;
  a.input_read_bytes.assign(in.in.size(), 0);
  for (size_t i = 0; i < in.in.size(); ++i)
    if (in.in[i]) a.input_read_bytes[i] = in.in[i]->bytes();
  for (const auto& [slot, elements] : w.partial_reads) {
    if (slot >= in.in.size() || !in.in[slot]) continue;
    const int bits = dtype_bits(in.in[slot]->dtype);
    if (bits <= 0) continue;
    a.input_read_bytes[slot] = std::min(a.input_read_bytes[slot], sat_mul(elements, static_cast<uint64_t>(bits)) / 8);
  }
  a.bytes_read = 0;
  for (uint64_t b : a.input_read_bytes) a.bytes_read = sat_add(a.bytes_read, b);
}

class NodeCounter {
 public:
  NodeCounter(const Model& m, const CostRegistry& r) : model_(m), registry_(r) {}

  NodeAnalysis count(int gi, const Node& node, std::set<const Initializer*>& params_seen, uint64_t& unique_params) {
    NodeAnalysis a;
    a.name = node.name;
    a.op = node.op;
    a.domain = node.domain;
    a.graph = model_.graphs[gi].path;
    a.inputs = node.inputs;
    a.outputs = node.outputs;

    CostInput in;
    in.node = &node;
    for (const auto& name : node.inputs) {
      const TensorInfo* t = name.empty() ? nullptr : model_.find_tensor(gi, name);
      in.in.push_back(t);
      in.in_is_initializer.push_back(!name.empty() && model_.find_initializer(gi, name) != nullptr);
      a.input_shapes.push_back(t && t->has_rank ? t->values() : std::vector<int64_t>{});
      a.input_dtypes.push_back(t ? dtype_name(t->dtype) : "");
      if (!name.empty() && (!t || !t->resolved())) a.shapes_resolved = false;
      if (t && t->from_runtime) a.shape_source = ShapeSource::Runtime;
      if (t) a.bytes_read = sat_add(a.bytes_read, t->bytes());
    }
    for (const auto& name : node.outputs) {
      const TensorInfo* t = name.empty() ? nullptr : model_.find_tensor(gi, name);
      in.out.push_back(t);
      a.output_shapes.push_back(t && t->has_rank ? t->values() : std::vector<int64_t>{});
      a.output_dtypes.push_back(t ? dtype_name(t->dtype) : "");
      if (!name.empty() && (!t || !t->resolved())) a.shapes_resolved = false;
      if (t && t->from_runtime) a.shape_source = ShapeSource::Runtime;
      if (t) a.bytes_written = sat_add(a.bytes_written, t->bytes());
    }

    OpWork w;
    if (const CostFn* fn = registry_.find(node.domain, node.op)) {
      w = (*fn)(in);
    } else {
      w.known = false;
      w.note = "no cost formula for " + display_domain(node.domain) + ":" + node.op;
    }
    a.flops = w.flops;
    a.macs = w.macs;
    a.padding_macs = std::min(w.padding_macs, w.macs);
    apply_partial_reads(w, in, a);
    a.cost_known = w.known;
    a.note = w.note;
    if (!a.shapes_resolved && a.note.empty()) a.note = "some shapes unresolved; bytes are a lower bound";

    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!in.in_is_initializer[i]) continue;
      const Initializer* init = model_.find_initializer(gi, node.inputs[i]);
      bool counts = w.params_explicit
                        ? std::find(w.param_inputs.begin(), w.param_inputs.end(), static_cast<int>(i)) != w.param_inputs.end()
                        : dtype_is_float(init->dtype);
      if (!counts) continue;
      a.params = sat_add(a.params, as_count(init->elements));
      if (params_seen.insert(init).second) unique_params = sat_add(unique_params, as_count(init->elements));
    }
    uint64_t bytes = sat_add(a.bytes_read, a.bytes_written);
    a.intensity = bytes ? static_cast<double>(a.flops) / static_cast<double>(bytes) : 0.0;
    return a;
  }

 private:
  const Model& model_;
  const CostRegistry& registry_;
};

// Visits graph gi's nodes, each followed by the nodes of its bodies, so reports read top to bottom.
// `node_graph` receives each node's graph index.
void visit(const Model& m, int gi, NodeCounter& counter, Analysis& out, std::set<const Initializer*>& seen,
           uint64_t& unique_params, std::vector<int>& node_graph) {
  const Graph& g = m.graphs[gi];
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    NodeAnalysis a = counter.count(gi, g.nodes[ni], seen, unique_params);
    a.index = static_cast<int64_t>(out.nodes.size());
    out.nodes.push_back(std::move(a));
    node_graph.push_back(gi);
    for (int sg : g.nodes[ni].subgraphs()) visit(m, sg, counter, out, seen, unique_params, node_graph);
  }
}

void summarise(Analysis& a, uint64_t unique_params) {
  std::map<std::pair<std::string, std::string>, OpTypeSummary> by_op;
  std::set<std::string> unknown;
  Totals& t = a.totals;
  for (const auto& n : a.nodes) {
    t.nodes++;
    // A branch never taken is no part of the model's work; an undecided If's cheaper branch is shown, not counted.
    if (n.execution == NodeExecution::NotTaken) continue;
    if (!n.cost_known) { t.unknown_cost_nodes++; unknown.insert(display_domain(n.domain) + ":" + n.op); }
    if (!n.shapes_resolved) t.unresolved_nodes++;
    if (n.execution == NodeExecution::NotCounted) continue;
    t.flops = sat_add(t.flops, n.flops);
    t.macs = sat_add(t.macs, n.macs);
    t.bytes_read = sat_add(t.bytes_read, n.bytes_read);
    t.bytes_written = sat_add(t.bytes_written, n.bytes_written);
    auto& s = by_op[{n.domain, n.op}];
    s.op = n.op;
    s.domain = n.domain;
    s.count++;
    s.flops = sat_add(s.flops, n.flops);
    s.macs = sat_add(s.macs, n.macs);
    s.params = sat_add(s.params, n.params);
    s.bytes_read = sat_add(s.bytes_read, n.bytes_read);
    s.bytes_written = sat_add(s.bytes_written, n.bytes_written);
    if (!n.cost_known) s.unknown++;
  }
  t.params = unique_params;
  uint64_t bytes = sat_add(t.bytes_read, t.bytes_written);
  t.intensity = bytes ? static_cast<double>(t.flops) / static_cast<double>(bytes) : 0.0;
  for (auto& [_, s] : by_op) a.op_types.push_back(s);
  std::stable_sort(a.op_types.begin(), a.op_types.end(), [](const auto& x, const auto& y) {
    return x.flops != y.flops ? x.flops > y.flops : x.bytes_read + x.bytes_written > y.bytes_read + y.bytes_written;
  });
  a.unknown_ops.assign(unknown.begin(), unknown.end());
}

}  // namespace

Analysis analyze_model(const Model& model, const CostRegistry& registry) {
  Analysis a;
  if (model.graphs.empty()) return a;
  NodeCounter counter(model, registry);
  std::set<const Initializer*> seen;
  uint64_t unique_params = 0;
  std::vector<int> node_graph;
  visit(model, 0, counter, a, seen, unique_params, node_graph);
  a.notes = model.notes;
  // Control flow: which bodies count, how often they run (If conditions, Loop/Scan trips from shape resolution).
  std::vector<uint64_t> own(model.graphs.size(), 0);
  for (size_t i = 0; i < a.nodes.size(); ++i) own[static_cast<size_t>(node_graph[i])] = sat_add(own[static_cast<size_t>(node_graph[i])], a.nodes[i].flops);
  const auto exec = graph_executions(model, own, a.notes);
  for (size_t i = 0; i < a.nodes.size(); ++i) apply_execution(a.nodes[i], exec[static_cast<size_t>(node_graph[i])]);
  a.subgraphs = subgraph_summaries(model, exec, a.nodes, node_graph);
  summarise(a, unique_params);
  return a;
}

Report analyze_model_file(const std::string& path, const AnalyzeOptions& options) {
  Model model = load_model(path, options.shapes);
  Report r;
  r.tool = tool_info("analyze");
  r.model = summarize_model(model);
  r.model.analysis = analyze_model(model, CostRegistry::builtin());
  r.model.memory = predict_model_memory(model, r.model.analysis);
  return r;
}

}  // namespace rooflens
