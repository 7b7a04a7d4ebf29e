#include "memory/model_memory.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "core/saturating.h"
#include "memory/liveness.h"
#include "model/tensor.h"

namespace rooflens {

uint64_t tensor_bytes_of(const std::vector<int64_t>& shape, const std::string& dtype) {
  const int bits = dtype_bits(dtype_from_name(dtype));
  if (bits <= 0) return 0;
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return 0;
    n = sat_mul(n, static_cast<uint64_t>(d));
  }
  return sat_mul(n, static_cast<uint64_t>(bits)) / 8;
}

namespace {

std::string parent_path(const std::string& graph) {
  const size_t slash = graph.rfind('/');
  return slash == std::string::npos ? "" : graph.substr(0, slash);
}

// One graph (main or a body) walked on its own; the bodies of its nodes are held while their owner runs.
struct GraphResult {
  uint64_t peak = 0;
  std::vector<std::pair<size_t, uint64_t>> live;  // (analysis node index, bytes live in this graph while it runs)
  std::set<std::string> outer_reads;              // names its nodes read that it does not produce (outer scope)
  std::vector<std::pair<size_t, std::unique_ptr<GraphResult>>> bodies;  // (owner node index, the body's walk)
  uint64_t naive = 0, inputs = 0, outputs = 0, largest = 0;
  std::string largest_name;
  int64_t peak_node = -1;
  bool unresolved = false;
};

class Walker {
 public:
  Walker(const Analysis& a, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs)
      : a_(a), inputs_(inputs.begin(), inputs.end()), outputs_(outputs.begin(), outputs.end()) {
    for (size_t i = 0; i < a.nodes.size(); ++i) by_graph_[a.nodes[i].graph].push_back(i);
    for (const auto& s : a.subgraphs) bodies_[{parent_path(s.graph), s.node}].push_back(&s);
  }

  std::unique_ptr<GraphResult> walk(const std::string& graph, bool main) {
    auto g = std::make_unique<GraphResult>();
    Tensors t;
    t.inputs = main ? &inputs_ : nullptr;
    t.outputs = main ? &outputs_ : nullptr;
    const std::vector<size_t>& nodes = by_graph_[graph];
    // A Constant node's tensor is a weight (model.weight_bytes counts it), not an activation: it is no step.
    for (size_t n : nodes)
      if (counts(a_.nodes[n]) && !is_constant(a_.nodes[n]))
        for (const auto& o : a_.nodes[n].outputs) t.produced.insert(o);
    std::vector<LiveStep> steps;
    std::vector<size_t> step_node;
    for (size_t n : nodes) {
      const NodeAnalysis& node = a_.nodes[n];
      if (!counts(node) || is_constant(node)) continue;
      LiveStep s;
      const bool sure = node.shapes_resolved;  // else an empty shape may be an unknown one, not a scalar
      for (size_t i = 0; i < node.inputs.size(); ++i)
        if (!node.inputs[i].empty())
          s.reads.push_back(t.add(node.inputs[i], node.input_shapes, node.input_dtypes, i, sure, *g));
      for (size_t i = 0; i < node.outputs.size(); ++i)
        if (!node.outputs[i].empty())
          s.writes.push_back(t.add(node.outputs[i], node.output_shapes, node.output_dtypes, i, sure, *g));
      hold_bodies(node, graph, *g, s, t);
      steps.push_back(std::move(s));
      step_node.push_back(n);
    }
    for (const auto& x : t.list)
      if (!t.produced.count(x.name) && !x.graph_input) g->outer_reads.insert(x.name);
    // A body's results go back to its owner: produced there and read by nobody inside, they live to its end.
    if (!main) {
      std::vector<bool> read(t.list.size(), false);
      for (const auto& s : steps)
        for (int r : s.reads) read[static_cast<size_t>(r)] = true;
      for (size_t i = 0; i < t.list.size(); ++i)
        if (!t.list[i].constant && !read[i]) t.list[i].graph_output = true;
    }
    for (const auto& x : t.list) {
      if (x.graph_input) g->inputs = sat_add(g->inputs, x.bytes);
      if (x.graph_output && main) g->outputs = sat_add(g->outputs, x.bytes);
      if (!x.constant && x.bytes > g->largest) {
        g->largest = x.bytes;
        g->largest_name = x.name;
      }
    }
    const Liveness l = liveness(t.list, steps);
    g->peak = l.peak;
    g->naive = sat_add(g->naive, l.naive);
    if (l.peak_step >= 0) g->peak_node = static_cast<int64_t>(step_node[static_cast<size_t>(l.peak_step)]);
    for (size_t i = 0; i < steps.size(); ++i) g->live.emplace_back(step_node[i], l.live[i] - steps[i].extra_bytes);
    return g;
  }

  // The curve of `g` (and of its bodies, on top of what their owner holds) into `live`.
  void place(const GraphResult& g, uint64_t around, std::vector<uint64_t>& live) const {
    for (const auto& [n, bytes] : g.live) live[n] = sat_add(around, bytes);
    for (const auto& [owner, body] : g.bodies) {
      uint64_t held = around;
      for (const auto& [n, bytes] : g.live)
        if (n == owner) held = sat_add(around, bytes);
      place(*body, held, live);
    }
  }

  std::vector<std::string> notes;

 private:
  // The tensors of one graph, by name.
  struct Tensors {
    const std::set<std::string>* inputs = nullptr;  // the main graph's inputs and outputs; null in a body
    const std::set<std::string>* outputs = nullptr;
    std::set<std::string> produced;
    std::vector<LiveTensor> list;
    std::unordered_map<std::string, int> index;

