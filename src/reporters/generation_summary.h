#pragma once
// The terminal summary of a generation report (`rooflens generate`): a llama-bench-style table (prompt processing
// ppP and token generation tgN rows with t/s ± std), the latency percentiles (TTFT, TPOT, e2e per request), the
// decode headline (bytes streamed per token against the measured DRAM roof), TPOT against context, and the per-layer
// profile of each phase on the roofline; then warnings and failures.
#include <cstddef>
#include <string>

#include "core/report.h"

namespace rooflens {

std::string generation_summary(const Report& r, size_t top_layers = 5);

// How many MatMul-class layers (MatMul, FusedMatMul, Gemm, ...) of a phase the roofline calls memory- and
// compute-bound: the check that decode streams its weights and a long prefill computes.
struct MatMulBounds {
  size_t layers = 0, memory = 0, compute = 0;
};
MatMulBounds matmul_bounds(const PhaseProfile& p);

}  // namespace rooflens
