#include "profile/profile.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "analysis/cost.h"
#include "analysis/input_bounds.h"
#include "analysis/int8_weights.h"
#include "analysis/model_summary.h"
#include "assembly/assemble.h"
#include "core/atomic_file.h"
#include "core/temp_dir.h"
#include "lint/lint.h"
#include "memory/model_memory.h"
#include "memory/memory_guard.h"
#include "model/onnx_graph_view.h"
#include "model/loader.h"
#include "model/runtime_shape_check.h"
#include "core/build_info.h"

namespace rooflens {
namespace fs = std::filesystem;
namespace {

int64_t parse_positive(const std::string& s, const std::string& flag) {
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used);
    if (used == s.size() && v > 0 && v <= (int64_t{1} << 32)) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(flag + ": '" + s + "' is not a positive integer (examples: 8, 1-64, 1,8,32)");
}

int64_t fixed_batch(const Model& m) {
  if (m.graphs.empty() || m.graphs[0].inputs.empty()) return 0;
  const TensorInfo* t = m.graphs[0].find(m.graphs[0].inputs[0]);
  return t && !t->dims.empty() ? t->dims[0].value : 0;
}

ShapeOverrides overrides_for(const ProfileOptions& o, const RunKey& c) {
  ShapeOverrides s = o.shapes;
  if (c.batch > 0) s.batch = c.batch;
  for (const auto& [k, v] : c.dims) s.dims[k] = v;
  return s;
}

// Two analyses of one model at the same dims (every node shaped alike).
bool same_shapes(const Analysis& x, const Analysis& y) {
  if (x.nodes.size() != y.nodes.size()) return false;
  for (size_t i = 0; i < x.nodes.size(); ++i)
    if (x.nodes[i].input_shapes != y.nodes[i].input_shapes || x.nodes[i].output_shapes != y.nodes[i].output_shapes)
      return false;
  return true;
}

bool took_runtime_shapes(const Analysis& a) {
  return std::any_of(a.nodes.begin(), a.nodes.end(),
                     [](const NodeAnalysis& n) { return n.shape_source == ShapeSource::Runtime; });
}

// How each backend is named in the report: by name, or by its whole -B text when two share a name.
std::vector<std::string> backend_labels(const ProfileOptions& o) {
  std::vector<std::string> labels;
  std::multiset<std::string> names;
  for (const auto& b : o.backends) names.insert(b.name);
  for (const auto& b : o.backends)
    labels.push_back(names.count(b.name) > 1 && !b.text.empty() ? b.text : b.name);
  return labels;
}

}  // namespace

// Named, not anonymous: ProfileDriver::Impl holds a GridRun, and a class whose member's type is in an anonymous
// namespace trips GCC's -Wsubobject-linkage once this file is compiled in a unity batch with others.
namespace profile_grid {

// One configuration of one backend across the rounds of --repeat.
struct Slot {
  size_t backend = 0;
  RunKey requested;                         // as the grid asks for it
  RunKey key;                               // as runs and failures record it: resolved once the model loaded
  std::optional<RunSpec> spec;              // set once the model loaded at these dims (round 1)
  std::optional<size_t> run;                // its run in Report::runs, after the first repetition
  bool done = false;                        // failed: no further repetitions
  std::unique_ptr<LiveRunner> live_runner;  // ProfileOptions::live_timing: the live process of later rounds
  uint64_t need = 0;                        // predicted memory need at these dims (round 1)
  double kernel_time_step_ms = 0;           // its first measurement's, to place its layers again
};

// The grid run by run into `rep`. Round-robin: every slot's first run, then every slot's second run, ... so slow
// drift of the machine touches all configurations (and all backends) of the report alike, not the last ones only.
class GridRun {
 public:
  GridRun(const ProfileOptions& o, const std::vector<Backend*>& backends, const HardwareInfo* hw,
          const ProfileHooks& hooks, Report& rep)
      : o_(o), backends_(backends), hw_(hw), hooks_(hooks), rep_(rep), work_("rooflens"),
        rounds_(std::max(1, o.repeat)), isa_(hw && !hw->machine.isa.empty() ? hw->machine.isa : o.isa) {
    const std::vector<RunKey> grid = expand_grid(o);
    const bool several = backends.size() > 1;
    for (size_t b = 0; b < backends.size(); ++b)
      for (const RunKey& c : grid) {
        Slot s;
        s.backend = b;
        s.requested = c;
        s.requested.backend = several ? rep.backends[b].label : "";
        s.key = s.requested;
        slots_.push_back(std::move(s));
      }
  }

