#pragma once
// Writing zoo models to disk: inline (initializers as raw_data) or with ONNX external data.
#include <cstdint>
#include <filesystem>

#include <onnx/onnx_pb.h>

namespace rooflens::zoo {

struct SavedFiles {
  std::uintmax_t model_bytes = 0;
  std::uintmax_t data_bytes = 0;  // 0 unless external data was written
  std::filesystem::path data_path;
};

// External data follows the ONNX convention: weights go to "<path>.data" next to the model, each
// initializer gets data_location=EXTERNAL and external_data {location (relative), offset, length}, with
// offsets aligned to kExternalAlignment so runtimes can mmap tensors. This moves the weights out of
// `model` (its raw_data is cleared). Throws UserError when a file cannot be written, or when an inline
// model would exceed protobuf's 2 GiB message limit.
inline constexpr std::uint64_t kExternalAlignment = 4096;
SavedFiles save_model(onnx::ModelProto& model, const std::filesystem::path& path, bool external_data);

}  // namespace rooflens::zoo
