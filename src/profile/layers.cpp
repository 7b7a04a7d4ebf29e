#include "profile/layers.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/roofline.h"
#include "core/saturating.h"
#include "core/stats.h"
#include "model/tensor.h"

namespace rooflens {
namespace {

uint64_t tensor_bytes(const std::vector<int64_t>& shape, const std::string& dtype) {
  int bits = dtype_bits(dtype_from_name(dtype));
  if (bits <= 0) return 0;
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return 0;
    n = sat_mul(n, static_cast<uint64_t>(d));
  }
  return sat_mul(n, static_cast<uint64_t>(bits)) / 8;
}

// The top-level node a subgraph path "main/<node>:<attr>/..." belongs to.
std::string top_level_parent(const std::string& graph) {
  if (graph.rfind("main/", 0) != 0) return "";
  std::string rest = graph.substr(5);
  return rest.substr(0, rest.find(':'));
}

// Boundary bytes of a group of nodes: tensors read from outside (weights included) + tensors written that
// someone outside the group (or the graph output) uses. Intermediate tensors stay in the fused kernel.
uint64_t boundary_bytes(const std::vector<const NodeAnalysis*>& group,
                        const std::unordered_map<std::string, std::vector<int>>& consumers,
                        const std::set<std::string>& graph_outputs, const std::vector<int>& owner, int self) {
  std::set<std::string> produced, counted;
  for (const auto* n : group)
    for (const auto& t : n->outputs) produced.insert(t);
  uint64_t bytes = 0;
  for (const auto* n : group) {
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const auto& t = n->inputs[i];
      if (t.empty() || produced.count(t) || !counted.insert(t).second) continue;
      if (i < n->input_shapes.size() && i < n->input_dtypes.size())
        bytes = sat_add(bytes, tensor_bytes(n->input_shapes[i], n->input_dtypes[i]));
    }
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      const auto& t = n->outputs[i];
      bool used_outside = graph_outputs.count(t) > 0;
      auto c = consumers.find(t);
      if (c != consumers.end())
        for (int k : c->second)
          if (owner[static_cast<size_t>(k)] != self) used_outside = true;
      if (used_outside && i < n->output_shapes.size() && i < n->output_dtypes.size())
        bytes = sat_add(bytes, tensor_bytes(n->output_shapes[i], n->output_dtypes[i]));
    }
  }
  return bytes;
}

}  // namespace

GraphView graph_view(const Model& model) {
  GraphView v;
  if (model.graphs.empty()) return v;
  const Graph& g = model.graphs[0];
  for (const auto& in : g.inputs) v.graph_inputs.insert(in);
  for (const auto& n : g.nodes)
    v.nodes.push_back({n.name, n.op, n.domain, n.inputs, n.outputs, n.attr_s("activation", "")});
  return v;
}

