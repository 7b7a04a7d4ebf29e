#include "profile/profile.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "analysis/cost.h"
#include "analysis/input_bounds.h"
#include "analysis/model_summary.h"
#include "core/stats.h"
#include "core/temp_dir.h"
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

ProfileRun make_run(const ProfileConfig& c, const Model& m, const Analysis& a, const BackendRun& br,
                    const std::optional<Model>& optimized, const HardwareInfo* hw, int64_t threads) {
  ProfileRun r;
  r.batch = c.batch > 0 ? c.batch : fixed_batch(m);
  r.dims = m.input_symbols;
  r.threads = threads;
  r.latencies_ms = br.latencies_ms;
  r.latency_ms = summarize(br.latencies_ms);
  r.wall_s = br.wall_s;
  r.throughput_per_s = br.wall_s > 0 ? static_cast<double>(std::max<int64_t>(r.batch, 1)) *
                                           static_cast<double>(br.latencies_ms.size()) / br.wall_s
                                     : 0;
  r.stop_reason = br.stop_reason;
  r.load_ms = br.load_ms;
  r.peak_rss_bytes = br.peak_rss_bytes;
  r.flops = a.totals.flops;
  r.macs = a.totals.macs;
  if (r.latency_ms.median > 0) r.gflops = static_cast<double>(r.flops) / (r.latency_ms.median / 1000.0) / 1e9;
  if (r.latency_ms.cv > 0.05)
    r.warnings.push_back("unstable timings: CV " + std::to_string(static_cast<int>(std::lround(r.latency_ms.cv * 100))) +
                         "% > 5% (another process busy? try --duration or pinning)");
  if (!br.profile_error.empty()) {
    r.layers_error = br.profile_error;
    r.warnings.push_back("no layer times: the profiled run failed (the end-to-end figures stand): " + br.profile_error);
  }
  if (!br.profiled_latencies_ms.empty()) {
    r.profiled_latency_ms = summarize(br.profiled_latencies_ms);
    if (r.latency_ms.mean > 0) r.profiling_overhead = r.profiled_latency_ms.mean / r.latency_ms.mean;
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
    for (auto& w : lb.warnings) r.warnings.push_back(std::move(w));
    if (r.coverage < 0.9 || r.coverage > 1.05)
      r.warnings.push_back("layer times cover " + std::to_string(static_cast<int>(std::lround(r.coverage * 100))) +
                           "% of the profiled latency (expected 90-105%)");
  }
  return r;
}

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

Report run_profile(const ProfileOptions& o, Backend& backend, const HardwareInfo* hw, const ProfileHooks& hooks) {
  // The model as given: errors here concern every configuration, so they end the command.
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
  auto save = [&] {
    if (!o.report_path.empty()) write_file_atomically(o.report_path, report_to_json(rep));
  };

  TempDir work("rooflens");
  auto grid = expand_grid(o);
  for (size_t i = 0; i < grid.size(); ++i) {
    const ProfileConfig& c = grid[i];
    if (hooks.interrupted && hooks.interrupted->load()) {
      rep.partial = true;
      break;
    }
    std::optional<Model> m;
    // A failure names the configuration as a run would have (resolved batch, dims and threads) once the model
    // loaded at its dims, so `compare` can pair a run in one report with a failure in another.
    auto fail = [&](const std::string& stage, const std::string& kind, const std::string& msg, const std::string& tail) {
      Failure f;
      f.batch = m ? (c.batch > 0 ? c.batch : fixed_batch(*m)) : c.batch;
      f.dims = m ? m->input_symbols : c.dims;
      f.threads = m ? threads_used(c, *rep.backend, hw) : c.threads;
      f.stage = stage;
      f.kind = kind;
      f.message = msg;
      f.stderr_tail = tail;
      rep.failures.push_back(std::move(f));
    };
    if (hooks.progress) hooks.progress(c.label(), i, grid.size());
    try {
      m = load_model(o.model, overrides_for(o, c));
    } catch (const UserError& e) {
      fail("analysis", "error", e.what(), "");
      save();
      continue;
    }
    Analysis a = analyze_model(*m, CostRegistry::builtin());
    try {
      BackendRun br = backend.run(run_config(o, c, *m, work.path()));
      std::vector<std::string> warnings;
      std::optional<Model> optimized = load_optimized(br, *m, warnings);
      ProfileRun run = make_run(c, *m, a, br, optimized, hw, threads_used(c, *rep.backend, hw));
      for (auto& w : warnings) run.warnings.push_back(std::move(w));
      rep.runs.push_back(std::move(run));
    } catch (const BackendError& e) {
      bool stopped = hooks.interrupted && hooks.interrupted->load();
      fail(e.stage, stopped ? "interrupted" : e.kind, stopped ? "interrupted (Ctrl-C)" : e.what(), e.stderr_tail);
      if (stopped) rep.partial = true;
    }
    save();
    if (rep.partial) break;
  }
  if (hooks.progress) hooks.progress("done", grid.size(), grid.size());
  return rep;
}

}  // namespace rooflens
