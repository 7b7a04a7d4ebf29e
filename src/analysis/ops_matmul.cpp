// Matrix products. The core rule is MACs = (output elements) x K, which already includes every broadcast
// batch dim; when the output shape is unresolved we broadcast the inputs' batch dims ourselves.
#include <algorithm>
#include <map>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_matmul_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

// MACs of numpy-style matmul between inputs a and b.
std::optional<OpWork> matmul_macs(const CostInput& c, size_t a, size_t b, uint64_t& macs, uint64_t& out) {
  if (auto bad = need_in(c, {a, b})) return bad;
  const size_t ra = c.in_rank(a), rb = c.in_rank(b);
  if (ra == 0 || rb == 0) return unknown("matmul of a scalar");
  const uint64_t k = u(c.in_dim(a, -1));
  if (c.out_elems(0) >= 0) {
    out = u(c.out_elems(0));
  } else {
    const uint64_t m = ra >= 2 ? u(c.in_dim(a, -2)) : 1, n = rb >= 2 ? u(c.in_dim(b, -1)) : 1;
    uint64_t batch = 1;
    const size_t ba = ra >= 2 ? ra - 2 : 0, bb = rb >= 2 ? rb - 2 : 0;
    for (size_t i = 0; i < std::max(ba, bb); ++i) {  // i counts batch dims from the innermost
      const uint64_t da = i < ba ? u(c.in_dim(a, -3 - static_cast<int>(i))) : 1;
      const uint64_t db = i < bb ? u(c.in_dim(b, -3 - static_cast<int>(i))) : 1;
      batch = sat_mul(batch, std::max(da, db));
    }
    out = sat_mul(batch, m, n);
  }
  macs = sat_mul(out, k);
  return std::nullopt;
}

// Matmul followed by `per_out` FLOPs per output element.
CostFn matmul_fn(size_t a, size_t b, uint64_t per_out = 0) {
  return [=](const CostInput& c) {
    uint64_t macs = 0, out = 0;
    if (auto bad = matmul_macs(c, a, b, macs, out)) return *bad;
    return mac_work(macs, sat_mul(out, per_out));
  };
}

uint64_t fused_activation(const CostInput& c, std::string& note) {
  const std::string act = c.node ? c.node->attr_s("activation", "") : "";
  if (act.empty()) return 0;
  auto f = activation_flops(act);
  if (!f) note = "fused activation " + act + " counted as 1 FLOP/element";
  return f.value_or(1);
}

// Gemm-shaped: Y[M,N] = alpha * A' B' (+ beta * C); `after` = FLOPs per output element beyond the matmul.
struct GemmSlots { size_t a = 0, b = 1, c = 2; bool quantized = false; };
OpWork gemm_like(const CostInput& c, GemmSlots s) {
  if (auto bad = need_in(c, {s.a, s.b})) return *bad;
  if (c.in_rank(s.a) != 2 || c.in_rank(s.b) != 2) return unknown("Gemm inputs are not 2-D");
  const bool ta = c.node && c.node->attr_i("transA", 0) != 0;
  const bool tb = c.node && c.node->attr_i("transB", 0) != 0;
  const uint64_t m = u(c.in_dim(s.a, ta ? 1 : 0)), k = u(c.in_dim(s.a, ta ? 0 : 1));
  const uint64_t n = u(c.in_dim(s.b, tb ? 0 : 1));
  const float alpha = c.node ? c.node->attr_f("alpha", 1.0f) : 1.0f;
  const float beta = c.node ? c.node->attr_f("beta", 1.0f) : 1.0f;
  const bool has_c = c.has_in(s.c);
  uint64_t per_out = (alpha != 1.0f ? 1 : 0) + (has_c ? 1 : 0) + (has_c && beta != 1.0f ? 1 : 0);
  if (s.quantized) per_out += c.has_in(7) ? kQuantize : 1;  // requantise to y_scale, or scale to float
  std::string note;
  per_out += fused_activation(c, note);
  OpWork w = mac_work(sat_mul(m, n, k), sat_mul(sat_mul(m, n), per_out));
  w.note = note;
  return w;
}

// FusedMatMul: alpha * op(A) op(B) with transA/transB and the batch-transposes of ORT's contrib op.
OpWork fused_matmul(const CostInput& c) {
  if (auto bad = need_in(c, {0, 1})) return *bad;
  if (auto bad = need_out(c, {0})) return *bad;
  const bool ta = c.node && c.node->attr_i("transA", 0) != 0;
  const bool tba = c.node && c.node->attr_i("transBatchA", 0) != 0;
  // transBatchA moves dim 0 next to the last dim, so the matrix is [d0, d_last]; transA then swaps it.
  const int64_t k = !ta ? c.in_dim(0, -1) : (tba ? c.in_dim(0, 0) : c.in_dim(0, -2));
  if (auto bad = need_dims({k}, "contraction dim")) return *bad;
  const uint64_t out = u(c.out_elems(0));
  const float alpha = c.node ? c.node->attr_f("alpha", 1.0f) : 1.0f;
  return mac_work(sat_mul(out, u(k)), alpha != 1.0f ? out : 0);
}

