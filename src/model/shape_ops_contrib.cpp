// Shape functions for ONNX Runtime's com.microsoft contrib/fused ops: the ops ORT's graph optimizer writes into
// the optimized model (FusedConv, FusedGemm, ...) and the transformer-export ops (SkipLayerNormalization,
// EmbedLayerNormalization, ...). libonnx has no schema for any of them, so without these the whole tail of an
// optimized graph would lose its shapes. Attention-family and quantized ops live in their own files.
#include <array>

#include "model/shape_ops.h"

namespace rooflens {

namespace shape_ops_contrib {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace shape_util;  // shared shape helpers, declared in model/shape_ops.h
namespace {

using Outs = std::vector<TensorInfo>;

const TensorInfo* in(const ShapeInput& s, size_t i) { return s.has(i) ? s.in[i] : nullptr; }

// Output 0 has input 0's shape and type: activations, bias-adds, RotaryEmbedding.
void same_as_input0(const ShapeInput& s, Outs& out) { set_output(out, 0, same_as(in(s, 0))); }

void fused_conv(const ShapeInput& s, Outs& out) { set_output(out, 0, conv_output(s)); }

// Gemm: A [M, K] (or [K, M] with transA) times B [K, N] (or [N, K] with transB) -> [M, N].
void fused_gemm(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* a = in(s, 0);
  const TensorInfo* b = in(s, 1);
  TensorInfo r = unknown_dims(a ? a->dtype : DType::Undefined, 2);
  if (rank_of(a) == 2) r.dims[0] = a->dims[n.attr_i("transA", 0) ? 1 : 0];
  if (rank_of(b) == 2) r.dims[1] = b->dims[n.attr_i("transB", 0) ? 0 : 1];
  set_output(out, 0, r);
}

// ORT's FusedMatMul folds Transposes into the MatMul. transBatchX transposes dim 0 with the batch dims
// 1..rank-2, i.e. dim 0 moves to second-to-last ([d0, d1..dk, c] -> [d1..dk, d0, c], the fused form of
// Transpose perm [1, 0, 2]); transX then swaps the last two dims.
TensorInfo fused_matmul_operand(const TensorInfo& t, bool trans_batch, bool trans) {
  TensorInfo r = t;
  if (!r.has_rank) return r;
  size_t k = r.dims.size();
  if (trans_batch && k >= 3) {
    Dim d0 = r.dims[0];
    r.dims.erase(r.dims.begin());
    r.dims.insert(r.dims.begin() + static_cast<std::ptrdiff_t>(k - 2), d0);
  }
  if (trans && k >= 2) std::swap(r.dims[k - 1], r.dims[k - 2]);
  return r;
}

void fused_matmul(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  TensorInfo a = fused_matmul_operand(same_as(in(s, 0)), n.attr_i("transBatchA", 0), n.attr_i("transA", 0));
  TensorInfo b = fused_matmul_operand(same_as(in(s, 1)), n.attr_i("transBatchB", 0), n.attr_i("transB", 0));
  set_output(out, 0, matmul_shape(a, b));
}

// Statistic outputs (mean, inv_std_var) keep the leading dims and collapse the normalized ones to 1.
TensorInfo norm_stats(const TensorInfo& x, size_t first_normalized, DType d) {
  TensorInfo t = with_dtype(x, d);
  for (size_t i = first_normalized; t.has_rank && i < t.dims.size(); ++i) t.dims[i] = Dim{1, {}};
  return t;
}

// SkipLayerNormalization / SkipSimplifiedLayerNormalization:
// outputs (output, mean, inv_std_var, input_skip_bias_sum); the statistics are always float in ORT.
void skip_layer_norm(const ShapeInput& s, Outs& out) {
  TensorInfo x = same_as(in(s, 0));
  size_t last = x.has_rank && !x.dims.empty() ? x.dims.size() - 1 : 0;
  set_output(out, 0, x);
  set_output(out, 1, norm_stats(x, last, DType::Float));
  set_output(out, 2, norm_stats(x, last, DType::Float));
  set_output(out, 3, x);
}

// LayerNormalization (ORT registers it in the default domain from opset 1, before ONNX added it in 17) and
// SimplifiedLayerNormalization (RMSNorm): Y like X; statistics over dims [axis, rank) in stash_type.
void layer_norm(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  TensorInfo x = same_as(in(s, 0));
  set_output(out, 0, x);
  if (!x.has_rank) return;
  auto axis = normalize_axis(n.attr_i("axis", -1), x.dims.size());
  auto stash = static_cast<DType>(n.attr_i("stash_type", 1));
  TensorInfo stats = axis ? norm_stats(x, *axis, stash) : unknown_dims(stash, x.dims.size());
  for (size_t i = 1; i < out.size(); ++i) set_output(out, i, stats);
}

// EmbedLayerNormalization: input_ids [B, S] -> output [B, S, H] (H = word_embedding dim 1, the embedding
// width), mask_index [B] int32, embedding_sum [B, S, H].
void embed_layer_norm(const ShapeInput& s, Outs& out) {
  const TensorInfo* ids = in(s, 0);
  const TensorInfo* word = in(s, 2);
  const TensorInfo* gamma = in(s, 5);
  DType dt = word ? word->dtype : (gamma ? gamma->dtype : DType::Undefined);
  TensorInfo o = unknown_dims(dt, 3);
  TensorInfo mask = unknown_dims(DType::Int32, 1);
  if (rank_of(ids) == 2) {
    o.dims[0] = mask.dims[0] = ids->dims[0];
    o.dims[1] = ids->dims[1];
  }
  if (rank_of(word) == 2) o.dims[2] = word->dims[1];
  else if (rank_of(gamma) == 1) o.dims[2] = gamma->dims[0];
  set_output(out, 0, o);
  set_output(out, 1, mask);
  set_output(out, 2, o);
}

struct Row { const char* domain; const char* op; int min_opset; FillFn fn; };

constexpr const char* kMs = "com.microsoft";
constexpr std::array kRows{
    Row{kMs, "FusedConv", 1, fused_conv},
    Row{kMs, "FusedGemm", 1, fused_gemm},
    Row{kMs, "FusedMatMul", 1, fused_matmul},
    Row{kMs, "SkipLayerNormalization", 1, skip_layer_norm},
    Row{kMs, "SkipSimplifiedLayerNormalization", 1, skip_layer_norm},
    Row{kMs, "SimplifiedLayerNormalization", 1, layer_norm},
    Row{"", "SimplifiedLayerNormalization", 1, layer_norm},
    // ORT-exported transformers use LayerNormalization at opsets < 17, where libonnx has no schema.
    Row{"", "LayerNormalization", 1, layer_norm},
    Row{kMs, "EmbedLayerNormalization", 1, embed_layer_norm},
    Row{kMs, "BiasGelu", 1, same_as_input0},
    Row{kMs, "FastGelu", 1, same_as_input0},
    Row{kMs, "Gelu", 1, same_as_input0},
    Row{kMs, "QuickGelu", 1, same_as_input0},
    Row{kMs, "BiasAdd", 1, same_as_input0},
    Row{kMs, "BiasSoftmax", 1, same_as_input0},
    Row{kMs, "RotaryEmbedding", 1, same_as_input0},
};

}  // namespace
}  // namespace shape_ops_contrib

void register_contrib_shapes(ShapeRegistry& r) {
  using namespace shape_ops_contrib;
  for (const auto& row : kRows) r.add(row.domain, row.op, row.min_opset, filled(row.fn));
  register_contrib_attention_shapes(r);
  register_contrib_quant_shapes(r);
  register_nchwc_shapes(r, 0);
}

}  // namespace rooflens