  void run() {
    while (step()) {
    }
  }

  // Runs the next configuration due (round-robin: every slot's round 1, then every slot's round 2, ...); false once
  // every round is done or the run was interrupted (then the unfinished runs are noted and the report saved).
  bool step() {
    const size_t steps = slots_.size() * static_cast<size_t>(rounds_);
    for (; round_ <= rounds_ && !rep_.partial; next_ = 0, ++round_) {
      for (; next_ < slots_.size() && !rep_.partial; ++next_) {
        if (hooks_.interrupted && hooks_.interrupted->load()) {
          rep_.partial = true;
          break;
        }
        const size_t i = next_;
        if (slots_[i].done) continue;
        if (hooks_.progress)
          hooks_.progress(slots_[i].key.label() + (rounds_ > 1 ? " · run " + std::to_string(round_) + "/" +
                                                                      std::to_string(rounds_)
                                                                : ""),
                          (static_cast<size_t>(round_) - 1) * slots_.size() + i, steps);
        step(slots_[i], round_);
        save();
        ++next_;
        return true;
      }
      if (rep_.partial) break;
    }
    if (!finished_) {
      finished_ = true;
      if (rep_.partial) note_unfinished();
      if (hooks_.progress) hooks_.progress("done", steps, steps);
    }
    return false;
  }

 private:
  // The findings follow the runs: every write carries those of the runs so far.
  void save() {
    rep_.findings = lint_report(rep_);
    if (!o_.report_path.empty()) write_file_atomically(o_.report_path, report_to_json(rep_));
  }

  void fail(Slot& slot, int round, const std::string& stage, const std::string& kind, const std::string& msg,
            const std::string& tail) {
    Failure f;
    static_cast<RunKey&>(f) = slot.key;
    f.stage = stage;
    f.kind = kind;
    f.message = round > 1 ? "run " + std::to_string(round) + " of " + std::to_string(rounds_) + ": " + msg : msg;
    f.stderr_tail = tail;
    rep_.failures.push_back(std::move(f));
    slot.done = true;
  }

  // Round 1: the model at this configuration's dims. From then on a failure names the configuration as a run would
  // (resolved batch, dims and threads), so `compare` can pair a run in one report with a failure in another.
  std::optional<Model> load(Slot& slot) {
    std::optional<Model> m;
    try {
      m = load_model(o_.model, overrides_for(o_, slot.requested));
    } catch (const UserError& e) {
      fail(slot, 1, "analysis", "error", e.what(), "");
      return std::nullopt;
    }
    slot.key.batch = slot.requested.batch > 0 ? slot.requested.batch : fixed_batch(*m);
    slot.key.dims = m->input_symbols;
    slot.key.threads = backends_[slot.backend]->threads_for(slot.requested.threads);
    RunSpec r;
    r.model = fs::absolute(o_.model);
    r.key = slot.key;
    r.key.threads = slot.requested.threads;  // 0: the backend's default, as the backend applies it
    GeneratedInputPlan plan = plan_generated_inputs(*m);
    r.feed.dims = std::move(plan.dims);
    r.feed.shapes = std::move(plan.shapes);
    r.feed.int_input_max = std::move(plan.int_input_max);
    r.feed.values = std::move(plan.values);
    for (const auto& [k, v] : o_.input_files) r.feed.files[k] = v;
    r.timing = o_.timing;
    r.timeout = o_.timeout;
    r.work_dir = work_.path();
    slot.spec = std::move(r);
    return m;
  }

