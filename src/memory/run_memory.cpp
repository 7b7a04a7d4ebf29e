#include "memory/run_memory.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/saturating.h"
#include "core/units.h"
#include "memory/arena.h"
#include "memory/executed_memory.h"
#include "memory/liveness.h"
#include "memory/model_memory.h"

namespace rooflens {
namespace {

int64_t diff(uint64_t a, uint64_t b) {
  return a >= b ? static_cast<int64_t>(std::min<uint64_t>(a - b, INT64_MAX)) : -static_cast<int64_t>(std::min<uint64_t>(b - a, INT64_MAX));
}

// Without the executed graph: the analysis' main-graph nodes in the order of the layers that own them (a fused
// layer's inner tensors then count as if they existed: an upper bound on that layer). Per layer: the most live while
// any of its nodes runs.
struct LayerOrder {
  uint64_t peak = 0;
  int64_t peak_layer = -1;
  std::vector<uint64_t> curve;
};

LayerOrder layer_order_memory(const Analysis& a, const std::vector<Layer>& layers, const std::vector<std::string>& in,
                              const std::vector<std::string>& out) {
  std::unordered_map<std::string, size_t> owner;
  for (size_t l = 0; l < layers.size(); ++l)
    if (!layers[l].alias)
      for (const auto& n : layers[l].onnx_nodes) owner.emplace(n, l);
  std::vector<std::pair<size_t, size_t>> order;  // (layer, node index)
  for (size_t i = 0; i < a.nodes.size(); ++i)
    if (a.nodes[i].graph == "main")
      if (auto it = owner.find(a.nodes[i].name); it != owner.end()) order.emplace_back(it->second, i);
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  Analysis reordered;
  for (const auto& [l, i] : order) reordered.nodes.push_back(a.nodes[i]);
  const TopologicalMemory t = topological_memory(reordered, in, out);
  LayerOrder r;
  r.curve.assign(layers.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) r.curve[order[k].first] = std::max(r.curve[order[k].first], t.live[k]);
  for (size_t l = 0; l < r.curve.size(); ++l)
    if (r.curve[l] > r.peak || r.peak_layer < 0) {
      r.peak = std::max(r.peak, r.curve[l]);
      r.peak_layer = static_cast<int64_t>(l);
    }
  return r;
}

}  // namespace

// The weights the analysis' nodes read (tensors no node produces that are not graph inputs), by name.
std::unordered_map<std::string, uint64_t> analysis_weights(const Analysis& a, const std::vector<std::string>& inputs) {
  std::unordered_map<std::string, uint64_t> constants;
  std::unordered_map<std::string, bool> produced;
  for (const auto& n : a.nodes)
    for (const auto& o : n.outputs) produced[o] = true;
  for (const auto& n : a.nodes)
    for (size_t i = 0; i < n.inputs.size() && i < n.input_shapes.size() && i < n.input_dtypes.size(); ++i)
      if (!n.inputs[i].empty() && !produced.count(n.inputs[i]) &&
          std::find(inputs.begin(), inputs.end(), n.inputs[i]) == inputs.end())
        constants[n.inputs[i]] = std::max(constants[n.inputs[i]], tensor_bytes_of(n.input_shapes[i], n.input_dtypes[i]));
  return constants;
}

uint64_t analysis_weight_bytes(const Analysis& a, const std::vector<std::string>& inputs) {
  uint64_t sum = 0;
  for (const auto& [_, b] : analysis_weights(a, inputs)) sum = sat_add(sum, b);
  return sum;
}

uint64_t used_weight_bytes(const ModelInfo& model) {
  if (!model.memory) return model.weight_bytes;
  const WeightsMemory& w = model.memory->weights;
  return w.bytes - std::min(w.bytes, w.unused_bytes);
}

std::optional<RunMemory> run_memory(const RunMemorySources& in) {
  RunMemory m;
  MemoryPrediction& p = m.predicted;
  const size_t layers = in.layers ? in.layers->size() : 0;
  std::optional<ExecutedMemory> e;
  if (in.kernels && in.executed) {
    // A kernel's packed inputs are not in its shapes: their sizes come from the executed graph's own initializers
    // (constants the runtime folded at session creation among them), else from the user's model.
    std::unordered_map<std::string, uint64_t> known =
        in.analysis ? analysis_weights(*in.analysis, in.inputs) : std::unordered_map<std::string, uint64_t>{};
    for (const auto& [name, bytes] : in.executed->constant_bytes) known[name] = bytes;
    e = executed_memory(*in.kernels, *in.executed, known);
  }
  if (e) {
    p.weights_bytes = e->weights_bytes;
    p.weights_source = "executed_graph";
    p.prepacked_bytes = e->packed_bytes;
    p.activations_bytes = e->activations_bytes;
    p.output_copies_bytes = sat_mul(e->outputs_bytes, static_cast<uint64_t>(std::max<int64_t>(0, in.output_copies)));
    p.peak_layer = e->peak_kernel;
    m.curve = e->curve;
    m.curve.resize(layers, 0);
    m.notes = e->notes;
  } else if (in.analysis && in.layers && !in.layers->empty()) {
    const LayerOrder o = layer_order_memory(*in.analysis, *in.layers, in.inputs, in.outputs);
    p.weights_bytes = in.model_weights_bytes ? in.model_weights_bytes : analysis_weight_bytes(*in.analysis, in.inputs);
    p.weights_source = "analysis";
    p.activations_bytes = o.peak;
    p.peak_layer = o.peak_layer;
    m.curve = o.curve;
    m.notes.push_back("no executed graph: the model's own nodes in the order of the layers that own them, a fused "
                      "layer's inner tensors counted as if they existed");
  } else if (in.analysis) {
    const TopologicalMemory t = topological_memory(*in.analysis, in.inputs, in.outputs);
    p.weights_bytes = in.model_weights_bytes ? in.model_weights_bytes : analysis_weight_bytes(*in.analysis, in.inputs);
    p.weights_source = "analysis";
    p.activations_bytes = t.activations.peak_bytes;
    m.curve.assign(layers, 0);
    m.notes.push_back("no layers: the activations along the model's topological order");
  } else {
    return std::nullopt;
  }
  if (p.peak_layer >= 0 && static_cast<size_t>(p.peak_layer) < layers)
    p.peak_layer_name = (*in.layers)[static_cast<size_t>(p.peak_layer)].name;
  if (in.analysis) {
    const TopologicalMemory t = topological_memory(*in.analysis, in.inputs, in.outputs);
    p.topological_bytes = t.activations.peak_bytes;
    p.naive_bytes = t.activations.naive_bytes;
    if (!e)
      p.output_copies_bytes = sat_mul(t.activations.outputs_bytes, static_cast<uint64_t>(std::max<int64_t>(0, in.output_copies)));
  }
  p.baseline_bytes = in.baseline_bytes;
  // The model's own nodes are what the runtime parses, optimizes and makes kernels of; without the model, the
  // executed graph's.
  const size_t nodes = in.analysis ? in.analysis->nodes.size() : in.executed ? in.executed->nodes.size() : 0;
  p.structures_bytes = sat_mul(in.node_bytes, static_cast<uint64_t>(nodes));
  if (in.node_bytes && !in.node_bytes_measured_at.empty())
    m.notes.push_back("node structures: " + std::to_string(nodes) + " nodes x " + std::to_string(in.node_bytes) +
                      " bytes, one trivial node's cost in this runtime with these options, measured " +
                      in.node_bytes_measured_at + " (the backend keeps it per runtime and options; docs/memory.md)");
  const uint64_t beside = sat_add(sat_add(sat_add(p.baseline_bytes, p.structures_bytes), p.weights_bytes),
                                  sat_add(p.prepacked_bytes, p.output_copies_bytes));
  p.total_bytes = sat_add(beside, p.activations_bytes);
  if (in.arena && e) {
    // The graph's inputs are the caller's buffers: in the activations' liveness, never in the arena's regions.
    p.arena = simulate_arena(*in.arena, e->events);
    if (!e->events_sharing.empty()) {
      // Kernels whose output may take an input's buffer by a rule decided on shapes rooflens cannot see: the band's
      // low end takes every such reuse it can (fewer pages written), its high end none (more regions).
      const ArenaPrediction sharing = simulate_arena(*in.arena, e->events_sharing);
      p.arena->written_bytes = std::min(p.arena->written_bytes, sharing.written_bytes);
      m.notes.push_back(std::to_string(e->maybe_shared) + " kernel(s) may write into an input's buffer (the runtime "
                        "decides on shapes its optimized graph does not carry): the arena band's low end assumes they "
                        "do, its high end that they do not");
    }
    p.arena->inputs_bytes = e->inputs_bytes;
    const uint64_t fixed = sat_add(beside, e->inputs_bytes);
    p.arena->low_bytes = sat_add(fixed, p.arena->written_bytes);
    p.arena->high_bytes = sat_add(fixed, p.arena->held_bytes);
  } else if (in.arena) {
    m.notes.push_back("no executed graph: the runtime's arena was not simulated (no band)");
  }
  if (in.measured && *in.measured) {
    m.measured = **in.measured;
    m.explained = explain_memory(p, *m.measured);
  }
  return m;
}

std::vector<MemoryPart> explain_memory(const MemoryPrediction& p, const MemoryMeasured& m) {
  std::vector<MemoryPart> out;
  if (m.run_peak_bytes == 0) return out;
  out.push_back({"runtime baseline", static_cast<int64_t>(p.baseline_bytes),
                 p.baseline_bytes ? "a session of the same runtime in this runner that ran the kernels most models "
                                    "share (their code, thread pool, allocators): measured"
                                  : "not measured: counted in the session's difference below"});
  if (p.structures_bytes)
    out.push_back({"node structures", static_cast<int64_t>(p.structures_bytes),
                   "the model's nodes times what one node of a chain of trivial nodes cost the runtime in a process of "
                   "its own (graph, kernel and planner structures): measured per node, a lower bound"});
  out.push_back({"weights", static_cast<int64_t>(p.weights_bytes),
                 p.weights_source == "executed_graph" ? "the constant inputs of the kernels the runtime ran, at the "
                                                        "sizes it reported: predicted"
                                                      : "the model's weights a node reads: predicted"});
  if (p.prepacked_bytes)
    out.push_back({"pre-packed copies", static_cast<int64_t>(p.prepacked_bytes),
                   "weights the runtime packs for a kernel while another still reads them as they are: estimated"});
  out.push_back({"activations", static_cast<int64_t>(p.activations_bytes),
                 "liveness peak in the executed order with the runtime's buffer reuse: predicted"});
  if (p.output_copies_bytes)
    out.push_back({"output copies", static_cast<int64_t>(p.output_copies_bytes),
                   "the outputs as the runtime's binding copies them for the caller: predicted"});
  // What the runner held beyond each prediction, phase by phase (measured - predicted).
  const uint64_t session = m.after_session_bytes > m.start_bytes ? m.after_session_bytes - m.start_bytes : 0;
  const uint64_t session_predicted =
      sat_add(sat_add(p.baseline_bytes, p.structures_bytes), sat_add(p.weights_bytes, p.prepacked_bytes));
  out.push_back({"session beyond its prediction", diff(session, session_predicted),
                 "measured after session creation minus baseline, structures and weights: memory the C allocator kept "
                 "after the runtime freed it (copies made while loading and optimizing the graph), "
                 "and what real nodes hold beyond trivial ones (attributes, kernels with state)"});
  const uint64_t peak = m.probe_peak_bytes ? m.probe_peak_bytes : m.run_peak_bytes;
  const uint64_t run = peak > m.after_session_bytes ? peak - m.after_session_bytes : 0;
  std::string note = std::string(m.probe_peak_bytes ? "peak of the session's first run" : "peak of the timed runs") +
                     " above the session, minus the predicted activations and output copies: negative when they "
                     "reused memory the allocator kept from session creation, positive for buffers kernels allocate "
                     "for themselves (im2col, packing)";
  if (m.allocator_held_bytes && m.allocator_in_use_peak_bytes)
    note += "; the runtime's allocator held " + si_bytes(static_cast<double>(*m.allocator_held_bytes)) + " for a peak of " +
            si_bytes(static_cast<double>(*m.allocator_in_use_peak_bytes)) + " in use (arena slack " +
            si_bytes(static_cast<double>(*m.allocator_held_bytes - std::min(*m.allocator_held_bytes, *m.allocator_in_use_peak_bytes))) + ")";
  if (!m.peak_reset) note += "; the high-water mark could not be reset after session creation, so the run's peak "
                             "may be the session's";
  out.push_back({"run beyond its prediction", diff(run, sat_add(p.activations_bytes, p.output_copies_bytes)), note});
  if (m.probe_peak_bytes && m.run_peak_bytes > m.probe_peak_bytes)
    out.push_back({"timed runs beyond one run", diff(m.run_peak_bytes, m.probe_peak_bytes),
                   "not in the increase: the timed runs' peak above the first run's — copies of earlier outputs "
                   "waiting for the runner's garbage collector"});
  return out;
}

}  // namespace rooflens
