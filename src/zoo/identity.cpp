#include "zoo/identity.h"

#include "zoo/builder.h"
#include "zoo/save.h"

namespace rooflens::zoo {

void save_identity_model(const std::filesystem::path& path) {
  ZooOptions o;
  Builder b("identity", o);
  b.input("x", onnx::TensorProto_DataType_FLOAT, {b.batch_dim(), std::int64_t{16}});
  const std::string y = b.op("Identity", "identity", {"x"});
  b.output(y, "y", onnx::TensorProto_DataType_FLOAT, {b.batch_dim(), std::int64_t{16}});
  BuiltModel m = b.finish("one Identity: rooflens capacity --self-test");
  save_model(m.model, path, false);
}

}  // namespace rooflens::zoo