  // `a`: the analysis of `m` the configuration's need was predicted from.
  void first_run(Slot& slot, const Model& m, const Analysis& a, const Measurement& measured) {
    Backend& backend = *backends_[slot.backend];
    GraphView view = graph_view(m);
    AssemblyContext ctx;
    ctx.model = &view;
    ctx.analysis = &a;
    ctx.hw = hw_;
    ctx.rules = &backend.mapping_rules();
    std::optional<Analysis> taken;  // the analysis with the runtime's shapes, when the run needed them
    ctx.reanalyze = [&m, &taken](const std::map<std::string, std::vector<int64_t>>& shapes) {
      Model with = m;
      const int64_t n = take_runtime_shapes(with, shapes);
      if (n == 0) return std::optional<Analysis>{};
      taken = analyze_model(with, CostRegistry::builtin());
      taken->notes.push_back(std::to_string(n) + " tensor(s) the static analysis could not resolve have the shapes "
                             "the runtime reported (profile; their nodes are marked shape_source \"runtime\")");
      return taken;
    };
    RunKey key = slot.key;
    if (measured.threads > 0) key.threads = measured.threads;
    slot.run = rep_.runs.size();
    slot.kernel_time_step_ms = measured.kernel_time_step_ms;
    add_engine_roofs(backend, measured.roofs_engine);
    ctx.hw = hw_;
    rep_.runs.push_back(assemble_run(key, measured, ctx));
    recheck_roofs(backend, rep_.runs.back());
    // The report's own analysis is of the model at the same dims: it shows what the run counted (once: the first
    // run that needed the runtime's shapes).
    if (taken && same_shapes(a, rep_.model.analysis) && !took_runtime_shapes(rep_.model.analysis))
      rep_.model.analysis = std::move(*taken);
  }

  // A later round on the configuration's live runner (started and loaded on first use); null when the backend
  // cannot serve, and the round then runs in a fresh runner like the first.
  std::optional<Measurement> run_live(Slot& slot, const RunSpec& r) {
    if (!slot.live_runner) {
      slot.live_runner = backends_[slot.backend]->live_runner();
      if (!slot.live_runner) return std::nullopt;
      slot.live_runner->start(true);
      ModelLoad load;
      load.model = r.model;
      load.name = o_.model;
      load.dims = r.feed.dims;
      load.timeout = r.timeout;
      load.threads = r.key.threads;
      load.idle_between_runs = true;
      slot.live_runner->load(load);
    }
    return slot.live_runner->measure(r.feed, *o_.live_timing, r.work_dir, r.timeout);
  }

  void step(Slot& slot, int round) {
    std::optional<Model> m;
    if (!slot.spec && !(m = load(slot))) return;
    MemoryBefore before{free_memory(), oom_kills(), slot.need};
    std::optional<Analysis> analysis;  // round 1: the model at these dims, for its need and then its run
    if (m) {  // round 1: say before it runs when the model will not fit (memory/memory_guard.h)
      analysis = analyze_model(*m, CostRegistry::builtin());
      before.need = slot.need = predict_model_memory(*m, *analysis).peak_bytes;
      if (std::string w = memory_need_warning(slot.key.label(), slot.need, before.free); !w.empty()) {
        rep_.warnings.push_back(w);
        if (hooks_.warn) hooks_.warn(w);
      }
    }
    RunSpec r = *slot.spec;
    r.timing.layers = o_.timing.layers && !slot.run;  // one profiled run per configuration, in its first runner
    try {
      std::optional<Measurement> live;
      if (slot.run && o_.live_timing) live = run_live(slot, r);
      Measurement measured = live ? std::move(*live) : backends_[slot.backend]->run(r);
      if (slot.run) {
        ProfileRun& run = rep_.runs[*slot.run];
        if (live && !run.live_from) run.live_from = static_cast<int64_t>(run.repetitions.size());
        add_repetition(run, measured);
      }
      else {
        first_run(slot, *m, *analysis, measured);
        check_int8(slot, *m, r);
      }
      if (round == rounds_) slot.live_runner.reset();  // its last round: the process ends
    } catch (const BackendError& e) {
      slot.live_runner.reset();
      bool stopped = hooks_.interrupted && hooks_.interrupted->load();
      if (stopped) rep_.partial = true;
      // Ctrl-C during a later run: the finished runs stand (the report says it is partial).
      const std::string message = e.kind == "died" ? died_message(e.what(), before, slot.key.label()) : e.what();
      if (!(stopped && slot.run))
        fail(slot, round, e.stage, stopped ? "interrupted" : e.kind, stopped ? "interrupted (Ctrl-C)" : message,
             e.stderr_tail);
    }
  }