LayerBuild build_layers(const Model& original, const Analysis& analysis, const std::optional<Model>& optimized,
                        const std::vector<KernelTiming>& kernels, const HardwareInfo* hw, int64_t threads) {
  LayerBuild out;
  GraphView ov = graph_view(original);
  // Main-graph analysis entries, in the main graph's node order; subgraph entries grouped by their parent.
  std::vector<const NodeAnalysis*> main_nodes;
  std::unordered_map<std::string, std::vector<const NodeAnalysis*>> sub_nodes;
  for (const auto& n : analysis.nodes) {
    if (n.graph == "main") main_nodes.push_back(&n);
    else sub_nodes[top_level_parent(n.graph)].push_back(&n);
  }
  if (main_nodes.size() != ov.nodes.size()) {
    out.warnings.push_back("internal: analysis and graph disagree on the node count; layers not mapped");
    return out;
  }
  std::unordered_map<std::string, int> original_by_name;
  for (size_t i = 0; i < ov.nodes.size(); ++i) original_by_name.emplace(ov.nodes[i].name, static_cast<int>(i));

  GraphView pv = optimized ? graph_view(*optimized) : GraphView{};
  LayerMapping map = map_layers(ov, pv);
  std::unordered_map<std::string, int> optimized_by_name;
  for (size_t i = 0; i < pv.nodes.size(); ++i) optimized_by_name.emplace(pv.nodes[i].name, static_cast<int>(i));

  // Consumers (by original node index) for boundary bytes.
  std::unordered_map<std::string, std::vector<int>> consumers;
  for (size_t i = 0; i < ov.nodes.size(); ++i)
    for (const auto& t : ov.nodes[i].inputs) consumers[t].push_back(static_cast<int>(i));
  std::set<std::string> graph_outputs(original.graphs[0].outputs.begin(), original.graphs[0].outputs.end());

  std::set<int> kernel_nodes;
  double total_ms = 0;
  for (const auto& k : kernels) {
    Layer l;
    l.name = k.node;
    l.op = k.op;
    l.provider = k.provider;
    l.time_ms = median_of(k.per_iteration_ms);
    l.start_ms = k.start_ms;
    l.input_shapes = k.input_shapes;
    l.output_shapes = k.output_shapes;
    l.kind = k.kind;
    l.device = k.device;
    l.input_dtypes = k.input_dtypes;
    l.output_dtypes = k.output_dtypes;
    total_ms += l.time_ms;

    std::vector<int> owned;
    int alias_of = -1;
    auto p = optimized_by_name.find(k.node);
    if (p != optimized_by_name.end()) {
      kernel_nodes.insert(p->second);
      owned = map.layers[p->second].owned;
      alias_of = map.layers[p->second].alias_of;
    } else {
      // No optimized graph (or a kernel outside it): the kernel's own name may be the user's node.
      for (const auto& cand : name_candidates(k.node)) {
        auto o = original_by_name.find(cand);
        if (o == original_by_name.end()) continue;
        if (!optimized) {
          if (map.owner[o->second] < 0) {
            map.owner[o->second] = -2;  // owned by a name-matched kernel
            map.fate[o->second] = "";
            owned = {o->second};
          } else {
            alias_of = o->second;
          }
        } else {
          alias_of = o->second;
        }
        break;
      }
    }
    std::vector<const NodeAnalysis*> group;
    for (int o : owned) {
      group.push_back(main_nodes[o]);
      l.onnx_nodes.push_back(ov.nodes[o].name);
      for (const auto* s : sub_nodes[ov.nodes[o].name]) group.push_back(s);
    }
    if (owned.empty() && alias_of >= 0) {
      l.alias = true;
      l.onnx_nodes.push_back(ov.nodes[alias_of].name);
    }
    if (l.onnx_nodes.empty()) ++out.unmapped_kernels;
    for (const auto* n : group) {
      l.flops = sat_add(l.flops, n->flops);
      l.macs = sat_add(l.macs, n->macs);
      l.cost_known = l.cost_known && n->cost_known;
    }
    if (!group.empty()) {
      int self = owned.empty() ? -1 : map.owner[owned.front()];
      l.bytes = boundary_bytes(group, consumers, graph_outputs, map.owner, self);
    } else if (l.alias) {
      const NodeAnalysis* a = main_nodes[alias_of];
      uint64_t t = a->outputs.empty() || a->output_shapes.empty() || a->output_dtypes.empty()
                       ? 0
                       : tensor_bytes(a->output_shapes[0], a->output_dtypes[0]);
      l.bytes = sat_mul(t, 2);  // a reorder reads and writes the tensor once
    }
    out.layers.push_back(std::move(l));
  }

  // Optimized nodes that own user nodes but never showed up as a kernel: their nodes' FLOPs must not vanish.
  for (size_t i = 0; i < map.layers.size(); ++i) {
    if (kernel_nodes.count(static_cast<int>(i)) || map.layers[i].owned.empty()) continue;
    Layer l;
    l.name = pv.nodes[i].name;
    l.op = pv.nodes[i].op;
    std::vector<const NodeAnalysis*> group;
    for (int o : map.layers[i].owned) {
      group.push_back(main_nodes[o]);
      l.onnx_nodes.push_back(ov.nodes[o].name);
    }
    for (const auto* n : group) {
      l.flops = sat_add(l.flops, n->flops);
      l.macs = sat_add(l.macs, n->macs);
    }
    l.bytes = boundary_bytes(group, consumers, graph_outputs, map.owner, static_cast<int>(i));
    out.warnings.push_back("layer '" + l.name + "' owns user nodes but recorded no kernel time");
    out.layers.push_back(std::move(l));
  }

  for (size_t o = 0; o < map.owner.size(); ++o)
    if (map.owner[o] == -1) out.unowned.push_back({ov.nodes[o].name, map.fate[o]});

  for (auto& l : out.layers) {
    l.share = total_ms > 0 ? l.time_ms / total_ms : 0;
    double s = l.time_ms / 1000.0;
    if (l.bytes > 0) l.intensity = static_cast<double>(l.flops) / static_cast<double>(l.bytes);
    if (s > 0) {
      l.gflops = static_cast<double>(l.flops) / s / 1e9;
      l.gbps = static_cast<double>(l.bytes) / s / 1e9;
    }
    if (hw) {
      RoofPlacement r = place_on_roofline(*hw, threads, l.flops, l.bytes, s);
      l.bound = r.bound;
      l.roof = r.roof;
      l.efficiency = r.efficiency;
    }
  }
  if (out.unmapped_kernels > 0)
    out.warnings.push_back(std::to_string(out.unmapped_kernels) + " kernel(s) could not be mapped to any ONNX node");
  return out;
}

}  // namespace rooflens
