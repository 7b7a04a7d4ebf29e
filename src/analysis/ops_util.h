#pragma once
// Private helpers shared by the ops_*.cpp cost functions. Not part of the public analysis API.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/cost.h"
#include "core/saturating.h"

namespace rooflens::ops {

// Fixed FLOP counts of the elementary functions (docs/cost-model.md, "Conventions"). Basic IEEE operations
// (+ - * / sqrt, compare, select, min/max) cost 1; every libm-style function (exp, log, trig, hyperbolic,
// erf, pow) costs kTrans because vector libraries evaluate them as short polynomial kernels.
inline constexpr uint64_t kTrans = 4;
inline constexpr uint64_t kSigmoid = kTrans + 2;       // 1 / (1 + exp(-x)): exp, add, divide
inline constexpr uint64_t kSoftmaxPerElem = 8;         // max 1, subtract 1, exp 4, sum 1, divide 1
inline constexpr uint64_t kQuantize = 3;               // divide by scale, round, add zero point
inline constexpr uint64_t kDequantize = 2;             // subtract zero point, multiply by scale
inline constexpr uint64_t kDynQuantize = 2 + kQuantize;  // min and max scan, then quantize

inline OpWork unknown(std::string why) {
  OpWork w;
  w.known = false;
  w.note = std::move(why);
  return w;
}

// known=false result when any listed input is absent/unresolved, nullopt when all are resolved.
std::optional<OpWork> need_in(const CostInput& c, std::initializer_list<size_t> idx);
std::optional<OpWork> need_out(const CostInput& c, std::initializer_list<size_t> idx);
// Same for single dims (value < 0 means unknown); `what` names the dim in the note.
std::optional<OpWork> need_dims(std::initializer_list<int64_t> dims, const char* what);

inline uint64_t u(int64_t v) { return as_count(v); }

// Dim arithmetic that keeps "unknown" (-1) unknown and never overflows: a*b and a+b saturate at INT64_MAX.
inline int64_t dim_clamp(uint64_t v) { return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v); }
inline int64_t dim_mul(int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : dim_clamp(sat_mul(u(a), u(b))); }
inline int64_t dim_add(int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : dim_clamp(sat_add(u(a), u(b))); }

// Marks an optional slot an op does not have.
inline constexpr size_t kNoSlot = static_cast<size_t>(-1);

// Work of a matmul-class op: flops = 2 * macs + extra (bias, scaling, activation ...).
inline OpWork mac_work(uint64_t macs, uint64_t extra_flops = 0) {
  OpWork w;
  w.macs = macs;
  w.flops = sat_add(sat_mul(macs, 2), extra_flops);
  return w;
}

// FLOPs per element of a named activation (the elementwise table), nullopt when not an activation we know.
// Used by FusedConv/FusedGemm/NCHWc Conv and the RNNs, which name their activation in an attribute.
std::optional<uint64_t> activation_flops(std::string_view op);

// Cost functions shared between families.
CostFn per_output_elem(uint64_t flops_per_elem, size_t out = 0);  // k flops per element of output `out`
CostFn per_input_elem(uint64_t flops_per_elem, size_t in = 0);
CostFn zero_cost(std::string note = {});                            // known, 0 FLOPs, needs no shapes
// Wraps fn so its result (known or not) lists exactly `slots` as parameter inputs: quantized weights are
// integer and would be missed by the default floating-point rule, BatchNorm statistics are buffers.
CostFn with_params(CostFn fn, std::vector<int> slots);

}  // namespace rooflens::ops
