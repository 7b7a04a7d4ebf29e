#include "zoo/decoder.h"

#include <cmath>

#include "core/errors.h"
#include "zoo/modules.h"

namespace rooflens::zoo {

namespace {

constexpr float kMasked = -10000.0f;  // additive bias of a masked score (HF GPT-2's masked_bias)
const char* const kSeq = "sequence_length";
const char* const kPast = "past_sequence_length";
const char* const kTotal = "past_sequence_length + sequence_length";  // Optimum's name for the grown length

// Adds 1 to every element of an int64 tensor times 0: ones of its shape without a Shape op.
std::string ones_like(Builder& b, const std::string& scope, const std::string& ids) {
  return b.op("Add", scope, {b.op("Mul", scope, {ids, b.scalar_i64(0)}), b.scalar_i64(1)});
}

std::string exclusive_cumsum(Builder& b, const std::string& scope, const std::string& x) {
  return b.op("CumSum", scope, {x, b.scalar_i64(1)}, {attr("exclusive", 1)});
}

}  // namespace

DecoderSize with_overrides(DecoderSize s, const DecoderConfig& o) {
  const bool multi_head = s.kv_heads == s.heads;  // no grouped-query attention: kv heads follow the heads
  if (o.layers) s.layers = o.layers;
  if (o.hidden) s.hidden = o.hidden;
  if (o.heads) s.heads = o.heads;
  if (o.kv_heads) s.kv_heads = o.kv_heads;
  else if (multi_head) s.kv_heads = s.heads;
  if (o.ffn) s.ffn = o.ffn;
  if (o.vocab) s.vocab = o.vocab;
  return s;
}

void check_decoder_size(const std::string& model, const DecoderSize& s, bool rotary) {
  auto n = [](std::int64_t v) { return std::to_string(v); };
  if (s.hidden % s.heads != 0)
    throw UserError(model + ": --heads " + n(s.heads) + " does not divide --hidden " + n(s.hidden) +
                    " into whole heads");
  if (s.kv_heads > s.heads || s.heads % s.kv_heads != 0)
    throw UserError(model + ": --kv-heads " + n(s.kv_heads) + " must divide --heads " + n(s.heads) +
                    " (each key/value head serves a whole group of query heads)");
  if (rotary && s.head_dim() % 2 != 0)
    throw UserError(model + ": the head dim " + n(s.head_dim()) + " (--hidden / --heads) must be even for rotary "
                    "position embeddings");
}

CausalLm::CausalLm(Builder& b, const DecoderSize& size, bool kv_cache) : b_(b), size_(size), kv_cache_(kv_cache) {
  const std::string scope = "causal_mask";
  if (!kv_cache) {
    // GPT-2's original zoo graph: positions 0..S-1 from the ids, key position <= query position.
    batch_ = b.batch_dim();
    batch_seq_ = {batch_, b.seq_dim()};
    ids_ = "input_ids";
    b.input(ids_, onnx::TensorProto_DataType_INT64, batch_seq_);
    positions_ = position_ids(b, "positions", ids_);
    const std::string keys = b.op("Unsqueeze", scope, {positions_, b.ints({1, 2})});     // [B, 1, 1, S]
    const std::string queries = b.op("Unsqueeze", scope, {positions_, b.ints({1, 3})});  // [B, 1, S, 1]
    const std::string allowed = b.op("LessOrEqual", scope, {keys, queries});             // [B, 1, S, S]
    bias_ = b.op("Where", scope, {allowed, b.scalar_f32(0.0f), b.scalar_f32(kMasked)});
    return;
  }
  batch_ = b.options().batch ? Dim{*b.options().batch} : Dim{std::string("batch_size")};
  batch_seq_ = {batch_, std::string(kSeq)};
  ids_ = "input_ids";
  b.input(ids_, onnx::TensorProto_DataType_INT64, batch_seq_);
  b.input("attention_mask", onnx::TensorProto_DataType_INT64, {batch_, std::string(kTotal)});
  b.input("position_ids", onnx::TensorProto_DataType_INT64, batch_seq_);
  positions_ = "position_ids";
  for (std::int64_t i = 0; i < size_.layers; ++i)
    for (const char* kind : {"key", "value"})
      b.input("past_key_values." + std::to_string(i) + "." + kind, onnx::TensorProto_DataType_FLOAT,
              {batch_, size_.kv_heads, std::string(kPast), size_.head_dim()});
  // Query i of this step sits at absolute index past + i, past = T - S (mask length minus step length); key j
  // may be attended when j <= past + i and attention_mask[j] = 1. Sums of ones give T and S without Shape ops.
  const std::string mask_ones = ones_like(b, scope, "attention_mask");  // [B, T]
  const std::string ids_ones = ones_like(b, scope, ids_);               // [B, S]
  const std::string keepdims_sum = "ReduceSum";
  const std::string past =
      b.op("Sub", scope, {b.op(keepdims_sum, scope, {mask_ones, b.ints({1})}, {attr("keepdims", 1)}),
                          b.op(keepdims_sum, scope, {ids_ones, b.ints({1})}, {attr("keepdims", 1)})});  // [B, 1]
  const std::string key_index = exclusive_cumsum(b, scope, mask_ones);                                  // [B, T]
  const std::string query_index = b.op("Add", scope, {exclusive_cumsum(b, scope, ids_ones), past});     // [B, S]
  const std::string causal = b.op("LessOrEqual", scope, {b.op("Unsqueeze", scope, {key_index, b.ints({1, 2})}),
                                                          b.op("Unsqueeze", scope, {query_index, b.ints({1, 3})})});
  const std::string kept = b.op("Unsqueeze", scope,
                                {b.op("Cast", scope, {"attention_mask"}, {attr("to", static_cast<std::int64_t>(
                                                                                   onnx::TensorProto_DataType_BOOL))}),
                                 b.ints({1, 2})});                                                  // [B, 1, 1, T]
  const std::string allowed = b.op("And", scope, {causal, kept});                                  // [B, 1, S, T]
  bias_ = b.op("Where", scope, {allowed, b.scalar_f32(0.0f), b.scalar_f32(kMasked)});
}

Rotary CausalLm::rotary(float theta) {
  const std::int64_t d = size_.head_dim();
  std::vector<float> inv_freq;  // theta^(-2i/d), i < d/2, as HF computes it in float32
  for (std::int64_t i = 0; i < d / 2; ++i)
    inv_freq.push_back(static_cast<float>(1.0 / std::pow(static_cast<double>(theta), 2.0 * static_cast<double>(i) /
                                                                                        static_cast<double>(d))));
  const std::string scope = "rotary_emb";
  const std::string pos = b_.op("Unsqueeze", scope,
                                {b_.op("Cast", scope, {positions_},
                                       {attr("to", static_cast<std::int64_t>(onnx::TensorProto_DataType_FLOAT))}),
                                 b_.ints({2})});  // [B, S, 1]
  const std::string freqs =
      b_.op("Mul", scope, {pos, b_.floats("inv_freq_" + std::to_string(d) + "_" + std::to_string(theta), inv_freq)});
  const std::string emb = b_.op("Concat", scope, {freqs, freqs}, {attr("axis", -1)});  // [B, S, d]
  return {b_.op("Unsqueeze", scope, {b_.op("Cos", scope, {emb}), b_.ints({1})}),
          b_.op("Unsqueeze", scope, {b_.op("Sin", scope, {emb}), b_.ints({1})})};
}

std::string CausalLm::rope(const std::string& scope, const std::string& x, const Rotary& r) {
  const std::int64_t half = size_.head_dim() / 2;
  const auto halves = b_.node("Split", scope, {x, b_.ints({half, half})}, {attr("axis", -1)}, 2);
  const std::string rotated = b_.op("Concat", scope, {b_.op("Neg", scope, {halves[1]}), halves[0]}, {attr("axis", -1)});
  return b_.op("Add", scope, {b_.op("Mul", scope, {x, r.cos}), b_.op("Mul", scope, {rotated, r.sin})});
}

// Grouped-query attention: each of the kv_heads heads serves heads / kv_heads query heads (HF repeat_kv:
// expand a new axis, then merge it into the head axis).
std::string CausalLm::repeat_kv(const std::string& scope, const std::string& x) {
  const std::int64_t groups = size_.heads / size_.kv_heads;
  if (groups == 1) return x;
  const std::string wide = b_.op("Expand", scope, {b_.op("Unsqueeze", scope, {x, b_.ints({2})}),
                                                   b_.ints({1, 1, groups, 1, 1})});  // [B, kv, groups, T, d]
  return b_.op("Reshape", scope, {wide, b_.ints({0, size_.heads, -1, size_.head_dim()})});
}

std::string CausalLm::attention(const std::string& scope, std::int64_t layer, const std::string& q,
                                const std::string& k, const std::string& v, const Rotary* rope_tables) {
  const std::int64_t d = size_.head_dim();
  auto heads = [&](const std::string& t, std::int64_t n) {  // [B, S, n*d] -> [B, n, S, d]
    return b_.op("Transpose", scope, {b_.op("Reshape", scope, {t, b_.ints({0, 0, n, d})})},
                 {attr("perm", Dims{0, 2, 1, 3})});
  };
  std::string qh = heads(q, size_.heads), kh = heads(k, size_.kv_heads), vh = heads(v, size_.kv_heads);
  if (rope_tables) {
    qh = rope(scope, qh, *rope_tables);
    kh = rope(scope, kh, *rope_tables);
  }
  if (kv_cache_) {
    const std::string past = "past_key_values." + std::to_string(layer) + ".";
    kh = b_.op("Concat", scope, {past + "key", kh}, {attr("axis", 2)});  // [B, kv, T, d]: becomes present
    vh = b_.op("Concat", scope, {past + "value", vh}, {attr("axis", 2)});
    presents_.push_back(kh);
    presents_.push_back(vh);
  }
  const std::string kt = b_.op("Transpose", scope, {repeat_kv(scope, kh)}, {attr("perm", Dims{0, 1, 3, 2})});
  std::string scores = b_.op("MatMul", scope, {qh, kt});  // [B, heads, S, T]
  scores = b_.op("Div", scope, {scores, b_.scalar_f32(std::sqrt(static_cast<float>(d)))});
  scores = b_.op("Add", scope, {scores, bias_});
  const std::string probs = b_.op("Softmax", scope, {scores}, {attr("axis", -1)});
  const std::string ctx = b_.op("MatMul", scope, {probs, repeat_kv(scope, vh)});  // [B, heads, S, d]
  const std::string merged = b_.op("Transpose", scope, {ctx}, {attr("perm", Dims{0, 2, 1, 3})});
  return b_.op("Reshape", scope, {merged, b_.ints({0, 0, size_.heads * d})});
}

void CausalLm::finish(const std::string& logits) {
  b_.output(logits, "logits", onnx::TensorProto_DataType_FLOAT, {batch_seq_[0], batch_seq_[1], size_.vocab});
  for (std::size_t i = 0; i < presents_.size(); ++i)
    b_.output(presents_[i], "present." + std::to_string(i / 2) + (i % 2 ? ".value" : ".key"),
              onnx::TensorProto_DataType_FLOAT, {batch_, size_.kv_heads, std::string(kTotal), size_.head_dim()});
}

std::string linear_no_bias(Builder& b, const std::string& scope, const std::string& x, std::int64_t in,
                           std::int64_t out, Init weight_init) {
  return b.op("MatMul", scope, {x, b.param(scope + ".weight", {in, out}, weight_init)});
}

std::string rmsnorm(Builder& b, const std::string& scope, const std::string& x, std::int64_t dim, float eps) {
  const std::string weight = b.param(scope + ".weight", {dim}, Init::range(0.9f, 1.1f));
  const std::string mean_square = b.op("ReduceMean", scope, {b.op("Pow", scope, {x, b.scalar_f32(2.0f)})},
                                       {attr("axes", Dims{-1}), attr("keepdims", 1)});
  const std::string rms = b.op("Sqrt", scope, {b.op("Add", scope, {mean_square, b.scalar_f32(eps)})});
  return b.op("Mul", scope, {b.op("Div", scope, {x, rms}), weight});
}

std::string silu(Builder& b, const std::string& scope, const std::string& x) {
  return b.op("Mul", scope, {x, b.op("Sigmoid", scope, {x})});
}

}  // namespace rooflens::zoo
