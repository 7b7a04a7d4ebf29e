#include "model/weight_bytes.h"

#include <filesystem>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "model/external_data.h"
#include "model/mapped_file.h"
#include "model/skeleton.h"
#include "model/wire.h"

namespace rooflens {

WeightBytes weight_bytes(const std::string& path) {
  MappedFile file(path);
  if (file.size() == 0) throw UserError(path + ": empty file (0 bytes) — not an ONNX model");
  Skeleton sk;
  try {
    sk = build_skeleton(file.data(), file.size());
  } catch (const WireError& e) {
    throw UserError(path + ": not a valid ONNX model (" + e.what() + ") — the file is truncated or corrupted");
  }
  onnx::ModelProto m;
  if (!m.ParseFromString(sk.bytes) || !m.has_graph())
    throw UserError(path + ": not a valid ONNX model (protobuf parse failed) — the file is truncated or corrupted");
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
