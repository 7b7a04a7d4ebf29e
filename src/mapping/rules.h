#pragma once
// What the mapper must know about one source of kernels — how it names kernels it rewrote, which kernels only move
// tensors, what a renamed kernel fused after its anchor. Each backend or importer supplies its own rules in its
// own folder (e.g. backends/onnxruntime/ort_mapping_rules.cpp); the mapper itself knows no runtime.
#include <string>
#include <utility>
#include <vector>

#include "core/graph_view.h"

namespace rooflens {

class MappingRules {
 public:
  virtual ~MappingRules() = default;

  // Names a kernel name may derive from, the name itself first: the runtime's renamings undone ("x_nchwc" ->
  // "x"). A candidate can name a user node or a user tensor (whose producer is then meant).
  virtual std::vector<std::string> name_candidates(const std::string& kernel_name) const { return {kernel_name}; }

  // Names an executed-graph tensor the runtime created may derive from: the original tensor whose values it holds in
  // another precision or layout ("InsertedPrecisionFreeCast_x" holds x in float32). Empty: none.
  virtual std::vector<std::string> tensor_candidates(const std::string& /*tensor*/) const { return {}; }

  // Kernels that only change a tensor's layout or location (reorders, device copies): they compute none of the
  // user's nodes and become aliases of the node whose tensor they carry.
  virtual bool is_layout_kernel(const GraphView::Node&) const { return false; }

  // What a kernel found through its name (its outputs renamed) evidently fused after the node it is named
  // after, in the user's graph: an Add of its result and another of its inputs (a residual sum), and then an
  // activation of this op type ("" for none).
  struct ForwardFusion {
    bool residual_add = false;
    std::string activation;
  };
  virtual ForwardFusion forward_fusion(const GraphView::Node&) const { return {}; }

  // The user's nodes a kernel's name lists, for runtimes that name a fused kernel after all of its parts
  // ("A + B + C"; used when there is no executed graph): `nodes` each name a node or a tensor (whose producer is
  // meant); `spans` name a run of nodes by its first and last (every node on a path from the first to the last).
  // Empty: the name names at most one node (name_candidates).
  struct NamedNodes {
    std::vector<std::string> nodes;
    std::vector<std::pair<std::string, std::string>> spans;
    bool empty() const { return nodes.empty() && spans.empty(); }
  };
  virtual NamedNodes nodes_in_name(const std::string& /*kernel_name*/) const { return {}; }

  // A kernel the runtime inserted for a neighbour in the order the kernels ran, named for what it does rather than
  // after a node (ORT's "gemm_input_reshape_token_3": the 2-D view of the next Gemm's input): +1 it serves the next
  // kernel, -1 the previous one, 0 neither. Asked only of kernels nothing else maps; they become aliases of the node
  // their neighbour computes.
  virtual int serves_neighbour(const std::string& /*kernel_name*/) const { return 0; }
};

// Rules for a source that renames nothing: a kernel is named after the user's node it computes.
const MappingRules& plain_mapping_rules();

}  // namespace rooflens
