#pragma once
// Layer helpers shared by the architectures. Each mirrors one PyTorch module as torch.onnx exports it
// (Conv2d -> Conv, BatchNorm2d -> BatchNormalization with its four tensors, Linear on 2-D input -> Gemm
// with a [out, in] weight, Linear on 3-D input -> MatMul with a [in, out] weight + Add), so parameter
// tensors keep their published element counts. `scope` is the PyTorch module path ("layer1.0.conv1");
// weights are named "<scope>.weight" / "<scope>.bias" like a state_dict.
#include <cstdint>
#include <string>

#include "zoo/builder.h"

namespace rooflens::zoo {

struct ConvSpec {
  std::int64_t out = 0;
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t pad = 0;
  std::int64_t group = 1;
  bool bias = false;
};

std::string conv(Builder& b, const std::string& scope, const std::string& x, std::int64_t in, const ConvSpec& s);
std::string batchnorm(Builder& b, const std::string& scope, const std::string& x, std::int64_t channels);
std::string relu(Builder& b, const std::string& scope, const std::string& x);
std::string relu6(Builder& b, const std::string& scope, const std::string& x);  // Clip(0, 6)
std::string maxpool(Builder& b, const std::string& scope, const std::string& x, std::int64_t kernel,
                    std::int64_t stride, std::int64_t pad, bool ceil_mode = false);
// AdaptiveAvgPool2d(1) + flatten(1): [N, C, H, W] -> [N, C].
std::string pool_flatten(Builder& b, const std::string& scope, const std::string& x);

// nn.Linear on a 2-D activation: Gemm(transB=1) with weight [out, in] and bias [out].
std::string gemm(Builder& b, const std::string& scope, const std::string& x, std::int64_t in, std::int64_t out,
                 Init weight_init);
// nn.Linear on a 3-D activation: MatMul with weight [in, out], then Add bias [out].
std::string linear(Builder& b, const std::string& scope, const std::string& x, std::int64_t in, std::int64_t out,
                   Init weight_init);

// LayerNormalization-17 when the opset has it, otherwise the same arithmetic from primitive ops.
std::string layernorm(Builder& b, const std::string& scope, const std::string& x, std::int64_t dim, float eps);
std::string gelu_erf(Builder& b, const std::string& scope, const std::string& x);   // BERT, ViT
std::string gelu_tanh(Builder& b, const std::string& scope, const std::string& x);  // GPT-2 "gelu_new"

// Scaled dot-product attention over [B, S, heads*head_dim] q/k/v. `bias` (may be empty) is added to the
// [B, heads, S, S] scores before softmax (padding or causal mask). Returns [B, S, heads*head_dim].
// Reshapes use 0 ("copy this dim") so dynamic batch/seq need no Shape ops and stay statically resolvable.
std::string attention(Builder& b, const std::string& scope, const std::string& q, const std::string& k,
                      const std::string& v, std::int64_t heads, std::int64_t head_dim, const std::string& bias);

// Positions 0..S-1 per row of an int64 [B, S] tensor, without Shape ops: exclusive CumSum of ones.
std::string position_ids(Builder& b, const std::string& scope, const std::string& ids);

// Image-model I/O: "input" float [batch, 3, image, image] and "output" logits [batch, classes].
std::string image_input(Builder& b, std::int64_t image);
void logits_output(Builder& b, const std::string& tensor, std::int64_t classes);

}  // namespace rooflens::zoo
