// Shape functions for ORT's fused attention ops (com.microsoft Attention, MultiHeadAttention,
// GroupQueryAttention). Their outputs are what the cost model multiplies out for the attention MACs, and the
// present key/value caches dominate the bytes of decoder models, so we derive them whenever the inputs allow.
#include <algorithm>
#include <array>

#include "model/shape_ops.h"

namespace rooflens {

namespace shape_ops_attention {  // this table's Row, kRows and helpers: another table's are spelled the same
using namespace shape_util;  // shared shape helpers, declared in model/shape_ops.h
namespace {

using Outs = std::vector<TensorInfo>;

const TensorInfo* in(const ShapeInput& s, size_t i) { return s.has(i) ? s.in[i] : nullptr; }
Dim dim_of(const TensorInfo* t, size_t i) {
  return t && t->has_rank && i < t->dims.size() ? t->dims[i] : Dim{};
}
Dim known(int64_t v) { return v >= 0 ? Dim{v, {}} : Dim{}; }
int64_t mul(int64_t a, int64_t b) { return a >= 0 && b >= 0 ? a * b : -1; }
int64_t add(int64_t a, int64_t b) { return a >= 0 && b >= 0 ? a + b : -1; }
// Exact division only: a non-divisible size means the attributes disagree with the weights.
int64_t div(int64_t a, int64_t b) { return a >= 0 && b > 0 && a % b == 0 ? a / b : -1; }

// Present KV cache layout shared by all three ops: [B, heads, total_seq, head_size].
TensorInfo kv_cache(DType dt, Dim b, int64_t heads, Dim total, int64_t head_size) {
  TensorInfo t = unknown_dims(dt, 4);
  t.dims = {std::move(b), known(heads), std::move(total), known(head_size)};
  return t;
}

// Attention: input [B, S, H_in] x weights [H_in, Hq + Hk + Hv] -> output [B, S, Hv];
// present [2, B, N, past + S, Hv / N] when the op has that output.
void attention(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* x = in(s, 0);
  const TensorInfo* w = in(s, 1);
  const TensorInfo* bias = in(s, 2);
  const TensorInfo* past = in(s, 4);
  const DType dt = x ? x->dtype : DType::Undefined;
  const int64_t heads = n.attr_i("num_heads", -1);

  int64_t v_hidden = -1;
  auto qkv = n.attr_ints("qkv_hidden_sizes");
  if (qkv.size() == 3) v_hidden = qkv[2];
  else if (rank_of(w) == 2) v_hidden = div(dim_value(w, 1), 3);
  else if (rank_of(bias) == 1) v_hidden = div(dim_value(bias, 0), 3);

  TensorInfo o = unknown_dims(dt, 3);
  o.dims = {dim_of(x, 0), dim_of(x, 1), known(v_hidden)};
  set_output(out, 0, o);

  Dim total = dim_of(x, 1);  // no past: the cache holds just this call's tokens
  if (past && past->has_rank) {
    // Shared buffer: present aliases past, whose seq dim is already the max cache length.
    total = n.attr_i("past_present_share_buffer", 0) ? dim_of(past, 3)
                                                     : known(add(dim_value(past, 3), dim_value(x, 1)));
  } else if (input_given(s, 4)) {
    total = Dim{};  // a past of unknown shape: its length is unknown
  }
  TensorInfo present = kv_cache(dt, dim_of(x, 0), heads, total, div(v_hidden, heads));
  present.dims.insert(present.dims.begin(), Dim{2, {}});
  set_output(out, 1, present);
}

// MultiHeadAttention. Query is [B, S, D] or packed QKV [B, S, N, 3, H]; key is [B, L, D], [B, N, L, H] or
// packed KV [B, L, N, 2, H]; value [B, L, Dv] or [B, N, L, Hv]. Output [B, S, Dv];
// present_key/value [B, N, past + L, H / Hv].
void multi_head_attention(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* q = in(s, 0);
  const TensorInfo* k = in(s, 1);
  const TensorInfo* v = in(s, 2);
  const TensorInfo* past_k = in(s, 6);
  const DType dt = q ? q->dtype : DType::Undefined;
  int64_t heads = n.attr_i("num_heads", -1);
  Dim kv_len;
  int64_t head = -1, v_head = -1, v_hidden = -1;

  if (rank_of(q) == 5) {  // packed QKV: everything comes from the query
    heads = dim_value(q, 2) >= 0 ? dim_value(q, 2) : heads;
    head = v_head = dim_value(q, 4);
    kv_len = dim_of(q, 1);
    v_hidden = mul(heads, head);
  } else if (rank_of(k) == 5) {  // packed KV
    heads = dim_value(k, 2) >= 0 ? dim_value(k, 2) : heads;
    head = v_head = dim_value(k, 4);
    kv_len = dim_of(k, 1);
    v_hidden = mul(heads, head);
  } else {
    if (rank_of(k) == 3) { kv_len = dim_of(k, 1); head = div(dim_value(k, 2), heads); }
    if (rank_of(k) == 4) { kv_len = dim_of(k, 2); head = dim_value(k, 3); }
    if (rank_of(v) == 3) {
      v_hidden = dim_value(v, 2);
      v_head = div(v_hidden, heads);
    } else if (rank_of(v) == 4) {
      v_head = dim_value(v, 3);
      v_hidden = mul(heads, v_head);
    } else if (!input_given(s, 2) && rank_of(q) == 3) {
      v_hidden = dim_value(q, 2);  // no separate value: same width as the query
      v_head = div(v_hidden, heads);
    }
  }
  TensorInfo o = unknown_dims(dt, 3);
  o.dims = {dim_of(q, 0), dim_of(q, 1), known(v_hidden)};
  set_output(out, 0, o);

  Dim total = kv_len;
  if (past_k && past_k->has_rank) total = known(add(dim_value(past_k, 2), kv_len.value));
  else if (input_given(s, 6)) total = Dim{};
  set_output(out, 1, kv_cache(dt, dim_of(q, 0), heads, total, head));
  set_output(out, 2, kv_cache(dt, dim_of(q, 0), heads, total, v_head));
}

// GroupQueryAttention. Query [B, S, N*H], or packed QKV [B, S, (N + 2*kvN) * H] when key is omitted.
// Output [B, S, N*H]; present_key/value [B, kvN, T, H], where T is the past/cache length or the
// total_sequence_length input (input 6), whichever is larger, as ORT sizes the cache.
void group_query_attention(const ShapeInput& s, Outs& out) {
  const Node& n = node_of(s);
  const TensorInfo* q = in(s, 0);
  const TensorInfo* k = in(s, 1);
  const TensorInfo* past_k = in(s, 3);
  const DType dt = q ? q->dtype : DType::Undefined;
  const int64_t heads = n.attr_i("num_heads", -1), kv_heads = n.attr_i("kv_num_heads", -1);

  int64_t head = -1, hidden = -1;
  if (input_given(s, 1)) {
    hidden = dim_value(q, 2);
    head = rank_of(k) == 3 ? div(dim_value(k, 2), kv_heads) : div(hidden, heads);
  } else {
    head = div(dim_value(q, 2), add(heads, mul(2, kv_heads)));
    hidden = mul(heads, head);
  }
  TensorInfo o = unknown_dims(dt, 3);
  o.dims = {dim_of(q, 0), dim_of(q, 1), known(hidden)};
  set_output(out, 0, o);

  int64_t total_seq = -1;
  if (const auto& tv = s.value(6); tv && tv->size() == 1) total_seq = (*tv)[0];
  Dim t;
  if (past_k && past_k->has_rank) {
    int64_t past_len = dim_value(past_k, 2);
    if (past_len >= 0 && total_seq >= 0) t = known(std::max(past_len, total_seq));
    else if (n.attr_i("past_present_share_buffer", 0)) t = dim_of(past_k, 2);
  } else if (!input_given(s, 3)) {
    t = total_seq >= 0 ? known(total_seq) : dim_of(q, 1);  // first call: cache = this call's tokens
  }
  set_output(out, 1, kv_cache(dt, dim_of(q, 0), kv_heads, t, head));
  set_output(out, 2, kv_cache(dt, dim_of(q, 0), kv_heads, t, head));
}

struct Row { const char* op; FillFn fn; };
constexpr std::array kRows{
    Row{"Attention", attention},
    Row{"MultiHeadAttention", multi_head_attention},
    Row{"GroupQueryAttention", group_query_attention},
};

}  // namespace
}  // namespace shape_ops_attention

void register_contrib_attention_shapes(ShapeRegistry& r) {
  using namespace shape_ops_attention;
  for (const auto& row : kRows) r.add("com.microsoft", row.op, 1, filled(row.fn));
}

}  // namespace rooflens
