#include "zoo/modules.h"

#include <cmath>

namespace rooflens::zoo {

namespace {
// Biases and LayerNorm shifts start small so they perturb, not dominate, the activations.
constexpr float kBiasBound = 0.01f;
}  // namespace

std::string conv(Builder& b, const std::string& scope, const std::string& x, std::int64_t in, const ConvSpec& s) {
  const std::int64_t fan_in = in / s.group * s.kernel * s.kernel;
  std::vector<std::string> inputs{x, b.param(scope + ".weight", {s.out, in / s.group, s.kernel, s.kernel},
                                             Init::he(fan_in))};
  if (s.bias) inputs.push_back(b.param(scope + ".bias", {s.out}, Init::uniform(kBiasBound)));
  return b.op("Conv", scope, std::move(inputs),
              {attr("kernel_shape", Dims{s.kernel, s.kernel}), attr("strides", Dims{s.stride, s.stride}),
               attr("pads", Dims{s.pad, s.pad, s.pad, s.pad}), attr("group", s.group)});
}

std::string batchnorm(Builder& b, const std::string& scope, const std::string& x, std::int64_t channels) {
  // Running stats are buffers, not parameters; var is kept away from 0 so the normalisation is tame.
  return b.op("BatchNormalization", scope,
              {x, b.param(scope + ".weight", {channels}, Init::range(0.5f, 1.0f)),
               b.param(scope + ".bias", {channels}, Init::uniform(0.1f)),
               b.buffer(scope + ".running_mean", {channels}, Init::uniform(0.1f)),
               b.buffer(scope + ".running_var", {channels}, Init::range(0.5f, 1.5f))},
              {attr("epsilon", 1e-5f)});
}

std::string relu(Builder& b, const std::string& scope, const std::string& x) { return b.op("Relu", scope, {x}); }

std::string relu6(Builder& b, const std::string& scope, const std::string& x) {
  return b.op("Clip", scope, {x, b.scalar_f32(0.0f), b.scalar_f32(6.0f)});
}

std::string maxpool(Builder& b, const std::string& scope, const std::string& x, std::int64_t kernel,
                    std::int64_t stride, std::int64_t pad, bool ceil_mode) {
  return b.op("MaxPool", scope, {x},
              {attr("kernel_shape", Dims{kernel, kernel}), attr("strides", Dims{stride, stride}),
               attr("pads", Dims{pad, pad, pad, pad}), attr("ceil_mode", ceil_mode ? 1 : 0)});
}

std::string pool_flatten(Builder& b, const std::string& scope, const std::string& x) {
  return b.op("Flatten", scope, {b.op("GlobalAveragePool", scope, {x})}, {attr("axis", 1)});
}

std::string gemm(Builder& b, const std::string& scope, const std::string& x, std::int64_t in, std::int64_t out,
                 Init weight_init) {
  return b.op("Gemm", scope,
              {x, b.param(scope + ".weight", {out, in}, weight_init),
               b.param(scope + ".bias", {out}, Init::uniform(kBiasBound))},
              {attr("transB", 1)});
}

std::string linear(Builder& b, const std::string& scope, const std::string& x, std::int64_t in, std::int64_t out,
                   Init weight_init) {
  const std::string y = b.op("MatMul", scope, {x, b.param(scope + ".weight", {in, out}, weight_init)});
  return b.op("Add", scope, {y, b.param(scope + ".bias", {out}, Init::uniform(kBiasBound))});
}

std::string layernorm(Builder& b, const std::string& scope, const std::string& x, std::int64_t dim, float eps) {
  const std::string gamma = b.param(scope + ".weight", {dim}, Init::range(0.9f, 1.1f));
  const std::string beta = b.param(scope + ".bias", {dim}, Init::uniform(kBiasBound));
  if (b.options().opset >= 17)
    return b.op("LayerNormalization", scope, {x, gamma, beta}, {attr("axis", -1), attr("epsilon", eps)});
  const Attrs last_axis{attr("axes", Dims{-1}), attr("keepdims", 1)};
  const std::string centered = b.op("Sub", scope, {x, b.op("ReduceMean", scope, {x}, last_axis)});
  const std::string var = b.op("ReduceMean", scope, {b.op("Mul", scope, {centered, centered})}, last_axis);
  const std::string stdev = b.op("Sqrt", scope, {b.op("Add", scope, {var, b.scalar_f32(eps)})});
  return b.op("Add", scope, {b.op("Mul", scope, {b.op("Div", scope, {centered, stdev}), gamma}), beta});
}

std::string gelu_erf(Builder& b, const std::string& scope, const std::string& x) {
  // 0.5 * x * (1 + erf(x / sqrt(2))), in torch.onnx's op order.
  const std::string e = b.op("Erf", scope, {b.op("Div", scope, {x, b.scalar_f32(std::sqrt(2.0f))})});
  const std::string y = b.op("Mul", scope, {x, b.op("Add", scope, {e, b.scalar_f32(1.0f)})});
  return b.op("Mul", scope, {y, b.scalar_f32(0.5f)});
}

std::string gelu_tanh(Builder& b, const std::string& scope, const std::string& x) {
  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), GPT-2's gelu_new.
  const std::string cube = b.op("Pow", scope, {x, b.scalar_f32(3.0f)});
  const std::string inner = b.op("Add", scope, {x, b.op("Mul", scope, {cube, b.scalar_f32(0.044715f)})});
  const std::string t =
      b.op("Tanh", scope, {b.op("Mul", scope, {inner, b.scalar_f32(static_cast<float>(std::sqrt(2.0 / M_PI)))})});
  const std::string y = b.op("Mul", scope, {x, b.op("Add", scope, {t, b.scalar_f32(1.0f)})});
  return b.op("Mul", scope, {y, b.scalar_f32(0.5f)});
}

