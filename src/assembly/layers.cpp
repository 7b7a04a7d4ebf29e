#include "assembly/layers.h"

#include <algorithm>
#include <optional>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/roofline.h"
#include "core/saturating.h"
#include "core/units.h"
#include "mapping/kernel_ownership.h"
#include "model/tensor.h"
#include "stats/order.h"

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

// Ops that only reinterpret a tensor's shape: a runtime hands the buffer through (ORT's Reshape aliases its
// input whenever the planner can), so a layer of nothing but these moves no data and has no place on the roofline.
bool is_view_op(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
         op == "Dropout";
}

// Bytes of the tensors a kernel read and wrote, as the runtime reported them; nullopt without a complete list.
std::optional<uint64_t> runtime_bytes(const Layer& l) {
  if (l.input_shapes.size() != l.input_dtypes.size() || l.output_shapes.size() != l.output_dtypes.size() ||
      l.input_shapes.empty() || l.output_shapes.empty())
    return std::nullopt;
  uint64_t bytes = 0;
  for (const auto* side : {&l.input_shapes, &l.output_shapes}) {
    const auto& dtypes = side == &l.input_shapes ? l.input_dtypes : l.output_dtypes;
    for (size_t i = 0; i < side->size(); ++i) {
      const auto& shape = (*side)[i];
      if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) return std::nullopt;
      if (dtype_bits(dtype_from_name(dtypes[i])) <= 0) return std::nullopt;
      bytes = sat_add(bytes, tensor_bytes(shape, dtypes[i]));
    }
  }
  return bytes;
}

// Bytes node n reads of its input i: the part it reads by definition (a Gather's rows), else the whole tensor.
uint64_t input_bytes(const NodeAnalysis& n, size_t i) {
  if (i < n.input_read_bytes.size()) return n.input_read_bytes[i];
  if (i < n.input_shapes.size() && i < n.input_dtypes.size()) return tensor_bytes(n.input_shapes[i], n.input_dtypes[i]);
  return 0;
}

// Boundary bytes of a group of nodes: tensors read from outside (weights included) + tensors written that
// someone outside the group (or the graph output) uses. Intermediate tensors stay in the fused kernel. A node reads
// its inputs only when its result is needed: a Transpose whose output only a Shape in the same kernel looks at
// (ORT reads the dims and drops the Transpose) moves no data.
struct Boundary {
  uint64_t reads = 0, writes = 0;
};
Boundary boundary_bytes(const std::vector<const NodeAnalysis*>& group,
                        const std::unordered_map<std::string, std::vector<int>>& consumers,
                        const std::set<std::string>& graph_outputs, const std::vector<int>& layer_of, int self) {
  auto used_outside = [&](const std::string& t) {
    if (graph_outputs.count(t)) return true;
    auto c = consumers.find(t);
    if (c != consumers.end())
      for (int k : c->second)
        if (layer_of[static_cast<size_t>(k)] != self) return true;
    return false;
  };
  std::unordered_map<std::string, std::vector<std::pair<size_t, size_t>>> readers;  // tensor -> (group node, input)
  for (size_t j = 0; j < group.size(); ++j)
    for (size_t k = 0; k < group[j]->inputs.size(); ++k) readers[group[j]->inputs[k]].push_back({j, k});
  // Nodes come in topological order: whether a node is needed depends only on the nodes after it.
  std::vector<bool> needed(group.size(), false);
  for (size_t i = group.size(); i-- > 0;) {
    for (const auto& t : group[i]->outputs) {
      auto r = readers.find(t);
      bool needs = used_outside(t) || r == readers.end();  // read outside, or by no one here (a body's result)
      if (r != readers.end())
        for (const auto& [j, k] : r->second)
          if (needed[j] && input_bytes(*group[j], k) > 0) needs = true;
      if (needs) needed[i] = true;
    }
  }
  std::set<std::string> produced;
  std::map<std::string, uint64_t> read;  // tensor -> most bytes any needing node reads of it
  for (const auto* n : group)
    for (const auto& t : n->outputs) produced.insert(t);
  Boundary b;
  for (size_t g = 0; g < group.size(); ++g) {
    const NodeAnalysis* n = group[g];
    if (!needed[g]) continue;
    for (size_t i = 0; i < n->inputs.size(); ++i)
      if (const auto& t = n->inputs[i]; !t.empty() && !produced.count(t)) read[t] = std::max(read[t], input_bytes(*n, i));
    for (size_t i = 0; i < n->outputs.size(); ++i)
      if (used_outside(n->outputs[i]) && i < n->output_shapes.size() && i < n->output_dtypes.size())
        b.writes = sat_add(b.writes, tensor_bytes(n->output_shapes[i], n->output_dtypes[i]));
  }
  for (const auto& [t, bytes] : read) b.reads = sat_add(b.reads, bytes);
  return b;
}

