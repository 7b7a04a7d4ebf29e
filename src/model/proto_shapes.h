#pragma once
// Internal to src/model: the shape inference that works on a parsed (skeleton) onnx::ModelProto.
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "model/graph.h"
#include "model/shapes.h"

namespace rooflens {

struct ShapeFailure {
  std::string node, op, message;
};

// What shape resolution learnt about one subgraph body (see Graph in model/graph.h).
struct BodyInfo {
  BodyRun run = BodyRun::Always;
  int64_t trips = 1;  // iterations per run of the owner (-1: unknown)
};

struct ShapeResult {
  // For every graph (by address): every value name in it -> its type as resolved.
  std::unordered_map<const onnx::GraphProto*, std::unordered_map<std::string, onnx::TypeProto>> types;
  std::vector<ShapeFailure> failures;  // per-node inference errors (the node stays unresolved)
  std::vector<std::string> notes;      // assumptions made, e.g. "batch defaulted to 1"
  std::map<std::string, int64_t> input_symbols;  // symbolic input dim -> the size the overrides gave it
  int64_t batch_dims = 0;              // dynamic leading input dims set from the batch (0: fixed batch)
  std::unordered_map<const onnx::GraphProto*, BodyInfo> bodies;  // every subgraph the inference visited
};

// Applies user overrides to the main graph's inputs (throws UserError/UsageError listing what is missing),
// checks for cycles (throws UserError naming a node on the cycle) and infers every node's output types.
// `order` receives, per graph, the node indices in topological order.
ShapeResult resolve_proto_shapes(onnx::ModelProto& model, const ShapeOverrides& overrides, const std::string& file,
                                 std::unordered_map<const onnx::GraphProto*, std::vector<int>>& order);

// Known integer contents of a (small) tensor, if it holds int32/int64 data inline.
bool tensor_int_values(const onnx::TensorProto& t, std::vector<int64_t>& out);

}  // namespace rooflens
