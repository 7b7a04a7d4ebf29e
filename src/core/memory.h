#pragma once
// Memory: what a model needs, predicted from its analysis, and what a run held, measured in the runner process.
// Filled by the memory room (src/memory/: liveness, KV cache) and by assembly (a run's executed order and its
// measurement); read by every view. JSON in docs/report-schema.md ("model.memory", "runs[].memory"); how each figure
// is made and where the rules come from: docs/memory.md.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rooflens {

// How a kernel's output buffer relates to its inputs' buffers, as its runtime declares it (neutral: a backend
// translates its own kernel definitions; ONNX Runtime's Alias / MayInplace).
enum class BufferReuse {
  none,      // the output gets a buffer of its own
  alias,     // output 0 is input 0's buffer (a view: Reshape, Squeeze, ...): no new bytes
  inplace,   // output 0 may take the buffer of an input that dies here and has exactly its size
};
NLOHMANN_JSON_SERIALIZE_ENUM(BufferReuse, {{BufferReuse::none, "none"}, {BufferReuse::alias, "alias"},
                                           {BufferReuse::inplace, "inplace"}})

// The weights of the model file (model.memory.weights).
struct WeightsMemory {
  uint64_t bytes = 0;           // every initializer and multi-element Constant tensor at its element size
  uint64_t constant_bytes = 0;  // of which held in Constant nodes
  uint64_t external_bytes = 0;  // of which stored in external data files (a runtime reads them at inference session
                                // creation)
  int64_t external_files = 0;
  uint64_t unused_bytes = 0;    // initializers no node reads (runtimes drop them)
};

// Intermediate tensors along one order of the nodes (model.memory.activations).
struct ActivationsMemory {
  uint64_t naive_bytes = 0;     // Σ every tensor the nodes write plus the graph inputs, nothing ever freed: the
                                // "activations" of onnx-tool's per-node memory column and TREx's report card
  uint64_t peak_bytes = 0;      // liveness peak: a tensor lives from its producer to its last consumer; graph inputs
                                // live throughout, graph outputs from their producer to the end
  int64_t peak_node = -1;       // analysis.nodes index of the node running at the peak (-1: no nodes)
  std::string peak_node_name;
  uint64_t inputs_bytes = 0, outputs_bytes = 0;  // the graph's inputs and outputs
  uint64_t largest_tensor_bytes = 0;
  std::string largest_tensor;
};

// The model's memory need at the analysis' dims, from the analysis alone (no runtime).
struct ModelMemory {
  WeightsMemory weights;
  ActivationsMemory activations;  // along the topological order of analysis.nodes
  uint64_t peak_bytes = 0;        // weights.bytes - weights.unused_bytes + activations.peak_bytes
  // Per analysis.nodes entry: activation bytes live while the node runs (weights not included: they are constant).
  // A subgraph node adds its body's tensors to what is live around the node that owns the body.
  std::vector<uint64_t> live_bytes;
  std::vector<std::string> notes;  // unresolved shapes (bytes then a lower bound), If branches taken as the larger
};

// One part of the difference between predicted and measured (runs[].memory.explained[]).
struct MemoryPart {
  std::string name;             // "runtime baseline", "weights", "activations", "allocator slack", ...
  int64_t bytes = 0;            // signed: a part may be below what was predicted
  std::string note;             // where the figure comes from, in words
};

// How a runtime's pooling allocator (an arena) grows and hands out memory, as its backend states it (neutral: ONNX
// Runtime's CPU arena is a best-fit allocator with coalescing over regions it adds and never returns; its constants
// are in the ORT folder). The memory room simulates it over a run's allocations (memory/arena.h).
struct ArenaRules {
  uint64_t granule = 256;                 // every allocation is rounded up to a multiple of this
  uint64_t initial_region = 1u << 20;     // the size the first region would have
  bool doubling = true;                   // each region at least twice the last (else: exactly the allocation)
  uint64_t max_dead_bytes = 128u << 20;   // a free chunk is split when it is at least twice the allocation or would
                                          // otherwise waste this much; else the whole chunk is handed out
  uint64_t page = 4096;                   // the OS's page: a region's pages are resident once written
};

