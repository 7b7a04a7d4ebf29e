#pragma once
// A model's memory need from its analysis alone: activations along the topological order of analysis.nodes (with
// If/Loop/Scan bodies held while their node runs), the naive no-reuse sum, and the per-node live curve.
#include <string>
#include <vector>

#include "core/report_model.h"

namespace rooflens {

struct TopologicalMemory {
  ActivationsMemory activations;
  std::vector<uint64_t> live;       // per analysis.nodes entry (0 for nodes of a branch not taken)
  std::vector<std::string> notes;
};

// `inputs` / `outputs`: the main graph's input and output names (sizes come from the nodes that read or write them).
TopologicalMemory topological_memory(const Analysis& a, const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs);

// Fills model.memory's activations, peak and curve from model.analysis; model.memory.weights (filled where the
// model file is read: analysis/model_summary.cpp) is kept. A model without nodes gets no memory section.
void predict_model_memory(ModelInfo& model);

// Bytes of a tensor of `shape` and ONNX element type `dtype`; 0 when a dim is unknown or the type has no size.
uint64_t tensor_bytes_of(const std::vector<int64_t>& shape, const std::string& dtype);

}  // namespace rooflens
