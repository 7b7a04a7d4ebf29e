#pragma once
// The report's `serving` section: `rooflens capacity` on a decoder — a generative serving run (docs/capacity.md,
// "Generative serving"; schema in docs/report-schema.md). The metric names are vLLM's and AIPerf's; the verdict is
// MLPerf's LLM server rule (capacity/generative/metrics.h computes every figure).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooflens {

struct ServingDistribution {
  int64_t n = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
};

struct ServingSummary {
  int64_t requests = 0, completed = 0, failed = 0, rejected = 0, abandoned = 0, waited_for_kv = 0;
  double duration_s = 0;  // the run's start to the last token of any request
  double request_throughput = 0, output_tokens_per_s = 0, input_tokens_per_s = 0, total_tokens_per_s = 0;
  ServingDistribution queue_ms, ttft_ms, tpot_ms, itl_ms, e2e_ms, tokens_per_s_per_user;
  int64_t good = 0;    // completed requests that met every objective
  double goodput = 0;  // good / duration (requests/s)
};

struct ServingVerdict {
  bool valid = false;
  std::vector<std::string> reasons;  // INVALID: each reason, with what to do
};

// What the run was asked to do and what it ran with (the levers as the scheduler and the runtime used them).
struct ServingSettings {
  std::string scenario;              // "server" | "concurrency" | "offline" | "trace"
  double rate = 0, burstiness = 1;   // server: requests/s, the gaps' gamma shape
  int64_t users = 0;                 // concurrency
  int64_t requests = 0;
  std::string lengths;               // "128 in / 32 out", "mixture ...", "trace FILE"
  uint64_t seed = 0;
  std::string batching, prefill;     // "continuous" | "static"; "separate" | "chunked"
  int64_t max_batch = 0, max_batched_tokens = 0;
  int64_t kv_budget_tokens = 0;      // 0: none
  int64_t kv_bytes_per_token = 0;    // keys and values of every layer, one token
  std::string kv_budget_source;      // "--kv-budget" | "free memory" | "none"
  int64_t threads = 0;               // intra-op threads the runtime used
  std::string next_token;            // "fixed" | "greedy"
  double slo_ttft_ms = 0, slo_tpot_ms = 0, slo_e2e_ms = 0, percentile = 99;
  std::string slo_preset;
};

// What the simulation of the same scheduler and load predicted before the live run, on step times fitted to calls
// timed in a calibration of its own (capacity/generative/step_model.h): calibration constants, never a figure of the
// run it predicts.
struct ServingPrediction {
  ServingSummary summary;
  double prefill_call_ms = 0, prefill_token_ms = 0;                   // a prompt alone in its call
  double decode_call_ms = 0, decode_row_ms = 0, context_token_ms = 0;  // a decode call of B rows over C context
  std::string calibrated_at;  // ISO 8601 UTC: when the calls were timed
  bool cached = false;        // read from the cache (an earlier command measured them)
};

struct ServingResult {
  ServingSettings settings;
  ServingSummary summary;
  ServingVerdict verdict;
  std::optional<ServingPrediction> predicted;  // absent with --no-predict
  int64_t steps = 0, max_batch_seen = 0, kv_copy_bytes = 0;
  double step_busy_s = 0, scheduler_s = 0;  // the steps' own time; the scheduler's between them
  std::string fault;
  bool interrupted = false;
};

}  // namespace rooflens
