#pragma once
// A model file's skeleton (model/skeleton.h) parsed as a ModelProto: the graph without its large payloads, whose spans
// stay in `sk`. One reading, and one error message, for every reader that needs the graph but not the weights.
#include <cstddef>
#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

#include "model/skeleton.h"

namespace rooflens {

// Throws UserError naming `path` when the bytes are empty or not an ONNX model.
onnx::ModelProto skeleton_model(const uint8_t* data, size_t size, const std::string& path, Skeleton& sk);

}  // namespace rooflens
