// Convolutions. One formula covers plain, grouped, depthwise, NHWC and NCHWc (channel-blocked) convs:
//   MACs = (elements of the tensor the kernel slides over) x (weight elements / weight dim 0)
// For Conv that tensor is the output and W is [Cout, Cin/group, k...], so W/Cout = Cin/group * prod(k).
// For ConvTranspose it is the input and W is [Cin, Cout/group, k...]. Padded NCHWc channels are work the
// kernel really does, so counting them is intended.
#include <algorithm>

#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_conv_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

struct ConvSlots {
  size_t x = 0;           // data input
  size_t w = 1;           // weight input
  int bias = 2;           // bias input or -1
  int sum = -1;           // fused residual input (FusedConv Z, NCHWc Sum) or -1
  bool transpose = false;
  uint64_t per_out = 0;   // extra FLOPs per output element (requantisation)
  bool fused_activation = false;  // read the `activation` attribute
};

// Floor and ceiling of a / b for b > 0 (C++ division truncates toward zero).
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// Along one spatial axis: of the k x out (tap, output position) pairs, how many read an input element rather than
// the zero padding. Tap j at output o reads index o*stride - pad_begin + j*dilation, inside [0, in) for o from
// ceil((pad_begin - j*dilation) / stride) to floor((in - 1 + pad_begin - j*dilation) / stride).
int64_t pairs_inside(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin) {
  int64_t inside = 0;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t offset = j * dilation - pad_begin;
    const int64_t first = std::max<int64_t>(0, ceil_div(-offset, stride));
    const int64_t last = std::min<int64_t>(out - 1, floor_div(in - 1 - offset, stride));
    if (last >= first) inside += last - first + 1;
  }
  return inside;
}

// MACs whose tap falls on the zero padding (OpWork::padding_macs): the convolution's MACs times the share of (tap,
// output position) pairs outside the input, axis by axis. A 3x3 convolution over a 7x7 map with padding 1 spends
// 18% of its MACs on padding; a dilation of 24 over a 14x14 map, 8 taps of 9.
uint64_t padding_macs(const CostInput& c, const ConvSlots& s, uint64_t macs) {
  if (s.transpose || !c.node || c.in_rank(s.x) < 3 || c.in_rank(s.x) != c.in_rank(s.w)) return 0;
  const size_t spatial = c.in_rank(s.x) - 2;
  const std::vector<int64_t> strides = c.node->attr_ints("strides"), dilations = c.node->attr_ints("dilations"),
                             pads = c.node->attr_ints("pads");
  const std::string auto_pad = c.node->attr_s("auto_pad", "NOTSET");
  long double inside_share = 1;
  for (size_t d = 0; d < spatial; ++d) {
    const int axis = static_cast<int>(d + 2);
    const int64_t in = c.in_dim(s.x, axis), out = c.out_dim(0, axis), k = c.in_dim(s.w, axis);
    const int64_t stride = d < strides.size() ? strides[d] : 1, dilation = d < dilations.size() ? dilations[d] : 1;
    if (in <= 0 || out <= 0 || k <= 0 || k > 4096 || stride <= 0 || dilation <= 0 || dilation > (int64_t{1} << 20))
      return 0;
    int64_t pad_begin = d < pads.size() ? pads[d] : 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total = std::max<int64_t>(0, (out - 1) * stride + (k - 1) * dilation + 1 - in);
      pad_begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad == "VALID") {
      pad_begin = 0;
    }
    if (pad_begin < 0 || pad_begin > (int64_t{1} << 40)) return 0;
    inside_share *= static_cast<long double>(pairs_inside(in, out, k, stride, dilation, pad_begin)) /
                    (static_cast<long double>(k) * static_cast<long double>(out));
  }
  const auto inside = static_cast<uint64_t>(static_cast<long double>(macs) * inside_share + 0.5L);
  return inside < macs ? macs - inside : 0;
}

OpWork conv_like(const CostInput& c, const ConvSlots& s) {
  if (auto bad = need_in(c, {s.w})) return *bad;
  if (auto bad = need_out(c, {0})) return *bad;
  if (s.transpose)
    if (auto bad = need_in(c, {0})) return *bad;
  const int64_t cout = c.in_dim(s.w, 0);
  if (cout <= 0) return unknown("weight dim 0 is zero or unresolved");
  const uint64_t per_position = u(c.in_elems(s.w)) / u(cout);
  const uint64_t positions = u(s.transpose ? c.in_elems(0) : c.out_elems(0));
  const uint64_t out = u(c.out_elems(0));

  uint64_t per_out = s.per_out;
  if (s.bias >= 0 && c.has_in(static_cast<size_t>(s.bias))) per_out += 1;
  if (s.sum >= 0 && c.has_in(static_cast<size_t>(s.sum))) per_out += 1;
  std::string note;
  if (s.fused_activation && c.node) {
    const std::string act = c.node->attr_s("activation", "");
    if (!act.empty()) {
      auto f = activation_flops(act);
      per_out += f.value_or(1);
      if (!f) note = "fused activation " + act + " counted as 1 FLOP/element";
    }
  }
  OpWork w = mac_work(sat_mul(positions, per_position), sat_mul(out, per_out));
  w.note = note;
  w.padding_macs = padding_macs(c, s, w.macs);
  return w;
}

CostFn conv_fn(ConvSlots s) {
  return [s](const CostInput& c) { return conv_like(c, s); };
}

}  // namespace
}  // namespace ops_conv_file

void register_conv_ops(CostRegistry& r) {
  using namespace ops_conv_file;
  r.add(kOnnx, "Conv", conv_fn({}));
  r.add(kOnnx, "ConvTranspose", conv_fn({.transpose = true}));
  // Integer convs: the int8 weight is the parameter (scales and zero points are not).
  r.add(kOnnx, "ConvInteger", with_params(conv_fn({.bias = -1}), {1}));
  const ConvSlots qlinear{.x = 0, .w = 3, .bias = 8, .per_out = kQuantize};
  r.add(kOnnx, "QLinearConv", with_params(conv_fn(qlinear), {3, 8}));
  r.add(kMs, "QLinearConv", with_params(conv_fn(qlinear), {3, 8}));

  // ORT fused/layout variants: X, W, B, then Z/Sum (added to the result), activation by attribute.
  const ConvSlots fused{.sum = 3, .fused_activation = true};
  r.add(kMs, "FusedConv", conv_fn(fused));
  r.add(kMs, "NhwcConv", conv_fn({}));
  r.add(kNchwc, "Conv", conv_fn(fused));
}

}  // namespace rooflens