  // The configuration's outputs against an unoptimized run, when the model and the CPU call for it (after the run,
  // so it never shares the CPUs with the timing). A check that fails leaves the run as it is, with the reason.
  void check_int8(Slot& slot, const Model& m, const RunSpec& r) {
    if (!wants_int8_check(o_.int8_check, rep_.model.int8_weights, isa_)) return;
    if (hooks_.interrupted && hooks_.interrupted->load()) return;
    if (hooks_.progress)
      hooks_.progress(slot.key.label() + " · int8 check against " + kUnoptimizedReference,
                      (static_cast<size_t>(round_) - 1) * slots_.size() + next_, slots_.size() * static_cast<size_t>(rounds_));
    ProfileRun& run = rep_.runs[*slot.run];
    try {
      run.int8_check = check_int8_outputs(*backends_[slot.backend], r, isa_, output_quantization_step(m));
    } catch (const BackendError& e) {
      run.warnings.push_back(std::string("int8 check against ") + kUnoptimizedReference + " failed: " + e.detail);
    }
  }

  // The roofs of the engine a run's kernels ran in, when the report's roofs lack them (ProfileHooks::engine_roofs). A
  // failed measurement leaves the run on the native roofs, with the reason among the report's warnings.
  void add_engine_roofs(Backend& backend, const std::string& engine) {
    if (engine.empty() || !hw_ || find_engine_roofs(*hw_, engine) || !hooks_.engine_roofs) return;
    std::optional<EngineRoofs> e;
    try {
      e = hooks_.engine_roofs(engine, backend.info().runtime, [&backend] { return backend.measure_engine_roofs(true); });
    } catch (const BackendError& err) {
      rep_.warnings.push_back("the roofs of " + engine + " could not be measured: " + err.what());
    }
    if (!e) return;
    HardwareInfo with = *hw_;
    with.engines.push_back(std::move(*e));
    raised_ = std::move(with);
    hw_ = &*raised_;
    rep_.hardware = *raised_;
  }

  // Layers above measured roofs: the ceilings they went above are measured again now (ProfileHooks::recheck_roofs);
  // higher figures become the report's roofs and every run so far is placed against them.
  // An engine's layers (WebAssembly's) went above the engine's roofs: those are measured again, not the native ones.
  void recheck_roofs(Backend& backend, const ProfileRun& run) {
    const bool above = std::any_of(run.layers.begin(), run.layers.end(),
                                   [](const Layer& l) { return !l.attribution_error.empty(); });
    if (!above || !hw_ || hw_->source != "measured") return;
    if (!run.roofs_engine.empty()) return recheck_engine_roofs(backend, run);
    if (!hooks_.recheck_roofs || !rechecked_.insert(run.threads).second) return;
    if (std::optional<HardwareInfo> raised = hooks_.recheck_roofs(*hw_, run)) take_raised_roofs(std::move(*raised));
  }

