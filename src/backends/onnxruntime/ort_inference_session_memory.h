#pragma once
// What ONNX Runtime 1.30's CPU provider allocates while it creates an inference session, as large blocks of the
// runner's heap in order, and the C allocator its runner (onnxruntime-node on Linux: glibc) places them with — the
// neutral records (core/memory.h HeapEvent, CAllocatorRules) the memory room replays to predict what the process holds
// (docs/memory.md "The inference session's creation"). Read off the runner's own allocations (an LD_PRELOAD tracer of
// malloc/free/posix_memalign over the corpus models), not from ORT's source, which the npm build does not ship.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/graph_view.h"
#include "core/memory.h"

namespace rooflens::ort {

// The blocks of an inference session's creation from the user's model (its constants in file order) and the graph the
// inference session executed (its constants, its nodes; the user's model again when the executed graph is not known):
//   1. the file is read through a 4 MiB buffer, freed once it is parsed;
//   2. parsing keeps every constant of the file as a string of its bytes (+1);
//   3. building the graph copies each constant into a tensor of its own (kept, with its small objects) and frees its
//      string, one constant after the other;
//   4. the basic level's fusions: a Conv followed only by a BatchNormalization of constants gets a new weight (two
//      scratch copies beside it); the old weights are freed when the level is done, the new ones when a later level
//      replaced them;
//   5. every constant the optimizer makes (a name of the executed graph the model does not have: a fused, folded or
//      reordered weight) costs three scratch copies of its size, freed at once, and the kept one — one scratch copy
//      of the original when it is an fp16 constant converted to fp32 ("FusedBack_<name>"); the constants it replaced
//      are freed when the optimizer is done;
//   6. each kernel that packs a constant input (packed_inputs) allocates the packed copy; the constant is freed once
//      every kernel reading it has packed it.
// Blocks under 64 KiB are left out: the node structures' calibration holds the small allocations.
std::vector<HeapEvent> inference_session_creation_blocks(const GraphView& model, const GraphView& executed,
                                               uint64_t model_file_bytes);

// glibc's rules with the runner's setting (mallocMmapThreshold: MALLOC_MMAP_THRESHOLD_, which fixes the thresholds)
// and how ORT's inference session uses the heap (the small objects after a kept constant, the reuse margin).
CAllocatorRules runner_c_allocator(std::optional<uint64_t> malloc_mmap_threshold);

}  // namespace rooflens::ort
