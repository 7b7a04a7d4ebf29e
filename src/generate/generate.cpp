#include "generate/generate.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "core/atomic_file.h"
#include "core/coverage.h"
#include "core/stats.h"
#include "core/temp_dir.h"
#include "core/units.h"
#include "generate/decoder_io.h"
#include "generate/generation_stats.h"
#include "generate/phase_layers.h"
#include "generate/traffic.h"
#include "memory/kv_cache.h"
#include "memory/memory_guard.h"
#include "memory/model_memory.h"
#include "model/declared_io.h"
#include "model/loader.h"
#include "core/build_info.h"

namespace rooflens {
namespace fs = std::filesystem;
namespace {

// The largest working set a cache holds: where the sweep's last cache plateau ends (measured), else the largest
// reported cache (roofs without levels: datasheets, hand-written files). A reported size can be wrong by 10x.
uint64_t last_level_cache(const HardwareInfo* hw) {
  uint64_t best = 0;
  if (!hw) return 0;
  for (const auto& l : hw->levels)
    if (l.level != "DRAM") best = std::max(best, l.last_bytes);
  if (best > 0) return best;
  for (const auto& c : hw->machine.caches)
    best = std::max(best, c.size_bytes * static_cast<uint64_t>(std::max<int64_t>(1, c.instances)));
  return best;
}

std::vector<RequestSamples> samples_of(const GenerationMeasurement& m) {
  std::vector<RequestSamples> out;
  for (const auto& q : m.requests) out.push_back({q.ttft_ms, q.steps_ms, q.step_page_faults, q.prefill_page_faults});
  return out;
}

// The timing warnings of a run (recomputed after every repetition) followed by the others.
void refresh_warnings(GenerationRun& r, const std::vector<std::string>& others) {
  r.warnings = generation_timing_warnings(r);
  for (const auto& w : others) r.warnings.push_back(w);
}

// A phase whose layers add up to more than the same step takes plain (the run call alone, in the timed requests: the
// prefill's, and the last decode step's, which is the one profiled) carries the profiler's own cost inside its layer
// times (lint's profiled-layers-inflated): said, with the two figures, so no one reads the layers as the step's time.
void warn_inflated_phases(const GenerationRun& r, const GenerationMeasurement& m, std::vector<std::string>& others) {
  std::vector<double> prefill, last_step;
  for (const auto& q : m.requests) {
    prefill.push_back(q.prefill_run_ms);
    if (!q.step_runs_ms.empty()) last_step.push_back(q.step_runs_ms.back());
  }
  for (const auto& p : r.phases) {
    const bool is_prefill = p.phase == Phase::prefill;
    const std::vector<double>& plain = is_prefill ? prefill : last_step;
    if (plain.empty() || (!is_prefill && p.past != r.prompt + r.gen - 1)) continue;
    double layers = 0;
    for (const auto& l : p.layers) layers += l.time_ms;
    const double plain_ms = summarize(plain).median;
    if (plain_ms <= 0 || layers < kInflatedLayers * plain_ms) continue;
    others.push_back(to_string(p.phase) + ": the layers add up to " + fixed(layers, 3) + " ms, yet the same step run " +
                     "plain takes " + fixed(plain_ms, 3) + " ms: the profiler's own cost per kernel is inside the " +
                     "layer times (the phase's speed is " + (is_prefill ? "TTFT's" : "TPOT's") + ")");
  }
}

class GenerateGrid {
 public:
  GenerateGrid(const GenerateOptions& o, Backend& backend, const DeclaredIo& declared, const HardwareInfo* hw,
               const GenerateHooks& hooks, Report& rep)
      : o_(o), gen_(*backend.generation()), rules_(backend.mapping_rules()), declared_(declared),
        io_(rep.generation->io), hw_(hw), hooks_(hooks), rep_(rep), work_("rooflens"), grid_(expand_generate_grid(o)),
        rounds_(std::max(1, o.repeat)), slots_(grid_.size()), threads_(backend.threads_for(o.threads)),
        roofs_engine_(backend.info().roofs_engine) {}

