#pragma once
// Loading an ONNX file into rooflens' Model: mmap, skeleton (weights stay on disk), protobuf parse of the
// skeleton, external-data checks, shape resolution, conversion to plain structs.
#include <memory>
#include <string>

#include "model/graph.h"
#include "model/shapes.h"

namespace rooflens {

// Throws UserError with a one-line message naming the file (and node) on any bad input.
Model load_model(const std::string& path, const ShapeOverrides& overrides = {});

// Same, from bytes already in memory (the fuzz target); `name` is used in messages and `dir` is where
// external data would have to live ("" refuses all external data).
Model load_model_from_bytes(const uint8_t* data, size_t size, const std::string& name, const std::string& dir,
                            const ShapeOverrides& overrides = {});

}  // namespace rooflens
