#pragma once
// Static shapes against the shapes a runtime produced: what `analyze --check-runtime` reports, and (for
// `profile`) the runtime's shapes taken where static resolution could not find one.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor_value.h"
#include "model/graph.h"

namespace rooflens {

// The main graph's node outputs a runtime can be asked to return: named tensors that are not graph outputs yet.
// (Tensors inside If/Loop/Scan bodies cannot be graph outputs; they are counted in ShapeCheck::inside_bodies.)
std::vector<std::string> observable_tensors(const Model& m);

struct ShapeCheckItem {
  std::string tensor, node, op;      // the tensor and the node that produced it
  std::string static_shape;          // as resolved statically ("1x197x768", "batchx?", "?")
  std::vector<int64_t> runtime;      // as the runtime produced it
};

struct ShapeCheck {
  int64_t compared = 0;                    // tensors with both a static and a runtime shape
  int64_t equal = 0;
  std::vector<ShapeCheckItem> mismatches;  // resolved statically, and the runtime's shape differs
  std::vector<ShapeCheckItem> unresolved;  // not (fully) resolved statically; `runtime` shows the truth
  std::vector<ShapeCheckItem> missing;     // the runtime returned nothing for it
  int64_t inside_bodies = 0;               // node outputs inside subgraph bodies (not observable as outputs)
  int64_t not_taken = 0;                   // ... of them in If branches static resolution found not taken
  int64_t non_tensors = 0;                 // sequences, maps, optionals: no shape to compare
};

// Gives the main graph's tensors that static resolution left unresolved the shapes a runtime reported for them
// (marked from_runtime); returns how many it changed. Resolved tensors keep their shapes.
int64_t take_runtime_shapes(Model& m, const std::map<std::string, std::vector<int64_t>>& shapes);

// Compares every main-graph node output with what the runtime returned under the same name.
ShapeCheck compare_with_runtime(const Model& m, const std::vector<TensorValue>& runtime);

// The output shapes a runtime reported for one node it ran (a kernel of an unoptimized inference session, from its
// profile).
struct NodeShapes {
  std::string node;
  std::vector<std::vector<int64_t>> outputs;
};

// Adds to `c` the outputs of nodes inside subgraph bodies (If branches, Loop/Scan bodies: not observable as graph
// outputs) that the runtime ran, matched by node name. Outputs in branches found not taken are counted in
// c.not_taken (a report of them from the runtime would be a mismatch of its own); those of nodes that should
// have run but were not reported (other than Constant, which runtimes fold) are listed as missing.
void compare_body_nodes(const Model& m, const std::vector<NodeShapes>& ran, ShapeCheck& c);

}  // namespace rooflens
