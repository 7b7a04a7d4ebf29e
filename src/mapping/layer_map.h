#pragma once
// Mapping the kernels a runtime ran (nodes of its *optimized* graph) back to the user's own ONNX nodes.
//
// Runtimes rewrite graphs: ORT fuses Conv+BatchNorm+Relu into one FusedConv, folds constants, drops
// Identity/Dropout, and at level "all" moves convolutions into the NCHWc layout, giving intermediate tensors
// new names (reorder_token_N) and adding ReorderInput/ReorderOutput kernels. The mapping follows tensors:
//
//  1. A tensor keeps its identity when the optimized graph still uses the original name. A layer owns the
//     minimal set of original nodes between its input tensors and its output tensors (backward walk from the
//     producers of its outputs, stopping at its inputs, at constants, and at nodes another layer owns).
//  2. When a layer's outputs carry new names, the layer's own name points at the original node it ends at:
//     ORT names rewritten kernels after that node or after its output tensor ("<node or tensor>_nchwc",
//     "..._token_N"): the node (or the producer of the tensor) anchors the walk.
//     The walk then extends forward over what the kernel evidently fused as well: an Add consuming another of
//     the kernel's inputs (NCHWc "Sum" fusion) and the activation the kernel's `activation` attribute names.
//  3. Layout and copy kernels (ReorderInput/ReorderOutput, a Transpose the layout optimizer inserted) own
//     nothing; they are aliases of the node whose tensor they carry.
//  4. Original nodes no layer owns are "folded" (they only depend on constants: computed once at session
//     creation) or "eliminated" (removed as no-ops).
#include <string>
#include <unordered_set>
#include <vector>

namespace rooflens {

struct GraphView {
  struct Node {
    std::string name, op, domain;
    std::vector<std::string> inputs, outputs;  // "" = omitted optional input
    std::string activation;                    // the `activation` attribute of fused kernels, else ""
  };
  std::vector<Node> nodes;                     // topological order
  std::unordered_set<std::string> graph_inputs;  // runtime inputs (not initializers)
};

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

LayerMapping map_layers(const GraphView& original, const GraphView& optimized);

// Names that the runtime derives from an original node's name, original first: "x_nchwc" -> "x".
std::vector<std::string> name_candidates(const std::string& optimized_name);

}  // namespace rooflens
