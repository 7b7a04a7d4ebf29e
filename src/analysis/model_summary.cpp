#include "analysis/model_summary.h"

#include <filesystem>

#include "memory/model_memory.h"

namespace rooflens {
namespace {
TensorSummary tensor_summary(const Model& m, const std::string& name) {
  TensorSummary s;
  s.name = name;
  if (const TensorInfo* t = m.find_tensor(0, name)) {
    s.dtype = dtype_name(t->dtype);
    for (const auto& d : t->dims) {
      s.shape.push_back(d.value);
      s.dim_names.push_back(d.symbol);
    }
  }
  return s;
}
}  // namespace

ModelInfo summarize_model(const Model& model) {
  ModelInfo info;
  info.path = model.path;
  info.name = std::filesystem::path(model.path).stem().string();
  info.file_bytes = model.file_bytes;
  info.ir_version = model.ir_version;
  info.producer_name = model.producer_name;
  info.producer_version = model.producer_version;
  for (const auto& [domain, version] : model.opsets) info.opsets[domain.empty() ? "ai.onnx" : domain] = version;
  if (!model.graphs.empty()) {
    for (const auto& n : model.graphs[0].inputs) info.inputs.push_back(tensor_summary(model, n));
    for (const auto& n : model.graphs[0].outputs) info.outputs.push_back(tensor_summary(model, n));
  }
  for (const auto& init : model.initializers) ++(init.constant_node.empty() ? info.initializers : info.constant_tensors);
  // The weights' bytes as the memory room counts them (model.memory.weights.bytes is the same figure); the memory
  // section itself is the prediction's (memory/model_memory.h predict_model_memory).
  info.weight_bytes = model_weights(model).bytes;
  return info;
}

}  // namespace rooflens