    int add(const std::string& name, const std::vector<std::vector<int64_t>>& shapes,
            const std::vector<std::string>& dtypes, size_t i, bool sure, GraphResult& g) {
      auto [it, fresh] = index.emplace(name, static_cast<int>(list.size()));
      if (fresh) {
        LiveTensor x;
        x.name = name;
        x.graph_input = inputs && inputs->count(name);
        x.graph_output = outputs && outputs->count(name);
        x.constant = !produced.count(name) && !x.graph_input;
        list.push_back(x);
      }
      LiveTensor& x = list[static_cast<size_t>(it->second)];
      if (i < shapes.size() && i < dtypes.size()) {
        const uint64_t b = shapes[i].empty() && !sure ? 0 : tensor_bytes_of(shapes[i], dtypes[i]);
        if (b == 0 && !x.constant && !dtypes[i].empty()) g.unresolved = true;
        x.bytes = std::max(x.bytes, b);
      }
      return it->second;
    }
  };

  bool counts(const NodeAnalysis& n) const { return n.execution != NodeExecution::NotTaken; }
  static bool is_constant(const NodeAnalysis& n) { return n.op == "Constant" && n.domain.empty(); }

  // The bodies of `node` that may run are held while it runs: the largest one's peak (an undecided If: the larger
  // branch). What they read from outside is read by the node, so it lives until the node has run.
  void hold_bodies(const NodeAnalysis& node, const std::string& graph, GraphResult& g, LiveStep& s, Tensors& t) {
    auto it = bodies_.find({graph, node.name});
    if (it == bodies_.end()) return;
    for (const SubgraphSummary* body : it->second) {
      if (body->execution == NodeExecution::NotTaken) continue;
      std::unique_ptr<GraphResult> r = walk(body->graph, false);
      if (body->execution == NodeExecution::NotCounted)
        notes.push_back("If '" + node.name + "': its condition is not known; memory holds the larger branch");
      g.naive = sat_add(g.naive, r->naive);
      g.unresolved = g.unresolved || r->unresolved;
      s.extra_bytes = std::max(s.extra_bytes, r->peak);
      for (const auto& name : r->outer_reads) s.reads.push_back(t.add(name, {}, {}, 0, true, g));
      g.bodies.emplace_back(static_cast<size_t>(node.index), std::move(r));
    }
  }

  const Analysis& a_;
  std::set<std::string> inputs_, outputs_;
  std::map<std::string, std::vector<size_t>> by_graph_;
  std::map<std::pair<std::string, std::string>, std::vector<const SubgraphSummary*>> bodies_;
};

}  // namespace

TopologicalMemory topological_memory(const Analysis& a, const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs) {
  TopologicalMemory out;
  Walker w(a, inputs, outputs);
  out.live.assign(a.nodes.size(), 0);
  const std::unique_ptr<GraphResult> g = w.walk("main", true);
  const GraphResult& main = *g;
  w.place(main, 0, out.live);
  out.notes = std::move(w.notes);
  ActivationsMemory& m = out.activations;
  m.naive_bytes = main.naive;
  m.peak_bytes = main.peak;
  m.peak_node = main.peak_node;
  if (main.peak_node >= 0) m.peak_node_name = a.nodes[static_cast<size_t>(main.peak_node)].name;
  m.inputs_bytes = main.inputs;
  m.outputs_bytes = main.outputs;
  m.largest_tensor_bytes = main.largest;
  m.largest_tensor = main.largest_name;
  if (main.unresolved)
    out.notes.push_back("some tensor shapes are unresolved: their bytes count as 0, so the activations are a lower "
                        "bound (give the dims with --dim or --shape)");
  return out;
}

namespace {
// Every name a node of any graph reads: an initializer no node reads is dropped by runtimes.
std::set<std::string> names_read(const Model& model) {
  std::set<std::string> out;
  for (const auto& g : model.graphs)
    for (const auto& n : g.nodes)
      for (const auto& i : n.inputs) out.insert(i);
  return out;
}
}  // namespace

WeightsMemory model_weights(const Model& model) {
  const std::set<std::string> read = names_read(model);
  std::set<std::string> files;
  WeightsMemory w;
  for (const auto& init : model.initializers) {
    const uint64_t bytes = sat_mul(as_count(init.elements), static_cast<uint64_t>(dtype_bits(init.dtype))) / 8;
    w.bytes = sat_add(w.bytes, bytes);
    if (!init.constant_node.empty()) w.constant_bytes = sat_add(w.constant_bytes, bytes);
    if (!init.external_file.empty()) {
      w.external_bytes = sat_add(w.external_bytes, bytes);
      files.insert(init.external_file);
    }
    if (init.constant_node.empty() && !read.count(init.name)) w.unused_bytes = sat_add(w.unused_bytes, bytes);
  }
  w.external_files = static_cast<int64_t>(files.size());
  return w;
}

uint64_t used_weight_bytes(const WeightsMemory& w) { return w.bytes - std::min(w.bytes, w.unused_bytes); }

ModelMemory predict_model_memory(const Model& model, const Analysis& analysis) {
  ModelMemory m;
  m.weights = model_weights(model);
  if (analysis.nodes.empty() || model.graphs.empty()) return m;
  TopologicalMemory t = topological_memory(analysis, model.graphs[0].inputs, model.graphs[0].outputs);
  m.activations = t.activations;
  m.live_bytes = std::move(t.live);
  m.notes = std::move(t.notes);
  m.peak_bytes = sat_add(used_weight_bytes(m.weights), m.activations.peak_bytes);
  return m;
}

}  // namespace rooflens
