#include "profile/profile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "analysis/cost.h"
#include "analysis/input_bounds.h"
#include "analysis/model_summary.h"
#include "core/repetitions.h"
#include "core/stats.h"
#include "core/temp_dir.h"
#include "core/units.h"
#include "model/loader.h"
#include "profile/layers.h"

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

ShapeOverrides overrides_for(const ProfileOptions& o, const ProfileConfig& c) {
  ShapeOverrides s = o.shapes;
  if (c.batch > 0) s.batch = c.batch;
  for (const auto& [k, v] : c.dims) s.dims[k] = v;
  return s;
}

int64_t threads_used(const ProfileConfig& c, const BackendInfo& b, const HardwareInfo* hw) {
  if (c.threads > 0) return c.threads;
  auto it = b.options.find("intraOpNumThreads");
  if (it != b.options.end() && std::atoll(it->second.c_str()) > 0) return std::atoll(it->second.c_str());
  return hw && hw->machine.cores > 0 ? hw->machine.cores : 0;  // ORT's default: one per physical core (0: unknown)
}

RunConfig run_config(const ProfileOptions& o, const ProfileConfig& c, const Model& m, const fs::path& work) {
  RunConfig rc;
  rc.model = fs::absolute(o.model);
  GeneratedInputPlan plan = plan_generated_inputs(m);
  rc.dims = std::move(plan.dims);
  rc.shapes = std::move(plan.shapes);
  rc.int_input_max = std::move(plan.int_input_max);
  for (const auto& [k, v] : o.input_files) rc.input_files[k] = v;
  rc.threads = c.threads;
  rc.timing = o.timing;
  rc.timeout = o.timeout;
  rc.work_dir = work;
  return rc;
}

std::optional<Model> load_optimized(const BackendRun& br, const Model& original, std::vector<std::string>& warnings) {
  if (!br.optimized_model) return std::nullopt;
  std::optional<Model> m;
  try {
    ShapeOverrides s;
    s.dims = original.input_symbols;
    s.batch = 1;
    m = load_model(br.optimized_model->string(), s);
  } catch (const std::exception& e) {
    warnings.push_back(std::string("the optimized graph could not be read (kernels matched by name only): ") + e.what());
  }
  std::error_code ec;
  fs::remove(*br.optimized_model, ec);  // can be as large as the model
  return m;
}

// The timing figures of a run from all its repetitions so far (one fresh runner each): statistics over every
// sample, throughput over the summed timed walls, and the warnings about timing (the others stay as they were).
void refresh_timing(ProfileRun& r, const std::vector<std::string>& other_warnings) {
  r.latency_ms = summarize(r.latencies_ms);
  r.throughput_per_s = r.wall_s > 0 ? static_cast<double>(std::max<int64_t>(r.batch, 1)) *
                                          static_cast<double>(r.latencies_ms.size()) / r.wall_s
                                    : 0;
  r.gflops = r.latency_ms.median > 0 ? static_cast<double>(r.flops) / (r.latency_ms.median / 1000.0) / 1e9 : 0;
  if (r.profiled_latency_ms.n > 0 && r.latency_ms.mean > 0)
    r.profiling_overhead = r.profiled_latency_ms.mean / r.latency_ms.mean;
  r.warnings.clear();
  if (r.latency_ms.cv > 0.05)
    r.warnings.push_back("unstable timings: CV " + std::to_string(static_cast<int>(std::lround(r.latency_ms.cv * 100))) +
                         "% > 5% (another process busy? try --duration or pinning)");
  RepetitionSpread spread = repetition_spread(r.latencies_ms, r.repetitions);
  if (spread_is_large(spread))
    r.warnings.push_back("run-to-run: the medians of the " + std::to_string(spread.count) + " runs span " +
                         fixed(spread.min_median, 3) + "-" + fixed(spread.max_median, 3) + " ms (" +
                         fixed(spread.spread * 100, 0) + "% of the median), more than the samples of a run scatter (" +
                         fixed(spread.within_cv * 100, 1) + "% robust CV): one run says little about the next; "
                         "compare reports made with --repeat, on a quiet machine");
  for (const auto& w : other_warnings) r.warnings.push_back(w);
}

