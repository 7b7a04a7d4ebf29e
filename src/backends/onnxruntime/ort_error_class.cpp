#include "backends/onnxruntime/ort_error_class.h"

#include <utility>
#include <vector>

namespace rooflens::ort {
namespace {

// Substring of ONNX Runtime's message -> class. First match wins: specific patterns before general ones.
const std::vector<std::pair<std::string, std::string>>& patterns() {
  static const std::vector<std::pair<std::string, std::string>> p{
      {"bad_alloc", "out-of-memory"},
      {"Failed to allocate memory", "out-of-memory"},
      {"is smaller than requested bytes", "out-of-memory"},
      {"is not a registered function/op", "unregistered-op"},
      {"Could not find an implementation for", "no-kernel"},
      {"Unsupported data type", "unsupported-type"},
      {"Batchwise recurrent operations", "unsupported-attribute"},
      {"Failed to construct locale", "locale"},
      {"Type Error", "type-error"},
      {"ShapeInferenceError", "shape-inference"},
      {"Exception during initialization", "kernel-init"},
      {"This is an invalid model", "invalid-model"},
      {"NOT_IMPLEMENTED", "not-implemented"},
      {"not implemented", "not-implemented"},
      {"is not supported", "unsupported"},
      {"INVALID_ARGUMENT", "invalid-argument"},
      {"Invalid", "invalid-argument"},
  };
  return p;
}

}  // namespace

std::string classify_ort_message(const std::string& message) {
  for (const auto& [needle, cls] : patterns())
    if (message.find(needle) != std::string::npos) return "ort:" + cls;
  return "ort";
}

}  // namespace rooflens::ort
