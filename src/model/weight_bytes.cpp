#include "model/weight_bytes.h"

#include <filesystem>

#include "model/external_data.h"
#include "model/mapped_file.h"
#include "model/skeleton_model.h"

namespace rooflens {

WeightBytes file_weight_bytes(const std::string& path) {
  MappedFile file(path);
  Skeleton sk;
  const onnx::ModelProto m = skeleton_model(file.data(), file.size(), path, sk);
  WeightBytes w;
  w.file = file.size();
  for (const auto& p : sk.payloads) w.embedded += p.length;
  const std::string dir = std::filesystem::path(path).parent_path().string();
  for (const auto& t : m.graph().initializer())
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
      w.external += resolve_external_data(t, path, dir.empty() ? "." : dir).length;
  return w;
}

}  // namespace rooflens
