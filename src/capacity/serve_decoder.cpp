#include "capacity/serve_decoder.h"

#include <algorithm>
#include <optional>

#include "backends/generation.h"
#include "capacity/calibrate_decoder.h"
#include "capacity/generative/null_executor.h"
#include "capacity/sut/decoder_steps.h"
#include "core/errors.h"
#include "core/units.h"
#include "memory/kv_cache.h"
#include "memory/system_memory.h"

namespace rooflens::capacity {
namespace {

std::string load_name(generative::LoadKind k) {
  switch (k) {
    case generative::LoadKind::server: return "server";
    case generative::LoadKind::concurrency: return "concurrency";
    case generative::LoadKind::offline: return "offline";
    case generative::LoadKind::trace: return "trace";
  }
  return "";
}

ServingSettings echo_settings(const DecoderServingSpec& spec, const generative::BatcherSettings& b,
                              const std::string& budget_source, int64_t threads) {
  ServingSettings e;
  e.scenario = load_name(spec.load.kind);
  e.rate = spec.load.kind == generative::LoadKind::server ? spec.load.rate : 0;
  e.burstiness = spec.load.burstiness;
  e.users = spec.load.kind == generative::LoadKind::concurrency ? spec.load.users : 0;
  e.requests = static_cast<int64_t>(spec.load.shapes.size());
  e.lengths = spec.lengths;
  e.seed = spec.seed;
  e.batching = b.batching == generative::Batching::continuous ? "continuous" : "static";
  e.prefill = b.prefill == generative::PrefillMode::chunked ? "chunked" : "separate";
  e.max_batch = b.max_batch;
  e.max_batched_tokens = b.max_batched_tokens;
  e.kv_budget_tokens = b.kv_budget_tokens;
  e.kv_bytes_per_token = static_cast<int64_t>(kv_bytes_per_token(spec.io));
  e.kv_budget_source = budget_source;
  e.threads = threads;
  e.next_token = to_string(spec.next_token);
  e.slo_ttft_ms = spec.slo.ttft_ms;
  e.slo_tpot_ms = spec.slo.tpot_ms;
  e.slo_e2e_ms = spec.slo.e2e_ms;
  e.percentile = spec.slo.percentile;
  e.slo_preset = spec.slo.preset;
  return e;
}

}  // namespace

KvBudget resolve_kv_budget(const DecoderServingSpec& spec) {
  const auto per_token = static_cast<int64_t>(kv_bytes_per_token(spec.io));
  KvBudget k{0, "--kv-budget"};
  uint64_t bytes = spec.kv_budget_bytes;
  if (bytes == 0) {
    const FreeMemory free = free_memory();
    bytes = free.bytes / 2;
    k.source = free.bytes ? "half the free memory (" + free.source + ")" : "none";
  }
  k.tokens = bytes > 0 && per_token > 0 ? static_cast<int64_t>(bytes / static_cast<uint64_t>(per_token)) : 0;
  return k;
}

DecoderGeneration& generation_of(Backend& backend) {
  DecoderGeneration* generation = backend.generation();
  if (!generation) throw UserError("capacity: -B " + backend.info().name + " cannot run a decoder step by step");
  return *generation;
}

DecoderServingConfig served_config(const DecoderServingSpec& spec) {
  DecoderServingConfig c;
  c.model = spec.model;
  c.io = spec.io;
  c.threads = spec.threads;
  c.seed = spec.seed;
  c.next_token = spec.next_token;
  c.step_timeout = spec.step_timeout;
  return c;
}

ServingPrediction predict_serving(const DecoderServingSpec& spec, const generative::BatcherSettings& batcher,
                                  const DecoderCalibration& cal) {
  generative::NullExecutor simulated(cal.cost);
  const generative::ServingRecords sim = generative::serve(spec.load, batcher, simulated);
  ServingPrediction p;
  p.summary = generative::summarize_serving(sim, spec.slo);
  p.valid = generative::judge_serving(sim, p.summary, spec.slo, spec.min_requests).valid;
  p.prefill_call_ms = cal.cost.per_prefill_call_ms;
  p.prefill_token_ms = cal.cost.per_prefill_token_ms;
  p.decode_call_ms = cal.cost.per_decode_call_ms;
  p.decode_row_ms = cal.cost.per_decode_row_ms;
  p.context_token_ms = cal.cost.per_context_token_ms;
  p.calibrated_at = cal.measured_at;
  p.cached = cal.cached;
  return p;
}

ServingResult serve_live(const DecoderServingSpec& spec, const generative::BatcherSettings& batcher,
                         const KvBudget& budget, DecoderGeneration& generation) {
  generative::BatcherSettings b = batcher;
  b.kv_budget_tokens = budget.tokens;
  if (spec.progress) spec.progress("loading " + spec.model);
  std::unique_ptr<ServedDecoder> decoder = generation.serve(served_config(spec));
  ServedDecoderExecutor executor(*decoder);
  generative::BatcherHooks hooks;
  hooks.sink = spec.sink;
  hooks.interrupted = spec.interrupted;
  const auto total = static_cast<int64_t>(spec.load.shapes.size());
  int64_t last_shown = 0;
  if (spec.progress)
    hooks.progress = [&](int64_t finished, int64_t all) {
      if (finished - last_shown < std::max<int64_t>(1, all / 10) && finished != all) return;
      last_shown = finished;
      spec.progress(std::to_string(finished) + " of " + std::to_string(all) + " requests finished");
    };
  if (spec.progress) spec.progress("serving " + std::to_string(total) + " requests");
  const generative::ServingRecords records = generative::serve(spec.load, b, executor, hooks);
  if (records.fault.empty()) {
    try {
      decoder->finish();
    } catch (const BackendError&) {  // the records stand; the runner is gone with the decoder
    }
  }

  ServingResult r;
  r.settings = echo_settings(spec, b, budget.source, decoder->threads());
  r.summary = generative::summarize_serving(records, spec.slo);
  r.samples = generative::serving_samples(records);
  r.verdict = generative::judge_serving(records, r.summary, spec.slo, spec.min_requests);
  r.steps = records.steps;
  r.max_batch_seen = records.max_batch_seen;
  r.kv_copy_bytes = records.kv_copy_bytes;
  r.step_busy_s = records.step_busy_s;
  r.scheduler_s = records.scheduler_s;
  r.fault = records.fault;
  r.interrupted = records.interrupted;
  return r;
}

ServingResult serve_decoder(const DecoderServingSpec& spec, Backend& backend) {
  DecoderGeneration& generation = generation_of(backend);
  const KvBudget budget = resolve_kv_budget(spec);
  generative::BatcherSettings b = spec.batcher;
  b.kv_budget_tokens = budget.tokens;
  // The prediction first: the same scheduler, load and settings on virtual time, with step times fitted to calls
  // timed in a runner of its own (cached) — nothing of the run it predicts.
  std::optional<ServingPrediction> predicted;
  if (spec.predict)
    predicted = predict_serving(spec, b, calibrate_decoder(generation, served_config(spec), b.max_batch, spec.progress));
  ServingResult r = serve_live(spec, b, budget, generation);
  r.predicted = std::move(predicted);
  return r;
}

}  // namespace rooflens::capacity
