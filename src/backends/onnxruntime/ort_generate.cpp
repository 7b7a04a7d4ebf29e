#include "backends/onnxruntime/ort_generate.h"

#include <algorithm>
#include <string>
#include <utility>

#include "backends/onnxruntime/ort_dispatch.h"
#include "backends/onnxruntime/ort_measure.h"
#include "backends/onnxruntime/ort_settings.h"
#include "backends/onnxruntime/ort_wasm_roofs.h"
#include "backends/onnxruntime/ort_web_memory.h"

namespace rooflens::ort {
namespace {

// ONNX element type names (the report's) -> onnxruntime-node's.
std::string js_dtype(const std::string& onnx) {
  if (onnx == "float") return "float32";
  if (onnx == "double") return "float64";
  return onnx;  // float16, int64, int32 are spelled alike
}

// One phase's measured runs of the profiled inference session as the neutral record: kernels summed per node per run.
PhaseMeasurement phase_measurement(const OrtProfile& profile, const PhaseRuns& p,
                                   const std::optional<GraphView>& executed, int64_t threads,
                                   const std::string& roofs_engine) {
  PhaseMeasurement m;
  m.step.roofs_engine = roofs_engine;
  m.tokens = p.tokens;
  m.past = p.past;
  m.step.profiled_latencies_ms = p.run_latencies_ms;
  const int first = p.first_run + p.warmup_iterations;
  for (int i = first; i < first + p.iterations && i < static_cast<int>(profile.runs.size()); ++i)
    m.step.profiled_runs_ms.push_back(static_cast<double>(profile.runs[static_cast<size_t>(i)].dur_us) / 1000.0);
  m.step.kernels = kernel_records(profile, first, p.iterations);
  m.step.kernel_time_step_ms = kOrtKernelTimeStepMs;
  m.step.dispatch = dispatch_samples(profile, first, p.iterations);
  m.step.threads_observed = threads_observed(profile, first, p.iterations);
  m.step.executed_graph = executed;
  m.step.threads = threads;
  return m;
}

// A runner serving the decoder step by step (runners/ort/serve_steps.mjs): its steps' rows go out as they are, its
// times come back on the shared monotonic clock.
class OrtServedDecoder final : public ServedDecoder {
 public:
  OrtServedDecoder(std::unique_ptr<OrtRunner> runner, int64_t threads, std::chrono::milliseconds step_timeout,
                   std::atomic<pid_t>& pid, int64_t warmup_requests)
      : runner_(std::move(runner)), threads_(threads), timeout_(step_timeout), pid_(pid),
        warmup_requests_(warmup_requests) {}
  ~OrtServedDecoder() override { pid_ = 0; }

  DecoderStepTimes step(const DecoderStep& s) override {
    try {
      return runner_->serve_step(s, timeout_);
    } catch (const RunnerError& e) {
      throw backend_error("run", e);
    }
  }

  std::map<int64_t, std::vector<int64_t>> finish() override {
    try {
      return runner_->serve_end(timeout_);
    } catch (const RunnerError& e) {
      throw backend_error("run", e);
    }
  }

  int64_t threads() const override { return threads_; }
  int64_t warmup_requests() const override { return warmup_requests_; }

 private:
  std::unique_ptr<OrtRunner> runner_;
  int64_t threads_;
  std::chrono::milliseconds timeout_;
  std::atomic<pid_t>& pid_;
  int64_t warmup_requests_;
};

// The served decoder's warm-up: the runner's own generation loop (its warm-up goes on until a request's time stops
// falling), one untimed request after it; nothing of it is reported but the count.
int64_t warm_up_served(OrtRunner& runner, const DecoderServingConfig& c) {
  if (c.warmup_prompt <= 0) return 0;
  GenerateShape shape;
  shape.batch = 1;
  shape.prompt_tokens = c.warmup_prompt;
  shape.gen_tokens = c.warmup_gen;
  shape.next_token = "fixed";
  shape.seed = c.seed;
  GenerationTiming t;  // the warm-up requests, then one more, untimed here: a generation has at least one
  t.warmup_requests = c.warmup_requests;
  t.requests = t.max_requests = 1;
  t.max_duration_s = 120;
  t.layers = false;
  const GenerateResult g = runner.generate(decoder_binding(c.io), shape, t.as_iterations(), c.load_timeout, false);
  return g.warmup_requests + static_cast<int64_t>(g.requests.size());
}

class OrtGeneration : public DecoderGeneration {
 public:
  OrtGeneration(OrtSessionOptions base, CpuBudget budget, std::atomic<pid_t>& pid)
      : base_(std::move(base)), budget_(std::move(budget)), pid_(pid) {}