  void run() {
    const size_t steps = grid_.size() * static_cast<size_t>(rounds_);
    for (int round = 1; round <= rounds_ && !rep_.partial; ++round)
      for (size_t i = 0; i < grid_.size() && !rep_.partial; ++i) {
        if (hooks_.interrupted && hooks_.interrupted->load()) {
          rep_.partial = true;
          break;
        }
        if (slots_[i].done) continue;
        if (hooks_.progress)
          hooks_.progress(key(grid_[i]).label() + (rounds_ > 1 ? " · run " + std::to_string(round) + "/" +
                                                               std::to_string(rounds_)
                                                         : ""),
                          (static_cast<size_t>(round) - 1) * grid_.size() + i, steps);
        step(i, round);
        if (!o_.report_path.empty()) write_file_atomically(o_.report_path, report_to_json(rep_));
      }
    if (hooks_.progress) hooks_.progress("done", steps, steps);
  }

 private:
  struct Slot {
    std::optional<size_t> run;            // its run in generation.runs after the first repetition
    std::vector<std::string> other_warnings;
    bool done = false;                    // failed: no further repetitions
    uint64_t need = 0;                    // predicted need of its larger step (memory/memory_guard.h)
    std::optional<DecoderSteps> steps;    // its steps' memory, predicted before its first run
  };

  // The configuration's key, as its run and a failure of it record it.
  RunKey key(const GenerateConfig& c) const {
    GenerationRun r;
    r.batch = c.batch;
    r.prompt = c.prompt;
    r.gen = c.gen;
    r.threads = threads_;
    return r.key();
  }

  // The configuration's steps as the model alone predicts them (memory/kv_cache.h DecoderSteps), before anything runs.
  DecoderSteps steps_memory(const GenerateConfig& c) const {
    auto predicted = [](const Model& step) {
      return predict_model_memory(step, analyze_model(step, CostRegistry::builtin()));
    };
    DecoderSteps s{predicted(step_model(c, c.prompt, 0)), std::nullopt};
    if (c.gen > 0) s.decode = predicted(step_model(c, 1, c.prompt + c.gen - 1));
    return s;
  }

  Model step_model(const GenerateConfig& c, int64_t tokens, int64_t past) const {
    ShapeOverrides s;
    s.shapes = step_shapes(io_, c.batch, tokens, past);
    return load_model(o_.model, s);
  }

  void step(size_t i, int round) {
    const GenerateConfig& c = grid_[i];
    Slot& slot = slots_[i];
    GenerationConfig gc;
    gc.model = fs::absolute(o_.model);
    gc.io = io_;
    gc.batch = c.batch;
    gc.prompt = c.prompt;
    gc.gen = c.gen;
    gc.next_token = o_.next_token;
    gc.seed = o_.seed;
    gc.threads = o_.threads;
    gc.timing = o_.timing;
    gc.timing.layers = o_.timing.layers && !slot.run;  // the phases are profiled once, in the first runner
    gc.timeout = o_.timeout;
    gc.work_dir = work_.path();
    MemoryBefore before{free_memory(), oom_kills(), slot.need};
    if (!slot.run && !slot.steps) {  // round 1: say before it runs when the decoder will not fit
      slot.steps = steps_memory(c);
      before.need = slot.need = slot.steps->need();
      if (std::string w = memory_need_warning(key(c).label(), slot.need, before.free); !w.empty()) {
        rep_.warnings.push_back(w);
        if (hooks_.warn) hooks_.warn(w);
      }
    }
    try {
      GenerationMeasurement m = gen_.generate(gc);
      if (slot.run) {
        GenerationRun& r = rep_.generation->runs[*slot.run];
        add_requests(r, samples_of(m));
        r.wall_s += m.wall_s;
        r.warmup_requests = r.warmup_requests.value_or(0) + m.warmup_requests;
        r.peak_rss_bytes = std::max(r.peak_rss_bytes, m.peak_rss_bytes);
        refresh_figures(r);
        refresh_warnings(r, slot.other_warnings);
      } else {
        slot.run = rep_.generation->runs.size();
        rep_.generation->runs.push_back(first_run(c, m, *slot.steps, slot.other_warnings));
      }
    } catch (const BackendError& e) {
      const bool stopped = hooks_.interrupted && hooks_.interrupted->load();
      if (stopped) rep_.partial = true;
      if (stopped && slot.run) return;  // Ctrl-C during a later run: the finished runs stand
      Failure f;
      static_cast<RunKey&>(f) = key(c);
      f.stage = e.stage;
      f.kind = stopped ? "interrupted" : e.kind;
      const std::string message = e.kind == "died" ? died_message(e.what(), before, key(c).label()) : e.what();
      f.message = stopped ? "interrupted (Ctrl-C)"
                          : (round > 1 ? "run " + std::to_string(round) + " of " + std::to_string(rounds_) + ": " : "") +
                                message;
      f.stderr_tail = e.stderr_tail;
      rep_.failures.push_back(std::move(f));
      slot.done = true;
    }
  }

