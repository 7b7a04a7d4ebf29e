#pragma once
// `rooflens generate`: a decoder language model measured per phase. One options struct, one driver. The decoder's
// I/O convention is detected first (decoder_io.h); then for every prompt length x decode steps x batch of the grid
// the backend's decoder generation runs in a fresh process: timed requests (one prefill, then decode steps feeding
// present back as past inside the runtime), then a profiled prefill step and decode step whose kernels are mapped
// to ONNX nodes and placed on the roofline. With --repeat N, N-1 more timed runs per configuration, round-robin.
// The report (a Report with `generation`) is rewritten atomically after every run.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/generation.h"
#include "core/report.h"

namespace rooflens {

struct GenerateOptions {
  std::string model;
  BackendSpec backend;
  std::vector<int64_t> prompts{128};  // prompt tokens per sequence
  std::vector<int64_t> gens{32};      // decode steps per request
  std::vector<int64_t> batches{1};    // sequences per request
  int threads = 0;                    // intra-op threads, 0 = backend default
  NextToken next_token = NextToken::greedy;
  uint64_t seed = 0;                  // prompt ids (and fixed tokens)
  GenerationTiming timing;           // defaults: 1 warm-up request, at least 5 measured ones, no minimum duration
  int repeat = 1;                     // timed runs per configuration, each in a fresh runner
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};
  std::string report_path;            // -f; "" = not written while running
};

struct GenerateConfig {
  int64_t prompt = 0, gen = 0, batch = 1;
};

// prompts x gens x batches, in that nesting order.
std::vector<GenerateConfig> expand_generate_grid(const GenerateOptions& o);

struct GenerateHooks {
  std::function<void(const std::string& what, size_t done, size_t total)> progress;
  const std::atomic<bool>* interrupted = nullptr;  // set from outside (Ctrl-C): stop after the current step
  std::function<void(const std::string& warning)> warn;  // said before a configuration runs (also in the report)
};

// Runs the grid. Throws UserError when the model is not a decoder rooflens can drive (one line naming what is
// missing) and UsageError when the backend has no decoder generation; failures of single configurations are
// recorded in report.failures (dims {"prompt", "gen"}).
Report run_generate(const GenerateOptions& o, Backend& backend, const HardwareInfo* hw, const GenerateHooks& hooks);

}  // namespace rooflens
