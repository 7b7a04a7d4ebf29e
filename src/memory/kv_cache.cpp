#include "memory/kv_cache.h"

#include <algorithm>

#include "core/saturating.h"

namespace rooflens {

namespace {

// The outputs of one request that are garbage by its last step (the caller copies every output of every run):
// with two steps or more, the prefill's (its present was step 0's past) and every decode step's but the last
// step's past and the logits beside it. Decode step k (0-based) writes the cache of prompt + k + 1 tokens and one
// position's logits. The small per-step feeds (ids, mask, positions) and picked rows are left out (< 1% here).
template <typename Cache, typename Logits>
uint64_t uncollected_outputs(uint64_t prompt, uint64_t gen, Cache cache, Logits logits) {
  if (gen < 2) return 0;
  uint64_t bytes = sat_add(cache(prompt), logits(prompt));
  for (uint64_t k = 0; k + 2 < gen; ++k) bytes = sat_add(bytes, sat_add(cache(prompt + k + 1), logits(1)));
  return bytes;
}

}  // namespace

KvMemory kv_memory(const KvShape& s) {
  KvMemory m;
  m.weights_bytes = s.weights_bytes;
  m.weights_source = s.weights_source;
  m.prepacked_bytes = s.prepacked_bytes;
  m.kv_bytes_per_token = s.kv_bytes_per_token;
  const uint64_t batch = static_cast<uint64_t>(std::max<int64_t>(1, s.batch));
  const uint64_t prompt = static_cast<uint64_t>(std::max<int64_t>(0, s.prompt));
  const uint64_t gen = static_cast<uint64_t>(std::max<int64_t>(0, s.gen));
  auto cache = [&](uint64_t tokens) { return sat_mul(sat_mul(batch, tokens), s.kv_bytes_per_token); };
  auto logits = [&](uint64_t positions) {
    return sat_mul(sat_mul(sat_mul(batch, positions), static_cast<uint64_t>(std::max<int64_t>(0, s.vocab))),
                   static_cast<uint64_t>(s.element_bytes));
  };
  const uint64_t copies = static_cast<uint64_t>(std::max<int64_t>(0, s.output_copies));
  m.prefill_kv_bytes = cache(prompt);
  m.decode_kv_bytes = cache(prompt + gen);
  m.baseline_bytes = s.baseline_bytes;
  const uint64_t base = sat_add(sat_add(s.baseline_bytes, s.weights_bytes), s.prepacked_bytes);
  const uint64_t prefill_out = sat_add(m.prefill_kv_bytes, logits(prompt));
  m.prefill_activations_bytes = s.prefill_activations ? s.prefill_activations : prefill_out;
  m.prefill_copies_bytes = sat_mul(prefill_out, copies);
  m.prefill_peak_bytes = sat_add(sat_add(base, m.prefill_activations_bytes), m.prefill_copies_bytes);
  if (gen > 0) {
    // The last step is fed the cache of prompt + gen - 1 tokens and writes that of prompt + gen and one position's
    // logits; its past is the previous step's present as the caller holds it.
    const uint64_t out = sat_add(m.decode_kv_bytes, logits(1));
    m.decode_activations_bytes = s.decode_activations ? s.decode_activations : sat_add(cache(prompt + gen - 1), out);
    m.decode_copies_bytes = sat_mul(out, copies);
    m.decode_peak_bytes = sat_add(sat_add(base, m.decode_activations_bytes), m.decode_copies_bytes);
    m.uncollected_copies_bytes = sat_mul(uncollected_outputs(prompt, gen, cache, logits), copies);
  }
  m.predicted_bytes = std::max(m.prefill_peak_bytes, m.decode_peak_bytes);
  for (uint64_t step = 0; step <= gen; ++step) m.per_step_kv_bytes.push_back(cache(prompt + step));
  return m;
}

}  // namespace rooflens
