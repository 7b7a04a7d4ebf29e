#pragma once
// A run's memory section: the prediction along the order the runtime executed (its executed graph with the sizes it
// reported; else the analysis' nodes in the order of the layers that own them), the measurement, and the difference
// between them in parts. assemble_run calls it once the layers exist, with the sources run_memory_sources takes from
// the run's Measurement and the model's side (analysis, layers, the main graph's inputs and outputs) added.
#include <optional>
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "core/measurement.h"
#include "core/memory.h"
#include "core/report_model.h"

namespace rooflens {

struct RunMemorySources {
  // The prediction's, from the model's side (the caller's):
  const Analysis* analysis = nullptr;                  // the model at the run's dims (null: no model)
  const std::vector<Layer>* layers = nullptr;          // the run's layers (kernels first, in the same order)
  std::vector<std::string> inputs, outputs;            // the model's main-graph input and output names
  uint64_t model_weights_bytes = 0;                    // the model file's weights a node reads (0: the analysis')
  // The prediction's, from the run's Measurement (run_memory_sources): what the runtime ran and its constants.
  const std::vector<KernelRecord>* kernels = nullptr;  // in run order
  const GraphView* executed = nullptr;                 // the graph they are nodes of (null: not known)
  uint64_t baseline_bytes = 0;                         // Measurement::runtime_baseline_bytes
  uint64_t baseline_run_bytes = 0;                     // Measurement::runtime_baseline_run_bytes
  uint64_t node_bytes = 0;                             // Measurement::runtime_node_bytes
  std::string runtime_cost_measured_at;                // Measurement::runtime_cost_measured_at
  const std::vector<HeapEvent>* inference_session_creation = nullptr;  // Measurement::inference_session_creation
  const std::optional<CAllocatorRules>* c_allocator = nullptr;  // Measurement::c_allocator
  int64_t output_copies = 0;                           // Measurement::output_copies
  std::optional<ArenaRules> arena;                     // Measurement::arena
  std::string not_predicted;                           // Measurement::memory_not_predicted
  // The measurement's (Measurement::memory; run_memory adds the kernels' allocator figures to it): compared with the
  // prediction, never an input of it.
  const std::optional<MemoryMeasured>* measured = nullptr;
};

// The sources `m` gives a run's memory (they point into `m`, which must outlive them); the model's side is left to
// the caller.
RunMemorySources run_memory_sources(const Measurement& m);

// Nullopt when there is nothing to predict from (no executed graph and no analysis).
std::optional<RunMemory> run_memory(const RunMemorySources& in);

// The runner's resident set once the inference session existed, above its start, less what the prediction has for the
// inference session: the calibrated parts (baseline, node structures) and the C allocator's replay of its creation,
// else the weights and their packed copies. What real nodes hold beyond trivial ones, and where the allocator placed
// blocks otherwise than predicted; negative when the runner held less. A run's explained part, and a decoder's
// (kv_cache.h).
int64_t inference_session_beyond_prediction(const MemoryPrediction& p, const MemoryMeasured& m);

// The difference between measured and predicted, in parts (RunMemory::explained); empty without a measurement.
std::vector<MemoryPart> explain_memory(const MemoryPrediction& p, const MemoryMeasured& m);

}  // namespace rooflens
