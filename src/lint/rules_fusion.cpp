// Fusion: work a runtime could have merged or removed — chains of memory-bound layers that each re-read and
// re-write a tensor, and shape arithmetic (Shape -> Gather -> Concat ...) computed at run time.
#include <numeric>
#include <set>
#include <unordered_map>

#include "lint/rule.h"

namespace rooflens {
namespace {

constexpr double kMemoryIntensity = 1.0;  // FLOP/byte below which a layer counts as memory-bound without roofs
constexpr double kChainInfoShare = 0.01;  // chains below this share of layer time are not reported
constexpr double kChainWarnShare = 0.05;
constexpr double kShapeWarnShare = 0.02;

// A fusible memory-bound layer: elementwise, normalization, pooling, data movement — not a matmul-class layer
// (MACs > 0): two convolutions do not fuse into one kernel, whatever their intensity.
bool memory_bound(const Layer& l) {
  if (l.alias || l.kind != LayerKind::compute || l.onnx_nodes.empty() || l.time_ms <= 0 || l.macs > 0) return false;
  if (!l.bound.empty()) return l.bound == "memory";
  return l.intensity < kMemoryIntensity;
}

size_t find_root(std::vector<size_t>& parent, size_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

void unfused_chains(const RunFacts& f, FindingSink& out) {
  const auto& layers = f.run.layers;
  // L links to M when M is the only layer reading L's outputs and both are memory-bound: L's result could
  // have stayed in registers or cache inside one fused kernel.
  std::vector<size_t> parent(layers.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t l = 0; l < layers.size(); ++l) {
    if (!memory_bound(layers[l]) || f.graph.succ[l].size() != 1) continue;
    size_t m = f.graph.succ[l][0];
    if (memory_bound(layers[m])) parent[find_root(parent, l)] = find_root(parent, m);
  }
  std::unordered_map<size_t, std::vector<size_t>> groups;
  for (size_t l = 0; l < layers.size(); ++l)
    if (memory_bound(layers[l])) groups[find_root(parent, l)].push_back(l);
  std::vector<size_t> chained;
  size_t chains = 0, longest = 0;
  uint64_t bytes = 0;
  for (const auto& [root, members] : groups) {
    if (members.size() < 2) continue;
    ++chains;
    longest = std::max(longest, members.size());
    for (size_t i : members) {
      chained.push_back(i);
      bytes += layers[i].bytes;
    }
  }
  double ms = sum_ms(f.run, chained), share = f.share_of(ms);
  if (chains == 0 || share < kChainInfoShare) return;
  Finding& x = out.add(share >= kChainWarnShare ? Severity::warning : Severity::info,
                       std::to_string(chains) + " chain(s) of memory-bound layers not fused: " +
                           std::to_string(chained.size()) + " layers, " + pct(share) + " of layer time (" +
                           ms_text(ms) + ")");
  name_layers(x, f.run, chained);
  x.evidence = {{"chains", static_cast<double>(chains), "count"},
                {"layers in chains", static_cast<double>(chained.size()), "count"},
                {"longest chain", static_cast<double>(longest), "count"},
                {"time share", share, "ratio"},
                {"time", ms, "ms"},
                {"bytes moved", static_cast<double>(bytes), "bytes"}};
  x.mitigation =
      "Each layer of a chain reads a whole tensor from memory and writes it back for the next one. Let the runtime "
      "fuse them (ONNX Runtime: graphOptimizationLevel=all, the default; check that the inference session did not "
      "disable it), or fuse at export (fold BatchNormalization into the Conv before it, fuse activations into the "
      "producing op).";
}

const std::set<std::string>& shape_ops() {
  static const std::set<std::string> ops = {"Gather", "Concat", "Unsqueeze", "Squeeze", "Slice", "Cast", "Div",
                                            "Mul", "Add", "Sub", "Floor", "Ceil", "Range", "ConstantOfShape",
                                            "Equal", "Where", "ReduceProd", "Reshape", "Identity", "Max", "Min",
                                            "Neg", "Sqrt", "Expand", "Greater", "Less", "Not", "Mod", "Tile"};
  return ops;
}

bool integer_outputs(const NodeAnalysis& n) {
  if (n.output_dtypes.empty()) return false;
  for (const auto& d : n.output_dtypes)
    if (d != "int64" && d != "int32") return false;
  return true;
}

// Analysis nodes that compute shapes: Shape/Size, and integer-valued ops fed (transitively) by them.
std::vector<char> shape_nodes(const Analysis& a) {
  std::vector<char> in(a.nodes.size(), 0);
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < a.nodes.size(); ++i)
    for (const auto& t : a.nodes[i].outputs) producer.emplace(t, i);
  // Nodes are in topological order (subgraphs after their parent): one pass sees producers first.
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeAnalysis& n = a.nodes[i];
    if (n.op == "Shape" || n.op == "Size") {
      in[i] = 1;
      continue;
    }
    if (!shape_ops().count(n.op) || !integer_outputs(n)) continue;
    for (const auto& t : n.inputs) {
      auto p = producer.find(t);
      if (p != producer.end() && p->second < i && in[p->second]) in[i] = 1;
    }
  }
  return in;
}

void shape_compute(const RunFacts& f, FindingSink& out) {
  std::vector<char> shape = shape_nodes(f.report.model.analysis);
  std::vector<size_t> hits;
  size_t shape_kernels = 0;
  for (size_t li = 0; li < f.run.layers.size(); ++li) {
    const Layer& l = f.run.layers[li];
    if (l.alias || l.onnx_nodes.empty()) continue;
    bool all = true;
    for (const auto& name : l.onnx_nodes) {
      auto it = f.node_index.find(name);
      all = all && it != f.node_index.end() && shape[it->second];
    }
    if (!all) continue;
    hits.push_back(li);
    shape_kernels += l.op == "Shape" ? 1 : 0;
  }
  if (hits.empty()) return;
  double ms = sum_ms(f.run, hits), share = f.share_of(ms);
  Finding& x = out.add(share >= kShapeWarnShare ? Severity::warning : Severity::info,
                       std::to_string(hits.size()) + " layer(s) compute shapes at run time (" +
                           std::to_string(shape_kernels) + " Shape kernels; " + pct(share) + " of layer time, " +
                           ms_text(ms) + ")");
  name_layers(x, f.run, hits);
  x.evidence = {{"shape layers", static_cast<double>(hits.size()), "count"},
                {"Shape kernels", static_cast<double>(shape_kernels), "count"},
                {"time share", share, "ratio"},
                {"time", ms, "ms"}};
  x.mitigation =
      "These kernels compute tensor shapes (Shape -> Gather -> Concat -> Reshape chains of dynamic-shape exports) "
      "on every run. With fixed input shapes the runtime folds them at inference session creation: export with static "
      "shapes, or fix the dims when creating the inference session (ONNX Runtime: freeDimensionOverrides; rooflens "
      "--dim), or simplify the model with a constant-folding tool.";
}

}  // namespace

void add_fusion_rules(RuleList& rules) {
  rules.push_back({"unfused-chain", "fusion",
                   "chains of memory-bound layers, each only feeding the next, that were not fused into one kernel",
                   "https://onnxruntime.ai/docs/performance/model-optimizations/graph-optimizations.html",
                   &unfused_chains});
  rules.push_back({"shape-compute", "fusion",
                   "shape arithmetic (Shape/Gather/Concat/...) computed at run time that fixed shapes would fold",
                   "https://onnxruntime.ai/docs/performance/model-optimizations/graph-optimizations.html",
                   &shape_compute});
}

}  // namespace rooflens
