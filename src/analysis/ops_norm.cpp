// Normalisations, counted per element of input 0. Statistics over a row/channel cost per element:
// 1 (sum for the mean) + 1 (subtract mean) + 1 (square) + 1 (sum for the variance) + 1 (multiply by
// 1/std) = kNormalize. Per-row scalar work (divide by N, +eps, sqrt, reciprocal) is ignored: it is a
// vanishing fraction for any real normalised size.
#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_norm_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

constexpr uint64_t kNormalize = 5;
constexpr uint64_t kRmsNormalize = 3;  // square, sum, multiply by 1/rms (no mean)

// k FLOPs per element of input 0 plus 1 for each optional input present (bias-like adds).
CostFn per_elem_plus_optional(uint64_t k, std::vector<size_t> optional_adds) {
  return [k, optional_adds = std::move(optional_adds)](const CostInput& c) {
    uint64_t per = k;
    for (size_t i : optional_adds) per += c.has_in(i) ? 1 : 0;
    return per_input_elem(per)(c);
  };
}

}  // namespace
}  // namespace ops_norm_file

void register_norm_ops(CostRegistry& r) {
  using namespace ops_norm_file;
  // Inference BatchNorm folds into y = a*x + b per channel. Running mean/var are buffers, not parameters.
  r.add(kOnnx, "BatchNormalization", with_params([](const CostInput& c) {
          OpWork w = per_input_elem(2)(c);
          if (c.node && c.node->attr_i("training_mode", 0) != 0)
            w.note = "training-mode statistics not counted";
          return w;
        }, {1, 2}));
  // normalize, multiply by scale, add the optional bias (input 2).
  r.add(kOnnx, "LayerNormalization", per_elem_plus_optional(kNormalize + 1, {2}));
  r.add(kOnnx, "InstanceNormalization", per_input_elem(kNormalize + 2));
  r.add(kOnnx, "GroupNormalization", per_input_elem(kNormalize + 2));
  r.add(kOnnx, "MeanVarianceNormalization", per_input_elem(kNormalize));
  // |x| or x^2, sum, divide by the norm (root per row ignored).
  r.add(kOnnx, "LpNormalization", per_input_elem(3));
  // LRN: square (1), window sum (size), bias + alpha/size * sum (2), pow (kTrans), divide (1).
  r.add(kOnnx, "LRN", [](const CostInput& c) {
    const int64_t size = c.node ? c.node->attr_i("size", 1) : 1;
    return per_input_elem(u(size) + 4 + kTrans)(c);
  });
  // RMS norm family: kRmsNormalize + multiply by gamma.
  r.add(kOnnx, "RMSNormalization", per_input_elem(kRmsNormalize + 1));
  r.add(kOnnx, "SimplifiedLayerNormalization", per_input_elem(kRmsNormalize + 1));
  r.add(kMs, "SimplifiedLayerNormalization", per_input_elem(kRmsNormalize + 1));
  // Skip variants: residual add (1), optional bias add, then the norm.
  // SkipLayerNormalization inputs: input, skip, gamma, beta?, bias?
  r.add(kMs, "SkipLayerNormalization", per_elem_plus_optional(1 + kNormalize + 1, {3, 4}));
  // SkipSimplifiedLayerNormalization inputs: input, skip, gamma, bias?
  r.add(kMs, "SkipSimplifiedLayerNormalization", per_elem_plus_optional(1 + kRmsNormalize + 1, {3}));
}

}  // namespace rooflens
