#pragma once
// Builds the "skeleton" of a ModelProto straight from the wire bytes: the same message with every large
// tensor payload left out. The skeleton is small (kilobytes for a 500 MB VGG-16), so protobuf can parse it
// in microseconds; the payloads are remembered as (offset, length) spans into the mapped file.
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens {

struct PayloadSpan {
  std::string tensor_name;  // TensorProto.name (may be empty for attribute tensors)
  uint64_t offset = 0;      // absolute offset of the first payload byte in the file
  uint64_t length = 0;      // payload bytes (sum over the tensor's data fields)
};

struct Skeleton {
  std::string bytes;                 // serialized ModelProto without large payloads
  std::vector<PayloadSpan> payloads; // one per stripped tensor
};

// Tensors whose data fields together hold more than this many bytes are stripped; smaller ones (shape
// constants, scalars, small index tables) stay so shape inference can read them.
inline constexpr uint64_t kEagerPayloadLimit = 64 * 1024;

// Throws WireError on malformed bytes (truncated lengths, bad tags, excessive nesting).
Skeleton build_skeleton(const uint8_t* data, size_t size);

}  // namespace rooflens