  // Weights + KV cache per phase (memory/kv_cache.h), against the runner's measured increase: each phase's step as its
  // profiled run predicts it where it ran at these dims (the decode step's only when the profiled step is the last
  // one), else as the model predicts it.
  KvMemory decoder_memory_of(const GenerateConfig& c, const GenerationMeasurement& m, const DecoderSteps& steps,
                             const std::optional<RunMemory>& prefill_run,
                             const std::optional<RunMemory>& decode_run) const {
    DecoderMemorySources in;
    in.io = &io_;
    in.batch = c.batch;
    in.prompt = c.prompt;
    in.gen = c.gen;
    in.steps = &steps;
    in.prefill_run = prefill_run ? &*prefill_run : nullptr;
    in.decode_run = decode_run ? &*decode_run : nullptr;
    in.baseline_bytes = m.runtime_baseline_bytes;
    in.baseline_run_bytes = m.runtime_baseline_run_bytes;
    in.output_copies = m.output_copies;
    in.measured = &m.memory;
    in.not_predicted = m.memory_not_predicted;
    return decoder_memory(in);
  }

  GenerationRun first_run(const GenerateConfig& c, const GenerationMeasurement& m, const DecoderSteps& steps,
                          std::vector<std::string>& others) {
    GenerationRun r;
    r.batch = c.batch;
    r.prompt = c.prompt;
    r.gen = c.gen;
    // The threads the runtime ran, where it reads them back (ONNX Runtime Web's module), else the ones asked for.
    const int64_t threads = m.threads > 0 ? m.threads : threads_;
    r.threads = threads;
    if (threads != threads_)
      others.push_back(std::to_string(threads_) + " threads asked for; the runtime ran " + std::to_string(threads) +
                       " (read back)");
    r.next_token = o_.next_token;
    for (const auto& w : m.warnings) others.push_back(w);
    const Model prefill = step_model(c, c.prompt, 0);
    const std::optional<Model> decode =
        c.gen > 0 ? std::optional<Model>(step_model(c, 1, c.prompt + c.gen - 1)) : std::nullopt;
    r.weight_bytes = weight_bytes_read(decode ? *decode : prefill);
    r.kv_bytes_per_token = kv_bytes_per_token(io_);
    add_requests(r, samples_of(m));
    r.warmup_requests = m.warmup_requests;
    refresh_figures(r);
    if (hw_) {
      // The engine the kernels ran in (WebAssembly) streams against its own DRAM roof, where one was measured.
      const EngineRoofs* engine = roofs_engine_.empty() ? nullptr : find_engine_roofs(*hw_, roofs_engine_);
      const DramRoof roof = dram_roof(engine ? engine_hardware(*hw_, *engine) : *hw_, threads);
      r.dram_gbps = roof.gbps;
      r.dram_roof = roof.gbps > 0 && engine ? roofs_engine_ + " " + roof.label : roof.label;
      const uint64_t llc = last_level_cache(hw_);
      if (c.gen > 0 && llc > 0 && r.weight_bytes < llc)
        others.push_back("the weights a decode step reads (" + si_bytes(static_cast<double>(r.weight_bytes)) +
                         ") fit in the last-level cache (" + si_bytes(static_cast<double>(llc)) +
                         "): decode may run faster than the DRAM roof");
    }
    r.load_ms = m.load_ms;
    r.wall_s = m.wall_s;
    r.peak_rss_bytes = m.peak_rss_bytes;
    if (!m.tokens.empty()) r.tokens = m.tokens.front();
    if (!m.profile_error.empty()) {
      r.layers_error = m.profile_error;
      others.push_back("no layer times: the profiled run failed (the timed requests stand): " + m.profile_error);
    }
    std::optional<RunMemory> prefill_memory;
    if (m.prefill)
      r.phases.push_back(phase_profile(Phase::prefill, prefill,
                                       step_dims(declared_, step_shapes(io_, c.batch, c.prompt, 0)), *m.prefill,
                                       rules_, hw_, c.batch, threads, &prefill_memory));
    std::optional<RunMemory> decode_memory;  // kept only when the profiled step is the last one
    if (m.decode && decode) {
      const auto shapes = step_shapes(io_, c.batch, 1, m.decode->past);
      const bool last = m.decode->past == c.prompt + c.gen - 1;
      const Model at = last ? *decode : step_model(c, 1, m.decode->past);
      r.phases.push_back(phase_profile(Phase::decode, at, step_dims(declared_, shapes), *m.decode, rules_, hw_,
                                       c.batch, threads, last ? &decode_memory : nullptr));
    }
    r.memory = decoder_memory_of(c, m, steps, prefill_memory, decode_memory);
    warn_inflated_phases(r, m, others);
    for (const auto& p : r.phases)
      for (const auto& w : p.warnings) others.push_back(w);
    refresh_warnings(r, others);
    return r;
  }

