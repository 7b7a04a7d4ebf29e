#include "assembly/assemble.h"

#include <algorithm>
#include <cmath>

#include "assembly/layers.h"
#include "assembly/kernel_shapes.h"
#include "core/coverage.h"
#include "core/repetitions.h"
#include "core/stats.h"
#include "core/units.h"
#include "memory/run_memory.h"
#include "stats/order.h"

namespace rooflens {
namespace {

std::string rounded_percent(double ratio) { return std::to_string(static_cast<int>(std::lround(ratio * 100))) + "%"; }

// The warnings that follow from the run's samples alone; redone whenever samples are added.
std::vector<std::string> timing_warnings(const ProfileRun& r) {
  std::vector<std::string> out;
  if (r.latency_ms.cv > 0.05)
    out.push_back("unstable timings: CV " + rounded_percent(r.latency_ms.cv) +
                  " > 5% (another process busy? try --duration or pinning)");
  RepetitionSpread spread = repetition_spread(r.latencies_ms, r.repetitions);
  // Turns on a live runner are paired with the other side's: their spread is the host's spells, which the pairing
  // cancels, and says nothing about fresh runs (core/repetitions.h).
  if (r.repetitions_are_fresh_runs() && spread_is_large(spread))
    out.push_back("run-to-run: the medians of the " + std::to_string(spread.count) + " runs span " +
                  fixed(spread.min_median, 3) + "-" + fixed(spread.max_median, 3) + " ms (" + fixed(spread.spread * 100, 0) +
                  "% of the median), more than the samples of a run scatter (" + fixed(spread.within_cv * 100, 1) +
                  "% robust CV): one run says little about the next; compare reports made with --repeat, on a quiet "
                  "machine");
  return out;
}

// Statistics over every sample of every repetition so far, and the timing warnings in front of the others (those
// of the samples before, `before`, removed).
void refresh_timing(ProfileRun& r, const std::vector<std::string>& before) {
  r.warnings.erase(std::remove_if(r.warnings.begin(), r.warnings.end(),
                                  [&](const std::string& w) {
                                    return std::find(before.begin(), before.end(), w) != before.end();
                                  }),
                   r.warnings.end());
  if (!r.latencies_ms.empty() || r.latency_ms.n == 0) r.latency_ms = summarize(r.latencies_ms);  // else: the source's
  // A source that gives no wall time (an import of a profile's iterations) ran them back to back: one stream.
  const double items = static_cast<double>(std::max<int64_t>(r.batch, 1));
  r.throughput_per_s = r.wall_s > 0                ? items * static_cast<double>(r.latencies_ms.size()) / r.wall_s
                       : r.latency_ms.mean > 0 ? items * 1000.0 / r.latency_ms.mean
                                               : 0;
  r.gflops = r.latency_ms.median > 0 ? static_cast<double>(r.flops) / (r.latency_ms.median / 1000.0) / 1e9 : 0;
  if (r.profiled_latency_ms.n > 0 && r.latency_ms.mean > 0)
    r.profiling_overhead = r.profiled_latency_ms.mean / r.latency_ms.mean;
  if (r.dispatch && r.profiled_latency_ms.n > 0 && r.latency_ms.n > 0)  // both timed around the runtime's call
    r.dispatch->profiler_ms = std::max(0.0, r.profiled_latency_ms.median - r.latency_ms.median);
  std::vector<std::string> now = timing_warnings(r);
  r.warnings.insert(r.warnings.begin(), now.begin(), now.end());
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

// The run is labelled with the thread count the backend passed; the runtime's own profile says how large a pool it
// ran. A difference means the figures are not those of the label: say so, naming both.
std::string threads_label_check(const ProfileRun& r) {
  if (!r.threads_observed || r.threads <= 0 || r.threads_observed->pool == r.threads) return "";
  return "the run is labelled threads=" + std::to_string(r.threads) + ", but the runtime's profile shows an intra-op "
         "pool of " + std::to_string(r.threads_observed->pool) + " thread(s): its figures are those of " +
         std::to_string(r.threads_observed->pool);
}

// The run's memory (memory/run_memory.h): predicted along the executed order, measured, explained.
void add_memory(ProfileRun& r, const Measurement& m, const AssemblyContext& ctx, const Analysis* analysis) {
  RunMemorySources in = run_memory_sources(m);
  in.analysis = analysis;
  in.layers = &r.layers;
  if (ctx.model) {
    in.inputs.assign(ctx.model->graph_inputs.begin(), ctx.model->graph_inputs.end());
    in.outputs = ctx.model->graph_outputs;
  }
  in.model_weights_bytes = ctx.weights_bytes;
  r.memory = run_memory(in);
}

// The roofs a run's layers are placed against: an engine's own, with the machine's as the CPU's ceiling, when the run
// names an engine `hw` has roofs of; else `hw` itself.
struct RunRoofs {
  const HardwareInfo* native = nullptr;
  std::optional<HardwareInfo> engine;  // engine_hardware(*native, its EngineRoofs)
  const HardwareInfo* placed() const { return engine ? &*engine : native; }
  const HardwareInfo* cpu() const { return engine ? native : nullptr; }
};

RunRoofs run_roofs(const HardwareInfo* hw, const std::string& engine) {
  RunRoofs r{hw, std::nullopt};
  if (!hw || engine.empty()) return r;
  if (const EngineRoofs* e = find_engine_roofs(*hw, engine)) r.engine = engine_hardware(*hw, *e);
  return r;
}

// Layers, coverage and their warnings from the profiled part of the measurement.
void add_layers(ProfileRun& r, const Measurement& m, const AssemblyContext& ctx) {
  r.profiled_latency_ms = summarize(m.profiled_latencies_ms);
  // The runtime's shapes against the analysis: mismatches are warnings naming the node; tensors the analysis could
  // not resolve take the runtime's shape and the run is counted with them (nodes marked shape_source "runtime").
  const Analysis* analysis = ctx.analysis;
  std::optional<Analysis> with_runtime;
  if (analysis && m.executed_graph) {
    RuntimeShapeCheck check = check_runtime_shapes(*analysis, m.kernels, *m.executed_graph);
    for (auto& w : check.warnings) r.warnings.push_back(std::move(w));
    if (!check.taken.empty() && ctx.reanalyze && (with_runtime = ctx.reanalyze(check.taken))) {
      analysis = &*with_runtime;
      r.flops = analysis->totals.flops;
      r.macs = analysis->totals.macs;
      const auto marked = std::count_if(analysis->nodes.begin(), analysis->nodes.end(),
                                        [](const NodeAnalysis& n) { return n.shape_source == ShapeSource::Runtime; });
      r.warnings.push_back(std::to_string(marked) + " node(s) took shapes the static analysis could not resolve from "
                           "the runtime (marked shape_source \"runtime\"; analyze --check-runtime lists them)");
    }
  }
  LayerSources in;
  in.original = ctx.model;
  in.analysis = analysis;
  in.executed = m.executed_graph ? &*m.executed_graph : nullptr;
  in.rules = ctx.rules;
  const RunRoofs roofs = run_roofs(ctx.hw, m.roofs_engine);
  in.hw = roofs.placed();
  in.cpu = roofs.cpu();
  if (roofs.engine) r.roofs_engine = m.roofs_engine;
  else if (ctx.hw && !m.roofs_engine.empty())
    r.warnings.push_back("no roofs of " + m.roofs_engine + " were measured: its layers are held against the machine's "
                         "native roofs, which it cannot reach (measure them with `rooflens hw --wasm`)");
  in.threads = r.threads;
  in.kernel_time_step_ms = m.kernel_time_step_ms;
  LayerBuild lb = build_layers(m.kernels, in);
  double sum = 0;
  for (const auto& l : lb.layers) sum += l.time_ms;
  // Kernel times and the run they belong to, on the runtime's one clock (timing around the runtime's call adds
  // the binding's overhead, which no kernel can cover).
  double run_median = m.profiled_runs_ms.empty() ? r.profiled_latency_ms.median : stats::median_of(m.profiled_runs_ms);
  if (run_median > 0) r.coverage = sum / run_median;
  // Per iteration when the runtime timed each run (noise in one kernel is not missing time; core/coverage.h).
  std::vector<std::vector<double>> per_kernel;
  for (const auto& k : m.kernels) per_kernel.push_back(k.per_iteration_ms);
  IterationCoverage ic = iteration_coverage(per_kernel, m.profiled_runs_ms);
  if (ic.iterations > 0) {
    r.coverage = ic.coverage;
    r.between_kernels_ms = ic.between_kernels_ms;
    r.profiled_run_ms = run_median;
    const DispatchSamples& ds = m.dispatch;
    if (!ds.executor_ms.empty() || !ds.fences_ms.empty() || !ds.pool_wait_ms.empty())
      r.dispatch = dispatch_breakdown(per_kernel, m.profiled_runs_ms, ds, static_cast<int64_t>(m.kernels.size()));
  }
  r.layers = std::move(lb.layers);
  add_memory(r, m, ctx, analysis);
  r.unowned = std::move(lb.unowned);
  r.unmapped_kernels = lb.unmapped_kernels;
  for (auto& w : lb.warnings) r.warnings.push_back(std::move(w));
  // Low coverage that the profiler's own bookkeeping explains (its calibrated lower bound) is not missing time.
  const double net = r.dispatch ? r.dispatch->coverage_without_profiler.value_or(0) : 0;  // 0: not calibrated
  if (run_median > 0 && ((r.coverage < 0.9 && net < 0.9) || r.coverage > 1.05))
    r.warnings.push_back("kernel times cover " + rounded_percent(r.coverage) +
                         (net > 0 ? " (" + rounded_percent(net) + " without the profiler's own bookkeeping between them)"
                                  : std::string()) +
                         " of each profiled run (median over iterations; expected 90-105%)");
}

}  // namespace

void place_run_again(ProfileRun& run, const HardwareInfo* before, const HardwareInfo& after, double step_ms) {
  std::vector<Layer> copy = run.layers;
  const RunRoofs was = run_roofs(before, run.roofs_engine), now = run_roofs(&after, run.roofs_engine);
  const std::vector<std::string> old = place_layers(copy, was.placed(), run.threads, step_ms, was.cpu());
  run.warnings.erase(std::remove_if(run.warnings.begin(), run.warnings.end(),
                                    [&](const std::string& w) { return std::find(old.begin(), old.end(), w) != old.end(); }),
                     run.warnings.end());
  for (auto& w : place_layers(run.layers, now.placed(), run.threads, step_ms, now.cpu()))
    run.warnings.push_back(std::move(w));
}

// The repetition's page faults beside its count of iterations, while every repetition has one; their mean per run.
void add_page_faults(ProfileRun& r, const Measurement& m) {
  if (m.page_faults && !m.latencies_ms.empty() && r.repetition_page_faults.size() + 1 == r.repetitions.size())
    r.repetition_page_faults.push_back(*m.page_faults);
  else
    r.repetition_page_faults.clear();
  r.page_faults_per_run.reset();
  if (r.repetition_page_faults.empty() || r.latencies_ms.empty()) return;
  double faults = 0;
  for (int64_t f : r.repetition_page_faults) faults += static_cast<double>(f);
  r.page_faults_per_run = faults / static_cast<double>(r.latencies_ms.size());
}

ProfileRun assemble_run(const RunKey& key, const Measurement& m, const AssemblyContext& ctx) {
  ProfileRun r;
  static_cast<RunKey&>(r) = key;
  r.latencies_ms = m.latencies_ms;
  // An imported profile may carry no end-to-end samples at all: then no repetition (each holds at least one).
  if (!m.latencies_ms.empty()) r.repetitions = {static_cast<int64_t>(m.latencies_ms.size())};
  r.wall_s = m.wall_s;
  r.stop_reason = m.stop_reason;
  r.load_ms = m.load_ms;
  r.peak_rss_bytes = m.peak_rss_bytes;
  add_page_faults(r, m);
  if (ctx.analysis) {
    r.flops = ctx.analysis->totals.flops;
    r.macs = ctx.analysis->totals.macs;
  } else {
    for (const auto& k : m.kernels) {
      r.flops += k.flops.value_or(0);
      r.macs += k.macs.value_or(0);
    }
  }
  if (!m.profile_error.empty()) {
    r.layers_error = m.profile_error;
    r.warnings.push_back("no layer times: the profiled run failed (the end-to-end figures stand): " + m.profile_error);
  }
  if (!m.profiled_latencies_ms.empty() || !m.kernels.empty()) add_layers(r, m, ctx);
  else add_memory(r, m, ctx, ctx.analysis);
  r.settings = m.settings;
  r.threads_observed = m.threads_observed;
  if (std::string w = threads_label_check(r); !w.empty()) r.warnings.push_back(std::move(w));
  for (const auto& w : m.warnings) r.warnings.push_back(w);
  if (m.latency_summary && m.latencies_ms.empty()) r.latency_ms = *m.latency_summary;
  for (const auto& p : m.phases) r.phases.push_back({p.name, summarize(p.samples_ms)});
  r.weights_bytes = m.weights_bytes;
  r.activations_bytes = m.activations_bytes;
  refresh_timing(r, {});
  if (m.throughput_per_s && r.wall_s <= 0) r.throughput_per_s = *m.throughput_per_s;  // several streams, say
  return r;
}

// A later repetition that ran with other settings than the run records (the turns of compare and --reference run on
// a live runner with spinning off): each difference once, from the repetition it first appeared in.
void note_setting_changes(ProfileRun& r, const Measurement& m) {
  for (const auto& s : m.settings) {
    const RunSetting* first = find_setting(r.settings, s.name);
    if (first && first->value == s.value) continue;
    // A setting the first repetition had no entry for (the turns' runner_cpus): it was left to the runtime and the OS.
    const std::string w = "repetitions from " + std::to_string(r.repetitions.size() + 1) + " on ran with " + s.name +
                          " " + s.value + " [" + to_string(s.source) + "], the first " +
                          (first ? "with " + first->value : std::string("without it"));
    const bool said = std::any_of(r.warnings.begin(), r.warnings.end(), [&](const std::string& x) {
      return x.rfind("repetitions from ", 0) == 0 && x.find(" ran with " + s.name + " " + s.value + " [") != std::string::npos;
    });
    if (!said) r.warnings.push_back(w);
  }
}

// A later repetition's own warnings (a runner that could not enter real time, say): each once, from the repetition
// it first appeared in; one the run already states is not said again.
void note_repetition_warnings(ProfileRun& r, const Measurement& m) {
  for (const auto& w : m.warnings) {
    const bool said = std::any_of(r.warnings.begin(), r.warnings.end(), [&](const std::string& x) {
      return x == w || (x.rfind("repetition ", 0) == 0 && x.size() > w.size() && x.ends_with(": " + w));
    });
    if (!said) r.warnings.push_back("repetition " + std::to_string(r.repetitions.size() + 1) + ": " + w);
  }
}

void add_repetition(ProfileRun& r, const Measurement& m) {
  note_setting_changes(r, m);
  note_repetition_warnings(r, m);
  const std::vector<std::string> before = timing_warnings(r);
  r.latencies_ms.insert(r.latencies_ms.end(), m.latencies_ms.begin(), m.latencies_ms.end());
  r.repetitions.push_back(static_cast<int64_t>(m.latencies_ms.size()));
  r.wall_s += m.wall_s;
  r.peak_rss_bytes = std::max(r.peak_rss_bytes, m.peak_rss_bytes);
  add_page_faults(r, m);
  // The distinct stop reasons in order of first appearance ("min_reached" when every run stopped alike).
  if (!listed(r.stop_reason, m.stop_reason)) r.stop_reason += (r.stop_reason.empty() ? "" : ",") + m.stop_reason;
  refresh_timing(r, before);
}

}  // namespace rooflens
