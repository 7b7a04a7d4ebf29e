// `-B name:key=value,...`: which backend, with options in its own spelling.
#include "backends/backend.h"

namespace rooflens {

BackendSpec parse_backend_spec(const std::string& text) {
  BackendSpec spec;
  spec.text = text;
  auto colon = text.find(':');
  spec.name = text.substr(0, colon);
  if (spec.name == "ort") spec.name = "onnxruntime";
  if (colon == std::string::npos) return spec;
  std::string rest = text.substr(colon + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t comma = rest.find(',', pos);
    std::string item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) {
      auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("-B " + text + ": '" + item + "' is not key=value (e.g. -B onnxruntime:intraOpNumThreads=2)");
      spec.options.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec;
}

}  // namespace rooflens
