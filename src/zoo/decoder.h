#pragma once
// What decoder-only language models (gpt2.cpp, llama.cpp) share: their size, their inputs (plain `input_ids`, or
// the KV-cache layout of Hugging Face Optimum and onnxruntime-genai exports), the causal mask, attention with
// grouped-query heads, rotary position embeddings and a KV cache, RMSNorm, and publishing logits and present.
//
// KV-cache layout (ZooOptions::kv_cache), as Optimum's decoder_with_past_model.onnx names it:
//   inputs   input_ids       int64 [batch_size, sequence_length]
//            attention_mask  int64 [batch_size, past_sequence_length + sequence_length]   (1 = attend)
//            position_ids    int64 [batch_size, sequence_length]
//            past_key_values.N.key / .value  float [batch_size, kv_heads, past_sequence_length, head_dim]
//   outputs  logits          float [batch_size, sequence_length, vocab]
//            present.N.key / .value          float [batch_size, kv_heads, past_sequence_length + sequence_length, head_dim]
// A first (prefill) step feeds a past of length 0. Without the cache a model takes input_ids [batch, seq] only.
#include <cstdint>
#include <string>
#include <vector>

#include "zoo/builder.h"

namespace rooflens::zoo {

struct DecoderSize {
  std::int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0;
  std::int64_t head_dim() const { return hidden / heads; }
};

// The published size with the user's overrides (DecoderConfig fields that are set).
DecoderSize with_overrides(DecoderSize published, const DecoderConfig& o);
// Throws UserError naming `model` unless the heads divide the hidden size and the kv heads divide the heads (and,
// for rotary embeddings, the head dim is even).
void check_decoder_size(const std::string& model, const DecoderSize& s, bool rotary);

// Rotary position embedding tables for positions [B, S]: cos and sin of shape [B, 1, S, head_dim], built once and
// applied in every layer (HF rotate_half convention: the two halves of a head, not interleaved pairs).
struct Rotary {
  std::string cos, sin;
};

class CausalLm {
 public:
  // Declares the inputs and builds the positions and the additive attention mask.
  CausalLm(Builder& b, const DecoderSize& size, bool kv_cache);

  const std::string& ids() const { return ids_; }              // int64 [B, S]
  const std::string& positions() const { return positions_; }  // int64 [B, S]: position_ids, or 0..S-1
  const std::vector<Dim>& batch_seq() const { return batch_seq_; }

  Rotary rotary(float theta);
  // Scaled dot-product attention over q [B, S, heads*d] and k, v [B, S, kv_heads*d]; with a cache, layer `layer`'s
  // past is prepended to k and v and the result becomes present. Returns [B, S, heads*d].
  std::string attention(const std::string& scope, std::int64_t layer, const std::string& q, const std::string& k,
                        const std::string& v, const Rotary* rope);
  // Publishes logits [B, S, vocab], then every layer's present key and value (in that order, as Optimum does).
  void finish(const std::string& logits);

 private:
  std::string rope(const std::string& scope, const std::string& x, const Rotary& r);
  std::string repeat_kv(const std::string& scope, const std::string& x);

  Builder& b_;
  DecoderSize size_;
  bool kv_cache_;
  Dim batch_;
  std::vector<Dim> batch_seq_;
  std::string ids_, positions_, bias_;
  std::vector<std::string> presents_;  // key, value per layer
};

// nn.Linear without bias on a 3-D activation: MatMul with a [in, out] weight.
std::string linear_no_bias(Builder& b, const std::string& scope, const std::string& x, std::int64_t in,
                           std::int64_t out, Init weight_init);
// LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * weight, from primitive ops (RMSNormalization is opset 23).
std::string rmsnorm(Builder& b, const std::string& scope, const std::string& x, std::int64_t dim, float eps);
std::string silu(Builder& b, const std::string& scope, const std::string& x);  // x * sigmoid(x)

}  // namespace rooflens::zoo
