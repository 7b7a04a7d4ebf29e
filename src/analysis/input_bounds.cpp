#include "analysis/input_bounds.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

namespace rooflens {
namespace {

bool passes_values_through(const std::string& op) {
  static const std::set<std::string> ops{"Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity"};
  return ops.count(op) > 0;
}

// Size of the gathered axis when `node` gathers from an initializer with `tensor` as indices, else -1.
int64_t gathered_axis_size(const Model& m, const Node& node, const std::string& tensor) {
  if ((node.op != "Gather" && node.op != "GatherElements") || node.inputs.size() < 2 || node.inputs[1] != tensor)
    return -1;
  const Initializer* data = m.find_initializer(0, node.inputs[0]);
  if (!data || data->dims.empty()) return -1;
  int64_t axis = node.attr_i("axis", 0);
  int64_t rank = static_cast<int64_t>(data->dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return -1;
  return data->dims[static_cast<size_t>(axis)];
}

}  // namespace

std::map<std::string, int64_t> integer_input_bounds(const Model& m) {
  std::map<std::string, int64_t> out;
  if (m.graphs.empty()) return out;
  const Graph& g = m.graphs[0];
  std::unordered_map<std::string, std::vector<const Node*>> consumers;
  for (const auto& n : g.nodes)
    for (const auto& t : n.inputs) consumers[t].push_back(&n);
  for (const auto& in : g.inputs) {
    const TensorInfo* info = g.find(in);
    if (!info || dtype_is_float(info->dtype) || info->dtype == DType::Bool) continue;
    int64_t bound = -1;
    std::deque<std::string> todo{in};
    std::set<std::string> seen{in};
    while (!todo.empty()) {
      std::string t = todo.front();
      todo.pop_front();
      for (const Node* n : consumers[t]) {
        int64_t size = gathered_axis_size(m, *n, t);
        if (size > 0) bound = bound < 0 ? size : std::min(bound, size);
        if (passes_values_through(n->op) && !n->inputs.empty() && n->inputs[0] == t)
          for (const auto& o : n->outputs)
            if (seen.insert(o).second) todo.push_back(o);
      }
    }
    if (bound > 0) out[in] = bound;
  }
  return out;
}

GeneratedInputPlan plan_generated_inputs(const Model& model) {
  GeneratedInputPlan p;
  p.dims = model.input_symbols;
  if (model.graphs.empty()) return p;
  const Graph& main = model.graphs[0];
  for (const auto& in : main.inputs)
    if (const TensorInfo* t = main.find(in); t && t->fully_known()) p.shapes[in] = t->values();
  p.int_input_max = integer_input_bounds(model);
  p.values = model.input_values;
  return p;
}

}  // namespace rooflens
