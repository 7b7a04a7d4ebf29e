#include "memory/executed_memory.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "core/saturating.h"
#include "memory/liveness.h"
#include "memory/model_memory.h"

namespace rooflens {
namespace {

// The executed node each top-level kernel ran: by name, and a kernel the file left unnamed by op and order (as the
// mapper pairs them: the runtime names such nodes its own way). -1: not found.
std::vector<int> match_nodes(const std::vector<KernelRecord>& kernels, const GraphView& g) {
  std::unordered_map<std::string, int> by_name;
  std::map<std::string, std::deque<int>> unnamed;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    by_name.emplace(g.nodes[i].name, static_cast<int>(i));
    if (g.nodes[i].unnamed) unnamed[g.nodes[i].op].push_back(static_cast<int>(i));
  }
  std::vector<int> out(kernels.size(), -1);
  std::set<int> used;
  for (size_t k = 0; k < kernels.size(); ++k) {
    if (!kernels[k].enclosing.empty()) continue;
    auto it = by_name.find(kernels[k].name);
    int n = it != by_name.end() && !used.count(it->second) ? it->second : -1;
    if (n < 0)
      if (auto q = unnamed.find(kernels[k].op); q != unnamed.end())
        while (!q->second.empty() && n < 0) {
          if (!used.count(q->second.front())) n = q->second.front();
          q->second.pop_front();
        }
    if (n >= 0) used.insert(n);
    out[k] = n;
  }
  return out;
}

using Sized = std::vector<std::pair<std::string, std::optional<uint64_t>>>;

// The node's present tensor names with the sizes the kernel reported for them. A kernel that packed a weight at
// inference session creation no longer holds it, and its profile lists its other inputs only: those then take the
// reported sizes in order, and the packed weight the size `known` gives it (the model's own weight of that name).
Sized sized(const std::vector<std::string>& names, const std::vector<std::vector<int64_t>>& shapes,
            const std::vector<std::string>& dtypes, const std::vector<int>& packed,
            const std::unordered_map<std::string, uint64_t>& known) {
  Sized out;
  for (const auto& n : names)
    if (!n.empty()) out.emplace_back(n, std::nullopt);
  if (shapes.size() != dtypes.size()) return out;
  const bool all = out.size() == shapes.size();
  size_t packed_present = 0;
  for (int p : packed) packed_present += p >= 0 && static_cast<size_t>(p) < out.size();
  if (!all && out.size() != shapes.size() + packed_present) return out;
  for (size_t i = 0, s = 0; i < out.size(); ++i) {
    const bool was_packed = std::find(packed.begin(), packed.end(), static_cast<int>(i)) != packed.end();
    if (!all && was_packed) {
      if (auto k = known.find(out[i].first); k != known.end()) out[i].second = k->second;
      continue;
    }
    out[i].second = tensor_bytes_of(shapes[s], dtypes[s]);
    ++s;
  }
  return out;
}

}  // namespace

