#include "model/skeleton_model.h"

#include "core/errors.h"
#include "model/wire.h"

namespace rooflens {

onnx::ModelProto skeleton_model(const uint8_t* data, size_t size, const std::string& path, Skeleton& sk) {
  if (size == 0) throw UserError(path + ": empty file (0 bytes) — not an ONNX model; re-export it");
  try {
    sk = build_skeleton(data, size);
  } catch (const WireError& e) {
    throw UserError(path + ": not a valid ONNX model (" + e.what() + ") — the file is truncated or corrupted");
  }
  onnx::ModelProto m;
  if (!m.ParseFromString(sk.bytes))
    throw UserError(path + ": not a valid ONNX model (protobuf parse failed) — the file is truncated or corrupted");
  if (!m.has_graph()) throw UserError(path + ": not an ONNX model (no graph) — is this really a .onnx file?");
  return m;
}

}  // namespace rooflens
