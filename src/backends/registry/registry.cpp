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
      {"ortweb", &ort::make_ortweb_backend},
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

std::vector<std::pair<std::string, std::string>> backends_left_out() {
  std::vector<std::pair<std::string, std::string>> out;
#if !ROOFLENS_BACKEND_OPENCV
  out.emplace_back("opencv", "libopencv-dnn-dev was not installed when this rooflens was configured: `make deps`, "
                             "then build again");
#endif
  return out;
}

namespace {

const BackendEntry& find_entry(const std::string& name) {
  for (const auto& e : backend_entries())
    if (e.name == name) return e;
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  for (const auto& [left_out, why] : backends_left_out())  // src/CMakeLists.txt: ROOFLENS_BACKEND_OPENCV=AUTO
    if (name == left_out)
      throw UsageError("-B " + name + ": this rooflens was built without it (" + why + "; built: " + known + ")");
  throw UsageError("-B " + name + ": unknown backend (known: " + known + ")");
}

}  // namespace

std::unique_ptr<Backend> make_backend(const BackendSpec& spec) { return find_entry(spec.name).make(spec); }

}  // namespace rooflens
