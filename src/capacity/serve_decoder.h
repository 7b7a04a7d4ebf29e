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
  int64_t threads = 0;                  // 0: the backend's choice (always passed explicitly; read back)
  uint64_t seed = 0;
  NextToken next_token = NextToken::fixed;
  std::chrono::milliseconds step_timeout{std::chrono::minutes(2)};
  bool predict = true;  // simulate the same scheduler and load first, on step times calibrated in a runner of its own
  generative::RequestSink* sink = nullptr;
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(const std::string&)> progress;
};

// Serves the requests; BackendError when the runtime cannot load the decoder (a failed step is the result's fault).
ServingResult serve_decoder(const DecoderServingSpec& spec, Backend& backend);

}  // namespace rooflens::capacity
