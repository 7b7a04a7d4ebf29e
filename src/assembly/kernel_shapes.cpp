#include "assembly/kernel_shapes.h"
#include "core/units.h"

#include <algorithm>
#include <unordered_map>

namespace rooflens {
namespace {

}  // namespace

RuntimeShapeCheck check_runtime_shapes(const Analysis& analysis, const std::vector<KernelRecord>& kernels,
                                       const GraphView& executed) {
  RuntimeShapeCheck c;
  // tensor -> the runtime's shape, from the kernels whose executed-graph node names their outputs
  std::unordered_map<std::string, const GraphView::Node*> node_of;
  for (const auto& n : executed.nodes) node_of.emplace(n.name, &n);
  // A runtime lists the shapes of the outputs a kernel produced, without the omitted ones (ORT's profiler skips
  // absent and non-tensor outputs): a kernel whose list is not one shape per named output is left out rather than
  // paired by position with the wrong tensor.
  std::unordered_map<std::string, const std::vector<int64_t>*> runtime;
  for (const auto& k : kernels) {
    auto it = node_of.find(k.name);
    if (it == node_of.end()) continue;
    std::vector<const std::string*> named;
    for (const auto& o : it->second->outputs)
      if (!o.empty()) named.push_back(&o);
    if (named.size() != k.output_shapes.size()) continue;
    for (size_t i = 0; i < named.size(); ++i) runtime.emplace(*named[i], &k.output_shapes[i]);
  }
  for (const auto& n : analysis.nodes) {
    if (n.graph != "main") continue;  // tensors inside bodies are not outputs of the executed main graph
    for (size_t i = 0; i < n.outputs.size() && i < n.output_shapes.size(); ++i) {
      auto it = runtime.find(n.outputs[i]);
      if (it == runtime.end()) continue;
      const std::vector<int64_t>& got = *it->second;
      const std::vector<int64_t>& want = n.output_shapes[i];
      const bool unresolved = (want.empty() && !n.shapes_resolved) ||
                              std::any_of(want.begin(), want.end(), [](int64_t d) { return d < 0; });
      ++c.compared;
      if (unresolved) {
        c.taken.emplace(n.outputs[i], got);
      } else if (want != got) {
        c.warnings.push_back("shape of '" + n.outputs[i] + "' (node '" + n.name + "', " + n.op + "): the analysis says " +
                             shape_text(want) + ", the runtime ran " + shape_text(got));
      }
    }
  }
  return c;
}

}  // namespace rooflens
