#pragma once
// Internal to src/model: conversions between onnx protobuf types and rooflens' plain structs.
#include <functional>

#include <onnx/onnx_pb.h>

#include "model/graph.h"

namespace rooflens {

TensorInfo tensor_info_of(const onnx::TypeProto& t);
onnx::TypeProto type_proto_of(const TensorInfo& t);
// `graph_index` maps a subgraph attribute to its Model::graphs index (nullptr: leave -1).
Node convert_node(const onnx::NodeProto& n, int opset, const std::function<int(const onnx::GraphProto&)>* graph_index);

}  // namespace rooflens
