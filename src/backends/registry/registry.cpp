// name -> factory for every backend built in.
#include "backends/registry/registry.h"

#include "backends/onnxruntime/ort_backend.h"
#if ROOFLENS_BACKEND_OPENCV
#include "backends/opencv/opencv_backend.h"
#endif

namespace rooflens {

const std::vector<BackendEntry>& backend_entries() {
  static const std::vector<BackendEntry> entries{
      {"onnxruntime", &ort::make_ort_backend},
#if ROOFLENS_BACKEND_OPENCV
      {"opencv", &opencv::make_backend},
#endif
  };
  return entries;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& e : backend_entries()) names.push_back(e.name);
  return names;
}

namespace {

const BackendEntry& find_entry(const std::string& name) {
  for (const auto& e : backend_entries())
    if (e.name == name) return e;
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("-B " + name + ": unknown backend (known: " + known + ")");
}

}  // namespace

std::unique_ptr<Backend> make_backend(const BackendSpec& spec) { return find_entry(spec.name).make(spec); }

}  // namespace rooflens
