#pragma once
// The shapes a runtime reported per kernel against the static analysis, matched through tensor names (the executed
// graph names each kernel's outputs; fused kernels keep the names of the tensors they write). A tensor the analysis
// resolved but the runtime shaped otherwise is a warning naming its node; a tensor the analysis could not resolve
// takes the runtime's shape, so the nodes around it can be counted completely (see AssemblyContext::reanalyze).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "core/measurement.h"
#include "core/report_model.h"

namespace rooflens {

struct RuntimeShapeCheck {
  int64_t compared = 0;                                // tensors with a static and a runtime shape
  std::map<std::string, std::vector<int64_t>> taken;   // unresolved statically -> the runtime's shape
  std::vector<std::string> warnings;                   // one per mismatch, naming the node
};

RuntimeShapeCheck check_runtime_shapes(const Analysis& analysis, const std::vector<KernelRecord>& kernels,
                                       const GraphView& executed);

}  // namespace rooflens
