#pragma once
// A run's activations and weights in the order its runtime executed the kernels: each kernel is the node of the
// executed graph with its name; the tensors it reads and writes have the sizes the runtime reported for them, so
// fused tensors that never exist cost nothing and reordered (padded) layouts cost what they hold.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph_view.h"
#include "core/measurement.h"
#include "memory/liveness.h"

namespace rooflens {

struct ExecutedMemory {
  uint64_t weights_bytes = 0;       // the constant inputs of the kernels (each once), as the runtime shaped them
  uint64_t packed_bytes = 0;        // packed copies kept beside a weight another kernel still reads unpacked, and
                                    // one copy per further kernel packing the same weight
  uint64_t activations_bytes = 0;   // liveness peak with the kernels' buffer reuse
  int64_t peak_kernel = -1;         // index into the kernels
  uint64_t naive_bytes = 0;
  uint64_t outputs_bytes = 0;       // the graph's outputs
  uint64_t inputs_bytes = 0;        // the graph's inputs that are not constants: the caller's buffers
  std::vector<BufferEvent> events;  // the buffers' allocations and releases in the executed order
  // The same walk with every kernel's maybe-in-place input taken where it can be (empty: no kernel has one that
  // could), and how many kernels took it.
  std::vector<BufferEvent> events_sharing;
  int maybe_shared = 0;
  std::vector<uint64_t> curve;      // per kernel (0 for kernels inside a subgraph: held by their enclosing kernel)
  std::vector<std::string> notes;
};

// Nullopt when too few kernels could be matched to the executed graph's nodes (under 90% of the top-level ones).
// `known`: bytes of tensors by name where the kernels do not report them (the model's weights, for a weight a
// kernel packed at inference session creation and so no longer lists).
std::optional<ExecutedMemory> executed_memory(const std::vector<KernelRecord>& kernels, const GraphView& executed,
                                              const std::unordered_map<std::string, uint64_t>& known = {});

}  // namespace rooflens
