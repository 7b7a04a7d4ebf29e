#pragma once
// Why NEW is slower than BASE, where the measurements say so — the causes a user can act on or must accept, each with
// its figures: fewer threads (and the runtime's reason when it decided them: a page without cross-origin isolation
// has no SharedArrayBuffer), a lower compute ceiling (an engine without the CPU's vector instructions: WebAssembly's
// SIMD128 against AVX), more time in kernels the runtime inserted to change precision (float16 computed in float32),
// ONNX nodes BASE fused into fewer kernels than NEW runs them as, and kernels of NEW farther below their own ceiling
// than BASE's are below theirs (the kernel, not the ceiling), and a runner that took more page faults a run (a state
// of the process, not the model). Nothing is said where no figure shows it.
#include <string>
#include <vector>

#include "compare/sources.h"
#include "core/comparison.h"

namespace rooflens {

std::vector<std::string> why_slower(const CompareItem& base, const CompareItem& next, const LayerComparison* layers);

}  // namespace rooflens