// Einsum: every distinct index is a loop; a naive evaluation does prod(index sizes) multiply-adds per
// pairwise product. One operand: prod(index sizes) adds (a reduction or a copy).
OpWork einsum(const CostInput& c) {
  std::string eq = c.node ? c.node->attr_s("equation", "") : "";
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  if (eq.empty()) return unknown("Einsum without equation");
  const std::string lhs = eq.substr(0, eq.find("->"));
  std::vector<std::string> terms(1);
  for (char ch : lhs) {
    if (ch == ',') terms.emplace_back();
    else terms.back() += ch;
  }
  std::map<std::string, uint64_t> size;  // index name -> size; ellipsis dims are named "...k" from the right
  for (size_t t = 0; t < terms.size(); ++t) {
    if (auto bad = need_in(c, {t})) return *bad;
    std::string term = terms[t];
    const size_t ell = term.find("...");
    const size_t letters = term.size() - (ell == std::string::npos ? 0 : 3);
    const size_t rank = c.in_rank(t);
    if (rank < letters) return unknown("Einsum term '" + term + "' does not match input rank");
    const size_t ell_rank = ell == std::string::npos ? 0 : rank - letters;
    std::vector<std::string> names;
    for (size_t i = 0; i < term.size(); ++i) {
      if (i == ell) {
        for (size_t e = 0; e < ell_rank; ++e) names.push_back("..." + std::to_string(ell_rank - e));
        i += 2;
      } else {
        names.emplace_back(1, term[i]);
      }
    }
    if (names.size() != rank) return unknown("Einsum term '" + term + "' does not match input rank");
    for (size_t d = 0; d < rank; ++d) {
      auto& s = size[names[d]];
      s = std::max(s, u(c.in_dim(t, static_cast<int>(d))));  // broadcast: 1 against n gives n
    }
  }
  uint64_t loops = 1;
  for (const auto& [name, s] : size) loops = sat_mul(loops, s);
  if (terms.size() == 1) {
    OpWork w;
    w.flops = loops;
    return w;
  }
  return mac_work(sat_mul(loops, terms.size() - 1));
}

// MatMulNBits: A[..., K] x dequant(B packed [N, blocks, blob]) with attributes K and N.
OpWork matmul_nbits(const CostInput& c) {
  if (auto bad = need_in(c, {0})) return *bad;
  const int64_t k = c.node ? c.node->attr_i("K", -1) : -1, n = c.node ? c.node->attr_i("N", -1) : -1;
  if (k <= 0 || n <= 0) return unknown("MatMulNBits without K/N attributes");
  const uint64_t rows = u(c.in_elems(0)) / u(k);
  const uint64_t macs = sat_mul(rows, u(k), u(n));
  // Dequantising the weights (subtract zero point, multiply scale) happens once per call.
  uint64_t extra = sat_mul(u(n), u(k), kDequantize);
  if (c.has_in(5)) extra = sat_add(extra, sat_mul(rows, u(n)));
  OpWork w = mac_work(macs, extra);
  w.note = "params count the packed bytes of B, not logical weights";
  return w;
}

}  // namespace
}  // namespace ops_matmul_file

void register_matmul_ops(CostRegistry& r) {
  using namespace ops_matmul_file;
  r.add(kOnnx, "MatMul", matmul_fn(0, 1));
  r.add(kOnnx, "Gemm", [](const CostInput& c) { return gemm_like(c, {}); });
  r.add(kOnnx, "Einsum", einsum);
  r.add(kOnnx, "MatMulInteger", with_params(matmul_fn(0, 1), {1}));
  r.add(kOnnx, "QLinearMatMul", with_params(matmul_fn(0, 3, kQuantize), {3}));

  r.add(kMs, "FusedGemm", [](const CostInput& c) { return gemm_like(c, {}); });
  r.add(kMs, "FusedMatMul", fused_matmul);
  r.add(kMs, "QGemm", with_params([](const CostInput& c) {
          return gemm_like(c, {.a = 0, .b = 3, .c = 6, .quantized = true});
        }, {3, 6}));
  r.add(kMs, "MatMulNBits", with_params(matmul_nbits, {1, 5}));
  // Integer matmul, then scale to float (1/element) and the optional bias (input 6).
  r.add(kMs, "MatMulIntegerToFloat", with_params([](const CostInput& c) {
          return matmul_fn(0, 1, 1 + (c.has_in(6) ? 1 : 0))(c);
        }, {1, 6}));
  // Quantises A on the fly (kDynQuantize per element of A), integer matmul, scale, optional bias (input 4).
  r.add(kMs, "DynamicQuantizeMatMul", with_params([](const CostInput& c) {
          OpWork w = matmul_fn(0, 1, 1 + (c.has_in(4) ? 1 : 0))(c);
          if (w.known) w.flops = sat_add(w.flops, sat_mul(u(c.in_elems(0)), kDynQuantize));
          return w;
        }, {1, 4}));
}

}  // namespace rooflens