  const GenerateOptions& o_;
  DecoderGeneration& gen_;
  const MappingRules& rules_;
  const DeclaredIo& declared_;
  const DecoderIo& io_;
  const HardwareInfo* hw_;
  const GenerateHooks& hooks_;
  Report& rep_;
  TempDir work_;
  const std::vector<GenerateConfig> grid_;
  const int rounds_;
  std::vector<Slot> slots_;
  const int64_t threads_;
  const std::string roofs_engine_;  // Backend::info().roofs_engine: empty for native kernels
};

}  // namespace

std::vector<GenerateConfig> expand_generate_grid(const GenerateOptions& o) {
  std::vector<GenerateConfig> grid;
  for (int64_t p : o.prompts)
    for (int64_t g : o.gens)
      for (int64_t b : o.batches) grid.push_back({p, g, b});
  return grid;
}

Report run_generate(const GenerateOptions& o, Backend& backend, const HardwareInfo* hw, const GenerateHooks& hooks) {
  if (!backend.generation())
    throw UsageError("backend '" + o.backend.name + "' cannot run decoder generation step by step (use onnxruntime)");
  const DeclaredIo declared = read_declared_io(o.model);
  Report rep;
  rep.tool = tool_info("generate");
  rep.generation = Generation{detect_decoder_io(declared, o.model), {}};
  // The model as the first configuration's prefill sees it: the static analysis every report carries.
  const GenerateConfig first = expand_generate_grid(o).front();
  ShapeOverrides s;
  s.shapes = step_shapes(rep.generation->io, first.batch, first.prompt, 0);
  const Model base = load_model(o.model, s);
  rep.model = summarize_model(base);
  rep.model.analysis = analyze_model(base, CostRegistry::builtin());
  rep.model.memory = predict_model_memory(base, rep.model.analysis);
  rep.backends = {backend.info()};
  if (hw) rep.hardware = *hw;
  if (!rep.model.analysis.unknown_ops.empty()) {
    std::string ops;
    for (const auto& u : rep.model.analysis.unknown_ops) ops += (ops.empty() ? "" : ", ") + u;
    rep.warnings.push_back("cost unknown for " + ops + ": layers containing them count their FLOPs as 0");
  }
  GenerateGrid(o, backend, declared, hw, hooks, rep).run();
  return rep;
}

}  // namespace rooflens