// Bytes of the tensors a kernel wrote, as the runtime reported them; nullopt without a complete list.
std::optional<uint64_t> runtime_writes(const Layer& l) {
  if (l.output_shapes.empty() || l.output_shapes.size() != l.output_dtypes.size()) return std::nullopt;
  uint64_t bytes = 0;
  for (size_t i = 0; i < l.output_shapes.size(); ++i) {
    const auto& shape = l.output_shapes[i];
    if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) return std::nullopt;
    if (dtype_bits(dtype_from_name(l.output_dtypes[i])) <= 0) return std::nullopt;
    bytes = sat_add(bytes, tensor_bytes(shape, l.output_dtypes[i]));
  }
  return bytes;
}

// Costs of the layers from the analysis of the nodes they own.
class CostFiller {
 public:
  CostFiller(const LayerSources& in, const KernelOwnership& own) : in_(in), own_(own) {
    for (const auto& n : in.analysis->nodes) {
      if (n.graph == "main") main_nodes_.push_back(&n);
      else sub_nodes_[top_level_parent(n.graph)].push_back(&n);
    }
    for (size_t i = 0; i < in.original->nodes.size(); ++i)
      for (const auto& t : in.original->nodes[i].inputs) consumers_[t].push_back(static_cast<int>(i));
    outputs_.insert(in.original->graph_outputs.begin(), in.original->graph_outputs.end());
  }

  bool consistent() const { return main_nodes_.size() == in_.original->nodes.size(); }

  void fill(Layer& l, size_t layer) const {
    if (own_.sub_node[layer] >= 0) return fill_subgraph_node(l, in_.analysis->nodes[static_cast<size_t>(own_.sub_node[layer])]);
    std::vector<const NodeAnalysis*> group;
    for (int o : own_.owned[layer]) {
      group.push_back(main_nodes_[static_cast<size_t>(o)]);
      l.onnx_nodes.push_back(in_.original->nodes[static_cast<size_t>(o)].name);
      // A control-flow node's layer counts the nodes of its subgraphs that no kernel of their own computed.
      auto s = sub_nodes_.find(in_.original->nodes[static_cast<size_t>(o)].name);
      if (s == sub_nodes_.end()) continue;
      for (const NodeAnalysis* n : s->second)
        if (!own_.sub_claimed.count(static_cast<int>(n - in_.analysis->nodes.data()))) group.push_back(n);
    }
    int alias_of = own_.alias_of[layer];
    if (group.empty() && alias_of >= 0) return fill_alias(l, *main_nodes_[static_cast<size_t>(alias_of)]);
    for (const auto* n : group) {
      l.flops = sat_add(l.flops, n->flops);
      l.macs = sat_add(l.macs, n->macs);
      l.padding_macs = sat_add(l.padding_macs, n->padding_macs);
      l.cost_known = l.cost_known && n->cost_known;
    }
    if (group.empty()) return;
    if (std::all_of(group.begin(), group.end(), [](const NodeAnalysis* n) { return is_view_op(n->op); })) {
      l.bytes = 0;
      l.bytes_source = BytesSource::view;
      return;
    }
    const Boundary b = boundary_bytes(group, consumers_, outputs_, own_.layer_of, static_cast<int>(layer));
    // What the kernel wrote is what the runtime says it output (in the precision it computed: an fp16 model's
    // convolution run in float32 writes float32), not every tensor of its nodes that others read: the runtime may
    // have moved a node's consumers onto another tensor.
    if (std::optional<uint64_t> written = runtime_writes(l)) {
      l.bytes = sat_add(b.reads, *written);
      l.bytes_written = *written;
      l.bytes_source = BytesSource::runtime_writes;
    } else {
      l.bytes = sat_add(b.reads, b.writes);
      l.bytes_written = b.writes;
    }
  }

