#pragma once
// libonnx 1.12's shape-inference functions (Debian bookworm's, the version rooflens links) index input dims and
// read attributes without checking what the ONNX specification requires of them: a node that breaks the rule makes
// them read past a shape's end or divide by zero, and the process dies inside libonnx. Found by our fuzzer (MaxPool
// with a zero stride; GatherND with a negative batch_dims) and by a sweep of every schema in libonnx with inputs of
// every rank and out-of-range attributes through rooflens' own path (src/model/README.md).
// Such a node is invalid ONNX: it is refused before libonnx sees it and stays unresolved, with this message.
#include <string>
#include <unordered_map>

#include <onnx/onnx_pb.h>

namespace rooflens {

// Throws std::runtime_error naming the attribute or input and the rule it breaks. `types` holds what is known of
// the node's inputs (a rank is checked only when known).
void check_libonnx_preconditions(const onnx::NodeProto& n,
                                 const std::unordered_map<std::string, onnx::TypeProto*>& types);

}  // namespace rooflens
