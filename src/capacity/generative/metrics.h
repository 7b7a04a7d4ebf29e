#pragma once
// What a generative serving run measured, by the names vLLM's benchmark_serving and AIPerf give them, and its verdict
// against TTFT/TPOT objectives as MLPerf Inference judges its LLM server scenarios (docs/capacity.md has the
// formulas). Per request, from its scheduled arrival:
//   queue  = admitted - scheduled                  TTFT = first token - scheduled
//   E2E    = last token - scheduled                ITL  = the gaps between its consecutive tokens
//   TPOT   = (E2E - TTFT) / (output tokens - 1)    (requests of one output token have none)
//   tokens/s per user = 1 / TPOT
// Over the run (duration: the start to the last token of any request):
//   request_throughput = completed / duration      output_tokens_per_s = output tokens of completed / duration
//   goodput = requests that met every objective / duration (DistServe's definition, as vLLM and AIPerf use it)
// Percentiles are nearest-rank (a value that was measured), as everywhere in rooflens.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "capacity/generative/batcher.h"

namespace rooflens::capacity::generative {

struct Distribution {
  int64_t n = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
};
Distribution distribution_of(std::vector<double> values);

struct RequestMetrics {
  double queue_ms = 0, ttft_ms = 0, e2e_ms = 0;
  std::optional<double> tpot_ms;  // none for one output token
  std::vector<double> itl_ms;
};
RequestMetrics request_metrics(const RequestRecord& r);  // for a completed request

// Service-level objectives: a limit on each metric (0: none) at a percentile.
struct Slo {
  double ttft_ms = 0, tpot_ms = 0, e2e_ms = 0;
  double percentile = 99;
  std::string preset;  // the MLPerf benchmark whose limits these are, or ""
  bool any() const { return ttft_ms > 0 || tpot_ms > 0 || e2e_ms > 0; }
};

// A request met every objective (its own TTFT, TPOT and E2E under each limit).
bool met(const RequestMetrics& m, const Slo& slo);

struct SloPreset {
  const char* name;
  double ttft_ms, tpot_ms;
};
// MLPerf Inference's LLM server limits (p99 TTFT and TPOT), as its LoadGen configuration states them
// (mlcommons/inference, loadgen/mlperf.conf: `<model>.Server.ttft_latency` / `tpot_latency`).
const std::vector<SloPreset>& slo_presets();
std::optional<Slo> preset_slo(const std::string& name);

struct ServingSummary {
  int64_t requests = 0, completed = 0, failed = 0, rejected = 0, abandoned = 0, waited_for_kv = 0;
  double duration_s = 0;
  double request_throughput = 0, output_tokens_per_s = 0, input_tokens_per_s = 0, total_tokens_per_s = 0;
  Distribution queue_ms, ttft_ms, tpot_ms, itl_ms, e2e_ms, tokens_per_s_per_user;
  int64_t good = 0;    // completed requests that met every objective
  double goodput = 0;  // good / duration
};
ServingSummary summarize_serving(const ServingRecords& records, const Slo& slo);

struct ServingVerdict {
  bool valid = false;
  std::vector<std::string> reasons;  // INVALID: each reason, with what to do
};

// VALID when every limit holds at the percentile with MLPerf's early-stopping bound applied to each (confidence
// 99%: with t of n requests over a limit, n must reach h(t) + t; capacity/loadgen/early_stopping.h), at least
// `min_requests` completed, and none failed, was rejected or abandoned.
ServingVerdict judge_serving(const ServingRecords& records, const ServingSummary& summary, const Slo& slo,
                             int64_t min_requests, double confidence = 0.99);

}  // namespace rooflens::capacity::generative
