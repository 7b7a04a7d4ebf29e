#include "model/declared_io.h"

#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "model/mapped_file.h"
#include "model/proto_convert.h"
#include "model/skeleton_model.h"

namespace rooflens {

namespace {
const DeclaredValue* find(const std::vector<DeclaredValue>& values, const std::string& name) {
  for (const auto& v : values)
    if (v.name == name) return &v;
  return nullptr;
}
}  // namespace

const DeclaredValue* DeclaredIo::input(const std::string& name) const { return find(inputs, name); }
const DeclaredValue* DeclaredIo::output(const std::string& name) const { return find(outputs, name); }

DeclaredIo read_declared_io(const std::string& path) {
  MappedFile file(path);
  return declared_io_from_bytes(file.data(), file.size(), path);
}

DeclaredIo declared_io_from_bytes(const uint8_t* data, size_t size, const std::string& path) {
  Skeleton sk;
  const onnx::ModelProto m = skeleton_model(data, size, path, sk);
  std::unordered_set<std::string> initializers;
  for (const auto& t : m.graph().initializer()) initializers.insert(t.name());
  DeclaredIo io;
  for (const auto& v : m.graph().input())
    if (!initializers.count(v.name())) io.inputs.push_back({v.name(), tensor_info_of(v.type())});
  for (const auto& v : m.graph().output()) io.outputs.push_back({v.name(), tensor_info_of(v.type())});
  return io;
}

}  // namespace rooflens
