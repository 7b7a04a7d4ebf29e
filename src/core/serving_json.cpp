#include "core/serving_json.h"

#include "core/serving_items.h"

namespace rooflens {

ROOFLENS_JSON_FIELDS(ServingDistribution, n, mean, p50, p90, p95, p99, max)
ROOFLENS_JSON_FIELDS(ServingSummary, requests, completed, failed, rejected, abandoned, waited_for_kv, duration_s,
                     request_throughput, output_tokens_per_s, input_tokens_per_s, total_tokens_per_s, queue_ms, ttft_ms,
                     tpot_ms, itl_ms, e2e_ms, tokens_per_s_per_user, good, goodput)
ROOFLENS_JSON_FIELDS(ServingVerdict, valid, reasons)
ROOFLENS_JSON_FIELDS(ServingSettings, scenario, rate, burstiness, users, requests, lengths, seed, batching, prefill,
                     max_batch, max_batched_tokens, kv_budget_tokens, kv_bytes_per_token, kv_budget_source, threads,
                     instances, next_token, slo_ttft_ms, slo_tpot_ms, slo_e2e_ms, percentile, slo_preset)
ROOFLENS_JSON_FIELDS(ServingSamples, ttft_ms, tpot_ms)
ROOFLENS_JSON_FIELDS(ServingPrediction, summary, valid, prefill_call_ms, prefill_token_ms, decode_call_ms, decode_row_ms,
                     context_token_ms, rebuilt_token_ms, calibrated_at, cached)

void to_json(json& j, const ServingResult& s) {
  json settings = s.settings;
  if (s.settings.warmup_requests > 0) settings["warmup_requests"] = s.settings.warmup_requests;  // when there was one
  j = json{{"settings", std::move(settings)}, {"summary", s.summary}};
  if (!s.samples.empty()) j["samples"] = s.samples;  // reports before them round-trip unchanged
  j["verdict"] = s.verdict;
  if (s.predicted) j["predicted"] = *s.predicted;
  j.update(json{{"steps", s.steps}, {"max_batch_seen", s.max_batch_seen}, {"kv_copy_bytes", s.kv_copy_bytes},
                {"step_busy_s", s.step_busy_s}, {"scheduler_s", s.scheduler_s}, {"fault", s.fault},
                {"interrupted", s.interrupted}});
  if (!s.measured_by.empty()) j.update(json{{"measured_by", s.measured_by}, {"not_given", s.not_given}});
}

void from_json(const json& j, ServingResult& s) {
  if (!j.contains("settings") || !j.at("settings").is_object() || j.at("settings").contains("instances")) {
    read_field(j, "settings", s.settings);
  } else {  // written before decoders served on several instances: one
    json settings = j.at("settings");
    settings["instances"] = 1;
    settings.get_to(s.settings);
  }
  if (j.contains("settings") && j.at("settings").is_object() && j.at("settings").contains("warmup_requests"))
    s.settings.warmup_requests = checked_integer<int64_t>(j.at("settings").at("warmup_requests"), "warmup_requests");
  read_field(j, "summary", s.summary);
  if (j.contains("samples")) read_field(j, "samples", s.samples);
  read_field(j, "verdict", s.verdict);
  if (j.contains("predicted")) {
    json predicted = j.at("predicted");
    // written before the step model charged the KV rebuild: it predicted with none
    if (predicted.is_object() && !predicted.contains("rebuilt_token_ms")) predicted["rebuilt_token_ms"] = 0.0;
    s.predicted = predicted.get<ServingPrediction>();
  }
  read_field(j, "steps", s.steps);
  read_field(j, "max_batch_seen", s.max_batch_seen);
  read_field(j, "kv_copy_bytes", s.kv_copy_bytes);
  read_field(j, "step_busy_s", s.step_busy_s);
  read_field(j, "scheduler_s", s.scheduler_s);
  read_field(j, "fault", s.fault);
  read_field(j, "interrupted", s.interrupted);
  if (j.contains("measured_by")) {
    read_field(j, "measured_by", s.measured_by);
    read_field(j, "not_given", s.not_given);
  }
}

ROOFLENS_JSON_FIELDS(DecodeStepOnRoof, batch, flops, bytes, kv_bytes, bound, roof, floor_ms, calibrated_ms,
                     tokens_per_s_ceiling)
ROOFLENS_JSON_FIELDS(ServingRoofline, context, threads, weight_bytes, kv_bytes_per_token, steps, compute_bound_from,
                     kv_outweighs_weights_from)
ROOFLENS_JSON_FIELDS(ServingSearch, kind, axis, runs, peak, lower, upper, precision, converged, predicted_peak, stopped,
                     pareto, knee)

std::string serving_settings_json(const Report& r) {
  const std::vector<const ServingResult*> runs = serving_runs(r);
  if (runs.empty()) return "{}";
  json j = runs.front()->settings;
  if (r.serving_search) j["search"] = r.serving_search->kind + " " + r.serving_search->axis;
  return j.dump();
}

}  // namespace rooflens
