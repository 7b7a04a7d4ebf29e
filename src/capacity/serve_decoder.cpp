#include "capacity/serve_decoder.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "backends/generation.h"
#include "capacity/calibrate_decoder.h"
#include "capacity/generative/instances.h"
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
  e.instances = spec.instances;
  e.next_token = to_string(spec.next_token);
  e.slo_ttft_ms = spec.slo.ttft_ms;
  e.slo_tpot_ms = spec.slo.tpot_ms;
  e.slo_e2e_ms = spec.slo.e2e_ms;
  e.percentile = spec.slo.percentile;
  e.slo_preset = spec.slo.preset;
  return e;
}

// Each instance holds its share of the KV budget (the memory is the machine's, the instances split it).
generative::BatcherSettings for_one_instance(generative::BatcherSettings b, int64_t instances) {
  if (b.kv_budget_tokens > 0 && instances > 1) b.kv_budget_tokens = std::max<int64_t>(1, b.kv_budget_tokens / instances);
  return b;
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

// The served decoder warms up on a request of the load's median shape (a trace's too), before any is timed.
DecoderServingConfig served_config(const DecoderServingSpec& spec) {
  DecoderServingConfig c;
  c.model = spec.model;
  c.io = spec.io;
  c.threads = spec.threads;
  c.seed = spec.seed;
  c.next_token = spec.next_token;
  c.step_timeout = spec.step_timeout;
  if (!spec.load.shapes.empty()) {
    std::vector<int64_t> in, out;
    for (const auto& s : spec.load.shapes) in.push_back(s.input_tokens), out.push_back(s.output_tokens);
    std::nth_element(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(in.size() / 2), in.end());
    std::nth_element(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(out.size() / 2), out.end());
    c.warmup_prompt = std::max<int64_t>(1, in[in.size() / 2]);
    c.warmup_gen = std::max<int64_t>(0, out[out.size() / 2] - 1);  // the prefill gives the first token
  }
  return c;
}

ServingPrediction predict_serving(const DecoderServingSpec& spec, const generative::BatcherSettings& batcher,
                                  const DecoderCalibration& cal) {
  // Each instance on virtual time of its own, from the same zero: the instances run side by side.
  const std::vector<generative::InstanceShare> shares = generative::split_load(spec.load, spec.instances);
  const generative::BatcherSettings b = for_one_instance(batcher, spec.instances);
  std::vector<generative::ServingRecords> parts;
  for (const auto& share : shares) {
    generative::NullExecutor simulated(cal.cost);
    parts.push_back(share.ids.empty() ? generative::ServingRecords{} : generative::serve(share.load, b, simulated));
  }
  const generative::ServingRecords sim = generative::merge_records(std::move(parts), shares);
  ServingPrediction p;
  p.summary = generative::summarize_serving(sim, spec.slo);
  p.valid = generative::judge_serving(sim, p.summary, spec.slo, spec.min_requests).valid;
  p.prefill_call_ms = cal.cost.per_prefill_call_ms;
  p.prefill_token_ms = cal.cost.per_prefill_token_ms;
  p.decode_call_ms = cal.cost.per_decode_call_ms;
  p.decode_row_ms = cal.cost.per_decode_row_ms;
  p.context_token_ms = cal.cost.per_context_token_ms;
  p.rebuilt_token_ms = cal.cost.per_rebuilt_token_ms;
  p.calibrated_at = cal.measured_at;
  p.cached = cal.cached;
  return p;
}

namespace {

// Progress over every instance: the requests settled so far, each tenth of the load.
class ServingProgress {
 public:
  ServingProgress(const DecoderServingSpec& spec, size_t instances)
      : spec_(spec), settled_(instances, 0), total_(static_cast<int64_t>(spec.load.shapes.size())) {}
  std::function<void(int64_t, int64_t)> hook(size_t instance) {
    if (!spec_.progress) return {};
    return [this, instance](int64_t finished, int64_t) {
      std::lock_guard<std::mutex> hold(lock_);
      settled_[instance] = finished;
      int64_t all = 0;
      for (int64_t n : settled_) all += n;
      if (all - last_shown_ < std::max<int64_t>(1, total_ / 10) && all != total_) return;
      last_shown_ = all;
      spec_.progress(std::to_string(all) + " of " + std::to_string(total_) + " requests finished");
    };
  }

 private:
  const DecoderServingSpec& spec_;
  std::mutex lock_;
  std::vector<int64_t> settled_;
  int64_t total_ = 0, last_shown_ = 0;
};

// One instance's share served on its decoder; the decoder's runner finishes unless a step failed.
generative::ServingRecords serve_share(const generative::InstanceShare& share, const generative::BatcherSettings& b,
                                       ServedDecoder& decoder, const generative::BatcherHooks& hooks) {
  ServedDecoderExecutor executor(decoder);
  generative::ServingRecords records = generative::serve(share.load, b, executor, hooks);
  if (records.fault.empty()) {
    try {
      decoder.finish();
    } catch (const BackendError&) {  // the records stand; the runner is gone with the decoder
    }
  }
  return records;
}

}  // namespace

ServingResult serve_live(const DecoderServingSpec& spec, const generative::BatcherSettings& batcher,
                         const KvBudget& budget, DecoderGeneration& generation) {
  generative::BatcherSettings whole = batcher;
  whole.kv_budget_tokens = budget.tokens;
  const generative::BatcherSettings b = for_one_instance(whole, spec.instances);
  const std::vector<generative::InstanceShare> shares = generative::split_load(spec.load, spec.instances);
  // Every instance loads before any serves: a loading runtime would take the cores of one already serving.
  std::vector<std::unique_ptr<ServedDecoder>> decoders(shares.size());
  for (size_t k = 0; k < shares.size(); ++k) {
    if (shares[k].ids.empty()) continue;
    if (spec.progress) spec.progress("loading " + spec.model + (shares.size() > 1 ? " (instance " + std::to_string(k) + ")" : ""));
    decoders[k] = generation.serve(served_config(spec));
  }
  if (spec.progress) spec.progress("serving " + std::to_string(spec.load.shapes.size()) + " requests");
  std::mutex sink_lock;
  ServingProgress progress(spec, shares.size());
  std::vector<generative::ServingRecords> parts(shares.size());
  std::vector<std::unique_ptr<generative::InstanceSink>> sinks(shares.size());
  std::vector<generative::BatcherHooks> hooks(shares.size());
  for (size_t k = 0; k < shares.size(); ++k) {
    if (spec.sink) sinks[k] = std::make_unique<generative::InstanceSink>(*spec.sink, sink_lock, shares[k], k == 0);
    hooks[k].sink = sinks[k].get();
    hooks[k].interrupted = spec.interrupted;
    hooks[k].progress = progress.hook(k);
  }
  if (shares.size() == 1) {
    parts[0] = serve_share(shares[0], b, *decoders[0], hooks[0]);
  } else {
    std::vector<std::thread> running;
    for (size_t k = 0; k < shares.size(); ++k)
      if (decoders[k]) running.emplace_back([&, k] { parts[k] = serve_share(shares[k], b, *decoders[k], hooks[k]); });
    for (auto& t : running) t.join();
  }
  const generative::ServingRecords records = generative::merge_records(std::move(parts), shares);

  ServingResult r;
  r.settings = echo_settings(spec, whole, budget.source, decoders[0]->threads());
  for (const auto& d : decoders)
    if (d) r.settings.warmup_requests = std::max(r.settings.warmup_requests, d->warmup_requests());
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
  // timed in runners of their own (cached) — nothing of the run it predicts.
  std::optional<ServingPrediction> predicted;
  if (spec.predict)
    predicted = predict_serving(spec, b, calibrate_decoder(generation, served_config(spec),
                                                          calibration_span(spec.load.shapes), b.max_batch, spec.progress));
  ServingResult r = serve_live(spec, b, budget, generation);
  r.predicted = std::move(predicted);
  return r;
}

}  // namespace rooflens::capacity
