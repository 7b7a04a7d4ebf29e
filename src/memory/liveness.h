#pragma once
// Liveness of tensor buffers along one order of steps (nodes, or the kernels a runtime ran): how many bytes are live
// while each step runs. Neutral: the steps and their buffer rules come from the caller (the analysis' topological
// order, or a run's executed order with the runtime's Alias / in-place rules); docs/memory.md states the rules.
#include <cstdint>
#include <string>
#include <vector>

#include "core/memory.h"

namespace rooflens {

struct LiveTensor {
  std::string name;
  uint64_t bytes = 0;
  bool graph_input = false;   // owned by the caller: live from the first step to the last, never reused
  bool graph_output = false;  // handed back to the caller: live from its producer to the end
  bool constant = false;      // a weight: not an activation (never counted here)
};

struct LiveStep {
  std::vector<int> reads;     // tensor indices the step reads (each occurrence counts one use)
  std::vector<int> writes;    // tensor indices it writes
  BufferReuse reuse = BufferReuse::none;  // output 0 against inputs 0 (and 1, for in-place binary ops)
  int maybe_inplace = -1;     // a position in `reads` whose buffer output 0 may take (taken when the walk is asked to)
  uint64_t extra_bytes = 0;   // held only while the step runs (the peak of a subgraph body it runs)
};

// One buffer's allocation or release, in the order the walk makes them: what the runtime's allocator is asked for.
struct BufferEvent {
  int buffer = -1;            // index of the tensor that owns the buffer
  uint64_t bytes = 0;
  bool allocate = true;       // false: released
};

struct Liveness {
  std::vector<uint64_t> live;  // per step: bytes live while it runs (its inputs, its outputs, whatever waits)
  uint64_t peak = 0;
  int64_t peak_step = -1;      // first step reaching the peak (-1: no steps)
  uint64_t naive = 0;          // Σ every tensor written plus the graph inputs, nothing freed
  int64_t shared_outputs = 0;  // outputs that took an input's buffer (alias or in place)
  std::vector<BufferEvent> events;  // every buffer's allocation and release in walk order (graph inputs are the
                                    // caller's: none; graph outputs: never released)
};

// Walks the steps in order. A tensor's buffer is allocated when written and freed after its last read (graph outputs
// are never freed); an alias output shares its input's buffer; an in-place output shares input 0's (else input 1's)
// buffer when that buffer has no later reader, is not a graph input or output, and has exactly the output's size —
// unless the output is a graph output, which gets a buffer of its own (ORT's kAllocateOutput).
// take_maybe: output 0 takes a step's maybe_inplace input's buffer when that input dies there with its size.
Liveness liveness(const std::vector<LiveTensor>& tensors, const std::vector<LiveStep>& steps, bool take_maybe = false);

}  // namespace rooflens
