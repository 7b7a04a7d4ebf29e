// Shape functions for ORT's quantized com.microsoft ops (QLinear*, QGemm, MatMulNBits, ...) and the NHWC
// pool ORT's layout transformer emits next to them. Quantized models are exactly where libonnx knows least,
// and where the byte counts (int8/int4 weights) matter most for the roofline.
#include <array>

#include "model/shape_ops.h"

namespace rooflens {

namespace shape_ops_quant {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace shape_util;  // shared shape helpers, declared in model/shape_ops.h
namespace {

using Outs = std::vector<TensorInfo>;

const TensorInfo* in(const ShapeInput& s, size_t i) { return s.has(i) ? s.in[i] : nullptr; }

// MatMulNBits: A [..., K] times a block-quantized [N, K] weight -> [..., N] (N is an attribute because the
// packed weight's shape does not show it directly).
void matmul_nbits(const ShapeInput& s, Outs& out) {
  TensorInfo r = same_as(in(s, 0));
  if (r.has_rank && !r.dims.empty()) {
    int64_t n = node_of(s).attr_i("N", -1);
    r.dims.back() = n >= 0 ? Dim{n, {}} : Dim{};
  }
  set_output(out, 0, r);
}

// MatMulIntegerToFloat: integer MatMul, rescaled to the scale's float type.
void matmul_integer_to_float(const ShapeInput& s, Outs& out) {
  const TensorInfo* scale = in(s, 2);
  DType d = scale && scale->dtype != DType::Undefined ? scale->dtype : DType::Float;
  set_output(out, 0, with_dtype(matmul_shape(same_as(in(s, 0)), same_as(in(s, 1))), d));
}

// DynamicQuantizeMatMul: float A times int8 B -> float, A's type.
void dynamic_quantize_matmul(const ShapeInput& s, Outs& out) {
  set_output(out, 0, matmul_shape(same_as(in(s, 0)), same_as(in(s, 1))));
}

// QLinearAdd/QLinearMul: (A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp) -> broadcast(A, B).
void qlinear_binary(const ShapeInput& s, Outs& out) {
  set_output(out, 0, broadcast(same_as(in(s, 0)), same_as(in(s, 3))));
}

void same_as_input0(const ShapeInput& s, Outs& out) { set_output(out, 0, same_as(in(s, 0))); }

void qlinear_global_avg_pool(const ShapeInput& s, Outs& out) {
  set_output(out, 0, pool_output(s, node_of(s).attr_i("channels_last", 0) != 0, true));
}
void qlinear_avg_pool(const ShapeInput& s, Outs& out) {
  set_output(out, 0, pool_output(s, node_of(s).attr_i("channels_last", 0) != 0, false));
}
void nhwc_max_pool(const ShapeInput& s, Outs& out) { set_output(out, 0, pool_output(s, true, false)); }

// QLinearConcat: (Y_scale, Y_zp, then (X, X_scale, X_zp) per tensor); concatenates the X's along `axis`.
void qlinear_concat(const ShapeInput& s, Outs& out) {
  const TensorInfo* first = in(s, 2);
  if (!first) return;
  TensorInfo r = *first;
  if (!r.has_rank) return set_output(out, 0, r);
  auto axis = normalize_axis(node_of(s).attr_i("axis", 0), r.dims.size());
  if (!axis) return set_output(out, 0, unknown_dims(r.dtype, r.dims.size()));
  int64_t sum = 0;
  for (size_t i = 2; i < s.in.size(); i += 3) {
    const TensorInfo* x = in(s, i);
    int64_t v = x && x->has_rank && x->dims.size() == r.dims.size() ? x->dims[*axis].value : -1;
    sum = sum >= 0 && v >= 0 ? sum + v : -1;
    // Other dims must agree; fill ones the first input left unknown from later inputs.
    for (size_t d = 0; x && x->has_rank && d < r.dims.size() && d < x->dims.size(); ++d)
      if (d != *axis && !r.dims[d].known() && x->dims[d].known()) r.dims[d] = x->dims[d];
  }
  r.dims[*axis] = sum >= 0 ? Dim{sum, {}} : Dim{};
  set_output(out, 0, r);
}

// QGemm: (A, a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp) -> [M, N]; quantized output (y_zp's type,
// else A's) when y_scale is given, float otherwise.
void qgemm(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* a = in(s, 0);
  const TensorInfo* b = in(s, 3);
  DType d = DType::Float;
  if (input_given(s, 7)) d = in(s, 8) ? in(s, 8)->dtype : (a ? a->dtype : DType::Undefined);
  TensorInfo r = unknown_dims(d, 2);
  if (rank_of(a) == 2) r.dims[0] = a->dims[n.attr_i("transA", 0) ? 1 : 0];
  if (rank_of(b) == 2) r.dims[1] = b->dims[n.attr_i("transB", 0) ? 0 : 1];
  set_output(out, 0, r);
}

// com.microsoft QuantizeLinear / DequantizeLinear (pre-opset-21 int4/int16 variants): same shape.
void quantize_linear(const ShapeInput& s, Outs& out) {
  const TensorInfo* zp = in(s, 2);
  set_output(out, 0, with_dtype(same_as(in(s, 0)), zp ? zp->dtype : DType::UInt8));
}
void dequantize_linear(const ShapeInput& s, Outs& out) {
  const TensorInfo* scale = in(s, 1);
  set_output(out, 0, with_dtype(same_as(in(s, 0)), scale ? scale->dtype : DType::Float));
}

struct Row { const char* op; FillFn fn; };
constexpr std::array kRows{
    Row{"MatMulNBits", matmul_nbits},
    Row{"MatMulIntegerToFloat", matmul_integer_to_float},
    Row{"DynamicQuantizeMatMul", dynamic_quantize_matmul},
    Row{"QLinearAdd", qlinear_binary},
    Row{"QLinearMul", qlinear_binary},
    Row{"QLinearSigmoid", same_as_input0},
    Row{"QLinearLeakyRelu", same_as_input0},
    Row{"QLinearSoftmax", same_as_input0},
    Row{"QLinearGlobalAveragePool", qlinear_global_avg_pool},
    Row{"QLinearAveragePool", qlinear_avg_pool},
    Row{"QLinearConcat", qlinear_concat},
    Row{"QGemm", qgemm},
    Row{"NhwcMaxPool", nhwc_max_pool},
    Row{"QuantizeLinear", quantize_linear},
    Row{"DequantizeLinear", dequantize_linear},
};

}  // namespace
}  // namespace shape_ops_quant

void register_contrib_quant_shapes(ShapeRegistry& r) {
  using namespace shape_ops_quant;
  for (const auto& row : kRows) r.add("com.microsoft", row.op, 1, filled(row.fn));
}

}  // namespace rooflens
