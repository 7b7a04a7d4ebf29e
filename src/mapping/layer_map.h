#pragma once
// Mapping the kernels a runtime ran (nodes of the graph it executed) back to the user's own ONNX nodes.
//
// Runtimes rewrite graphs: they fuse Conv+BatchNorm+Relu into one kernel, fold constants, drop Identity/Dropout,
// change layouts (giving intermediate tensors new names) and add reorder or copy kernels. The mapping follows
// tensors; what a particular runtime's names mean comes from its MappingRules (mapping/rules.h):
//
//  1. A tensor keeps its identity when the executed graph still uses the original name. A layer owns the
//     minimal set of original nodes between its input tensors and its output tensors (backward walk from the
//     producers of its outputs, stopping at its inputs, at constants, and at nodes another layer owns).
//  2. When a layer's outputs carry new names, the layer's own name points at the original node it ends at
//     (rules.name_candidates): that node, or the producer of that tensor, anchors the walk. The walk then
//     extends forward over what the kernel evidently fused as well (rules.forward_fusion).
//  3. Layout and copy kernels (rules.is_layout_kernel, or kernels whose outputs lead nowhere original) own
//     nothing; they are aliases of the node whose tensor they carry.
//  4. Original nodes no layer owns are "folded" (they only depend on constants: computed once at inference session
//     creation) or "eliminated" (removed as no-ops).
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "mapping/rules.h"

namespace rooflens {

struct LayerMapping {
  struct Entry {
    std::vector<int> owned;     // original node indices this optimized node computes
    int alias_of = -1;          // for alias kernels: the original node whose tensor they carry
    bool anchored_by_name = false;
  };
  std::vector<Entry> layers;    // one per optimized node, same order
  std::vector<int> owner;       // per original node: optimized node index, or -1
  std::vector<std::string> fate;  // per original node: "" (owned) | "folded" | "eliminated"
};

LayerMapping map_layers(const GraphView& original, const GraphView& executed, const MappingRules& rules);

}  // namespace rooflens