  // A kernel that only carries a tensor of the user's (a reorder, a copy, a cast the runtime inserted) moves what
  // it read and wrote: the runtime's own shapes say so (a cast reads float16 and writes float32); without them,
  // the tensor it carries, read once and written once.
  void fill_alias(Layer& l, const NodeAnalysis& a) const {
    l.alias = true;
    l.onnx_nodes.push_back(a.name);
    if (is_view_op(l.op)) {  // an inserted Reshape hands its buffer through
      l.bytes = 0;
      l.bytes_source = BytesSource::view;
      return;
    }
    if (std::optional<uint64_t> moved = runtime_bytes(l)) {
      l.bytes = *moved;
      l.bytes_source = BytesSource::runtime;
      return;
    }
    uint64_t t = a.outputs.empty() || a.output_shapes.empty() || a.output_dtypes.empty()
                     ? 0
                     : tensor_bytes(a.output_shapes[0], a.output_dtypes[0]);
    l.bytes = sat_mul(t, 2);
  }

  // One node of a subgraph, computed by a kernel of its own: its cost as the analysis counted it (every Loop
  // trip included, as the kernel's time sums them).
  static void fill_subgraph_node(Layer& l, const NodeAnalysis& n) {
    l.onnx_nodes.push_back(n.name);
    l.flops = n.flops;
    l.macs = n.macs;
    l.bytes = sat_add(n.bytes_read, n.bytes_written);
    l.cost_known = n.cost_known;
  }

 private:
  const LayerSources& in_;
  const KernelOwnership& own_;
  std::vector<const NodeAnalysis*> main_nodes_;
  std::unordered_map<std::string, std::vector<const NodeAnalysis*>> sub_nodes_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::set<std::string> outputs_;
};

Layer timed_layer(const KernelRecord& k) {
  Layer l;
  l.name = k.name;
  l.op = k.op;
  l.provider = k.device;
  // The source's median wins; a source that gives only a mean (older trtexec) is timed by it.
  l.time_ms = k.median_ms ? *k.median_ms
              : k.per_iteration_ms.empty() && k.mean_ms ? *k.mean_ms
                                                        : stats::median_of(k.per_iteration_ms);
  l.start_ms = k.start_ms;
  l.input_shapes = k.input_shapes;
  l.output_shapes = k.output_shapes;
  l.kind = k.kind;
  l.device = k.device_class;
  l.input_dtypes = k.input_dtypes;
  l.output_dtypes = k.output_dtypes;
  l.mean_ms = k.mean_ms;
  l.precision = k.precision;
  l.implementation = k.implementation;
  l.inserted_for = k.inserted_for;
  l.fallback = k.fallback;
  l.weight_bytes = k.weight_bytes.value_or(0);
  for (const LevelBytes& b : k.level_bytes) {
    LevelPoint p;
    p.level = b.level;
    p.bytes = b.bytes;
    l.levels.push_back(p);
  }
  return l;
}

