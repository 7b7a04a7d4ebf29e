// Convolutions. One formula covers plain, grouped, depthwise, NHWC and NCHWc (channel-blocked) convs:
//   MACs = (elements of the tensor the kernel slides over) x (weight elements / weight dim 0)
// For Conv that tensor is the output and W is [Cout, Cin/group, k...], so W/Cout = Cin/group * prod(k).
// For ConvTranspose it is the input and W is [Cin, Cout/group, k...]. Padded NCHWc channels are work the
// kernel really does, so counting them is intended.
#include "analysis/ops_util.h"

namespace rooflens {
namespace {
using namespace ops;

struct ConvSlots {
  size_t w = 1;           // weight input
  int bias = 2;           // bias input or -1
  int sum = -1;           // fused residual input (FusedConv Z, NCHWc Sum) or -1
  bool transpose = false;
  uint64_t per_out = 0;   // extra FLOPs per output element (requantisation)
  bool fused_activation = false;  // read the `activation` attribute
};

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
  return w;
}

CostFn conv_fn(ConvSlots s) {
  return [s](const CostInput& c) { return conv_like(c, s); };
}

}  // namespace

void register_conv_ops(CostRegistry& r) {
  r.add(kOnnx, "Conv", conv_fn({}));
  r.add(kOnnx, "ConvTranspose", conv_fn({.transpose = true}));
  // Integer convs: the int8 weight is the parameter (scales and zero points are not).
  r.add(kOnnx, "ConvInteger", with_params(conv_fn({.bias = -1}), {1}));
  const ConvSlots qlinear{.w = 3, .bias = 8, .per_out = kQuantize};
  r.add(kOnnx, "QLinearConv", with_params(conv_fn(qlinear), {3, 8}));
  r.add(kMs, "QLinearConv", with_params(conv_fn(qlinear), {3, 8}));

  // ORT fused/layout variants: X, W, B, then Z/Sum (added to the result), activation by attribute.
  const ConvSlots fused{.sum = 3, .fused_activation = true};
  r.add(kMs, "FusedConv", conv_fn(fused));
  r.add(kMs, "NhwcConv", conv_fn({}));
  r.add(kNchwc, "Conv", conv_fn(fused));
}

}  // namespace rooflens