std::optional<ExecutedMemory> executed_memory(const std::vector<KernelRecord>& kernels, const GraphView& g,
                                              const std::unordered_map<std::string, uint64_t>& known) {
  const std::vector<int> node_of = match_nodes(kernels, g);
  size_t top = 0, matched = 0;
  for (size_t k = 0; k < kernels.size(); ++k) {
    if (!kernels[k].enclosing.empty()) continue;
    ++top;
    if (node_of[k] >= 0) ++matched;
  }
  if (top == 0 || matched * 10 < top * 9) return std::nullopt;

  std::set<std::string> produced;
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) produced.insert(o);
  std::vector<LiveTensor> tensors;
  std::unordered_map<std::string, int> index;
  bool unsized = false;
  auto tensor = [&](const std::string& name, std::optional<uint64_t> bytes) {
    auto [it, fresh] = index.emplace(name, static_cast<int>(tensors.size()));
    if (fresh) {
      LiveTensor t;
      t.name = name;
      t.graph_input = g.graph_inputs.count(name) > 0;
      t.constant = !produced.count(name) && !t.graph_input;
      for (const auto& o : g.graph_outputs) t.graph_output = t.graph_output || o == name;
      tensors.push_back(t);
    }
    if (bytes) tensors[static_cast<size_t>(it->second)].bytes = std::max(tensors[static_cast<size_t>(it->second)].bytes, *bytes);
    else unsized = true;
    return it->second;
  };

  ExecutedMemory out;
  std::vector<LiveStep> steps;
  std::vector<size_t> step_kernel;
  std::map<int, std::pair<int, int>> packers;  // constant tensor -> (kernels packing it, kernels reading it as is)
  for (size_t k = 0; k < kernels.size(); ++k) {
    if (node_of[k] < 0) continue;
    const KernelRecord& kr = kernels[k];
    const GraphView::Node& n = g.nodes[static_cast<size_t>(node_of[k])];
    LiveStep s;
    s.reuse = kr.reuse;
    s.maybe_inplace = kr.maybe_inplace_input;
    const auto ins = sized(n.inputs, kr.input_shapes, kr.input_dtypes, kr.packed_inputs, known);
    for (size_t i = 0; i < ins.size(); ++i) {
      const int t = tensor(ins[i].first, ins[i].second);
      s.reads.push_back(t);
      if (!tensors[static_cast<size_t>(t)].constant) continue;
      const bool packs = std::find(kr.packed_inputs.begin(), kr.packed_inputs.end(), static_cast<int>(i)) != kr.packed_inputs.end();
      (packs ? packers[t].first : packers[t].second) += 1;
    }
    for (const auto& [name, bytes] : sized(n.outputs, kr.output_shapes, kr.output_dtypes, {}, known))
      s.writes.push_back(tensor(name, bytes));
    steps.push_back(std::move(s));
    step_kernel.push_back(k);
  }
  for (const auto& t : tensors) {
    if (t.constant) out.weights_bytes = sat_add(out.weights_bytes, t.bytes);
    if (t.graph_output) out.outputs_bytes = sat_add(out.outputs_bytes, t.bytes);
    if (t.graph_input && !t.constant) out.inputs_bytes = sat_add(out.inputs_bytes, t.bytes);
  }
  for (const auto& [t, counts] : packers) {
    const auto [packing, plain] = counts;
    const int64_t copies = packing == 0 ? 0 : plain > 0 ? packing : packing - 1;
    out.packed_bytes = sat_add(out.packed_bytes, sat_mul(tensors[static_cast<size_t>(t)].bytes, static_cast<uint64_t>(copies)));
  }
  const Liveness l = liveness(tensors, steps);
  out.activations_bytes = l.peak;
  out.naive_bytes = l.naive;
  out.events = l.events;
  if (const Liveness sharing = liveness(tensors, steps, true); sharing.shared_outputs > l.shared_outputs) {
    out.events_sharing = sharing.events;
    out.maybe_shared = sharing.shared_outputs - l.shared_outputs;
  }
  out.curve.assign(kernels.size(), 0);
  for (size_t i = 0; i < steps.size(); ++i) out.curve[step_kernel[i]] = l.live[i];
  if (l.peak_step >= 0) out.peak_kernel = static_cast<int64_t>(step_kernel[static_cast<size_t>(l.peak_step)]);
  if (matched < top)
    out.notes.push_back(std::to_string(top - matched) + " of " + std::to_string(top) +
                        " kernels were not found in the executed graph; their tensors are not counted");
  if (unsized)
    out.notes.push_back("some kernels reported other tensor counts than their nodes list; those tensors are sized "
                        "by their other uses or count 0");
  if (top < kernels.size())
    out.notes.push_back(std::to_string(kernels.size() - top) + " kernels ran inside control-flow kernels; what their "
                        "subgraphs hold is not in the executed-order figure");
  return out;
}

}  // namespace rooflens
