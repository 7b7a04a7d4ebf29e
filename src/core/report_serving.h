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

// The stored percentile nearest `p` from below (p50, p90, p95, p99) and its name: a value that lies at or under the
// p-th percentile, so "over a limit" read from it holds for the p-th too.
struct StoredPercentile {
  double value = 0;
  const char* name = "p50";
};
inline StoredPercentile at_or_below(const ServingDistribution& d, double p) {
  if (p >= 99) return {d.p99, "p99"};
  if (p >= 95) return {d.p95, "p95"};
  if (p >= 90) return {d.p90, "p90"};
  return {d.p50, "p50"};
}

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
  int64_t threads = 0;               // intra-op threads the runtime used (each instance's)
  int64_t instances = 1;             // runtime processes serving side by side, round-robin
  std::string next_token;            // "fixed" | "greedy"
  double slo_ttft_ms = 0, slo_tpot_ms = 0, slo_e2e_ms = 0, percentile = 99;
  std::string slo_preset;
  // Untimed generations each instance made before the load began (the most of any instance; 0: none, and reports
  // written before the warm-up existed): at least two, on until a request's time stopped falling.
  int64_t warmup_requests = 0;
};

// One decode step of `batch` rows, each over `context` tokens, on the roofline (capacity/decode_roofline.h).
struct DecodeStepOnRoof {
  int64_t batch = 0;
  double flops = 0, bytes = 0;  // the analysis at the step's shapes
  double kv_bytes = 0;          // of `bytes`: the KV cache the step reads (batch × context × bytes per token)
  std::string bound, roof;      // "memory" | "compute"; the ceiling that limits it
  double floor_ms = 0;          // flops / what that ceiling allows: no step of this shape can be faster
  double calibrated_ms = 0;     // the calibrated step time (0: --no-predict)
  double tokens_per_s_ceiling = 0;  // batch / floor: the most decode tokens/s the roofs allow at this batch
};

// Why decode throughput grows with the batch until it does not: each step reads the weights once whatever its rows,
// so up to the batch where its FLOPs reach the compute roof, more rows cost little time.
struct ServingRoofline {
  int64_t context = 0;   // tokens per row the steps are placed at (the run's mean prompt + half its mean output)
  int64_t threads = 0;
  double weight_bytes = 0, kv_bytes_per_token = 0;
  std::vector<DecodeStepOnRoof> steps;   // batch 1, 2, 4, ... up to the largest max batch run
  int64_t compute_bound_from = 0;        // the first batch whose step is compute-bound (0: none up to 4096)
  int64_t kv_outweighs_weights_from = 0; // at the largest batch shown: the context per row past which the KV cache a
                                         // step reads outweighs the weights
};

// What the simulation of the same scheduler and load predicted before the live run, on step times fitted to calls
// timed in a calibration of its own (capacity/generative/step_model.h): calibration constants, never a figure of the
// run it predicts.
struct ServingPrediction {
  ServingSummary summary;
  bool valid = false;  // the simulated run's verdict
  double prefill_call_ms = 0, prefill_token_ms = 0;                   // a prompt alone in its call
  double decode_call_ms = 0, decode_row_ms = 0, context_token_ms = 0;  // a decode call of B rows over C context
  double rebuilt_token_ms = 0;  // each context token copied when the decode batch's membership changed
  std::string calibrated_at;  // ISO 8601 UTC: when the calls were timed
  bool cached = false;        // read from the cache (an earlier command measured them)
};

// Each completed request's own TTFT and TPOT (ms), in the order the requests were scheduled: what the results database
// keeps and `compare` tests (percentiles alone allow no significance test). Empty where a file gave only a summary.
struct ServingSamples {
  std::vector<double> ttft_ms, tpot_ms;  // tpot: requests of two output tokens or more
  bool empty() const { return ttft_ms.empty() && tpot_ms.empty(); }
};

struct ServingResult {
  ServingSettings settings;
  ServingSummary summary;
  ServingSamples samples;
  ServingVerdict verdict;
  std::optional<ServingPrediction> predicted;  // absent with --no-predict
  int64_t steps = 0, max_batch_seen = 0, kv_copy_bytes = 0;
  double step_busy_s = 0, scheduler_s = 0;  // the steps' own time; the scheduler's between them
  std::string fault;
  bool interrupted = false;
  // A run another tool measured (`import vllm|aiperf`): that tool, and the figures its file did not give
  // ("ttft_ms.p90", "queue_ms", "goodput"), which reporters show as "-", never as 0. Not judged: the files keep no
  // objectives. "" and none for a run rooflens served.
  std::string measured_by;
  std::vector<std::string> not_given;
};

// `--find-peak` or `--sweep` on a decoder: every live run in the order run, each with what the simulation predicted
// for it (capacity/search_decoder.h).
struct ServingSearch {
  std::string kind;   // "find-peak" | "sweep"
  std::string axis;   // find-peak: "qps" | "users"; sweep: "max-batch" | "users" | "qps"
  std::vector<ServingResult> runs;
  // find-peak: the highest VALID point and the bracket (0: none), the same search on the simulation
  double peak = 0, lower = 0, upper = 0, precision = 0;
  bool converged = false;
  double predicted_peak = 0;  // 0: nothing VALID in the simulation, or --no-predict
  std::string stopped;        // why the search ended before it converged, or ""
  // sweep: the Pareto front of (output_tokens_per_s, tokens_per_s_per_user.mean) over the runs, by machine tokens/s,
  // and its knee (stats/pareto.h); indices into `runs`
  std::vector<int64_t> pareto;
  int64_t knee = -1;
};

}  // namespace rooflens
