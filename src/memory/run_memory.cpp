#include "memory/run_memory.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/saturating.h"
#include "core/units.h"
#include "memory/arena.h"
#include "memory/c_allocator.h"
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

namespace {

// The first run's blocks, after the inference session's: the caller's inputs, the run's own (the arena's regions as far
// as the run wrote them, else each tensor as the executed order allocates and frees it), then the copies of the
// outputs.
std::vector<HeapEvent> first_run_blocks(const MemoryPrediction& p, const ExecutedMemory* e, uint64_t inputs_bytes) {
  std::vector<HeapEvent> out;
  uint64_t id = uint64_t{1} << 40;  // apart from the creation's ids
  auto allocate = [&](uint64_t bytes, uint64_t written, HeapRole role) {
    if (!bytes) return;
    HeapEvent h;
    h.id = ++id;
    h.bytes = bytes;
    h.written = written;
    h.role = role;
    out.push_back(h);
  };
  allocate(inputs_bytes, inputs_bytes, HeapRole::input);
  if (p.arena) {
    for (size_t i = 0; i < p.arena->regions.size(); ++i)
      allocate(p.arena->regions[i], i < p.arena->region_written_bytes.size() ? p.arena->region_written_bytes[i]
                                                                              : p.arena->regions[i],
               HeapRole::region);
  } else if (e) {
    const uint64_t base = ++id;
    id += e->events.size() + 1;
    for (const auto& b : e->events) {
      HeapEvent h;
      h.allocate = b.allocate;
      h.id = base + static_cast<uint64_t>(std::max(0, b.buffer));
      h.bytes = b.bytes;
      h.role = HeapRole::tensor;
      out.push_back(h);
    }
  } else {
    allocate(p.activations_bytes, p.activations_bytes, HeapRole::tensor);  // no order known: the peak as one block
  }
  allocate(p.output_copies_bytes, p.output_copies_bytes, HeapRole::output);
  return out;
}

// The measured memory with the runtime allocator's own figures (the largest any kernel of the profiled run showed).
MemoryMeasured with_allocator_figures(MemoryMeasured m, const std::vector<KernelRecord>* kernels) {
  if (!kernels) return m;
  for (const auto& k : *kernels) {
    if (k.allocator_held_bytes) m.allocator_held_bytes = std::max(m.allocator_held_bytes.value_or(0), *k.allocator_held_bytes);
    if (k.allocator_in_use_bytes)
      m.allocator_in_use_peak_bytes = std::max(m.allocator_in_use_peak_bytes.value_or(0), *k.allocator_in_use_bytes);
  }
  return m;
}

}  // namespace

RunMemorySources run_memory_sources(const Measurement& m) {
  RunMemorySources in;
  in.kernels = &m.kernels;
  in.executed = m.executed_graph ? &*m.executed_graph : nullptr;
  in.baseline_bytes = m.runtime_baseline_bytes;
  in.baseline_run_bytes = m.runtime_baseline_run_bytes;
  in.node_bytes = m.runtime_node_bytes;
  in.runtime_cost_measured_at = m.runtime_cost_measured_at;
  in.inference_session_creation = &m.inference_session_creation;
  in.c_allocator = &m.c_allocator;
  in.output_copies = m.output_copies;
  in.arena = m.arena;
  in.not_predicted = m.memory_not_predicted;
  in.measured = &m.memory;
  return in;
}

