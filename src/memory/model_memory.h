#pragma once
// A model's memory need before anything runs: the weights its file holds, and the activations along the topological
// order of its analysis (with If/Loop/Scan bodies held while their node runs), the naive no-reuse sum, and the
// per-node live curve. predict_model_memory is the one entry point (docs/memory.md).
#include <string>
#include <vector>

#include "core/report_model.h"
#include "model/graph.h"

namespace rooflens {

struct TopologicalMemory {
  ActivationsMemory activations;
  std::vector<uint64_t> live;       // per analysis.nodes entry (0 for nodes of a branch not taken)
  std::vector<std::string> notes;
};

// `inputs` / `outputs`: the main graph's input and output names (sizes come from the nodes that read or write them).
TopologicalMemory topological_memory(const Analysis& a, const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs);

// The weights `model`'s file holds (every initializer and multi-element Constant at its element size): those held in
// Constant nodes, stored in external data files, and read by no node.
WeightsMemory model_weights(const Model& model);

// The weights a node reads: what a runtime keeps of the file's (it drops those no node reads).
uint64_t used_weight_bytes(const WeightsMemory& w);

// What `model` needs at the dims it was loaded with (the configuration's: its batch, dims and shapes), predicted from
// the model and `analysis` (analysis/analyze.h, of the same model at the same dims) alone: its weights, and its
// activations along the topological order; peak_bytes = the weights a node reads + the activations' peak. The report's
// model.memory, and the need a run is checked against before it starts (memory_guard.h). Without nodes, the weights
// alone (no activations, a peak of 0).
ModelMemory predict_model_memory(const Model& model, const Analysis& analysis);

// Bytes of a tensor of `shape` and ONNX element type `dtype`; 0 when a dim is unknown or the type has no size.
uint64_t tensor_bytes_of(const std::vector<int64_t>& shape, const std::string& dtype);

}  // namespace rooflens
