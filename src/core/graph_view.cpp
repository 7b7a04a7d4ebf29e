#include "core/graph_view.h"

namespace rooflens {
namespace {

// Ops with no inputs that still are not constants.
bool is_generator(const std::string& op) {
  return op == "RandomNormal" || op == "RandomUniform" || op == "Multinomial";
}

}  // namespace

std::vector<bool> computed_from_constants(const GraphView& g) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& t : g.nodes[i].outputs)
      if (!t.empty()) producer[t] = i;
  // Nodes are topological, so one pass settles it: a tensor is constant when no node makes it and it is not a runtime
  // input (an initializer), or when a constant node makes it.
  std::vector<bool> constant(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    bool all = !is_generator(g.nodes[i].op);
    for (const std::string& t : g.nodes[i].inputs) {
      if (t.empty()) continue;
      const auto p = producer.find(t);
      if (p != producer.end() ? !constant[p->second] : g.graph_inputs.count(t) > 0) all = false;
    }
    constant[i] = all;
  }
  return constant;
}

}  // namespace rooflens
