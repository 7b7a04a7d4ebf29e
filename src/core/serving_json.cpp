#include "core/serving_json.h"

namespace rooflens {

ROOFLENS_JSON_FIELDS(ServingDistribution, n, mean, p50, p90, p95, p99, max)
ROOFLENS_JSON_FIELDS(ServingSummary, requests, completed, failed, rejected, abandoned, waited_for_kv, duration_s,
                     request_throughput, output_tokens_per_s, input_tokens_per_s, total_tokens_per_s, queue_ms, ttft_ms,
                     tpot_ms, itl_ms, e2e_ms, tokens_per_s_per_user, good, goodput)
ROOFLENS_JSON_FIELDS(ServingVerdict, valid, reasons)
ROOFLENS_JSON_FIELDS(ServingSettings, scenario, rate, burstiness, users, requests, lengths, seed, batching, prefill,
                     max_batch, max_batched_tokens, kv_budget_tokens, kv_bytes_per_token, kv_budget_source, threads,
                     next_token, slo_ttft_ms, slo_tpot_ms, slo_e2e_ms, percentile, slo_preset)
ROOFLENS_JSON_FIELDS(ServingResult, settings, summary, verdict, steps, max_batch_seen, kv_copy_bytes, step_busy_s,
                     scheduler_s, fault, interrupted)

}  // namespace rooflens
