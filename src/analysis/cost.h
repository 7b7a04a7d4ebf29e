#pragma once
// The op cost registry: (domain, op type) -> a function that counts one node's arithmetic.
// Conventions (see docs/cost-model.md):
//   * 1 MAC = 2 FLOPs. `macs` is filled only by matmul-class ops (Conv, Gemm, MatMul, attention, RNNs ...).
//   * `flops` is ALL floating-point work of the node, including 2 x macs, so GFLOP/s and intensity use one
//     number. Non-matmul work (bias adds, activations, softmax ...) is counted with the per-op table.
//   * bytes_read = every present input once at its dtype size (only the part an op reads by definition, for the
//     ops that say so: Gather, Slice, ...); bytes_written = every output once.
//     The registry computes bytes generically; op functions only count arithmetic and say which inputs are
//     parameters.
//   * Unknown ops (or known ops whose shapes are unresolved) set known=false: never a silent zero.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/graph.h"

namespace rooflens {

// Everything an op function may look at: the node, its input/output tensor infos (nullptr for an omitted
// optional input or an unresolved tensor) and which inputs are initializers.
struct CostInput {
  const Node* node = nullptr;
  std::vector<const TensorInfo*> in;
  std::vector<const TensorInfo*> out;
  std::vector<bool> in_is_initializer;

  // Convenience: element count of input/output i, -1 when missing or unresolved.
  int64_t in_elems(size_t i) const;
  int64_t out_elems(size_t i) const;
  // Dim d of input i (negative d counts from the end), -1 when unknown.
  int64_t in_dim(size_t i, int d) const;
  int64_t out_dim(size_t i, int d) const;
  size_t in_rank(size_t i) const;  // 0 when missing
  bool has_in(size_t i) const { return i < in.size() && in[i] != nullptr; }
};

// What an op function returns.
struct OpWork {
  uint64_t flops = 0;   // all FLOPs including 2*macs
  uint64_t macs = 0;    // matmul-class multiply-accumulates
  bool known = true;    // false: the op's arithmetic could not be counted (listed in the summary)
  // Input slots that are trainable parameters when they are initializers. Empty = default rule
  // (every floating-point initializer input counts). BatchNormalization, for instance, lists only
  // scale and bias because running mean/var are buffers, as in the published parameter counts.
  std::vector<int> param_inputs;
  bool params_explicit = false;
  std::string note;     // why unknown, or a caveat
  // MACs whose kernel tap falls on the zero padding at that output position (a 3x3 convolution over a 7x7 map:
  // 18%; a dilation of 24 over a 14x14 map: 8 taps in 9). Counted in `macs` like every tap, as the op defines it
  // and as every published count has it; a kernel that skips them (ORT's NCHWc convolution does) does less work,
  // so the roofline places a layer by the work without them.
  uint64_t padding_macs = 0;
  // (input slot, elements read) for an op that reads only part of an input by definition (Gather reads the rows it
  // gathers, Slice its slice); bytes_read counts those elements instead of the whole tensor.
  std::vector<std::pair<size_t, uint64_t>> partial_reads;
};

using CostFn = std::function<OpWork(const CostInput&)>;

class CostRegistry {
 public:
  void add(const std::string& domain, const std::string& op, CostFn fn);
  const CostFn* find(const std::string& domain, const std::string& op) const;
  std::vector<std::pair<std::string, std::string>> ops() const;  // (domain, op), sorted

  // The registry with every built-in op (built on each call; callers keep one instance).
  static CostRegistry builtin();

 private:
  std::vector<std::pair<std::pair<std::string, std::string>, CostFn>> entries_;  // sorted by key
};

// Registration entry points, one per ops_*.cpp file, called by CostRegistry::builtin().
void register_conv_ops(CostRegistry& r);        // Conv, ConvTranspose, ConvInteger, QLinearConv, FusedConv, NCHWc Conv
void register_matmul_ops(CostRegistry& r);      // MatMul, Gemm, Einsum, MatMulInteger, QLinearMatMul, FusedGemm, FusedMatMul, MatMulNBits ...
void register_elementwise_ops(CostRegistry& r); // unary/binary math, activations, Cast, Where, Clip ...
void register_norm_ops(CostRegistry& r);        // BatchNorm, LayerNorm, InstanceNorm, GroupNorm, LRN, Skip*/Simplified* ...
void register_pool_reduce_ops(CostRegistry& r); // pooling, Reduce*, Softmax family, ArgMax, TopK, CumSum
void register_shape_ops(CostRegistry& r);       // Reshape, Transpose, Concat, Gather, Slice, Pad, Resize ...
void register_rnn_ops(CostRegistry& r);         // LSTM, GRU, RNN
void register_attention_ops(CostRegistry& r);   // Attention, MultiHeadAttention, GQA, RotaryEmbedding, EmbedLayerNorm ...
void register_quant_ops(CostRegistry& r);       // QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinear* elementwise
void register_misc_ops(CostRegistry& r);        // NonMaxSuppression, Range, control flow, Constant ...

// Domain spelling helpers: "" and "ai.onnx" are the same default domain.
inline constexpr const char* kOnnx = "";
inline constexpr const char* kMs = "com.microsoft";
inline constexpr const char* kNchwc = "com.microsoft.nchwc";

}  // namespace rooflens
