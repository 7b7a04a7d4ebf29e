// Shape functions for ORT's com.microsoft.nchwc domain: the blocked-layout (NCHWc) kernels its CPU
// optimizer substitutes for Conv/pooling. Tensors between ReorderInput and ReorderOutput are logically 4-D
// [N, C_padded, H, W], with C padded up to MLAS' channel block, so the padded size is what their bytes cost.
#include <array>

#include "model/shape_ops.h"

namespace rooflens {

namespace shape_ops_nchwc {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace shape_util;  // shared shape helpers, declared in model/shape_ops.h
namespace {

using Outs = std::vector<TensorInfo>;

const TensorInfo* in(const ShapeInput& s, size_t i) { return s.has(i) ? s.in[i] : nullptr; }

// MLAS block sizes in use: 8 (AVX2/FMA3, NEON) and 16 (AVX-512F).
constexpr int64_t kBlockSizes[] = {8, 16};

int64_t round_up(int64_t v, int64_t b) { return (v + b - 1) / b * b; }

// Padded channel count, or -1 when it depends on an unknown block size.
int64_t padded_channels(int64_t c, int64_t block) {
  if (c < 0) return -1;
  if (block > 0) return round_up(c, block);
  int64_t first = round_up(c, kBlockSizes[0]);
  for (int64_t b : kBlockSizes)
    if (round_up(c, b) != first) return -1;
  return first;
}

void conv(const ShapeInput& s, Outs& out) { set_output(out, 0, conv_output(s)); }
void pool(const ShapeInput& s, Outs& out) { set_output(out, 0, pool_output(s, false, false)); }
void global_pool(const ShapeInput& s, Outs& out) { set_output(out, 0, pool_output(s, false, true)); }

// ReorderInput: NCHW (or NHWC with channels_last) -> NCHWc [N, C_padded, spatial...].
TensorInfo reorder_input(const ShapeInput& s, int64_t block) {
  const Node& n = node_of(s);
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank || x->dims.size() < 3)
    return x && x->has_rank ? unknown_dims(x->dtype, x->dims.size()) : same_as(x);
  const size_t rank = x->dims.size();
  const bool last = n.attr_i("channels_last", 0) != 0;
  TensorInfo r = unknown_dims(x->dtype, rank);
  r.dims[0] = x->dims[0];
  for (size_t i = 2; i < rank; ++i) r.dims[i] = x->dims[last ? i - 1 : i];
  // An explicit channel count wins over the input's (which may already carry padding).
  int64_t c = n.attr_i("channels", dim_value(x, last ? rank - 1 : 1));
  int64_t p = padded_channels(c, block);
  if (p >= 0) r.dims[1] = Dim{p, {}};
  return r;
}

// ReorderOutput: NCHWc -> NCHW (or NHWC with channels_last), dropping the padding: attr channels is the real
// channel count; without it the real count is unknown.
void reorder_output(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank || x->dims.size() < 3) return set_output(out, 0, same_as(x));
  const size_t rank = x->dims.size();
  const bool last = n.attr_i("channels_last", 0) != 0;
  const int64_t c = n.attr_i("channels", -1);
  TensorInfo r = unknown_dims(x->dtype, rank);
  r.dims[0] = x->dims[0];
  for (size_t i = 2; i < rank; ++i) r.dims[last ? i - 1 : i] = x->dims[i];
  r.dims[last ? rank - 1 : 1] = c >= 0 ? Dim{c, {}} : Dim{};
  set_output(out, 0, r);
}

// Upsample: integer `scales`, one per dim (or one per spatial dim).
void upsample(const ShapeInput& s, Outs& out) {
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank) return set_output(out, 0, same_as(x));
  const auto scales = node_of(s).attr_ints("scales");
  const size_t rank = x->dims.size();
  TensorInfo r = *x;
  size_t first = scales.size() == rank ? 0 : (scales.size() + 2 == rank ? 2 : rank);
  if (first == rank) return set_output(out, 0, unknown_dims(x->dtype, rank));
  for (size_t i = first; i < rank; ++i) {
    int64_t f = scales[i - first];
    if (f == 1) continue;
    r.dims[i] = x->dims[i].known() && f > 0 ? Dim{x->dims[i].value * f, {}} : Dim{};
  }
  set_output(out, 0, r);
}

struct Row { const char* op; FillFn fn; };
constexpr std::array kRows{
    Row{"Conv", conv},
    Row{"MaxPool", pool},
    Row{"AveragePool", pool},
    Row{"GlobalMaxPool", global_pool},
    Row{"GlobalAveragePool", global_pool},
    Row{"ReorderOutput", reorder_output},
    Row{"Upsample", upsample},
};

}  // namespace
}  // namespace shape_ops_nchwc

void register_nchwc_shapes(ShapeRegistry& r, int64_t block_size) {
  using namespace shape_ops_nchwc;
  constexpr const char* kDomain = "com.microsoft.nchwc";
  for (const auto& row : kRows) r.add(kDomain, row.op, 1, filled(row.fn));
  // The only function that depends on the block size; the value is captured, not stored globally.
  r.add(kDomain, "ReorderInput", 1, [block_size](const ShapeInput& s, std::vector<TensorInfo>& out) {
    set_output(out, 0, reorder_input(s, block_size));
    return !out.empty() && out[0].dtype != DType::Undefined;
  });
}

}  // namespace rooflens
