#include "memory/kv_cache.h"

#include <algorithm>

#include "core/saturating.h"
#include "memory/model_memory.h"
#include "memory/run_memory.h"
#include "model/tensor.h"

namespace rooflens {

uint64_t kv_bytes_per_token(const DecoderIo& io) {
  const uint64_t element = static_cast<uint64_t>(dtype_bits(dtype_from_name(io.kv_dtype))) / 8;
  const uint64_t per_layer = sat_mul(static_cast<uint64_t>(std::max<int64_t>(0, io.kv_heads)),
                                     static_cast<uint64_t>(std::max<int64_t>(0, io.head_dim)));
  return sat_mul(sat_mul(2 * static_cast<uint64_t>(io.cache.size()), per_layer), element);
}

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
  m.baseline_run_bytes = s.baseline_run_bytes;
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

namespace {

// A phase whose run predicted it in the executed order (its step profiled at these dims): the runtime's own weights
// (constants it folded and packed at inference session creation) and its kernels' order.
bool predicted_in_executed_order(const RunMemory* run) {
  return run && run->predicted.weights_source == "executed_graph";
}

// The prediction's figures for the configuration: a phase's activations from its run where it ran at these dims, else
// from the step's model; the weights from the profiled prefill's executed graph, else the model file's a node reads.
KvShape decoder_shape(const DecoderMemorySources& in) {
  KvShape s;
  const ModelMemory* prefill = in.steps ? &in.steps->prefill : nullptr;
  const ModelMemory* decode = in.steps && in.steps->decode ? &*in.steps->decode : nullptr;
  if (prefill) {
    s.weights_bytes = used_weight_bytes(prefill->weights);  // the file's: the same at every step's dims
    s.prefill_activations = prefill->activations.peak_bytes;
  }
  if (predicted_in_executed_order(in.prefill_run)) {
    s.prefill_activations = in.prefill_run->predicted.activations_bytes;
    s.weights_bytes = in.prefill_run->predicted.weights_bytes;
    s.weights_source = "executed_graph";
    s.prepacked_bytes = in.prefill_run->predicted.prepacked_bytes;
  }
  if (decode)
    s.decode_activations = predicted_in_executed_order(in.decode_run) ? in.decode_run->predicted.activations_bytes
                                                                      : decode->activations.peak_bytes;
  if (in.io) {
    s.kv_bytes_per_token = kv_bytes_per_token(*in.io);
    s.vocab = in.io->vocab;
    s.element_bytes = in.io->kv_dtype == "float16" ? 2 : 4;
  }
  s.batch = in.batch;
  s.prompt = in.prompt;
  s.gen = in.gen;
  s.output_copies = in.output_copies;
  s.baseline_bytes = in.baseline_bytes;
  s.baseline_run_bytes = in.baseline_run_bytes;
  return s;
}

// The decoder's inference session as its prediction has it, in a run's terms (run_memory.h
// inference_session_beyond_prediction): the baseline, the weights and their packed copies (no node structures or C
// allocator replay are predicted for it).
MemoryPrediction decoder_inference_session_prediction(const KvMemory& k) {
  MemoryPrediction p;
  p.baseline_bytes = k.baseline_bytes;
  p.weights_bytes = k.weights_bytes;
  p.prepacked_bytes = k.prepacked_bytes;
  return p;
}

// The runner's measurement beside the prediction: each phase's peak above the runner's start, the memory generation's,
// the caller's side, and the inference session's creation beyond its prediction (what the prediction misses of it: the
// runtime's graph and kernel structures).
void add_decoder_measured(KvMemory& k, const DecoderMemoryMeasured& m) {
  if (m.runner) {
    const uint64_t start = m.runner->start_bytes;
    auto above = [start](uint64_t peak) { return peak > start ? peak - start : 0; };
    k.prefill_measured_bytes = above(m.prefill_peak_bytes);
    k.decode_measured_bytes = above(m.decode_peak_bytes);
    k.measured_increase_bytes = m.runner->increase_bytes;
    if (m.collected) {
      k.prefill_collected_bytes = above(m.collected->prefill_peak_bytes);
      k.decode_collected_bytes = above(m.collected->decode_peak_bytes);
      k.collected_heap_bytes = m.collected->caller.heap_bytes;
    }
    k.session_beyond_bytes =
        as_count(inference_session_beyond_prediction(decoder_inference_session_prediction(k), *m.runner));
  }
  if (m.caller.measured) {
    k.prefill_caller_buffers_bytes = m.caller.prefill_buffers_bytes;
    k.decode_caller_buffers_bytes = m.caller.decode_buffers_bytes;
    k.caller_heap_bytes = m.caller.heap_bytes;
  }
}

}  // namespace

uint64_t DecoderSteps::need() const {
  return std::max(prefill.peak_bytes, decode ? decode->peak_bytes : uint64_t{0});
}

namespace {

// A runtime whose memory rooflens cannot predict: what the model and the formula say (weights, the cache per token and
// per step) stays; every predicted part (activations, copies, baseline, peaks) is 0, so nothing reads as predicted.
KvMemory measured_only(const KvMemory& predicted, const std::string& why) {
  KvMemory k;
  k.weights_bytes = predicted.weights_bytes;
  k.weights_source = predicted.weights_source;
  k.kv_bytes_per_token = predicted.kv_bytes_per_token;
  k.prefill_kv_bytes = predicted.prefill_kv_bytes;
  k.decode_kv_bytes = predicted.decode_kv_bytes;
  k.per_step_kv_bytes = predicted.per_step_kv_bytes;
  k.not_predicted = why;
  return k;
}

}  // namespace

KvMemory decoder_memory(const DecoderMemorySources& in) {
  KvMemory k = kv_memory(decoder_shape(in));
  if (!in.not_predicted.empty()) k = measured_only(k, in.not_predicted);
  if (in.measured) add_decoder_measured(k, *in.measured);
  if (!k.not_predicted.empty()) k.session_beyond_bytes = 0;  // beyond a prediction that was not made
  return k;
}

}  // namespace rooflens
