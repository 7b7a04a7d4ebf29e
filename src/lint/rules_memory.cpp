// Memory: what the run's memory section (runs[].memory; docs/memory.md) says beyond its prediction — an allocator that
// grew far beyond what the run needed at once, weights the runtime keeps twice because a kernel packed them, memory the
// C allocator kept after inference session creation, and a working set larger than the last-level cache the sweep found
// (which explains a bandwidth-bound roofline).
#include <algorithm>
#include <cmath>

#include "core/units.h"
#include "lint/rule.h"

namespace rooflens {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

std::string bytes_si(uint64_t b) { return si_bytes(static_cast<double>(b)); }

// The arena held far more than was in use at once: its growth rule rounds every extension up (ORT: the next power
// of two), so a peak that just passes one size makes it take the next whole region.
void arena_growth(const RunFacts& f, FindingSink& out) {
  if (!f.run.memory || !f.run.memory->measured) return;
  const MemoryMeasured& m = *f.run.memory->measured;
  if (!m.allocator_held_bytes || !m.allocator_in_use_peak_bytes) return;
  const uint64_t held = *m.allocator_held_bytes, used = *m.allocator_in_use_peak_bytes;
  const uint64_t act = f.run.memory->predicted.activations_bytes;
  if (held < 2 * used || held - used < 16 * kMiB) return;
  Finding& x = out.add(Severity::warning, "the runtime's arena held " + bytes_si(held) + " for " + bytes_si(used) +
                                              " in use at its peak (activations predicted: " + bytes_si(act) + ")");
  x.evidence = {{"arena held", static_cast<double>(held), "bytes"},
                {"in use at the peak", static_cast<double>(used), "bytes"},
                {"predicted activations", static_cast<double>(act), "bytes"}};
  x.mitigation = "The arena extends by whole regions, each twice the last (ONNX Runtime's kNextPowerOfTwo), and keeps "
                 "them: a run whose peak just passes a size takes the next region. Where the API allows, extend by "
                 "what is requested (arena_extend_strategy kSameAsRequested), warm up once at the largest shape so "
                 "the regions fit it from the start, or disable the CPU arena "
                 "(-B onnxruntime:enableCpuMemArena=false) and let the C allocator serve the tensors.";
}

// Weights a kernel packed at inference session creation while another kernel still reads the original: both are kept.
void prepacked_weights(const RunFacts& f, FindingSink& out) {
  if (!f.run.memory) return;
  const MemoryPrediction& p = f.run.memory->predicted;
  if (p.prepacked_bytes < kMiB) return;
  Finding& x = out.add(Severity::info, "weights kept twice: " + bytes_si(p.prepacked_bytes) +
                                           " of packed copies beside weights another kernel reads as they are");
  x.evidence = {{"packed copies (estimate)", static_cast<double>(p.prepacked_bytes), "bytes"},
                {"weights", static_cast<double>(p.weights_bytes), "bytes"}};
  x.mitigation = "A weight shared by a packing kernel (MatMul, Gemm) and another one (a Gather of tied embeddings) is "
                 "held packed and plain. Untie them in the export, or turn packing off for a memory-bound deployment "
                 "(-B onnxruntime:session.disable_prepacking=1) and measure what it costs in time.";
}

// The C allocator kept memory the runtime freed while it created the inference session (copies of the weights made
// while it optimized the graph): the process holds it, the runtime does not.
void allocator_retention(const RunFacts& f, FindingSink& out) {
  if (!f.run.memory) return;
  const uint64_t kept = allocator_retention_bytes(*f.run.memory);
  if (!kept) return;
  const uint64_t weights = f.run.memory->predicted.weights_bytes;
  const bool predicted = f.run.memory->predicted.c_allocator.has_value();
  Finding& x = out.add(Severity::info, "the inference session holds " + bytes_si(kept) +
                                           " beyond its runtime, weights and packed copies" +
                                           (predicted ? " (predicted: the C allocator keeps it)" : ""));
  x.evidence = {{predicted ? "kept by the C allocator (predicted)" : "beyond the prediction", static_cast<double>(kept),
                 "bytes"},
                {"weights", static_cast<double>(weights), "bytes"}};
  x.mitigation = std::string(predicted ? "Memory" : "Most likely memory") +
                 " the C allocator kept after the runtime freed it: graph optimization copies "
                 "the weights (layout reorders, fusions) and frees the originals below the heap's top, where glibc "
                 "does not return them. A fixed mmap threshold gives large blocks back when freed "
                 "(-B onnxruntime:mallocMmapThreshold=131072, i.e. MALLOC_MMAP_THRESHOLD_ in a deployment), as does "
                 "an allocator such as jemalloc.";
}

// The last cache level the bandwidth sweep found at (nearly) the run's thread count: where its plateau ends.
uint64_t last_cache_bytes(const HardwareInfo& hw, int64_t threads) {
  int64_t best = -1;
  for (const auto& l : hw.levels)
    if (best < 0 || std::llabs(l.threads - threads) < std::llabs(best - threads)) best = l.threads;
  uint64_t bytes = 0;
  for (const auto& l : hw.levels)
    if (l.threads == best && l.level != "DRAM") bytes = std::max(bytes, l.last_bytes);
  return bytes;
}

void working_set_above_cache(const RunFacts& f, FindingSink& out) {
  if (!f.run.memory || !f.report.hardware) return;
  const uint64_t llc = last_cache_bytes(*f.report.hardware, f.run.threads);
  const MemoryPrediction& p = f.run.memory->predicted;
  const uint64_t set = p.weights_bytes + p.activations_bytes;
  if (llc == 0 || set <= llc) return;
  double memory_ms = 0;
  for (const auto& l : f.run.layers)
    if (l.bound == "memory") memory_ms += l.time_ms;
  Finding& x = out.add(Severity::info, "the working set (" + bytes_si(set) + " of weights and activations) exceeds the last "
                                           "cache level the sweep found (" + bytes_si(llc) + ")");
  x.evidence = {{"weights + activations", static_cast<double>(set), "bytes"},
                {"last cache level", static_cast<double>(llc), "bytes"},
                {"memory-bound time share", f.share_of(memory_ms), "ratio"}};
  x.mitigation = "Each run streams its weights from DRAM: layers that read large weights meet the DRAM roof. A smaller "
                 "batch does not shrink the weights; quantized weights (int8: a quarter) or a model whose weights fit "
                 "the cache do. rooflens whatif --quantize int8 projects both time and memory.";
}

}  // namespace

void add_memory_rules(RuleList& rules) {
  rules.push_back({"arena-growth", "memory", "the runtime's arena held far more than it had in use at its peak",
                   "https://onnxruntime.ai/docs/get-started/with-c.html", &arena_growth});
  rules.push_back({"prepacked-weights", "memory", "weights kept both packed and plain",
                   "https://onnxruntime.ai/docs/performance/tune-performance/memory.html", &prepacked_weights});
  rules.push_back({"allocator-retention", "memory", "memory the C allocator kept after inference session creation",
                   "https://www.gnu.org/software/libc/manual/html_node/Memory-Allocation-Tunables.html",
                   &allocator_retention});
  rules.push_back({"working-set-above-cache", "memory", "weights and activations larger than the last-level cache",
                   "https://onnxruntime.ai/docs/performance/tune-performance/memory.html", &working_set_above_cache});
}

}  // namespace rooflens
