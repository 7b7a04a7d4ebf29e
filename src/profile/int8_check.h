#pragma once
// profile's int8 check (docs/profile.md, "int8 on CPUs without VNNI"): an int8 run's outputs against the same model
// run with graph optimizations disabled, where its integer matmuls compute as DequantizeLinear -> float op ->
// QuantizeLinear. On an x86 CPU without VNNI the runtime's u8s8 kernels can saturate (core/int8_kernels.h); the
// comparison measures what that costs the outputs, and lint's `u8s8-saturation` names it.
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/int8_kernels.h"
#include "validation/allclose.h"

namespace rooflens {

// --int8-check: auto (QDQ int8 models on a CPU whose u8s8 kernels saturate, unless every weight is within the reduced
// range), always (QDQ int8 models on any CPU), never.
enum class Int8CheckMode { automatic, always, never };
Int8CheckMode parse_int8_check(const std::string& text);  // "auto" | "always" | "never"; UsageError otherwise

// What the comparison holds the outputs to. The runtime's integer kernels requantize every layer, so even where
// nothing saturates an output rounds to a neighbouring step of its quantization now and then, and a deep network
// carries some of that to its outputs: measured here (AVX-512 VNNI) the zoo's QDQ ResNet-50 stays within 2 steps of
// its unoptimized run, 3 of 1000 logits beyond 1.5 steps, while on an emulated AVX2 CPU the saturated sums move
// 950 of them, by up to 76 steps, and MobileNetV2's 129 (224x224) and 28 (64x64) of 1000 (docs/profile.md). So an
// element of an output a DequantizeLinear produces is held to 1.5 of its steps (values are whole steps apart: one
// step off passes, two do not), other outputs to 5% + 0.05 (the score suite's int8 tolerance), and an output passes
// while at most 1% of its elements lie beyond (the score's allowance too).
inline constexpr double kInt8CheckPercentMismatch = 1.0;
Tolerance int8_check_tolerance(std::optional<double> output_step);

// Whether a run of a model with these int8 weights gets the check on a CPU with these features. Only weights read
// through a DequantizeLinear give an unoptimized run that computes in float: a model of QLinearConv/MatMulInteger
// nodes runs the same integer kernels at every optimization level, so it has no reference this way.
bool wants_int8_check(Int8CheckMode mode, const std::optional<Int8Weights>& weights, const std::vector<std::string>& isa);

// The comparison for run `r` on `backend`: one live runner loads the model as the run did (its options, threads and
// dims) and at opt-level disabled, runs each once on the run's inputs, and compares. `isa` is recorded with it. Throws
// BackendError when either inference session fails (the run stands; the caller notes why it has no check).
// `output_step` (analysis/int8_weights.h) sets the tolerance above.
Int8Check check_int8_outputs(Backend& backend, const RunSpec& r, const std::vector<std::string>& isa,
                             std::optional<double> output_step);

}  // namespace rooflens
