#include "model/fixed_inputs.h"

#include <fstream>

#include <onnx/onnx_pb.h>

#include "core/errors.h"
#include "model/proto_shapes.h"

namespace rooflens {

void apply_overrides(onnx::GraphProto& g, const ShapeOverrides& o, const std::string& file,
                     std::vector<std::string>& notes, std::map<std::string, int64_t>& symbols,
                     int64_t& batch_dims);  // shape_overrides.cpp

std::string model_bytes_with_fixed_inputs(const std::string& path, const ShapeOverrides& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open the model file");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) throw UserError(path + ": not a valid ONNX model (protobuf parse failed)");
  if (!model.has_graph()) throw UserError(path + ": the model has no graph");
  std::vector<std::string> notes;
  std::map<std::string, int64_t> symbols;
  int64_t batch_dims = 0;
  apply_overrides(*model.mutable_graph(), overrides, path, notes, symbols, batch_dims);
  return model.SerializeAsString();
}

}  // namespace rooflens