// A layer with no user node behind it keeps the cost the source gave (an imported profile without the model); a
// live kernel the source gave no cost for moved at least the tensors the runtime says it read and wrote.
void source_cost(Layer& l, const KernelRecord& k) {
  l.flops = k.flops.value_or(0);
  l.macs = k.macs.value_or(0);
  l.bytes = k.bytes.value_or(0);
  l.cost_known = k.flops.has_value();
  if (k.bytes) l.bytes_source = BytesSource::source;
  else if (is_view_op(l.op)) l.bytes_source = BytesSource::view;
  else if (std::optional<uint64_t> moved = runtime_bytes(l)) l.bytes = *moved, l.bytes_source = BytesSource::runtime;
}

const char* bytes_origin(BytesSource s) {
  switch (s) {
    case BytesSource::analysis: return "its nodes' tensors, as analysed";
    case BytesSource::runtime_writes: return "reads as analysed, writes as the runtime reported";
    case BytesSource::runtime: return "the tensors the runtime reported";
    case BytesSource::view: return "a view";
    case BytesSource::source: return "the imported profile's figure";
  }
  return "";
}

// How many times its roof a rate is at the longest time the timer step allows; 0 when within the tolerance. The one
// test of physics for a layer and for each of its memory levels.
double beyond_roof(double efficiency, double time_ms, double step_ms) {
  if (time_ms <= 0 || efficiency <= 1 + kRoofTolerance) return 0;
  const double ratio = efficiency * time_ms / (time_ms + step_ms);
  return ratio > 1 + kRoofTolerance ? ratio : 0;
}

// The physics check: a layer's rate, at the longest time its source's timer step allows, may not exceed its roof by
// more than kRoofTolerance. A layer that does had fewer FLOPs or bytes than it is charged (or a missing ceiling):
// an attribution error, said with its figures, never a point above the roof.
std::string attribution_error(const Layer& l, double step_ms) {
  const double ratio = l.bound.empty() ? 0 : beyond_roof(l.efficiency, l.time_ms, step_ms);
  if (ratio == 0) return "";
  const std::string times = fixed(ratio, 2) + "x its " + l.roof + " roof";
  if (l.bound == "compute")
    return "computes " + fixed(l.gflops, 1) + " GFLOP/s, " + times + ": the kernel did less work than its " +
           si(static_cast<double>(l.placed_flops())) + " FLOPs, or no ceiling fits its precision (" +
           (l.precision.empty() ? "fp32 assumed" : l.precision) + ")";
  return "moves " + fixed(l.gbps, 1) + " GB/s, " + times + ": the kernel moved fewer than its " +
         si_bytes(static_cast<double>(l.bytes)) + " (" + bytes_origin(l.bytes_source) +
         "), or the data stayed in a nearer cache than its size says";
}

// A level's point above its own ceiling: the source's counters or its peaks disagree (the bytes it counted at that
// level could not have moved in the kernel's time).
std::string level_error(const LevelPoint& p, const Layer& l, double step_ms) {
  const double ratio = p.bound.empty() ? 0 : beyond_roof(p.efficiency, l.time_ms, step_ms);
  if (ratio == 0) return "";
  const std::string rate = p.bound == "compute" ? fixed(l.gflops, 1) + " GFLOP/s" : fixed(p.gbps, 1) + " GB/s";
  return p.level + ": " + rate + ", " + fixed(ratio, 2) + "x its " + p.roof + " roof: the " +
         si_bytes(static_cast<double>(p.bytes)) + " counted there, or the level's peak, are wrong";
}

