// Pooling, reductions, the softmax family, arg/top-k and scans.
#include <array>
#include <bit>
#include <string_view>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_pool_reduce_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

// Window pooling: out elements x window size x per-window-element cost, + per-output cost.
// MaxPool compares K times; AveragePool adds K-1 times and divides once (= K).
CostFn window_pool(uint64_t per_window_elem, uint64_t per_out) {
  return [=](const CostInput& c) {
    if (auto bad = need_out(c, {0})) return *bad;
    const auto kernel = c.node ? c.node->attr_ints("kernel_shape") : std::vector<int64_t>{};
    if (kernel.empty()) return unknown("kernel_shape attribute missing");
    uint64_t k = 1;
    for (int64_t d : kernel) k = sat_mul(k, u(d));
    OpWork w;
    w.flops = sat_mul(u(c.out_elems(0)), sat_add(sat_mul(k, per_window_elem), per_out));
    return w;
  };
}

// Lp pooling: p = 2 squares and adds per element, one sqrt per output; other p use |x|, pow, add and a
// final pow.
CostFn lp_pool(bool global) {
  return [global](const CostInput& c) {
    const bool p2 = !c.node || c.node->attr_i("p", 2) == 2;
    const uint64_t per_elem = p2 ? 2 : 2 + kTrans, per_out = p2 ? 1 : kTrans;
    if (!global) return window_pool(per_elem, per_out)(c);
    if (auto bad = need_in(c, {0})) return *bad;
    if (auto bad = need_out(c, {0})) return *bad;
    OpWork w;
    w.flops = sat_add(sat_mul(u(c.in_elems(0)), per_elem), sat_mul(u(c.out_elems(0)), per_out));
    return w;
  };
}

// Reductions: cost per input element + per output element.
struct ReduceCost { std::string_view op; uint64_t per_in, per_out; };
constexpr std::array kReduce{
    ReduceCost{"ReduceSum", 1, 0},
    ReduceCost{"ReduceMean", 1, 1},                 // sum, then one divide per output
    ReduceCost{"ReduceMax", 1, 0},
    ReduceCost{"ReduceMin", 1, 0},
    ReduceCost{"ReduceProd", 1, 0},
    ReduceCost{"ReduceL1", 2, 0},                   // abs, add
    ReduceCost{"ReduceL2", 2, 1},                   // square, add; sqrt per output
    ReduceCost{"ReduceSumSquare", 2, 0},            // square, add
    ReduceCost{"ReduceLogSum", 1, kTrans},          // add; log per output
    ReduceCost{"ReduceLogSumExp", kTrans + 1, kTrans},  // exp, add; log per output
};

CostFn reduce_fn(uint64_t per_in, uint64_t per_out) {
  return [=](const CostInput& c) {
    if (auto bad = need_in(c, {0})) return *bad;
    uint64_t out = 0;
    if (per_out) {
      if (auto bad = need_out(c, {0})) return *bad;
      out = u(c.out_elems(0));
    }
    OpWork w;
    w.flops = sat_add(sat_mul(u(c.in_elems(0)), per_in), sat_mul(out, per_out));
    return w;
  };
}

// TopK: a size-k heap costs ceil(log2 k) compares per input element (at least 1). k is read from the
// output's extent along `axis` because the K input is a tensor value.
OpWork topk(const CostInput& c) {
  if (auto bad = need_in(c, {0})) return *bad;
  const auto axis = static_cast<int>(c.node ? c.node->attr_i("axis", -1) : -1);
  const int64_t k = c.out_dim(0, axis);
  if (auto bad = need_dims({k}, "TopK output extent (k)")) return *bad;
  const uint64_t log2k = k <= 1 ? 1 : std::bit_width(u(k) - 1);  // ceil(log2 k)
  OpWork w;
  w.flops = sat_mul(u(c.in_elems(0)), log2k);
  return w;
}

}  // namespace
}  // namespace ops_pool_reduce_file

void register_pool_reduce_ops(CostRegistry& r) {
  using namespace ops_pool_reduce_file;
  for (const char* d : {kOnnx, kNchwc}) {
    r.add(d, "MaxPool", window_pool(1, 0));
    r.add(d, "AveragePool", window_pool(1, 0));
    r.add(d, "GlobalMaxPool", per_input_elem(1));
    r.add(d, "GlobalAveragePool", per_input_elem(1));
  }
  r.add(kMs, "NhwcMaxPool", window_pool(1, 0));
  r.add(kOnnx, "LpPool", lp_pool(false));
  r.add(kOnnx, "GlobalLpPool", lp_pool(true));
  // Quantized pooling: the float count plus requantisation of each output.
  r.add(kMs, "QLinearAveragePool", with_params(window_pool(1, kQuantize), {}));
  r.add(kMs, "QLinearGlobalAveragePool", with_params([](const CostInput& c) {
          if (auto bad = need_out(c, {0})) return *bad;
          OpWork w = per_input_elem(1)(c);
          w.flops = sat_add(w.flops, sat_mul(u(c.out_elems(0)), kQuantize));
          return w;
        }, {}));

  for (const auto& e : kReduce) r.add(kOnnx, std::string(e.op), reduce_fn(e.per_in, e.per_out));
  r.add(kOnnx, "ArgMax", per_input_elem(1));
  r.add(kOnnx, "ArgMin", per_input_elem(1));
  r.add(kOnnx, "TopK", topk);
  r.add(kOnnx, "CumSum", per_input_elem(1));

  r.add(kOnnx, "Softmax", per_output_elem(kSoftmaxPerElem));
  // LogSoftmax: max, subtract, exp, sum, subtract log-sum (the one log per row is ignored) = 8.
  r.add(kOnnx, "LogSoftmax", per_output_elem(kSoftmaxPerElem));
  r.add(kOnnx, "Hardmax", per_output_elem(1));  // one compare per element to find the max
  r.add(kMs, "BiasSoftmax", per_output_elem(kSoftmaxPerElem + 1));
}

}  // namespace rooflens
