#pragma once
// Decoder generation, a backend capability (`rooflens generate`): Backend::generation() hands it out when the backend
// can run a decoder with a KV cache step by step. One generate() call = one configuration (batch, prompt length, decode
// steps) in a fresh runtime process: load, timed requests with profiling off (prefill, then decode steps feeding
// present back as past inside the runtime), then, when asked, one profiled inference session giving the kernels of a
// prefill step and of the last decode step. The record is neutral: the generate driver (src/generate/) turns it into a
// GenerationRun.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/decoder_step.h"
#include "core/measurement.h"
#include "core/report_generation.h"
#include "core/timing.h"

namespace rooflens {

// How one generate configuration is timed, counted in requests (one request: one generation, a prompt in and its
// tokens out) — what `--warmup`, `--requests` and `--max-requests` set. The runner protocol's `timing` object counts
// iterations of a loop: a request is the generation loop's iteration, so as_iterations() writes the one as the other.
// adaptive is not supported (a request is too long to stop on an interval).
struct GenerationTiming {
  int warmup_requests = 1;       // warm-up requests (also the profiled steps' warm-up runs): at least this many...
  double warmup_ms = 0;          // ...and at least this long (milliseconds)
  int requests = 5;              // measured requests (profiling off): at least this many...
  double duration_s = 0;         // ...and at least this long (seconds)
  int max_requests = 100000;     // caps on the measured requests
  double max_duration_s = 600;
  int profile_iterations = 5;    // profiled runs of each phase's step
  bool layers = true;            // profile the phases at all

  TimingOptions as_iterations() const {
    TimingOptions t;
    t.warmup_iterations = warmup_requests;
    t.warmup_ms = warmup_ms;
    t.iterations = requests;
    t.duration_s = duration_s;
    t.max_iterations = max_requests;
    t.max_duration_s = max_duration_s;
    t.adaptive = false;
    t.profile_iterations = profile_iterations;
    t.layers = layers;
    return t;
  }
};

struct GenerationConfig {
  std::filesystem::path model;
  DecoderIo io;
  int64_t batch = 1, prompt = 0, gen = 0;
  NextToken next_token = NextToken::greedy;
  uint64_t seed = 0;             // prompt ids (and fixed tokens)
  int64_t threads = 0;           // intra-op threads, 0 = backend default
  GenerationTiming timing;
  bool return_logits = false;    // keep the first measured request's last-position logits per step (tests)
  std::chrono::milliseconds timeout{std::chrono::minutes(15)};  // per stage
  std::filesystem::path work_dir;
};

struct RequestTiming {           // one measured request, ms
  double ttft_ms = 0;            // feeds ready -> first tokens chosen (prefill)
  double prefill_run_ms = 0;     // the prefill's run call alone
  std::vector<double> steps_ms;  // per decode step: previous tokens chosen -> its tokens chosen
  std::vector<double> step_runs_ms;  // per decode step: the run call alone
  // The process's minor page faults over the prefill and over each decode step (counted outside the clocks; absent or
  // empty when the source does not count them): a step that touches fresh memory pays a fault per page in its time.
  std::optional<int64_t> prefill_page_faults;
  std::vector<int64_t> step_page_faults;
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
  int64_t warmup_requests = 0;   // warm-up requests that ran (at least the timing's; more while requests got faster)
  std::string stop_reason;
  uint64_t peak_rss_bytes = 0;   // after the timed requests (before a profiled inference session exists)
  // The runner's memory (memory.runner: start, after the inference session, the timed requests' peak; absent when the
  // runner does not say), each phase's, the caller's side and the memory generation's: the measurement, kept apart from
  // what the prediction may use.
  DecoderMemoryMeasured memory;
  // The prediction's: the runtime's baseline (a calibration constant, measured in a process of its own) and the
  // copies of each output its binding makes for the caller.
  uint64_t runtime_baseline_bytes = 0;
  uint64_t runtime_baseline_run_bytes = 0;  // of it, what its first run added (Measurement's field of that name)
  int64_t output_copies = 0;
  // Why the runtime's memory cannot be predicted (Measurement::memory_not_predicted: ONNX Runtime Web's); empty: it is.
  std::string memory_not_predicted;
  int64_t threads = 0;           // intra-op threads the runtime used
  std::vector<std::vector<int64_t>> tokens;      // per sequence, first measured request: every generated id
  std::vector<std::vector<int64_t>> prompt_ids;  // per sequence (return_logits only)
  std::vector<std::vector<float>> logits;        // per step, prefill first: [batch * vocab] (return_logits only)
  std::optional<PhaseMeasurement> prefill, decode;
  std::string profile_error;     // the profiled run failed (the timed requests stand): why, in one line
  std::vector<std::string> warnings;  // what the source noticed (an unreadable executed graph, ...)
};

// Serving a decoder step by step (`rooflens capacity` on a decoder): the scheduler (capacity/generative) decides each
// step's rows, the served decoder runs them in its runtime process and keeps every sequence's KV cache there.
struct DecoderServingConfig {
  std::filesystem::path model;
  DecoderIo io;
  int64_t threads = 0;           // intra-op threads, 0 = backend default
  uint64_t seed = 0;             // prompt ids and fixed tokens are drawn from it
  NextToken next_token = NextToken::fixed;
  bool keep_tokens = false;      // keep every generated id (tests: served tokens against generated ones)
  std::chrono::milliseconds step_timeout{std::chrono::minutes(2)};
  std::chrono::milliseconds load_timeout{std::chrono::minutes(10)};
  // Generations of this shape the runtime process makes before it serves (warmup_prompt 0: none) — at least
  // warmup_requests, and on until a request's time stops falling: a fresh process's first requests can be several
  // times slower than the rest (docs/memory.md), which would set a short run's p99 TTFT.
  int64_t warmup_prompt = 0, warmup_gen = 0;
  int warmup_requests = 2;
};

class ServedDecoder {
 public:
  virtual ~ServedDecoder() = default;
  // Throws BackendError (stage run) when the step fails, the process dies or the step times out.
  virtual DecoderStepTimes step(const DecoderStep& step) = 0;
  // Every generated id per request (keep_tokens), and the serving ends.
  virtual std::map<int64_t, std::vector<int64_t>> finish() = 0;
  virtual int64_t threads() const = 0;  // intra-op threads the runtime uses
  virtual int64_t warmup_requests() const { return 0; }  // generations made before serving (none: 0)
};

class DecoderGeneration {
 public:
  virtual ~DecoderGeneration() = default;
  // Throws BackendError (stage load | run | profile) like Backend::run.
  virtual GenerationMeasurement generate(const GenerationConfig& config) = 0;
  // A fresh runtime process with the decoder loaded, ready for steps. Throws BackendError (stage load).
  virtual std::unique_ptr<ServedDecoder> serve(const DecoderServingConfig& config) = 0;
};

}  // namespace rooflens