  void recheck_engine_roofs(Backend& backend, const ProfileRun& run) {
    const EngineRoofs* have = find_engine_roofs(*hw_, run.roofs_engine);
    if (!have || !hooks_.recheck_engine_roofs || !engines_rechecked_.insert(run.roofs_engine).second) return;
    std::optional<EngineRoofs> raised;
    try {
      raised = hooks_.recheck_engine_roofs(*have, backend.info().runtime, run,
                                           [&backend] { return backend.measure_engine_roofs(true); });
    } catch (const BackendError& err) {  // the layers stay above the roofs they were placed on, and say so
      rep_.warnings.push_back("the roofs of " + run.roofs_engine + " could not be measured again: " + err.what());
    }
    if (!raised) return;
    HardwareInfo with = *hw_;
    for (EngineRoofs& e : with.engines)
      if (e.engine == raised->engine) e = std::move(*raised);
    take_raised_roofs(std::move(with));
  }

  // Raised roofs become the report's, and every run so far is placed against them.
  void take_raised_roofs(HardwareInfo raised) {
    const HardwareInfo before = *hw_;
    raised_ = std::move(raised);
    hw_ = &*raised_;
    rep_.hardware = *raised_;
    for (const Slot& s : slots_)
      if (s.run) place_run_again(rep_.runs[*s.run], &before, *hw_, s.kernel_time_step_ms);
  }

  void note_unfinished() {
    if (rounds_ < 2) return;
    for (const Slot& slot : slots_) {
      if (!slot.run || slot.done) continue;
      ProfileRun& run = rep_.runs[*slot.run];
      if (static_cast<int>(run.repetitions.size()) < rounds_)
        run.warnings.push_back("interrupted: " + std::to_string(run.repetitions.size()) + " of " +
                               std::to_string(rounds_) + " runs done");
    }
    save();
  }

  const ProfileOptions& o_;
  const std::vector<Backend*>& backends_;
  const HardwareInfo* hw_;                 // the roofs: the caller's, or raised_ after a recheck raised them or an
                                           // engine's roofs joined them
  std::optional<HardwareInfo> raised_;
  std::set<int64_t> rechecked_;            // thread counts whose roofs were measured again (once each)
  std::set<std::string> engines_rechecked_;  // engines whose roofs were measured again (once each)
  const ProfileHooks& hooks_;
  Report& rep_;
  TempDir work_;
  const int rounds_;
  const std::vector<std::string> isa_;  // the machine's CPU features: the roofs' machine, else o_.isa
  std::vector<Slot> slots_;
  int round_ = 1;      // the round step() is in
  size_t next_ = 0;    // the next slot of that round
  bool finished_ = false;
};

}  // namespace profile_grid

std::vector<int64_t> parse_int_list(const std::string& text, const std::string& flag) {
  std::vector<int64_t> out;
  size_t dash = text.find('-');
  if (dash != std::string::npos && text.find(',') == std::string::npos) {
    int64_t lo = parse_positive(text.substr(0, dash), flag), hi = parse_positive(text.substr(dash + 1), flag);
    if (lo > hi) throw UsageError(flag + " " + text + ": the range is empty (write low-high)");
    for (int64_t v = lo; v <= hi; v *= 2) out.push_back(v);
    if (out.back() != hi) out.push_back(hi);
    return out;
  }
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    out.push_back(parse_positive(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos), flag));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

SweepAxis parse_sweep(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("--sweep expects DIM=v1,v2,... (e.g. --sweep seq=128,256 or --sweep threads=1,2), got '" + text + "'");
  return {text.substr(0, eq), parse_int_list(text.substr(eq + 1), "--sweep " + text.substr(0, eq))};
}

