#include <algorithm>

#include "backends/backend.h"
#include "backends/onnxruntime/ort_backend.h"

namespace rooflens {
namespace {

const std::map<std::string, BackendFactory>& registry() {
  static const std::map<std::string, BackendFactory> r{
      {"onnxruntime", [](const BackendSpec& s) { return ort::make_ort_backend(s.options); }},
  };
  return r;
}

}  // namespace

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& [k, v] : registry()) names.push_back(k);
  return names;
}

BackendSpec parse_backend_spec(const std::string& text) {
  BackendSpec spec;
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

std::unique_ptr<Backend> make_backend(const BackendSpec& spec) {
  auto it = registry().find(spec.name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("-B " + spec.name + ": unknown backend (known: " + known + ")");
  }
  return it->second(spec);
}

}  // namespace rooflens