std::string attention(Builder& b, const std::string& scope, const std::string& q, const std::string& k,
                      const std::string& v, std::int64_t heads, std::int64_t head_dim, const std::string& bias) {
  const std::string split_heads = b.ints({0, 0, heads, head_dim});
  auto heads_view = [&](const std::string& t, Dims perm) {
    return b.op("Transpose", scope, {b.op("Reshape", scope, {t, split_heads})}, {attr("perm", perm)});
  };
  const std::string qh = heads_view(q, {0, 2, 1, 3});  // [B, H, S, d]
  const std::string kt = heads_view(k, {0, 2, 3, 1});  // [B, H, d, S]
  const std::string vh = heads_view(v, {0, 2, 1, 3});  // [B, H, S, d]
  std::string scores = b.op("MatMul", scope, {qh, kt});
  scores = b.op("Div", scope, {scores, b.scalar_f32(std::sqrt(static_cast<float>(head_dim)))});
  if (!bias.empty()) scores = b.op("Add", scope, {scores, bias});
  const std::string probs = b.op("Softmax", scope, {scores}, {attr("axis", -1)});
  const std::string ctx = b.op("MatMul", scope, {probs, vh});
  const std::string merged = b.op("Transpose", scope, {ctx}, {attr("perm", Dims{0, 2, 1, 3})});
  return b.op("Reshape", scope, {merged, b.ints({0, 0, heads * head_dim})});
}

std::string position_ids(Builder& b, const std::string& scope, const std::string& ids) {
  const std::string ones = b.op("Add", scope, {b.op("Mul", scope, {ids, b.scalar_i64(0)}), b.scalar_i64(1)});
  return b.op("CumSum", scope, {ones, b.scalar_i64(1)}, {attr("exclusive", 1)});
}

std::string image_input(Builder& b, std::int64_t image) {
  b.input("input", onnx::TensorProto_DataType_FLOAT, {b.batch_dim(), std::int64_t{3}, image, image});
  return "input";
}
void logits_output(Builder& b, const std::string& tensor, std::int64_t classes) {
  b.output(tensor, "output", onnx::TensorProto_DataType_FLOAT, {b.batch_dim(), classes});
}

}  // namespace rooflens::zoo
