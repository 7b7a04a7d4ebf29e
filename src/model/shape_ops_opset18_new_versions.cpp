// Default-domain ops that are new in opsets 18-22 (libonnx 1.12 has no schema) or whose newer version changed
// shape or type rules. Ops whose newer versions only widened the accepted types are listed too: their shape
// rule is trivially "same as input", and listing them keeps opset-22 models from depending on libonnx
// accepting a version it has never seen.
#include <array>
#include <numeric>

#include "model/shape_ops.h"

namespace rooflens {

namespace shape_ops_opset18_new_versions {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace shape_util;  // shared shape helpers, declared in model/shape_ops.h
namespace {

using Outs = std::vector<TensorInfo>;

const TensorInfo* in(const ShapeInput& s, size_t i) { return s.has(i) ? s.in[i] : nullptr; }

void same_as_input0(const ShapeInput& s, Outs& out) { set_output(out, 0, same_as(in(s, 0))); }
void broadcast01(const ShapeInput& s, Outs& out) {
  set_output(out, 0, broadcast(same_as(in(s, 0)), same_as(in(s, 1))));
}
void bool_broadcast01(const ShapeInput& s, Outs& out) {
  set_output(out, 0, with_dtype(broadcast(same_as(in(s, 0)), same_as(in(s, 1))), DType::Bool));
}
void bool_same_shape(const ShapeInput& s, Outs& out) {
  set_output(out, 0, with_dtype(same_as(in(s, 0)), DType::Bool));
}
void conv_like(const ShapeInput& s, Outs& out) { set_output(out, 0, conv_output(s)); }
void pool(const ShapeInput& s, Outs& out) { set_output(out, 0, pool_output(s, false, false)); }

// Col2Im-18: [N, C * prod(block_shape), L] with image_shape (input 1) -> [N, C, image_shape...].
void col2im(const ShapeInput& s, Outs& out) {
  const TensorInfo* x = in(s, 0);
  const DType dt = x ? x->dtype : DType::Undefined;
  const auto& image = s.value(1);
  const auto& block = s.value(2);
  int64_t spatial = image ? static_cast<int64_t>(image->size()) : dim_value(in(s, 1), 0);
  if (spatial < 0) return set_output(out, 0, dtype_only(dt));
  TensorInfo r = unknown_dims(dt, static_cast<size_t>(spatial) + 2);
  if (rank_of(x) == 3) r.dims[0] = x->dims[0];
  if (block && dim_value(x, 1) >= 0) {
    int64_t prod = std::accumulate(block->begin(), block->end(), int64_t{1}, std::multiplies<>());
    if (prod > 0 && dim_value(x, 1) % prod == 0) r.dims[1] = Dim{dim_value(x, 1) / prod, {}};
  }
  for (size_t i = 0; image && i < image->size(); ++i)
    if ((*image)[i] >= 0) r.dims[i + 2] = Dim{(*image)[i], {}};
  set_output(out, 0, r);
}

// AffineGrid-20: theta [N, 2, 3] (2-D) or [N, 3, 4] (3-D), size = [N, C, (D,) H, W] -> [N, (D,) H, W, 2|3].
void affine_grid(const ShapeInput& s, Outs& out) {
  const TensorInfo* theta = in(s, 0);
  const DType dt = theta ? theta->dtype : DType::Undefined;
  const auto& size = s.value(1);
  int64_t spatial = size ? static_cast<int64_t>(size->size()) - 2 : dim_value(in(s, 1), 0) - 2;
  if (spatial < 1 && dim_value(theta, 1) >= 2) spatial = dim_value(theta, 1);  // theta rows = spatial rank
  if (spatial < 1) return set_output(out, 0, dtype_only(dt));
  TensorInfo r = unknown_dims(dt, static_cast<size_t>(spatial) + 2);
  r.dims[0] = size && (*size)[0] >= 0 ? Dim{(*size)[0], {}} : (rank_of(theta) == 3 ? theta->dims[0] : Dim{});
  for (int64_t i = 0; size && i < spatial; ++i)
    if ((*size)[i + 2] >= 0) r.dims[i + 1] = Dim{(*size)[i + 2], {}};
  r.dims.back() = Dim{spatial, {}};
  set_output(out, 0, r);
}

// CenterCropPad-18: the dims in attr axes (default all) become the values of input 1.
void center_crop_pad(const ShapeInput& s, Outs& out) {
  const TensorInfo* x = in(s, 0);
  if (!x || !x->has_rank) return set_output(out, 0, same_as(x));
  const size_t rank = x->dims.size();
  std::vector<int64_t> axes = node_of(s).attr_ints("axes");
  if (axes.empty()) {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), int64_t{0});
  }
  const auto& shape = s.value(1);
  TensorInfo r = *x;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = normalize_axis(axes[i], rank);
    if (!a) return set_output(out, 0, unknown_dims(x->dtype, rank));
    r.dims[*a] = shape && shape->size() == axes.size() && (*shape)[i] >= 0 ? Dim{(*shape)[i], {}} : Dim{};
  }
  set_output(out, 0, r);
}

// ConstantOfShape-20 (new element types): dims are the values of input 0; type from attr `value`.
void constant_of_shape(const ShapeInput& s, Outs& out) {
  const Attribute* value = node_of(s).attr("value");
  const DType dt = value && value->kind == Attribute::Kind::Tensor && value->tensor.dtype != DType::Undefined
                       ? value->tensor.dtype
                       : DType::Float;
  if (const auto& dims = s.value(0)) return set_output(out, 0, make_tensor_info(dt, *dims));
  const int64_t rank = dim_value(in(s, 0), 0);
  set_output(out, 0, rank >= 0 ? unknown_dims(dt, static_cast<size_t>(rank)) : dtype_only(dt));
}