  std::unique_ptr<ServedDecoder> serve(const DecoderServingConfig& c) override {
    OrtSessionOptions opts = base_;
    const int64_t threads = std::stoll(ort_threads(c.threads, base_, budget_).value);
    opts.intraOpNumThreads = static_cast<int>(threads);  // always explicit, as the run says
    try {
      auto runner = std::make_unique<OrtRunner>(with_process_options(runner_config(), opts));
      pid_ = runner->process().pid();
      runner->load(c.model, opts, c.load_timeout);
      const int64_t warmed = warm_up_served(*runner, c);
      runner->serve_begin(decoder_binding(c.io), c.seed, to_string(c.next_token), c.keep_tokens, c.step_timeout);
      return std::make_unique<OrtServedDecoder>(std::move(runner), threads, c.step_timeout, pid_, warmed);
    } catch (const RunnerError& e) {
      pid_ = 0;
      throw backend_error("load", e);
    }
  }

  GenerationMeasurement generate(const GenerationConfig& c) override {
    OrtSessionOptions opts = base_;
    const int64_t threads = std::stoll(ort_threads(c.threads, base_, budget_).value);
    opts.intraOpNumThreads = static_cast<int>(threads);  // always explicit, as the run says
    const DecoderBinding io = decoder_binding(c.io);
    GenerateShape shape;
    shape.batch = c.batch;
    shape.prompt_tokens = c.prompt;
    shape.gen_tokens = c.gen;
    shape.next_token = to_string(c.next_token);
    shape.seed = c.seed;
    std::string stage = "load";
    try {
      // The process options (mallocMmapThreshold: the runner's glibc) as for a profile's runner: without them the
      // report would name an allocator setting the runner never had.
      OrtRunner runner(with_process_options(runner_config(), opts));
      pid_ = runner.process().pid();
      GenerationMeasurement m;
      LoadExtras extras;
      // The runtime's baseline, measured in a process of its own; none for ONNX Runtime Web, whose memory is measured
      // only (ort_web_memory.h).
      extras.runtime_cost = !web();
      const LoadResult loaded = runner.load(c.model, opts, c.timeout, extras);
      m.load_ms = loaded.load_ms;
      // What ran, read back: a Chromium page without cross-origin isolation runs one WebAssembly thread whatever was
      // asked.
      m.threads = loaded.wasm_threads.value_or(threads);
      if (web()) m.memory_not_predicted = kWebMemoryNotPredicted;
      stage = "run";
      timed(runner, io, shape, c, m);
      if (loaded.memory && m.memory.runner) {
        MemoryMeasured mm = *loaded.memory;
        mm.run_peak_bytes = m.memory.runner->run_peak_bytes;
        mm.peak_reset = loaded.memory->peak_reset && m.memory.runner->peak_reset;
        mm.increase_bytes = measured_increase(mm);
        mm.peak_bytes = measured_peak(mm);
        m.memory.runner = mm;
        m.runtime_baseline_bytes = loaded.baseline_bytes;
        m.runtime_baseline_run_bytes = loaded.baseline_run_bytes;
        m.output_copies = 1;  // onnxruntime-node copies every output into a new JavaScript buffer
      } else {
        m.memory.runner.reset();
      }
      if (c.timing.layers) {
        stage = "profile";
        profiled(runner, io, shape, c, m.threads, m);
      }
      pid_ = 0;
      return m;
    } catch (const RunnerError& e) {
      pid_ = 0;
      throw backend_error(stage, e);
    }
  }

 private:
  bool web() const { return base_.build == "web"; }

