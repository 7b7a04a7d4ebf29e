#pragma once
// Decoder generation, a backend capability (`rooflens generate`): Backend::generation() hands it out when the
// backend can run a decoder with a KV cache step by step. One generate() call = one configuration (batch, prompt
// length, decode steps) in a fresh runtime process: load, timed requests with profiling off (prefill, then decode
// steps feeding present back as past inside the runtime), then, when asked, one profiled session giving the kernels
// of a prefill step and of the last decode step. The record is neutral: the generate driver (src/generate/) turns
// it into a GenerationRun.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/measurement.h"
#include "core/report_generation.h"
#include "core/timing.h"

namespace rooflens {

struct GenerationConfig {
  std::filesystem::path model;
  DecoderIo io;
  int64_t batch = 1, prompt = 0, gen = 0;
  NextToken next_token = NextToken::greedy;
  uint64_t seed = 0;             // prompt ids (and fixed tokens)
  int64_t threads = 0;           // intra-op threads, 0 = backend default
  // One request counts as one iteration: warm-up requests (warmup_iterations, warmup_ms), measured requests
  // (iterations, duration_s, capped by max_iterations, max_duration_s); profile_iterations per profiled phase;
  // layers: profile the phases at all. adaptive is not supported.
  TimingOptions timing;
  bool return_logits = false;    // keep the first measured request's last-position logits per step (tests)
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};  // per stage
  std::filesystem::path work_dir;
};

struct RequestTiming {           // one measured request, ms
  double ttft_ms = 0;            // feeds ready -> first tokens chosen (prefill)
  double prefill_run_ms = 0;     // the prefill's run call alone
  std::vector<double> steps_ms;  // per decode step: previous tokens chosen -> its tokens chosen
  std::vector<double> step_runs_ms;  // per decode step: the run call alone
};

// One profiled step of a phase, as the neutral record every source yields (core/measurement.h): its
// profiled_latencies_ms, profiled_runs_ms, kernels and executed_graph are set (no timed samples: the requests
// above are the timing); assemble_run turns it into layers.
struct PhaseMeasurement {
  int64_t tokens = 0, past = 0;  // tokens per sequence fed, cached tokens attended to besides them
  Measurement step;
};

struct GenerationMeasurement {
  double load_ms = 0;
  std::vector<RequestTiming> requests;
  double wall_s = 0;
  std::string stop_reason;
  uint64_t peak_rss_bytes = 0;   // after the timed requests (before a profiled session exists)
  // The runner's memory (memory.runner: start, after the session, the timed requests' peak; absent when the runner
  // does not say), each phase's, the caller's side and the memory generation's: the measurement, kept apart from what
  // the prediction may use.
  DecoderMemoryMeasured memory;
  // The prediction's: the runtime's baseline (a calibration constant, measured in a process of its own) and the
  // copies of each output its binding makes for the caller.
  uint64_t runtime_baseline_bytes = 0;
  uint64_t runtime_baseline_run_bytes = 0;  // of it, what its first run added (Measurement's field of that name)
  int64_t output_copies = 0;
  int64_t threads = 0;           // intra-op threads the runtime used
  std::vector<std::vector<int64_t>> tokens;      // per sequence, first measured request: every generated id
  std::vector<std::vector<int64_t>> prompt_ids;  // per sequence (return_logits only)
  std::vector<std::vector<float>> logits;        // per step, prefill first: [batch * vocab] (return_logits only)
  std::optional<PhaseMeasurement> prefill, decode;
  std::string profile_error;     // the profiled run failed (the timed requests stand): why, in one line
  std::vector<std::string> warnings;  // what the source noticed (an unreadable executed graph, ...)
};

class DecoderGeneration {
 public:
  virtual ~DecoderGeneration() = default;
  // Throws BackendError (stage load | run | profile) like Backend::run.
  virtual GenerationMeasurement generate(const GenerationConfig& config) = 0;
};

}  // namespace rooflens
