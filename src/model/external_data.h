#pragma once
// External data (tensors stored in side files): where an initializer's bytes live, resolved strictly inside the
// model's directory (external_data.cpp). One definition for the loader and the resolver.
#include <cstdint>
#include <string>

namespace onnx {
class TensorProto;
}

namespace rooflens {

struct ExternalRef {
  std::string file;  // verified path inside the model directory
  uint64_t offset = 0, length = 0;
};

// The side file, offset and length of initializer `t` of `model_file` (in `model_dir`); a UserError when the
// location escapes the directory, the file is missing, or the range does not fit in it.
ExternalRef resolve_external_data(const onnx::TensorProto& t, const std::string& model_file,
                                  const std::string& model_dir);

}  // namespace rooflens