std::optional<RunMemory> run_memory(const RunMemorySources& in) {
  RunMemory m;
  if (!in.not_predicted.empty()) {  // the runtime's memory is not one rooflens can predict: measured only
    m.not_predicted = in.not_predicted;
    if (!in.measured || !*in.measured) return std::nullopt;
    m.measured = with_allocator_figures(**in.measured, in.kernels);
    return m;
  }
  MemoryPrediction& p = m.predicted;
  const size_t layers = in.layers ? in.layers->size() : 0;
  std::optional<ExecutedMemory> e;
  if (in.kernels && in.executed) {
    // A kernel's packed inputs are not in its shapes: their sizes come from the executed graph's own initializers
    // (constants the runtime folded at inference session creation among them), else from the user's model.
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
  p.baseline_run_bytes = in.baseline_run_bytes;
  // The model's own nodes are what the runtime parses, optimizes and makes kernels of; without the model, the
  // executed graph's.
  const size_t nodes = in.analysis ? in.analysis->nodes.size() : in.executed ? in.executed->nodes.size() : 0;
  p.structures_bytes = sat_mul(in.node_bytes, static_cast<uint64_t>(nodes));
  if ((in.node_bytes || in.baseline_bytes) && !in.runtime_cost_measured_at.empty())
    m.notes.push_back("calibration: the runtime's baseline " + si_bytes(static_cast<double>(in.baseline_bytes)) +
                      " (its first run " + si_bytes(static_cast<double>(in.baseline_run_bytes)) + ") and " + std::to_string(in.node_bytes) + " bytes per node (x " + std::to_string(nodes) +
                      " nodes), measured " + in.runtime_cost_measured_at +
                      " in a process of their own with these options (the backend keeps them per runtime, machine "
                      "and options; docs/memory.md)");
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
  p.peak_bytes = p.total_bytes;
  if (in.c_allocator && *in.c_allocator && in.inference_session_creation && !in.inference_session_creation->empty()) {
    uint64_t inputs = e ? e->inputs_bytes : 0;
    if (!e && in.analysis) inputs = topological_memory(*in.analysis, in.inputs, in.outputs).activations.inputs_bytes;
    const CAllocatorReplay blocks{*in.inference_session_creation, first_run_blocks(p, e ? &*e : nullptr, inputs)};
    p.c_allocator = replay_c_allocator(**in.c_allocator, blocks);
    const uint64_t calibrated = sat_add(p.baseline_bytes, p.structures_bytes);
    p.total_bytes = sat_add(calibrated, p.c_allocator->run_peak_bytes);
    p.peak_bytes = sat_add(calibrated, std::max(p.c_allocator->creation_peak_bytes, p.c_allocator->run_peak_bytes));
    m.notes.push_back("the inference session's creation and first run replayed through the C allocator's rules (" +
                      p.c_allocator->setting + "): " + si_bytes(static_cast<double>(p.c_allocator->session_bytes)) +
                      " resident once the inference session exists, of which " +
                      si_bytes(static_cast<double>(p.c_allocator->session_live_bytes)) +
                      " in use; glibc's placement varies from run to run between the replay with freed blocks "
                      "kept apart by small objects and one where they always merge (" +
                      si_bytes(static_cast<double>(p.c_allocator->low_session_bytes)) + " at creation)");
  }
  if (in.measured && *in.measured) {
    m.measured = with_allocator_figures(**in.measured, in.kernels);
    m.explained = explain_memory(p, *m.measured);
  }
  return m;
}

int64_t inference_session_beyond_prediction(const MemoryPrediction& p, const MemoryMeasured& m) {
  const uint64_t inference_session = m.after_session_bytes > m.start_bytes ? m.after_session_bytes - m.start_bytes : 0;
  const uint64_t calibrated = sat_add(p.baseline_bytes, p.structures_bytes);
  const uint64_t predicted = p.c_allocator ? sat_add(calibrated, p.c_allocator->session_bytes)
                                           : sat_add(calibrated, sat_add(p.weights_bytes, p.prepacked_bytes));
  return diff(inference_session, predicted);
}

std::vector<MemoryPart> explain_memory(const MemoryPrediction& p, const MemoryMeasured& m) {
  std::vector<MemoryPart> out;
  if (m.run_peak_bytes == 0) return out;
  out.push_back({"runtime baseline", static_cast<int64_t>(p.baseline_bytes),
                 p.baseline_bytes ? "what a first inference session of this runtime costs a process whatever the model "
                                    "(its code, thread pool, allocators): a calibration constant, measured once in a "
                                    "process of its own with these options"
                                  : "not measured: counted in the inference session's difference below"});
  if (p.structures_bytes)
    out.push_back({"node structures", static_cast<int64_t>(p.structures_bytes),
                   "the model's nodes times what one node of a chain of trivial nodes cost the runtime: a calibration "
                   "constant measured in the same process of its own, a lower bound"});
  out.push_back({"weights", static_cast<int64_t>(p.weights_bytes),
                 p.weights_source == "executed_graph" ? "the constant inputs of the kernels the runtime ran, at the "
                                                        "sizes it reported: predicted"
                                                      : "the model's weights a node reads: predicted"});
  if (p.prepacked_bytes)
    out.push_back({"pre-packed copies", static_cast<int64_t>(p.prepacked_bytes),
                   "weights the runtime packs for a kernel while another still reads them as they are: estimated"});
  const CAllocatorPrediction* c = p.c_allocator ? &*p.c_allocator : nullptr;
  if (c) {
    const uint64_t live = sat_add(p.weights_bytes, p.prepacked_bytes);
    out.push_back({"kept by the C allocator", diff(c->session_bytes, std::min(c->session_bytes, live)),
                   "blocks the inference session's creation freed that the C allocator keeps resident (the file's "
                   "constants as parsed, their copies before the optimizer replaced them, its scratch copies, "
                   "originals of packed weights), replayed through " + c->setting + "'s rules: predicted"});
  }
  if (c) {
    // The first run as the replay places its blocks: the caller's inputs, the arena's regions (or each tensor), the
    // output copies — what they add beyond the memory the allocator kept.
    out.push_back({"first run", diff(c->run_peak_bytes, std::min(c->run_peak_bytes, c->session_bytes)),
                   "the caller's inputs, the run's tensors (" + si_bytes(static_cast<double>(p.activations_bytes)) +
                   " at their liveness peak in the executed order" + (p.arena ? ", in the arena's regions" : "") +
                   ") and the output copies, beyond the memory the allocator kept: predicted"});
  } else {
    out.push_back({"activations", static_cast<int64_t>(p.activations_bytes),
                   "liveness peak in the executed order with the runtime's buffer reuse: predicted"});
    if (p.output_copies_bytes)
      out.push_back({"output copies", static_cast<int64_t>(p.output_copies_bytes),
                     "the outputs as the runtime's binding copies them for the caller: predicted"});
  }
  // What the runner held beyond each prediction, phase by phase (measured - predicted).
  out.push_back({"inference session beyond its prediction", inference_session_beyond_prediction(p, m),
                 c ? "measured after inference session creation minus its prediction (baseline, structures and the C "
                     "allocator's replay of the creation): what real nodes hold beyond trivial ones, and where glibc "
                     "placed the blocks otherwise than the replay"
                   : "measured after inference session creation minus baseline, structures and weights: memory the C "
                     "allocator kept after the runtime freed it (copies made while loading and optimizing the graph), "
                     "and what real nodes hold beyond trivial ones (attributes, kernels with state)"});
  const uint64_t peak = m.probe_peak_bytes ? m.probe_peak_bytes : m.run_peak_bytes;
  const uint64_t run = peak > m.after_session_bytes ? peak - m.after_session_bytes : 0;
  const uint64_t run_predicted =
      c ? (c->run_peak_bytes > c->session_bytes ? c->run_peak_bytes - c->session_bytes : 0)
        : sat_add(p.activations_bytes, p.output_copies_bytes);
  std::string note =
      std::string(m.probe_peak_bytes ? "peak of the inference session's first run" : "peak of the timed runs") +
      " above the inference session, minus " +
      (c ? "the replay's (what the run's blocks added beyond the memory the allocator kept)"
         : "the predicted activations and output copies") +
      ": negative when they reused memory the allocator kept from inference session creation, positive for buffers "
      "kernels allocate for themselves (im2col, packing)";
  if (m.allocator_held_bytes && m.allocator_in_use_peak_bytes)
    note += "; the runtime's allocator held " + si_bytes(static_cast<double>(*m.allocator_held_bytes)) + " for a peak of " +
            si_bytes(static_cast<double>(*m.allocator_in_use_peak_bytes)) + " in use (arena slack " +
            si_bytes(static_cast<double>(*m.allocator_held_bytes - std::min(*m.allocator_held_bytes, *m.allocator_in_use_peak_bytes))) + ")";
  if (!m.peak_reset)
    note += "; the high-water mark could not be reset after inference session creation, so the run's peak may be the "
            "inference session's";
  out.push_back({"run beyond its prediction", diff(run, run_predicted), note});
  if (m.peak_bytes > m.increase_bytes)
    out.push_back({"creation above the first run", diff(m.peak_bytes, m.increase_bytes),
                   "not in the increase: the inference session's creation peaked above its first run (blocks the "
                   "runtime held while it parsed and optimized the graph)" +
                   (c ? std::string("; predicted ") + si_bytes(static_cast<double>(p.peak_bytes)) + " at the peak"
                      : std::string())});
  if (m.probe_peak_bytes && m.run_peak_bytes > m.probe_peak_bytes)
    out.push_back({"timed runs beyond one run", diff(m.run_peak_bytes, m.probe_peak_bytes),
                   "not in the increase: the timed runs' peak above the first run's — copies of earlier outputs "
                   "waiting for the runner's garbage collector"});
  return out;
}

}  // namespace rooflens