// How the C library's allocator places and returns large blocks, and how the process uses it (neutral: glibc's
// malloc is the C library of the runners rooflens drives on Linux; the backend states the rules and the setting its
// runner was started with; docs/memory.md "The C allocator"). The memory room replays a run's blocks through them
// (memory/c_allocator.h).
struct CAllocatorRules {
  std::string name = "glibc";
  // glibc's main arena (malloc/malloc.c, 2.36): an allocation at or above the mmap threshold that no free chunk and not
  // the heap's top can serve gets a mapping of its own, unmapped when freed; freeing a mapped block above the
  // threshold raises the threshold to its size (up to the maximum) and the trim threshold to twice that — unless the
  // threshold was set (MALLOC_MMAP_THRESHOLD_), which fixes both.
  uint64_t mmap_threshold = uint64_t{128} << 10;  // DEFAULT_MMAP_THRESHOLD_MIN
  bool dynamic_threshold = true;
  uint64_t mmap_threshold_max = uint64_t{32} << 20;  // DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
  uint64_t trim_threshold = uint64_t{128} << 10;     // DEFAULT_TRIM_THRESHOLD: the heap's top above it is given back
  uint64_t top_pad = uint64_t{128} << 10;            // DEFAULT_TOP_PAD: kept at the top when the heap grows or shrinks
  uint64_t page = 4096;
  // How a runtime's inference session uses it (the backend's measured facts): the small allocations it makes between
  // two large ones take the start of a freed block first, so a freed block serves only an allocation at least
  // `reuse_margin` smaller; and a block it keeps is followed by `object_bytes` of its small objects (its tensor's name
  // and shape), which keep the block from merging with the next one when both are freed.
  uint64_t reuse_margin = 4096;
  uint64_t object_bytes = 256;
};

// What a block of the process's heap is for (the parts of a prediction are named after it).
enum class HeapRole {
  read_buffer,  // the runtime's buffer for reading the model file
  serialized,   // a constant as the runtime parsed it from the file
  copy,         // a constant copied into the runtime's own tensor
  temporary,    // a graph optimizer's scratch copy while it rewrites a constant
  rewritten,    // a constant the optimizer made (fused, folded, reordered)
  packed,       // a constant a kernel packed into its own layout
  input,        // the caller's input buffers
  region,       // a region of the runtime's arena
  tensor,       // an activation allocated on its own (arena off)
  output,       // a copy of an output handed to the caller
};
NLOHMANN_JSON_SERIALIZE_ENUM(HeapRole, {{HeapRole::read_buffer, "read_buffer"}, {HeapRole::serialized, "serialized"},
                                        {HeapRole::copy, "copy"}, {HeapRole::temporary, "temporary"},
                                        {HeapRole::rewritten, "rewritten"}, {HeapRole::packed, "packed"},
                                        {HeapRole::input, "input"}, {HeapRole::region, "region"},
                                        {HeapRole::tensor, "tensor"}, {HeapRole::output, "output"}})

// One large block a process allocates or frees, in order (a backend states what its runtime does at inference session
// creation; the run's blocks come from the arena's regions or the executed order's tensors).
struct HeapEvent {
  bool allocate = true;
  uint64_t id = 0;             // pairs a free with its allocation
  uint64_t bytes = 0;
  uint64_t written = UINT64_MAX;  // bytes of it the process writes (pages resident once written); all by default
  HeapRole role = HeapRole::copy;
  bool keeps_objects = false;  // a block the runtime keeps, followed by its small objects (CAllocatorRules)
  bool frees_objects = false;  // (a free) its small objects go with it: the runtime dropped the whole tensor, not
                               // only its buffer
};

// The arena simulated over the run's first pass, in the executed order (runs[].memory.predicted.arena).
struct ArenaPrediction {
  std::vector<uint64_t> regions;          // the regions the arena added, in order
  uint64_t held_bytes = 0;                // Σ regions: what it holds after the run, every page of it if written
  uint64_t written_bytes = 0;             // pages of those regions the run's tensors wrote (each tensor's requested
                                          // bytes, from the offset its chunk got): at least this much is resident
  uint64_t in_use_peak_bytes = 0;         // largest Σ of chunks handed out at once (rounded, unsplit chunks whole)
  uint64_t inputs_bytes = 0;              // the graph's inputs: the caller's buffers, which never enter the arena
                                          // (0 in reports before this field)
  uint64_t low_bytes = 0, high_bytes = 0; // the band for measured.increase_bytes: the prediction's parts other than
                                          // activations, plus inputs_bytes, plus written_bytes (low) or held_bytes
                                          // (high)
  std::vector<uint64_t> region_written_bytes;  // per region: its pages the run's tensors wrote (empty in reports
                                               // before this field)
};

