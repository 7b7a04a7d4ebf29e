#include "backends/opencv/opencv_error_class.h"

#include <utility>
#include <vector>

namespace rooflens::opencv {

std::string classify(const std::string& message) {
  // Substring -> class; the first match wins (specific before general).
  static const std::vector<std::pair<std::string, std::string>> patterns{
      {"Can't create layer", "unsupported-op"},
      {"is not supported", "unsupported"},
      {"Unsupported", "unsupported"},
      {"DNN/ONNX: ", "import"},
      {"parse error", "parse-error"},
      {"Assertion failed", "assertion"},
      {"shape", "shape"},
  };
  for (const auto& [needle, cls] : patterns)
    if (message.find(needle) != std::string::npos) return "opencv:" + cls;
  return "opencv";
}

}  // namespace rooflens::opencv