std::vector<RunKey> expand_grid(const ProfileOptions& o) {
  std::vector<RunKey> grid{RunKey{}};
  grid[0].threads = o.threads;
  auto multiply = [&grid](auto&& apply, const std::vector<int64_t>& values) {
    std::vector<RunKey> next;
    for (const auto& g : grid)
      for (int64_t v : values) {
        RunKey c = g;
        apply(c, v);
        next.push_back(c);
      }
    grid = std::move(next);
  };
  if (!o.batches.empty()) multiply([](RunKey& c, int64_t v) { c.batch = v; }, o.batches);
  for (const auto& axis : o.sweeps) {
    if (axis.dim == "threads") multiply([](RunKey& c, int64_t v) { c.threads = v; }, axis.values);
    else multiply([&axis](RunKey& c, int64_t v) { c.dims[axis.dim] = v; }, axis.values);
  }
  return grid;
}

namespace {

// The report before any run: the model as given (errors here concern every configuration, so they end the
// command), its analysis, the backends and the roofs.
Report start_report(const ProfileOptions& o, const std::vector<Backend*>& backends, const HardwareInfo* hw) {
  if (backends.empty() || backends.size() != o.backends.size())
    throw UsageError("profile: give one backend per -B (got " + std::to_string(backends.size()) + " for " +
                     std::to_string(o.backends.size()) + ")");
  Model base = load_model(o.model, o.shapes);
  if (!o.batches.empty() && base.batch_dims == 0 && !base.graphs[0].inputs.empty() &&
      !(o.batches.size() == 1 && o.batches[0] == fixed_batch(base)))
    throw UsageError(o.model + ": input '" + base.graphs[0].inputs[0] + "' has a fixed batch of " +
                     std::to_string(fixed_batch(base)) +
                     ", so -b cannot change it; give every input's shape with --shape NAME:DxD... or export the "
                     "model with a dynamic batch");

  Report rep;
  rep.tool = tool_info("profile");
  rep.model = summarize_model(base);
  rep.model.analysis = analyze_model(base, CostRegistry::builtin());
  rep.model.memory = predict_model_memory(base, rep.model.analysis);
  rep.model.int8_weights = int8_weights(base);
  const std::vector<std::string> labels = backend_labels(o);
  for (size_t b = 0; b < backends.size(); ++b) {
    rep.backends.push_back(backends[b]->info());
    rep.backends.back().label = labels[b];
  }
  if (hw) rep.hardware = *hw;
  if (!rep.model.analysis.unknown_ops.empty()) {
    std::string ops;
    for (const auto& u : rep.model.analysis.unknown_ops) ops += (ops.empty() ? "" : ", ") + u;
    rep.warnings.push_back("cost unknown for " + ops + ": layers containing them count their FLOPs as 0");
  }
  return rep;
}

}  // namespace

Report run_profile(const ProfileOptions& o, const std::vector<Backend*>& backends, const HardwareInfo* hw,
                   const ProfileHooks& hooks) {
  Report rep = start_report(o, backends, hw);
  profile_grid::GridRun(o, backends, hw, hooks, rep).run();
  rep.findings = lint_report(rep);
  return rep;
}

struct ProfileDriver::Impl {
  Impl(const ProfileOptions& o, const std::vector<Backend*>& b, const HardwareInfo* hw, const ProfileHooks& h)
      : options(o), backends(b), hooks(h), report(start_report(options, backends, hw)),
        grid(options, backends, hw, hooks, report) {}
  ProfileOptions options;
  std::vector<Backend*> backends;
  ProfileHooks hooks;
  Report report;
  profile_grid::GridRun grid;
};

ProfileDriver::ProfileDriver(const ProfileOptions& o, const std::vector<Backend*>& backends,
                               const HardwareInfo* hw, const ProfileHooks& hooks)
    : impl_(std::make_unique<Impl>(o, backends, hw, hooks)) {}
ProfileDriver::~ProfileDriver() = default;
bool ProfileDriver::step() { return impl_->grid.step(); }
Report& ProfileDriver::report() { return impl_->report; }

}  // namespace rooflens
