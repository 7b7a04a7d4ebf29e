#pragma once
// How many bytes a model file holds, and how many of them are its weights: in the file itself, and in side files
// (external data). Read from the file's skeleton, never from the payloads (model/skeleton.h).
#include <cstdint>
#include <string>

namespace rooflens {

struct WeightBytes {
  uint64_t file = 0;      // the .onnx file's size
  uint64_t embedded = 0;  // payloads inside the file of every tensor larger than kEagerPayloadLimit (initializers,
                          // Constant nodes' values, subgraphs')
  uint64_t external = 0;  // the main graph's initializers stored in side files, at their recorded lengths
};

// Throws UserError naming the file when it is not an ONNX model or its external data does not resolve.
WeightBytes file_weight_bytes(const std::string& path);

}  // namespace rooflens