// Cast-19/21 (float8/int4 targets libonnx 1.12 rejects): same shape, type from `to`.
void cast(const ShapeInput& s, Outs& out) {
  set_output(out, 0, with_dtype(same_as(in(s, 0)), static_cast<DType>(node_of(s).attr_i("to", 0))));
}
void cast_like(const ShapeInput& s, Outs& out) {
  const TensorInfo* like = in(s, 1);
  set_output(out, 0, with_dtype(same_as(in(s, 0)), like ? like->dtype : DType::Undefined));
}

// QuantizeLinear-19/21 (float8, int4, blocked scales): shape of x; type of y_zero_point, else the
// output_dtype attribute (21), else uint8.
void quantize_linear(const ShapeInput& s, Outs& out) {
  const TensorInfo* zp = in(s, 2);
  DType d = static_cast<DType>(node_of(s).attr_i("output_dtype", 0));
  if (zp && zp->dtype != DType::Undefined) d = zp->dtype;
  if (d == DType::Undefined) d = DType::UInt8;
  set_output(out, 0, with_dtype(same_as(in(s, 0)), d));
}
void dequantize_linear(const ShapeInput& s, Outs& out) {
  const TensorInfo* scale = in(s, 1);
  set_output(out, 0, with_dtype(same_as(in(s, 0)), scale ? scale->dtype : DType::Float));
}

// GridSample-20 (N-D): X [N, C, D1..Dk], grid [N, O1..Ok, k] -> [N, C, O1..Ok].
void grid_sample(const ShapeInput& s, Outs& out) {
  const TensorInfo* x = in(s, 0);
  const TensorInfo* grid = in(s, 1);
  const DType dt = x ? x->dtype : DType::Undefined;
  int64_t rank = rank_of(grid) >= 3 ? rank_of(grid) : rank_of(x);
  if (rank < 3) return set_output(out, 0, dtype_only(dt));
  TensorInfo r = unknown_dims(dt, static_cast<size_t>(rank));
  if (rank_of(x) >= 2) r.dims[0] = x->dims[0], r.dims[1] = x->dims[1];
  for (size_t i = 2; rank_of(grid) == rank && i < r.dims.size(); ++i) r.dims[i] = grid->dims[i - 1];
  set_output(out, 0, r);
}

struct Row { const char* op; int min_opset; FillFn fn; };
constexpr std::array kRows{
    Row{"BitwiseAnd", 18, broadcast01},
    Row{"BitwiseOr", 18, broadcast01},
    Row{"BitwiseXor", 18, broadcast01},
    Row{"BitwiseNot", 18, same_as_input0},
    Row{"CenterCropPad", 18, center_crop_pad},
    Row{"Col2Im", 18, col2im},
    Row{"GroupNormalization", 18, same_as_input0},
    Row{"LpPool", 18, pool},  // 18 added ceil_mode and dilations
    Row{"Mish", 18, same_as_input0},
    Row{"ScatterElements", 18, same_as_input0},  // 18 added reduction min/max
    Row{"ScatterND", 18, same_as_input0},
    Row{"AveragePool", 19, pool},  // 19 added dilations, which libonnx's rule ignores
    Row{"Cast", 19, cast},
    Row{"CastLike", 19, cast_like},
    Row{"DeformConv", 19, conv_like},
    Row{"DequantizeLinear", 19, dequantize_linear},
    Row{"Equal", 19, bool_broadcast01},
    Row{"Identity", 19, same_as_input0},
    Row{"QuantizeLinear", 19, quantize_linear},
    Row{"AffineGrid", 20, affine_grid},
    Row{"ConstantOfShape", 20, constant_of_shape},
    Row{"Gelu", 20, same_as_input0},
    Row{"GridSample", 20, grid_sample},
    Row{"IsInf", 20, bool_same_shape},
    Row{"IsNaN", 20, bool_same_shape},
    // Opset 22 only widened these unary ops' types (bfloat16); the shape rule is unchanged.
    Row{"Acos", 22, same_as_input0}, Row{"Acosh", 22, same_as_input0}, Row{"Asin", 22, same_as_input0},
    Row{"Asinh", 22, same_as_input0}, Row{"Atan", 22, same_as_input0}, Row{"Atanh", 22, same_as_input0},
    Row{"Cos", 22, same_as_input0}, Row{"Cosh", 22, same_as_input0}, Row{"Sin", 22, same_as_input0},
    Row{"Sinh", 22, same_as_input0}, Row{"Tan", 22, same_as_input0}, Row{"Elu", 22, same_as_input0},
    Row{"HardSigmoid", 22, same_as_input0}, Row{"HardSwish", 22, same_as_input0},
    Row{"Selu", 22, same_as_input0}, Row{"Softplus", 22, same_as_input0},
    Row{"Softsign", 22, same_as_input0}, Row{"ThresholdedRelu", 22, same_as_input0},
    Row{"Round", 22, same_as_input0},
};

}  // namespace
}  // namespace shape_ops_opset18_new_versions

void register_opset18_new_version_shapes(ShapeRegistry& r) {
  using namespace shape_ops_opset18_new_versions;
  for (const auto& row : kRows) r.add("", row.op, row.min_opset, filled(row.fn));
}

}  // namespace rooflens