// The layer's point at each memory level the source counted bytes for, by the same placement as the layer's own.
int64_t place_levels(Layer& l, const LayerSources& in, uint64_t work, double seconds) {
  int64_t errors = 0;
  for (LevelPoint& p : l.levels) {
    p.intensity = p.bytes > 0 ? static_cast<double>(work) / static_cast<double>(p.bytes) : 0;
    p.gbps = seconds > 0 ? static_cast<double>(p.bytes) / seconds / 1e9 : 0;
    if (!in.hw) continue;
    RoofPlacement r = place_at_level(*in.hw, in.threads, work, p.bytes, seconds, roof_dtype(l.precision), p.level);
    p.bound = r.bound;
    p.roof = r.roof;
    p.efficiency = r.efficiency;
    p.attribution_error = level_error(p, l, in.kernel_time_step_ms);
    errors += !p.attribution_error.empty();
  }
  return errors;
}

// A layer an engine ran (WebAssembly), placed on the machine's native roofs as well (`l` already placed on the
// engine's). The machine allows at least what any kernel measured on it did: from L2 outwards an engine's loads meet
// the same caches as the native ones, so the two sweeps measure one ceiling twice, and the native figure can come out
// below the engine's (a native roof measured in a slow spell, a read+write mix the native kernels never ran). There
// the engine's ceiling stands as the CPU's too — never a share of "what the CPU allows" above the share of what the
// engine allows — and `cpu_roof` says whose figure it is.
void place_on_cpu(Layer& l, const HardwareInfo& cpu, int64_t threads, uint64_t work, double s) {
  const RoofPlacement c = place_on_roofline(cpu, threads, work, l.bytes, s, roof_dtype(l.precision), l.bytes_written);
  if (c.bound.empty()) return;
  const bool engine_higher = !l.bound.empty() && c.efficiency > l.efficiency;
  l.cpu_efficiency = engine_higher ? l.efficiency : c.efficiency;
  l.cpu_roof = engine_higher ? l.roof + " (the engine's figure; the native " + c.roof + " is lower)" : c.roof;
}

bool has_compute_roof(const HardwareInfo& hw, const std::string& dtype) {
  return std::any_of(hw.compute.begin(), hw.compute.end(), [&](const ComputeRoof& c) { return c.dtype == dtype; });
}

}  // namespace

std::vector<std::string> place_layers(std::vector<Layer>& layers, const HardwareInfo* hw, int64_t threads,
                                      double step_ms, const HardwareInfo* cpu) {
  std::vector<std::string> warnings;
  LayerSources in;
  in.hw = hw;
  in.cpu = cpu;
  in.threads = threads;
  in.kernel_time_step_ms = step_ms;
  double total_ms = 0;
  for (const auto& l : layers) total_ms += l.time_ms;
  const Layer* worst = nullptr;
  int64_t errors = 0;
  std::set<std::string> unroofed;  // dtypes computed in that the roofs have no ceiling for (held against fp32)
  for (auto& l : layers) {
    l.attribution_error.clear();  // placed again against raised roofs: nothing of the last placement stays
    l.cpu_efficiency.reset();
    l.cpu_roof.clear();
    l.share = total_ms > 0 ? l.time_ms / total_ms : 0;
    double s = l.time_ms / 1000.0;
    const uint64_t work = l.placed_flops();
    if (l.bytes > 0) l.intensity = static_cast<double>(work) / static_cast<double>(l.bytes);
    if (s > 0) {
      l.gflops = static_cast<double>(work) / s / 1e9;
      l.gbps = static_cast<double>(l.bytes) / s / 1e9;
    }
    errors += place_levels(l, in, work, s);
    if (in.hw) {
      RoofPlacement r = place_on_roofline(*in.hw, in.threads, work, l.bytes, s, roof_dtype(l.precision), l.bytes_written);
      l.bound = r.bound;
      l.roof = r.roof;
      l.efficiency = r.efficiency;
      if (in.cpu && s > 0) place_on_cpu(l, *in.cpu, in.threads, work, s);
      const std::string dtype = roof_dtype(l.precision);
      // Above the fp32 ceiling is no error for an int8 kernel when no int8 ceiling was measured (hw --quick).
      if (r.bound == "compute" && !dtype.empty() && dtype != "fp32" && !has_compute_roof(*in.hw, dtype)) {
        unroofed.insert(dtype);
        continue;
      }
      l.attribution_error = attribution_error(l, in.kernel_time_step_ms);
      if (!l.attribution_error.empty() && (++errors, !worst || l.efficiency > worst->efficiency)) worst = &l;
    }
  }
  for (const auto& dtype : unroofed)
    warnings.push_back("the roofs have no " + dtype + " compute ceiling (measure them with `rooflens hw`): " + dtype +
                       " layers are held against the fp32 one, and their efficiency can exceed 100%");
  if (errors && !worst)
    warnings.push_back(std::to_string(errors) + " memory level point(s) above their level's roof by more than " +
                       fixed(kRoofTolerance * 100, 0) + "% (attribution errors, not drawn on the roofline)");
  if (worst)
    warnings.push_back(std::to_string(errors) + " layer(s) above their roof by more than " +
                       fixed(kRoofTolerance * 100, 0) + "% (attribution errors, not drawn on the roofline): worst '" +
                       worst->name + "' " + worst->attribution_error);
  return warnings;
}

