// Sliding-window arithmetic shared by every conv- and pool-shaped op we register (FusedConv, nchwc Conv and
// pools, NhwcMaxPool, QLinearAveragePool, DeformConv, LpPool-18, AveragePool-19), so the ONNX rules live in
// exactly one place.
#include "model/shape_ops.h"

namespace rooflens {

namespace shape_util {
namespace {

std::vector<int64_t> attr_or(const Node& n, const char* name, size_t count, int64_t def) {
  auto v = n.attr_ints(name);
  if (v.size() != count) v.assign(count, def);
  return v;
}

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

}  // namespace

std::vector<Dim> window_output_dims(const Node& node, const std::vector<Dim>& in,
                                    const std::vector<int64_t>& kernel, bool ceil_mode) {
  const size_t n = in.size();
  const auto strides = attr_or(node, "strides", n, 1);
  const auto dilations = attr_or(node, "dilations", n, 1);
  const auto pads = attr_or(node, "pads", 2 * n, 0);
  const std::string auto_pad = node.attr_s("auto_pad", "NOTSET");
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  const bool valid = auto_pad == "VALID";

  std::vector<Dim> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = in[i].value, s = strides[i], d = dilations[i];
    if (x < 0 || s <= 0 || d <= 0) continue;
    // SAME_* pads so that out = ceil(in / stride), whatever the kernel.
    if (same) { out[i].value = ceil_div(x, s); continue; }
    const int64_t k = i < kernel.size() ? kernel[i] : -1;
    if (k <= 0) continue;
    const int64_t pb = valid ? 0 : pads[i], pe = valid ? 0 : pads[i + n];
    const int64_t span = x + pb + pe - ((k - 1) * d + 1);
    if (span < 0) continue;  // window larger than the padded input: invalid model, keep unknown
    int64_t o = (ceil_mode ? ceil_div(span, s) : floor_div(span, s)) + 1;
    // ORT and PyTorch drop a last window that would start entirely in the end padding.
    if (ceil_mode && (o - 1) * s >= x + pb) --o;
    out[i].value = o;
  }
  return out;
}

TensorInfo conv_output(const ShapeInput& s) {
  const Node& node = node_of(s);
  const TensorInfo* x = s.has(0) ? s.in[0] : nullptr;
  const TensorInfo* w = s.has(1) ? s.in[1] : nullptr;
  const DType dt = x ? x->dtype : (w ? w->dtype : DType::Undefined);
  int64_t rank = rank_of(x) >= 0 ? rank_of(x) : rank_of(w);
  if (rank < 3) return rank < 0 ? dtype_only(dt) : unknown_dims(dt, static_cast<size_t>(rank));
  const size_t spatial = static_cast<size_t>(rank) - 2;

  std::vector<int64_t> kernel = node.attr_ints("kernel_shape");
  if (kernel.size() != spatial) {
    kernel.assign(spatial, -1);
    for (size_t i = 0; i < spatial; ++i) kernel[i] = dim_value(w, i + 2);
  }
  std::vector<Dim> in(spatial);
  if (x && x->has_rank)
    for (size_t i = 0; i < spatial; ++i) in[i] = x->dims[i + 2];

  TensorInfo r = unknown_dims(dt, static_cast<size_t>(rank));
  if (x && x->has_rank) r.dims[0] = x->dims[0];
  if (w && w->has_rank && !w->dims.empty()) r.dims[1] = w->dims[0];  // output channels = filters
  auto sp = window_output_dims(node, in, kernel, false);
  for (size_t i = 0; i < spatial; ++i) r.dims[i + 2] = sp[i];
  return r;
}

TensorInfo pool_output(const ShapeInput& s, bool channels_last, bool global) {
  const Node& node = node_of(s);
  const TensorInfo* x = s.has(0) ? s.in[0] : nullptr;
  if (!x) return TensorInfo{};
  if (!x->has_rank) return dtype_only(x->dtype);
  const size_t rank = x->dims.size();
  if (rank < 3) return unknown_dims(x->dtype, rank);
  const size_t spatial = rank - 2, first = channels_last ? 1 : 2, ch = channels_last ? rank - 1 : 1;

  TensorInfo r = unknown_dims(x->dtype, rank);
  r.dims[0] = x->dims[0];
  r.dims[ch] = x->dims[ch];  // pooling never changes the channel count
  if (global) {
    for (size_t i = 0; i < spatial; ++i) r.dims[first + i].value = 1;
    return r;
  }
  std::vector<Dim> in(x->dims.begin() + first, x->dims.begin() + first + spatial);
  auto sp = window_output_dims(node, in, node.attr_ints("kernel_shape"), node.attr_i("ceil_mode", 0) != 0);
  for (size_t i = 0; i < spatial; ++i) r.dims[first + i] = sp[i];
  return r;
}

}  // namespace shape_util
}  // namespace rooflens