// The process's resident set as the C allocator's rules give it for the inference session's creation and the first run
// (runs[].memory.predicted.c_allocator): the blocks replayed in order, with the rules the runner's setting gives.
struct CAllocatorPrediction {
  std::string setting;               // "glibc default" | "glibc, mmap threshold 131072"
  uint64_t creation_peak_bytes = 0;  // resident high-water over the inference session's creation
  uint64_t session_bytes = 0;        // resident once the inference session exists
  uint64_t session_live_bytes = 0;   // of which in use (the rest: freed blocks the allocator keeps)
  uint64_t run_peak_bytes = 0;       // resident high-water over the first run (inputs, run, output copies)
  // The same blocks with freed neighbours always merging (no small objects between them): the least the allocator
  // keeps; the run-to-run spread of glibc's default lies between the two (docs/memory.md).
  uint64_t low_creation_peak_bytes = 0, low_session_bytes = 0, low_run_peak_bytes = 0;
  // What the blocks were, summed over the inference session's creation (each allocation counted once).
  uint64_t serialized_bytes = 0, copies_bytes = 0, temporaries_bytes = 0, rewritten_bytes = 0, packed_bytes = 0;
};

// What the run should need, predicted in the order the runtime executed its kernels (runs[].memory.predicted).
struct MemoryPrediction {
  uint64_t weights_bytes = 0;            // what the runtime keeps: the constant inputs of the kernels it ran (its
                                         // folded, fused and reordered weights), else the model's used weights
  std::string weights_source;            // "executed_graph" | "analysis"
  uint64_t prepacked_bytes = 0;          // estimated copies a runtime packs beside its weights and keeps (0: it
                                         // frees the originals, or none are known)
  uint64_t activations_bytes = 0;        // liveness peak in the executed order with the runtime's reuse rules
  int64_t peak_layer = -1;               // index into the run's layers of the kernel running at that peak
  std::string peak_layer_name;
  uint64_t topological_bytes = 0;        // the analysis' liveness peak at this run's dims (topological order)
  uint64_t naive_bytes = 0;              // the no-reuse sum at this run's dims
  uint64_t baseline_bytes = 0;           // the runtime's own: what a first inference session of it costs a process
                                         // whatever the model, a calibration constant measured in a process of its
                                         // own (0: not measured)
  uint64_t baseline_run_bytes = 0;       // of baseline_bytes, what the calibration's first run added: the pages of
                                         // the kernels it ran (their code differs by CPU class), which an inference
                                         // session holds only once its own kernels ran, and a model running none of
                                         // them never does — how far below the baseline an inference session may stay
  uint64_t structures_bytes = 0;         // the inference session's graph and kernel structures: the model's nodes
                                         // times what one node of a trivial chain cost the runtime, a calibration
                                         // constant (0: not measured; a lower bound)
  uint64_t output_copies_bytes = 0;      // copies of the graph outputs the runtime's binding hands the caller (the
                                         // Node.js binding copies each output into a JavaScript buffer)
  uint64_t total_bytes = 0;              // the predicted increase of the runner's resident set from before its
                                         // inference session to the peak of its first run: baseline + structures + the
                                         // C allocator's replay of the inference session's creation and first run
                                         // (c_allocator), else baseline + structures + weights + prepacked +
                                         // activations + copies
  uint64_t peak_bytes = 0;               // the predicted high-water above the start over the inference session's
                                         // creation and its first run (what a deployment must hold room for)
  std::optional<CAllocatorPrediction> c_allocator;  // the blocks replayed through the C allocator's rules (a backend
                                                    // that states its inference session's creation)
  std::optional<ArenaPrediction> arena;  // with the runtime's arena on: its regions over the first run, and the band
};

// What the runner process held, from its own /proc/self/status (runs[].memory.measured).
struct MemoryMeasured {
  uint64_t start_bytes = 0;              // VmRSS before anything of the runtime's inference session (before the
                                         // baseline)
  uint64_t after_session_bytes = 0;      // VmRSS once the model's inference session exists
  uint64_t session_peak_bytes = 0;       // VmHWM over inference session creation
  uint64_t run_peak_bytes = 0;           // VmHWM over the timed runs (reset after inference session creation when
                                         // peak_reset): with the copies of earlier outputs a garbage-collected runner
                                         // still holds
  uint64_t probe_peak_bytes = 0;         // VmHWM over the inference session's first run, before the warm-up (0: not
                                         // measured)
  bool peak_reset = false;               // the high-water mark could be reset between the phases (Linux clear_refs)
  uint64_t increase_bytes = 0;           // (probe_peak, else run_peak) - start: what predicted.total_bytes predicts
  uint64_t peak_bytes = 0;               // max(session_peak, probe_peak, else run_peak) - start: the high-water over the
                                         // inference session's creation and its first run, what predicted.peak_bytes
                                         // predicts
  // The runtime's own allocator figures, where it reports them (ONNX Runtime's arena, in its profiled inference
  // session).
  std::optional<uint64_t> allocator_held_bytes;       // largest the allocator held
  std::optional<uint64_t> allocator_in_use_peak_bytes; // largest it had handed out at once
};

