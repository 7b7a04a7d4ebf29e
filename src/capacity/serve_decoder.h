#pragma once
// `rooflens capacity` on a decoder: the generative scenarios (docs/capacity.md, "Generative serving"). A backend's
// served decoder runs the steps capacity/generative's scheduler decides; the run becomes the report's `serving`
// section: what it ran with, the vLLM/AIPerf metrics, the goodput and MLPerf's verdict.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "backends/backend.h"
#include "capacity/calibrate_decoder.h"
#include "capacity/generative/batcher.h"
#include "capacity/generative/metrics.h"
#include "core/report_generation.h"
#include "core/report_serving.h"

namespace rooflens::capacity {

struct DecoderServingSpec {
  std::string model;
  DecoderIo io;                         // generate/decoder_io.h detected it
  generative::LoadPlan load;            // the requests: their lengths and when they arrive
  std::string lengths;                  // as the report says them ("128 in / 32 out", "trace FILE")
  generative::BatcherSettings batcher;  // kv_budget_tokens is filled from kv_budget_bytes
  uint64_t kv_budget_bytes = 0;         // 0: half the memory free at the start
  generative::Slo slo;
  int64_t min_requests = 1;
  int64_t threads = 0;                  // 0: the backend's choice (always passed explicitly; read back); per instance
  int64_t instances = 1;                // runtime processes side by side, round-robin (generative/instances.h)
  uint64_t seed = 0;
  NextToken next_token = NextToken::fixed;
  std::chrono::milliseconds step_timeout{std::chrono::minutes(2)};
  bool predict = true;  // simulate the same scheduler and load first, on step times calibrated in runners of their own
  generative::RequestSink* sink = nullptr;
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(const std::string&)> progress;
};

// Serves the requests; BackendError when the runtime cannot load the decoder (a failed step is the result's fault).
ServingResult serve_decoder(const DecoderServingSpec& spec, Backend& backend);

// The pieces serve_decoder is made of, for the searches that serve many points (search_decoder.h).
struct KvBudget {
  int64_t tokens = 0;  // 0: none
  std::string source;  // "--kv-budget" | "half the free memory (...)" | "none"
};
KvBudget resolve_kv_budget(const DecoderServingSpec& spec);  // read once: free memory moves as points run
DecoderGeneration& generation_of(Backend& backend);          // UserError when the backend cannot serve steps
DecoderServingConfig served_config(const DecoderServingSpec& spec);
// The same scheduler, load and settings on virtual time with the calibrated step times.
ServingPrediction predict_serving(const DecoderServingSpec& spec, const generative::BatcherSettings& batcher,
                                  const DecoderCalibration& calibration);
// One live run with its KV budget resolved into `batcher`.
ServingResult serve_live(const DecoderServingSpec& spec, const generative::BatcherSettings& batcher,
                         const KvBudget& budget, DecoderGeneration& generation);

}  // namespace rooflens::capacity
