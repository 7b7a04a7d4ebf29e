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
#include "capacity/loadgen/early_stopping.h"
#include "core/report_serving.h"

namespace rooflens::capacity::generative {

ServingDistribution distribution_of(std::vector<double> values);

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

ServingSummary summarize_serving(const ServingRecords& records, const Slo& slo);
// The completed requests' TTFT and TPOT, in the order they were scheduled.
ServingSamples serving_samples(const ServingRecords& records);

// VALID when every limit holds at the percentile with MLPerf's early-stopping bound applied to each (confidence
// 99%: with t of n requests over a limit, n must reach h(t) + t; capacity/loadgen/early_stopping.h), at least
// `min_requests` completed, and none failed, was rejected or abandoned.
ServingVerdict judge_serving(const ServingRecords& records, const ServingSummary& summary, const Slo& slo,
                             int64_t min_requests, double confidence = kMlperfConfidence);

}  // namespace rooflens::capacity::generative
