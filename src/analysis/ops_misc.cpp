// Everything else: control flow, constants, random generators, detection post-processing, linear algebra
// and spectral ops.
#include <bit>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_misc_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

uint64_t ceil_log2(uint64_t n) { return n <= 1 ? 0 : std::bit_width(n - 1); }

// NonMaxSuppression, worst case: per batch and class, sort N scores (N ceil(log2 N) compares) and test every
// pair of boxes once: N(N-1)/2 IoUs of kIoU FLOPs each (4 min/max for the intersection corners, 2 subtracts
// and 2 clamps for its extent, 1 multiply for its area, 2 add/subtract for the union, 1 divide).
constexpr uint64_t kIoU = 12;
OpWork nms(const CostInput& c) {
  if (auto bad = need_in(c, {1})) return *bad;  // scores [B, C, N]
  const uint64_t b = u(c.in_dim(1, 0)), classes = u(c.in_dim(1, 1)), n = u(c.in_dim(1, 2));
  const uint64_t pairs = (n % 2 == 0) ? sat_mul(n / 2, n > 0 ? n - 1 : 0) : sat_mul(n, (n - 1) / 2);
  OpWork w;
  w.flops = sat_mul(sat_mul(b, classes), sat_add(sat_mul(pairs, kIoU), sat_mul(n, ceil_log2(n))));
  w.note = "worst case: every box pair compared";
  return w;
}

// Square-matrix ops over [..., M, M]: `per_matrix(M)` FLOPs for each of the leading batch matrices.
template <typename F>
CostFn per_matrix(F f) {
  return [f](const CostInput& c) {
    if (auto bad = need_in(c, {0})) return *bad;
    const int64_t m = c.in_dim(0, -1);
    if (c.in_rank(0) < 2 || m <= 0) return unknown("input is not a batch of square matrices");
    const uint64_t batches = u(c.in_elems(0)) / sat_mul(u(m), u(m));
    OpWork w;
    w.flops = sat_mul(batches, f(u(m)));
    return w;
  };
}

// DFT: a radix-2 FFT of length n costs 5 n log2 n FLOPs (the classic FFTW accounting). Signals are
// [..., n, ..., 1 or 2]; the transformed axis is the `axis` attribute before opset 20, an input after it.
OpWork dft(const CostInput& c) {
  if (auto bad = need_in(c, {0})) return *bad;
  const bool axis_input = c.node && c.node->opset >= 20;
  const auto axis = static_cast<int>(axis_input ? -2 : (c.node ? c.node->attr_i("axis", 1) : 1));
  const int64_t n = c.in_dim(0, axis), last = c.in_dim(0, -1);
  if (n <= 0 || last <= 0) return unknown("DFT signal length unresolved");
  const uint64_t transforms = u(c.in_elems(0)) / sat_mul(u(n), u(last));
  OpWork w;
  w.flops = sat_mul(transforms, 5, u(n), ceil_log2(u(n)));
  if (axis_input && c.has_in(2)) w.note = "axis input assumed -2";
  return w;
}

}  // namespace
}  // namespace ops_misc_file

void register_misc_ops(CostRegistry& r) {
  using namespace ops_misc_file;
  // Control flow: the subgraph bodies are costed node by node, so the op itself does no arithmetic.
  for (const char* op : {"If", "Loop", "Scan"}) r.add(kOnnx, op, zero_cost("body nodes counted separately"));
  for (const char* op : {"Constant", "ConstantOfShape", "Range"}) r.add(kOnnx, op, zero_cost());
  // Random generators: one draw per output element.
  for (const char* op : {"Bernoulli", "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike"})
    r.add(kOnnx, op, per_output_elem(1));

  r.add(kOnnx, "NonMaxSuppression", nms);
  r.add(kOnnx, "DFT", dft);
  // LU factorisation: 2M^3/3; inverse via LU plus triangular solves: 2M^3.
  r.add(kOnnx, "Det", per_matrix([](uint64_t m) {
          const uint64_t v = sat_mul(m, m, m, 2);
          return v == kCountMax ? v : v / 3;  // keep a saturated count saturated
        }));
  r.add(kMs, "Inverse", per_matrix([](uint64_t m) { return sat_mul(m, m, m, 2); }));
}

}  // namespace rooflens
