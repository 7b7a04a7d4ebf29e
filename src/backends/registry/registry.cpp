// name -> factory for every backend built in.
#include <algorithm>

#include "backends/registry/registry.h"
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