  static void timed(OrtRunner& runner, const DecoderBinding& io, const GenerateShape& shape, const GenerationConfig& c,
                    GenerationMeasurement& m) {
    GenerateResult g = runner.generate(io, shape, c.timing.as_iterations(), c.timeout, c.return_logits);
    for (auto& q : g.requests)
      m.requests.push_back({q.ttft_ms, q.prefill_run_ms, std::move(q.steps_ms), std::move(q.step_runs_ms),
                            q.prefill_page_faults, std::move(q.step_page_faults)});
    m.wall_s = g.wall_s;
    m.warmup_requests = g.warmup_requests;
    m.stop_reason = g.stop_reason;
    m.warnings.insert(m.warnings.end(), g.warnings.begin(), g.warnings.end());
    m.peak_rss_bytes = g.peak_rss_bytes;
    if (g.run_peak_bytes) {
      m.memory.runner = MemoryMeasured{};
      m.memory.runner->run_peak_bytes = *g.run_peak_bytes;
      m.memory.runner->peak_reset = g.run_peak_reset;
      m.memory.prefill_peak_bytes = g.prefill_peak_bytes;
      m.memory.decode_peak_bytes = g.decode_peak_bytes;
      m.memory.caller = g.caller;
      m.memory.collected = g.collected;
    }
    m.tokens = std::move(g.tokens);
    m.prompt_ids = std::move(g.prompt_ids);
    m.logits = std::move(g.logits);
  }

  // A refused profiled run keeps the timed requests (they are a result of their own); a dead runner does not.
  void profiled(OrtRunner& runner, const DecoderBinding& io, const GenerateShape& shape, const GenerationConfig& c,
                int64_t threads, GenerationMeasurement& m) const {
    // The web build's kernels ran in WebAssembly: its layers meet that engine's roofs (ort_wasm_roofs.h).
    const std::string engine = web() ? wasm_engine(base_.host) : "";
    GenerateProfiledResult p;
    try {
      p = runner.generate_profiled(io, shape, c.timing.as_iterations(), c.timeout, c.work_dir, /*keep_profile=*/false,
                                   /*dump_graph=*/true);
    } catch (const RunnerError& e) {
      if (e.kind != ReplyStatus::error) throw;
      m.profile_error = e.what();
      return;
    }
    // The profiled inference session's own graph: the names in its profile are the ones it generated.
    std::string problem;
    const std::optional<GraphView> executed = executed_graph(
        p.optimized_model.empty() ? std::nullopt : std::optional<std::filesystem::path>(p.optimized_model), problem);
    if (!problem.empty())
      m.warnings.push_back("the optimized graph could not be read (kernels matched by name only): " + problem);
    if (!p.stopped_early.empty()) m.warnings.push_back(p.stopped_early);
    m.warnings.insert(m.warnings.end(), p.warnings.begin(), p.warnings.end());
    if (p.prefill) m.prefill = phase_measurement(p.profile, *p.prefill, executed, threads, engine);
    if (p.decode) m.decode = phase_measurement(p.profile, *p.decode, executed, threads, engine);
  }

  OrtSessionOptions base_;
  CpuBudget budget_;
  std::atomic<pid_t>& pid_;
};

}  // namespace

DecoderBinding decoder_binding(const DecoderIo& io) {
  DecoderBinding b;
  b.input_ids = io.input_ids;
  b.attention_mask = io.attention_mask;
  b.position_ids = io.position_ids;
  b.logits = io.logits;
  for (const auto& kv : io.cache) {
    b.past.emplace_back(kv.past_key, kv.past_value);
    b.present.emplace_back(kv.present_key, kv.present_value);
  }
  b.kv_heads = io.kv_heads;
  b.head_dim = io.head_dim;
  b.vocab = io.vocab;
  b.kv_dtype = js_dtype(io.kv_dtype);
  if (!io.ids_dtype.empty()) b.ids_dtype = js_dtype(io.ids_dtype);
  if (!io.mask_dtype.empty()) b.mask_dtype = js_dtype(io.mask_dtype);
  if (!io.position_dtype.empty()) b.position_dtype = js_dtype(io.position_dtype);
  return b;
}

std::unique_ptr<DecoderGeneration> make_ort_generation(const OrtSessionOptions& base, const CpuBudget& budget,
                                                       std::atomic<pid_t>& runner_pid) {
  return std::make_unique<OrtGeneration>(base, budget, runner_pid);
}

}  // namespace rooflens::ort
