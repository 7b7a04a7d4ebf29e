#pragma once
// A run's memory section: the prediction along the order the runtime executed (its executed graph with the sizes it
// reported; else the analysis' nodes in the order of the layers that own them), the measurement, and the difference
// between them in parts. assemble_run calls it once the layers exist.
#include <optional>
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "core/measurement.h"
#include "core/memory.h"
#include "core/report_model.h"

namespace rooflens {

struct RunMemorySources {
  const std::vector<KernelRecord>* kernels = nullptr;  // in run order
  const GraphView* executed = nullptr;                 // the graph they are nodes of (null: not known)
  const Analysis* analysis = nullptr;                  // the model at the run's dims (null: no model)
  const std::vector<Layer>* layers = nullptr;          // the run's layers (kernels first, in the same order)
  std::vector<std::string> inputs, outputs;            // the model's main-graph input and output names
  uint64_t model_weights_bytes = 0;                    // the model file's weights a node reads
  const std::optional<MemoryMeasured>* measured = nullptr;
  uint64_t baseline_bytes = 0;                         // Measurement::runtime_baseline_bytes
  uint64_t baseline_run_bytes = 0;                     // Measurement::runtime_baseline_run_bytes
  uint64_t node_bytes = 0;                             // Measurement::runtime_node_bytes
  std::string runtime_cost_measured_at;                // Measurement::runtime_cost_measured_at
  const std::vector<HeapEvent>* session_creation = nullptr;  // Measurement::session_creation
  const std::optional<CAllocatorRules>* c_allocator = nullptr;  // Measurement::c_allocator
  int64_t output_copies = 0;                           // Measurement::output_copies
  std::optional<ArenaRules> arena;                     // Measurement::arena
};

// Nullopt when there is nothing to predict from (no executed graph and no analysis).
std::optional<RunMemory> run_memory(const RunMemorySources& in);

// The difference between measured and predicted, in parts (RunMemory::explained); empty without a measurement.
std::vector<MemoryPart> explain_memory(const MemoryPrediction& p, const MemoryMeasured& m);

// The model's weights a node reads (weights minus unused), for a run's fallback prediction.
uint64_t used_weight_bytes(const ModelInfo& model);

}  // namespace rooflens
