#include "analysis/model_summary.h"

#include <filesystem>
#include <set>

#include "core/saturating.h"

namespace rooflens {
namespace {
// Every name a node of any graph reads: an initializer no node reads is dropped by runtimes.
std::set<std::string> names_read(const Model& model) {
  std::set<std::string> out;
  for (const auto& g : model.graphs)
    for (const auto& n : g.nodes)
      for (const auto& i : n.inputs) out.insert(i);
  return out;
}

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
  std::set<std::string> read = names_read(model);
  std::set<std::string> files;
  WeightsMemory w;
  for (const auto& init : model.initializers) {
    ++(init.constant_node.empty() ? info.initializers : info.constant_tensors);
    uint64_t bits = sat_mul(as_count(init.elements), static_cast<uint64_t>(dtype_bits(init.dtype)));
    info.weight_bytes = sat_add(info.weight_bytes, bits / 8);
    if (!init.constant_node.empty()) w.constant_bytes = sat_add(w.constant_bytes, bits / 8);
    if (!init.external_file.empty()) {
      w.external_bytes = sat_add(w.external_bytes, bits / 8);
      files.insert(init.external_file);
    }
    if (init.constant_node.empty() && !read.count(init.name)) w.unused_bytes = sat_add(w.unused_bytes, bits / 8);
  }
  w.bytes = info.weight_bytes;
  w.external_files = static_cast<int64_t>(files.size());
  info.memory = ModelMemory{};
  info.memory->weights = w;
  return info;
}

}  // namespace rooflens