namespace {

void place(std::vector<Layer>& layers, const LayerSources& in, std::vector<std::string>& warnings) {
  for (auto& w : place_layers(layers, in.hw, in.threads, in.kernel_time_step_ms, in.cpu))
    warnings.push_back(std::move(w));
}

}  // namespace

LayerBuild build_layers(const std::vector<KernelRecord>& kernels, const LayerSources& in) {
  LayerBuild out;
  for (const auto& k : kernels) out.layers.push_back(timed_layer(k));
  if (!in.original || !in.analysis) {
    for (size_t i = 0; i < kernels.size(); ++i) source_cost(out.layers[i], kernels[i]);
    place(out.layers, in, out.warnings);
    return out;
  }
  // Which user nodes each layer computes (mapping/): the kernels' and, inside control-flow kernels, the subgraph
  // nodes that run, known by their index in the analysis.
  std::vector<SubgraphNode> subgraph_nodes;
  for (size_t i = 0; i < in.analysis->nodes.size(); ++i) {
    const NodeAnalysis& n = in.analysis->nodes[i];
    if (n.graph != "main" && n.execution != NodeExecution::NotTaken)
      subgraph_nodes.push_back({n.name, static_cast<int>(i)});
  }
  KernelOwnership own = assign_kernels(kernels, *in.original, in.executed, in.rules ? *in.rules : plain_mapping_rules(),
                                       subgraph_nodes);
  out.warnings = own.warnings;
  CostFiller costs(in, own);
  if (!costs.consistent()) {
    out.warnings.push_back("internal: analysis and graph disagree on the node count; layers not mapped");
    place(out.layers, in, out.warnings);
    return out;
  }
  for (size_t i = 0; i < own.untimed.size(); ++i) {
    Layer l;
    l.name = own.untimed[i];
    l.op = own.untimed_op[i];
    out.warnings.push_back("layer '" + l.name + "' owns user nodes but recorded no kernel time");
    out.layers.push_back(std::move(l));
  }
  for (size_t i = 0; i < out.layers.size(); ++i) {
    costs.fill(out.layers[i], i);
    if (out.layers[i].onnx_nodes.empty()) {
      ++out.unmapped_kernels;
      if (i < kernels.size()) source_cost(out.layers[i], kernels[i]);
    }
  }
  for (size_t o = 0; o < own.layer_of.size(); ++o)
    if (own.layer_of[o] < 0) out.unowned.push_back({in.original->nodes[o].name, own.fate[o]});
  place(out.layers, in, out.warnings);
  if (out.unmapped_kernels > 0)
    out.warnings.push_back(std::to_string(out.unmapped_kernels) + " kernel(s) could not be mapped to any ONNX node");
  return out;
}

}  // namespace rooflens