// The first repetition: timings plus the profiled run's layers. Returns the warnings that do not concern timing.
std::vector<std::string> first_repetition(ProfileRun& r, const ProfileConfig& c, const Model& m, const Analysis& a,
                                          const BackendRun& br, const std::optional<Model>& optimized,
                                          const HardwareInfo* hw, int64_t threads) {
  std::vector<std::string> warnings;
  r.batch = c.batch > 0 ? c.batch : fixed_batch(m);
  r.dims = m.input_symbols;
  r.threads = threads;
  r.latencies_ms = br.latencies_ms;
  r.repetitions = {static_cast<int64_t>(br.latencies_ms.size())};
  r.wall_s = br.wall_s;
  r.stop_reason = br.stop_reason;
  r.load_ms = br.load_ms;
  r.peak_rss_bytes = br.peak_rss_bytes;
  r.flops = a.totals.flops;
  r.macs = a.totals.macs;
  if (!br.profile_error.empty()) {
    r.layers_error = br.profile_error;
    warnings.push_back("no layer times: the profiled run failed (the end-to-end figures stand): " + br.profile_error);
  }
  if (!br.profiled_latencies_ms.empty()) {
    r.profiled_latency_ms = summarize(br.profiled_latencies_ms);
    LayerBuild lb = build_layers(m, a, optimized, br.kernels, hw, threads);
    double sum = 0;
    for (const auto& l : lb.layers) sum += l.time_ms;
    // Kernel times and the run they belong to, on the runtime's one clock (JS-side timing adds the binding's
    // overhead around the run, which no kernel can cover).
    double run_median = br.profiled_runs_ms.empty() ? r.profiled_latency_ms.median : median_of(br.profiled_runs_ms);
    if (run_median > 0) r.coverage = sum / run_median;
    r.layers = std::move(lb.layers);
    r.unowned = std::move(lb.unowned);
    r.unmapped_kernels = lb.unmapped_kernels;
    for (auto& w : lb.warnings) warnings.push_back(std::move(w));
    if (r.coverage < 0.9 || r.coverage > 1.05)
      warnings.push_back("layer times cover " + std::to_string(static_cast<int>(std::lround(r.coverage * 100))) +
                         "% of the profiled latency (expected 90-105%)");
  }
  return warnings;
}

bool listed(const std::string& comma_list, const std::string& item) {
  size_t pos = 0;
  for (;;) {
    size_t comma = comma_list.find(',', pos);
    if (comma_list.compare(pos, comma == std::string::npos ? std::string::npos : comma - pos, item) == 0) return true;
    if (comma == std::string::npos) return false;
    pos = comma + 1;
  }
}

// A later repetition (timed only): its samples follow the earlier ones; walls add up; the peak is the highest; the
// stop reasons are the distinct ones in order of first appearance ("min_reached" when every run stopped alike).
void add_repetition(ProfileRun& r, const BackendRun& br) {
  r.latencies_ms.insert(r.latencies_ms.end(), br.latencies_ms.begin(), br.latencies_ms.end());
  r.repetitions.push_back(static_cast<int64_t>(br.latencies_ms.size()));
  r.wall_s += br.wall_s;
  r.peak_rss_bytes = std::max(r.peak_rss_bytes, br.peak_rss_bytes);
  if (!listed(r.stop_reason, br.stop_reason)) r.stop_reason += (r.stop_reason.empty() ? "" : ",") + br.stop_reason;
}

// One configuration across the rounds of --repeat.
struct Slot {
  std::optional<RunConfig> config;         // set once the model loaded at these dims (round 1)
  int64_t batch = 0, threads = 0;          // as a run or a failure records them
  std::map<std::string, int64_t> dims;
  std::optional<size_t> run;               // its run in Report::runs, after the first repetition
  std::vector<std::string> other_warnings; // the run's warnings that are not about timing
  bool done = false;                       // failed: no further repetitions
};

// The grid run by run into `rep`. Round-robin: every configuration's first run, then every configuration's second
// run, ... so slow drift of the machine touches all configurations of the report alike, not the last ones only.
// One step() is one run (one configuration, one round), so a driver can interleave two grids.
class GridRun {
 public:
  GridRun(const ProfileOptions& o, Backend& backend, const HardwareInfo* hw, const ProfileHooks& hooks, Report& rep)
      : o_(o), backend_(backend), hw_(hw), hooks_(hooks), rep_(rep), work_("rooflens"), grid_(expand_grid(o)),
        rounds_(std::max(1, o.repeat)), slots_(grid_.size()) {}