// (probe_peak, else run_peak) - start, 0 when neither was measured.
inline uint64_t measured_increase(const MemoryMeasured& m) {
  const uint64_t peak = m.probe_peak_bytes ? m.probe_peak_bytes : m.run_peak_bytes;
  return peak > m.start_bytes ? peak - m.start_bytes : 0;
}
// max(session_peak, probe_peak, else run_peak) - start, 0 when nothing was measured.
inline uint64_t measured_peak(const MemoryMeasured& m) {
  const uint64_t peak = std::max(m.session_peak_bytes, m.probe_peak_bytes ? m.probe_peak_bytes : m.run_peak_bytes);
  return peak > m.start_bytes ? peak - m.start_bytes : 0;
}

// A run's memory: prediction along the executed order, measurement, and the difference in parts.
struct RunMemory {
  // Why this run's memory has no prediction (measured only; `predicted` and `curve` are empty); empty: predicted.
  std::string not_predicted;
  MemoryPrediction predicted;
  std::vector<uint64_t> curve;           // per layer of the run (same order): activation bytes live while it runs
  std::optional<MemoryMeasured> measured;  // absent: the source measured nothing (imports)
  std::vector<MemoryPart> explained;     // measured.increase - predicted.total, split by what is known
  std::vector<std::string> notes;
};

// What the C allocator keeps after inference session creation, when it is a large part of what the process holds: at
// least 64 MiB and at least half the weights (the graph optimizer's copies of them, freed below the heap's top); 0
// otherwise. Predicted by the replay through the C allocator's rules when the run has one, else the measured "inference
// session beyond its prediction" part ("session beyond its prediction" in reports written before it said so). The
// allocator-retention lint and the profile's memory lines share it.
inline uint64_t allocator_retention_bytes(const RunMemory& m) {
  if (!m.not_predicted.empty()) return 0;  // nothing predicted to be beyond
  const uint64_t big = uint64_t{64} * 1024 * 1024;
  if (const auto& c = m.predicted.c_allocator) {
    const uint64_t live = m.predicted.weights_bytes + m.predicted.prepacked_bytes;
    const uint64_t kept = c->session_bytes > live ? c->session_bytes - live : 0;
    return kept >= big && kept >= m.predicted.weights_bytes / 2 ? kept : 0;
  }
  if (!m.measured) return 0;
  for (const auto& part : m.explained) {
    const bool beyond = part.name == "inference session beyond its prediction" ||
                        part.name == "session beyond its prediction";  // reports written before it said "inference"
    if (!beyond) continue;
    if (part.bytes < int64_t{64} * 1024 * 1024 || static_cast<uint64_t>(part.bytes) < m.predicted.weights_bytes / 2)
      return 0;
    return static_cast<uint64_t>(part.bytes);
  }
  return 0;
}

// A run's memory projected by `whatif` (whatif.runs[].memory): the run's prediction with weights and activations
// scaled as the projection scales them (--batch: activations and output copies with the batch; --quantize: every
// float tensor to the new element size). A projection, never a measurement.
struct MemoryProjection {
  uint64_t measured_predicted_bytes = 0;  // the run's own predicted total (runs[].memory.predicted.total_bytes)
  uint64_t weights_bytes = 0, activations_bytes = 0, output_copies_bytes = 0;
  uint64_t baseline_bytes = 0;            // the runtime's baseline and the node structures (both stay)
  uint64_t total_bytes = 0;               // baseline + weights (+ packed copies, scaled like them) + activations + copies
};

// The caller's side of a decoder's loop in a runner with a garbage collector (onnxruntime-node: V8's counters),
// above its value before the timed requests: the largest external buffers after a run of each phase (the feeds, the
// copies of the outputs, and earlier steps' copies not collected yet) and the largest heap growth.
struct CallerMemory {
  bool measured = false;
  uint64_t prefill_buffers_bytes = 0, decode_buffers_bytes = 0, heap_bytes = 0;
};

