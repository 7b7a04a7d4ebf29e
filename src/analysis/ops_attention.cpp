// Attention family. The shared core for B batches, h heads, S queries, L keys:
//   scores = B*h*S*L;  MACs = scores*d_qk (Q K^T) + scores*d_v (P V)
//   FLOPs += scores * (kSoftmaxPerElem + 1 scale by 1/sqrt(d) + 1 if a mask/bias is added)
// Ops that also project (ORT Attention, QAttention) add the projection matmul [B*S, Hin] x [Hin, Hq+Hk+Hv].
#include "analysis/ops_util.h"

namespace rooflens {
namespace ops_attention_file {  // this file's helpers and using-directive stay its own in a unity batch
namespace {
using namespace ops;

OpWork attention_core(uint64_t b, uint64_t heads, uint64_t s, uint64_t l, uint64_t d_qk, uint64_t d_v,
                      bool masked) {
  const uint64_t scores = sat_mul(b, heads, s, l);
  return mac_work(sat_mul(scores, sat_add(d_qk, d_v)), sat_mul(scores, kSoftmaxPerElem + 1 + (masked ? 1 : 0)));
}

void add_work(OpWork& w, const OpWork& more) {
  w.macs = sat_add(w.macs, more.macs);
  w.flops = sat_add(w.flops, more.flops);
}

int64_t attr(const CostInput& c, const char* name, int64_t def) { return c.node ? c.node->attr_i(name, def) : def; }

// ORT Attention / QAttention: input [B,S,Hin] x weights [Hin, Hq+Hk+Hv] (+ bias), then attention over
// L = S + past length. past is [2, B, heads, P, head_size].
struct ProjSlots { size_t bias, mask, past, attn_bias; bool dequant; };
OpWork projected_attention(const CostInput& c, ProjSlots s) {
  if (auto bad = need_in(c, {0, 1})) return *bad;
  const int64_t b = c.in_dim(0, 0), seq = c.in_dim(0, 1), hin = c.in_dim(0, 2), cols = c.in_dim(1, 1);
  const int64_t heads = attr(c, "num_heads", -1);
  if (auto bad = need_dims({b, seq, hin, cols, heads}, "Attention dims")) return *bad;
  if (heads <= 0) return unknown("num_heads must be positive");
  auto qkv = c.node ? c.node->attr_ints("qkv_hidden_sizes") : std::vector<int64_t>{};
  if (qkv.size() != 3) qkv = {cols / 3, cols / 3, cols / 3};
  int64_t past = 0;
  if (c.has_in(s.past) || (c.node && s.past < c.node->inputs.size() && !c.node->inputs[s.past].empty())) {
    past = c.in_dim(s.past, 3);
    if (past < 0 && c.out_dim(1, 3) >= 0) past = c.out_dim(1, 3) - seq;  // present = past + current
    if (auto bad = need_dims({past}, "past sequence length")) return *bad;
  }
  const uint64_t rows = sat_mul(u(b), u(seq));
  OpWork w = mac_work(sat_mul(rows, u(hin), u(cols)));
  uint64_t per_row = (c.has_in(s.bias) ? 1 : 0) + (s.dequant ? 1 : 0);  // bias add, int32 -> float scale
  w.flops = sat_add(w.flops, sat_mul(rows, u(cols), per_row));
  // Per head Q K^T contracts head_size = Hq/heads, so summed over heads it is B*S*L*Hq.
  add_work(w, attention_core(u(b), u(heads), u(seq), sat_add(u(seq), u(past)), u(qkv[0]) / u(heads),
                             u(qkv[2]) / u(heads), c.has_in(s.mask) || c.has_in(s.attn_bias)));
  return w;
}

// MultiHeadAttention (already projected Q, K, V). query [B,S,D] or packed QKV [B,S,h,3,d];
// key [B,L,D], packed KV [B,L,h,2,d] or per-head [B,h,L,d]; past_key [B,h,P,d] (input 6).
OpWork multi_head_attention(const CostInput& c) {
  if (auto bad = need_in(c, {0})) return *bad;
  const int64_t heads = attr(c, "num_heads", -1);
  const int64_t b = c.in_dim(0, 0), seq = c.in_dim(0, 1);
  int64_t d = -1, l = -1, dv = -1;
  if (c.in_rank(0) == 5) {  // packed QKV: keys are the queries
    d = dim_mul(c.in_dim(0, 2), c.in_dim(0, 4));
    l = seq;
    dv = d;
  } else {
    if (auto bad = need_in(c, {1})) return *bad;
    d = c.in_dim(0, 2);
    const size_t rk = c.in_rank(1);
    l = rk == 4 ? c.in_dim(1, 2) : c.in_dim(1, 1);
    dv = rk == 5 ? d : (c.in_rank(2) == 4 ? dim_mul(c.in_dim(2, 1), c.in_dim(2, 3)) : c.in_dim(2, -1));
    if (c.out_elems(0) >= 0) dv = c.out_dim(0, -1);  // output is [B, S, Dv]
  }
  if (c.has_in(6)) l = dim_add(l, c.in_dim(6, 2));
  if (auto bad = need_dims({heads, b, seq, d, l, dv}, "MultiHeadAttention dims")) return *bad;
  if (heads <= 0) return unknown("num_heads must be positive");
  OpWork w = attention_core(u(b), u(heads), u(seq), u(l), u(d) / u(heads), u(dv) / u(heads),
                            c.has_in(4) || c.has_in(5));
  if (c.has_in(3))  // bias [D + D + Dv] added to Q, K and V
    w.flops = sat_add(w.flops, sat_add(sat_mul(u(b), u(seq), u(d)), sat_mul(u(b), u(l), sat_add(u(d), u(dv)))));
  return w;
}

// GroupQueryAttention: h query heads share kv_num_heads K/V heads. Total length L comes from present_key
// [B, kv, L, d]; with a shared KV buffer that is the buffer size (an upper bound).
OpWork group_query_attention(const CostInput& c) {
  if (auto bad = need_in(c, {0})) return *bad;
  const int64_t heads = attr(c, "num_heads", -1), kv = attr(c, "kv_num_heads", -1);
  const int64_t b = c.in_dim(0, 0), seq = c.in_dim(0, 1);
  if (auto bad = need_dims({heads, kv, b, seq}, "GroupQueryAttention dims")) return *bad;
  if (heads <= 0) return unknown("num_heads must be positive");
  // Packed QKV (no key input) has width (h + 2 kv) * d.
  const uint64_t width_heads = c.has_in(1) ? u(heads) : sat_add(u(heads), sat_mul(u(kv), 2));
  const int64_t dq = c.in_dim(0, 2);
  if (auto bad = need_dims({dq}, "query hidden size")) return *bad;
  const uint64_t hd = u(dq) / width_heads;
  int64_t l = c.out_dim(1, 2);
  if (l < 0) l = c.has_in(3) ? dim_add(c.in_dim(3, 2), seq) : seq;
  if (auto bad = need_dims({l}, "total sequence length")) return *bad;
  OpWork w = attention_core(u(b), u(heads), u(seq), u(l), hd, hd, false);
  if (attr(c, "do_rotary", 0) != 0)  // rotary on Q and the new K: 3 per element
    w.flops = sat_add(w.flops, sat_mul(u(b), u(seq), sat_add(u(heads), u(kv)), hd, 3));
  if (c.has_in(3)) w.note = "L is the KV buffer length (upper bound)";
  return w;
}

// ONNX Attention (opset 23): Q [B,qh,S,d] / K [B,kvh,L,d] / V [B,kvh,L,dv], or 3-D [B,S,heads*d] with
// q_num_heads / kv_num_heads. past_key (input 4) is [B,kvh,P,d].
OpWork onnx_attention(const CostInput& c) {
  if (auto bad = need_in(c, {0, 1, 2})) return *bad;
  const bool r4 = c.in_rank(0) == 4;
  const int64_t b = c.in_dim(0, 0);
  const int64_t qh = r4 ? c.in_dim(0, 1) : attr(c, "q_num_heads", -1);
  const int64_t kvh = r4 ? c.in_dim(1, 1) : attr(c, "kv_num_heads", -1);
  const int64_t seq = r4 ? c.in_dim(0, 2) : c.in_dim(0, 1);
  int64_t l = r4 ? c.in_dim(1, 2) : c.in_dim(1, 1);
  if (c.has_in(4)) l = dim_add(l, c.in_dim(4, 2));
  if (auto bad = need_dims({b, qh, kvh, seq, l}, "Attention dims")) return *bad;
  if (qh <= 0 || kvh <= 0) return unknown("head counts must be positive");
  const uint64_t d = r4 ? u(c.in_dim(0, 3)) : u(c.in_dim(0, 2)) / u(qh);
  const uint64_t dv = r4 ? u(c.in_dim(2, 3)) : u(c.in_dim(2, 2)) / u(kvh);
  return attention_core(u(b), u(qh), u(seq), u(l), d, dv, c.has_in(3));
}

}  // namespace
}  // namespace ops_attention_file

void register_attention_ops(CostRegistry& r) {
  using namespace ops_attention_file;
  // ORT Attention inputs: input, weights, bias, mask_index, past, attention_bias.
  r.add(kMs, "Attention", [](const CostInput& c) {
    return projected_attention(c, {.bias = 2, .mask = 3, .past = 4, .attn_bias = 5, .dequant = false});
  });
  // QAttention: input, weight(int8), bias, input_scale, weight_scale, mask_index, input_zp, weight_zp, past.
  r.add(kMs, "QAttention", with_params([](const CostInput& c) {
          return projected_attention(c, {.bias = 2, .mask = 5, .past = 8, .attn_bias = kNoSlot, .dequant = true});
        }, {1, 2}));
  r.add(kMs, "MultiHeadAttention", multi_head_attention);
  r.add(kMs, "GroupQueryAttention", group_query_attention);
  r.add(kOnnx, "Attention", onnx_attention);

  // Rotary embedding: x*cos + rotate(x)*sin = 2 multiplies + 1 add per element.
  r.add(kMs, "RotaryEmbedding", per_input_elem(3));
  r.add(kOnnx, "RotaryEmbedding", per_input_elem(3));
  // EmbedLayerNormalization: word + position (+ segment) embedding adds, then LayerNorm with gamma and beta
  // (normalise 5, scale 1, shift 1). Inputs: ids, segment_ids, word/pos/segment tables, gamma, beta, mask.
  r.add(kMs, "EmbedLayerNormalization", [](const CostInput& c) {
    return per_output_elem(1 + (c.has_in(1) ? 1 : 0) + 7)(c);
  });
}

}  // namespace rooflens