  void run() {
    while (step()) {
    }
  }

  // Runs the next configuration due; false once every round is done or the run was interrupted (then the
  // unfinished runs are noted and the report saved).
  bool step() {
    const size_t steps = grid_.size() * static_cast<size_t>(rounds_);
    for (; round_ <= rounds_ && !rep_.partial; next_i_ = 0, ++round_) {
      for (; next_i_ < grid_.size() && !rep_.partial; ++next_i_) {
        if (hooks_.interrupted && hooks_.interrupted->load()) {
          rep_.partial = true;
          break;
        }
        const size_t i = next_i_;
        if (slots_[i].done) continue;
        if (hooks_.progress)
          hooks_.progress(grid_[i].label() + (rounds_ > 1 ? " · run " + std::to_string(round_) + "/" +
                                                                 std::to_string(rounds_)
                                                           : ""),
                          (static_cast<size_t>(round_) - 1) * grid_.size() + i, steps);
        step(i, round_);
        save();
        ++next_i_;
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
  void save() {
    if (!o_.report_path.empty()) write_file_atomically(o_.report_path, report_to_json(rep_));
  }

  void fail(Slot& slot, int round, const std::string& stage, const std::string& kind, const std::string& msg,
            const std::string& tail) {
    Failure f;
    f.batch = slot.batch;
    f.dims = slot.dims;
    f.threads = slot.threads;
    f.stage = stage;
    f.kind = kind;
    f.message = round > 1 ? "run " + std::to_string(round) + " of " + std::to_string(rounds_) + ": " + msg : msg;
    f.stderr_tail = tail;
    rep_.failures.push_back(std::move(f));
    slot.done = true;
  }

  // Round 1: the model at this configuration's dims. From then on a failure names the configuration as a run would
  // (resolved batch, dims and threads), so `compare` can pair a run in one report with a failure in another.
  std::optional<Model> load(Slot& slot, const ProfileConfig& c) {
    slot.batch = c.batch;
    slot.dims = c.dims;
    slot.threads = c.threads;
    std::optional<Model> m;
    try {
      m = load_model(o_.model, overrides_for(o_, c));
    } catch (const UserError& e) {
      fail(slot, 1, "analysis", "error", e.what(), "");
      return std::nullopt;
    }
    slot.batch = c.batch > 0 ? c.batch : fixed_batch(*m);
    slot.dims = m->input_symbols;
    slot.threads = threads_used(c, *rep_.backend, hw_);
    slot.config = run_config(o_, c, *m, work_.path());
    return m;
  }

  void step(size_t i, int round) {
    const ProfileConfig& c = grid_[i];
    Slot& slot = slots_[i];
    std::optional<Model> m;
    if (!slot.config && !(m = load(slot, c))) return;
    RunConfig rc = *slot.config;
    rc.timing.layers = o_.timing.layers && !slot.run;  // one profiled run per configuration, in its first runner
    try {
      BackendRun br = backend_.run(rc);
      if (slot.run) {
        add_repetition(rep_.runs[*slot.run], br);
      } else {
        Analysis a = analyze_model(*m, CostRegistry::builtin());
        std::vector<std::string> warnings;
        std::optional<Model> optimized = load_optimized(br, *m, warnings);
        ProfileRun run;
        slot.other_warnings = first_repetition(run, c, *m, a, br, optimized, hw_, slot.threads);
        for (auto& w : warnings) slot.other_warnings.push_back(std::move(w));
        slot.run = rep_.runs.size();
        rep_.runs.push_back(std::move(run));
      }
      for (const auto& w : br.warnings)  // how the run was taken (e.g. --realtime refused): once per configuration
        if (std::find(slot.other_warnings.begin(), slot.other_warnings.end(), w) == slot.other_warnings.end())
          slot.other_warnings.push_back(w);
      refresh_timing(rep_.runs[*slot.run], slot.other_warnings);
    } catch (const BackendError& e) {
      bool stopped = hooks_.interrupted && hooks_.interrupted->load();
      if (stopped) rep_.partial = true;
      // Ctrl-C during a later run: the finished runs stand (the report says it is partial).
      if (!(stopped && slot.run))
        fail(slot, round, e.stage, stopped ? "interrupted" : e.kind, stopped ? "interrupted (Ctrl-C)" : e.what(),
             e.stderr_tail);
    }
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
  Backend& backend_;
  const HardwareInfo* hw_;
  const ProfileHooks& hooks_;
  Report& rep_;
  TempDir work_;
  const std::vector<ProfileConfig> grid_;
  const int rounds_;
  std::vector<Slot> slots_;
  int round_ = 1;        // the round step() is in
  size_t next_i_ = 0;    // the next configuration of that round
  bool finished_ = false;
};

}  // namespace

std::string ProfileConfig::label() const {
  std::string s;
  if (batch > 0) s += "batch=" + std::to_string(batch);
  for (const auto& [k, v] : dims) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  if (threads > 0) s += (s.empty() ? "" : " ") + std::string("threads=") + std::to_string(threads);
  return s.empty() ? "default" : s;
}

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

std::vector<ProfileConfig> expand_grid(const ProfileOptions& o) {
  std::vector<ProfileConfig> grid{ProfileConfig{}};
  grid[0].threads = o.threads;
  auto multiply = [&grid](auto&& apply, const std::vector<int64_t>& values) {
    std::vector<ProfileConfig> next;
    for (const auto& g : grid)
      for (int64_t v : values) {
        ProfileConfig c = g;
        apply(c, v);
        next.push_back(c);
      }
    grid = std::move(next);
  };
  if (!o.batches.empty()) multiply([](ProfileConfig& c, int64_t v) { c.batch = v; }, o.batches);
  for (const auto& axis : o.sweeps) {
    if (axis.dim == "threads")
      multiply([](ProfileConfig& c, int64_t v) { c.threads = static_cast<int>(v); }, axis.values);
    else
      multiply([&axis](ProfileConfig& c, int64_t v) { c.dims[axis.dim] = v; }, axis.values);
  }
  return grid;
}

namespace {

// The report before any run: the model as given (errors here concern every configuration, so they end the
// command), its analysis, the backend and the roofs.
Report start_report(const ProfileOptions& o, Backend& backend, const HardwareInfo* hw) {
  Model base = load_model(o.model, o.shapes);
  if (!o.batches.empty() && base.batch_dims == 0 && !base.graphs[0].inputs.empty() &&
      !(o.batches.size() == 1 && o.batches[0] == fixed_batch(base)))
    throw UsageError(o.model + ": input '" + base.graphs[0].inputs[0] + "' has a fixed batch of " +
                     std::to_string(fixed_batch(base)) +
                     ", so -b cannot change it; give every input's shape with --shape NAME:DxD... or export the "
                     "model with a dynamic batch");

  Report rep;
  rep.tool.version = ROOFLENS_VERSION;
  rep.tool.command = "profile";
  rep.model = summarize_model(base);
  rep.model.analysis = analyze_model(base, CostRegistry::builtin());
  rep.backend = backend.info();
  if (hw) rep.hardware = *hw;
  if (!rep.model.analysis.unknown_ops.empty()) {
    std::string ops;
    for (const auto& u : rep.model.analysis.unknown_ops) ops += (ops.empty() ? "" : ", ") + u;
    rep.warnings.push_back("cost unknown for " + ops + ": layers containing them count their FLOPs as 0");
  }
  return rep;
}

}  // namespace

Report run_profile(const ProfileOptions& o, Backend& backend, const HardwareInfo* hw, const ProfileHooks& hooks) {
  Report rep = start_report(o, backend, hw);
  GridRun(o, backend, hw, hooks, rep).run();
  return rep;
}

struct ProfileSession::Impl {
  Impl(const ProfileOptions& o, Backend& backend, const HardwareInfo* hw, const ProfileHooks& hooks)
      : options(o), hooks(hooks), report(start_report(options, backend, hw)), grid(options, backend, hw, this->hooks, report) {}
  ProfileOptions options;
  ProfileHooks hooks;
  Report report;
  GridRun grid;
};

ProfileSession::ProfileSession(const ProfileOptions& o, Backend& backend, const HardwareInfo* hw,
                               const ProfileHooks& hooks)
    : impl_(std::make_unique<Impl>(o, backend, hw, hooks)) {}
ProfileSession::~ProfileSession() = default;
bool ProfileSession::step() { return impl_->grid.step(); }
Report& ProfileSession::report() { return impl_->report; }

}  // namespace rooflens