// The memory generation: one untimed generation before the timed requests (not a request: nothing of it is timed or
// reported but its memory) in which the caller collects its garbage before the prefill and before every decode step,
// so each phase's peak holds what its step holds and nothing an earlier step left for the collector. Resident sets
// as the runner read them (VmHWM, not yet above its start).
struct CollectedMemory {
  uint64_t prefill_peak_bytes = 0, decode_peak_bytes = 0;
  CallerMemory caller;
};

// What a decoder's runner measured of its memory over one configuration (`generate`; backends/generation.h): compared
// with the decoder's prediction (memory/kv_cache.h), never an input of it. Absent parts: the runner did not say.
struct DecoderMemoryMeasured {
  std::optional<MemoryMeasured> runner;  // start, after the inference session, the timed requests' peak
  uint64_t prefill_peak_bytes = 0, decode_peak_bytes = 0;  // each phase's own peak resident set (0: not measured)
  CallerMemory caller;                   // the caller's side of the loop (a garbage-collected binding's buffers, heap)
  std::optional<CollectedMemory> collected;  // the memory generation: each phase's peak with the caller's garbage
                                             // collected
};

// A decoder's memory per phase (generation.runs[].memory): weights, the KV cache, and what the runner holds of it.
struct KvMemory {
  uint64_t weights_bytes = 0;            // what the runtime keeps: the constant inputs of the kernels of the profiled
                                         // prefill (folded, fused, reordered), else the model's weights a node reads
  std::string weights_source;            // "executed_graph" | "analysis" (no profiled prefill)
  uint64_t prepacked_bytes = 0;          // estimated packed copies kept beside weights (executed graph only)
  uint64_t kv_bytes_per_token = 0;       // 2 x layers x kv_heads x head_dim x element size, one sequence
  uint64_t prefill_kv_bytes = 0;         // the prefill's present: batch x prompt tokens
  uint64_t decode_kv_bytes = 0;          // the cache after the last step: batch x (prompt + gen) tokens
  // What a step holds at once: the liveness peak of its activations at its dims (its past — an input, the caller's —,
  // present and logits — outputs — included), and the copies of its outputs the binding makes for the caller.
  uint64_t prefill_activations_bytes = 0, decode_activations_bytes = 0;  // the last decode step's
  uint64_t prefill_peak_bytes = 0;       // baseline + weights + prepacked + the prefill's activations + output copies
  uint64_t decode_peak_bytes = 0;        // baseline + weights + prepacked + the last step's activations + output copies
  uint64_t baseline_bytes = 0;           // the runtime's own (a baseline inference session; 0: not measured)
  uint64_t baseline_run_bytes = 0;       // of it, what its first run added (MemoryPrediction::baseline_run_bytes)
  uint64_t predicted_bytes = 0;          // the larger of the two peaks: the runner's predicted increase
  // The runner's measured increase over its start: each phase's own peak over the timed requests (0: not measured).
  uint64_t prefill_measured_bytes = 0, decode_measured_bytes = 0;
  uint64_t measured_increase_bytes = 0;  // the larger of the two
  std::vector<uint64_t> per_step_kv_bytes;  // per step (prefill first): the cache after it, batch x context
  // Named parts of the prediction (formulas): the copies of a step's outputs the binding makes for the caller (in
  // the peaks above), and the copies of a request's earlier outputs a garbage-collected caller holds at its last
  // step when no collection ran during the request (not in the peaks: when the collector runs is its own).
  uint64_t prefill_copies_bytes = 0, decode_copies_bytes = 0, uncollected_copies_bytes = 0;
  // Measured parts of the difference (0: not measured): the inference session's creation beyond baseline + weights +
  // packed copies (the runtime's graph and kernel structures), and the caller's side (CallerMemory).
  uint64_t session_beyond_bytes = 0;
  uint64_t prefill_caller_buffers_bytes = 0, decode_caller_buffers_bytes = 0, caller_heap_bytes = 0;
  // The memory generation's increase over the runner's start per phase (CollectedMemory; 0: not measured): the figure
  // the prediction is checked against, with the JavaScript heap's growth in that generation beside it.
  uint64_t prefill_collected_bytes = 0, decode_collected_bytes = 0, collected_heap_bytes = 0;
  // Why the runtime's memory is not predicted (MemoryReport::not_predicted): the weights and the cache stay (the model's
  // and the formula's sizes), every predicted peak is 0 and the measured figures stand alone. Empty: predicted.
  std::string not_predicted;
};

}  // namespace rooflens
