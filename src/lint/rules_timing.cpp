// Timing: where the measured time could shrink — the layers furthest below their roof, weighted by their time,
// and the part of a run no kernel accounts for (the framework between kernels).
#include <algorithm>

#include "core/coverage.h"
#include "core/units.h"
#include "lint/rule.h"

namespace rooflens {
namespace {

constexpr size_t kHeadroomLayers = 5;       // report this many layers
constexpr double kHeadroomShare = 0.10;     // ... when together they could save at least this share
constexpr double kMinCoverage = 0.90;       // layers covering less of the run than this: time between kernels
constexpr double kOneGapShare = 0.20;       // one gap holding this share of the time between kernels: one place

void headroom(const RunFacts& f, FindingSink& out) {
  const auto& layers = f.run.layers;
  std::vector<std::pair<double, size_t>> room;  // (ms above the roof, layer)
  for (size_t i = 0; i < layers.size(); ++i)
    if (!layers[i].bound.empty() && layers[i].efficiency > 0)
      room.push_back({layers[i].time_ms * (1 - std::min(layers[i].efficiency, 1.0)), i});
  std::stable_sort(room.begin(), room.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (room.size() > kHeadroomLayers) room.resize(kHeadroomLayers);
  double total = 0;
  for (const auto& r : room) total += r.first;
  if (room.empty() || f.share_of(total) < kHeadroomShare) return;
  const Layer& top = layers[room[0].second];
  Finding& x = out.add(Severity::info,
                       std::to_string(room.size()) + " layers could save up to " + ms_text(total) + " (" +
                           pct(f.share_of(total)) + " of layer time) at their roof; most: " + top.name + " (" +
                           ms_text(room[0].first) + " at " + pct(top.efficiency) + " of " + top.roof + ")");
  std::vector<size_t> idx;
  for (const auto& r : room) idx.push_back(r.second);
  for (size_t i : idx) {  // in headroom order (name_layers would sort by time)
    x.layers.push_back(layers[i].name);
    for (const auto& n : layers[i].onnx_nodes) x.onnx_nodes.push_back(n);
  }
  x.evidence.push_back({"headroom of these layers", total, "ms"});
  x.evidence.push_back({"share of layer time", f.share_of(total), "ratio"});
  for (const auto& r : room)
    x.evidence.push_back({layers[r.second].name + " (" + layers[r.second].bound + ", " +
                              pct(layers[r.second].efficiency) + " efficient)",
                          r.first, "ms"});
  x.mitigation =
      "Headroom = time x (1 - efficiency): what a layer would save at its roof. Compute-bound layers below their "
      "roof want a better kernel (an ISA or dtype the runtime has fast kernels for, blocking that fits the caches, "
      "more threads); memory-bound ones want fewer bytes (fusion, a lower precision, layouts that stay in cache).";
}

// The fixes the run's own dispatch breakdown supports, each with the figure behind it (core/run_settings.h).
std::string dispatch_fixes(const ProfileRun& run, double gap, double run_ms) {
  const DispatchBreakdown& d = *run.dispatch;
  std::string out;
  auto say = [&out](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  if (d.profiler_ms && *d.profiler_ms >= 0.5 * gap)
    say("A profiled run takes " + ms_text(*d.profiler_ms) + " longer than a plain one (" +
        pct(*d.profiler_ms / gap) + " of this gap): the profiler records each kernel after it ends, before the next "
        "one starts, so much of this gap can be the profiler's own bookkeeping, absent from the plain run.");
  if (d.executor_gaps_ms && d.kernels > 0 && *d.executor_gaps_ms >= 0.3 * gap)
    say(ms_text(*d.executor_gaps_ms) + " falls between kernels inside the executor, " +
        fixed(*d.executor_gaps_ms * 1000 / static_cast<double>(d.kernels), 1) + " us for each of " +
        std::to_string(d.kernels) + " kernels: fewer, larger kernels cut it (graph optimizations on, fused "
        "elementwise chains, a larger batch per call).");
  if (d.outside_executor_ms && *d.outside_executor_ms >= 0.3 * gap)
    say(ms_text(*d.outside_executor_ms) + " per run lies outside the executor (entering the inference session, "
        "checking and binding inputs, fetching outputs): a cost per call, which a larger batch spreads over more "
        "items.");
  if (d.fences_ms && *d.fences_ms >= 0.3 * gap) say(ms_text(*d.fences_ms) + " per run are fences around kernels.");
  if (d.longest_gap_ms && *d.longest_gap_ms >= kOneGapShare * gap)
    say("One stretch between two kernels holds " + ms_text(*d.longest_gap_ms) + " of it (" +
        pct(*d.longest_gap_ms / gap) + ", the median over iterations): work in one place that no kernel event "
        "timed (a kernel without an event, a copy, a wait), not dispatch spread over every kernel.");
  const double pool = d.pool_wait_ms.value_or(0) + d.pool_handoff_ms.value_or(0);
  if (pool >= 0.1 * run_ms) {
    const RunSetting* spin = find_setting(run.settings, "spinning");
    std::string t = "Inside kernels, the calling thread spent " + ms_text(pool) + " per run handing work to the "
                    "thread pool and waiting for its workers (" + pct(pool / run_ms) + " of the run): with kernels "
                    "this small, fewer intra-op threads (--threads 1) may be faster";
    if (spin && spin->value == "off") t += ", and spinning is off, so every hand-off wakes a sleeping worker";
    say(t + ".");
  }
  return out;
}

void between_kernels(const RunFacts& f, FindingSink& out) {
  double cov = f.run.coverage;
  // The profiler's own bookkeeping between kernels (the source's calibrated lower bound) is not the runtime's
  // overhead: a run it explains is left to profiled-layers-inflated.
  const double net = f.run.dispatch ? f.run.dispatch->coverage_without_profiler.value_or(0) : 0;
  if (f.run.layers.empty() || cov <= 0 || cov >= kMinCoverage || net >= kMinCoverage) return;
  // Measured per iteration when the report has it (core/coverage.h); older reports: from Σ layer medians.
  double run_ms = f.run.profiled_run_ms.value_or(f.layer_ms / cov);
  double gap = f.run.between_kernels_ms.value_or(run_ms - f.layer_ms);
  Finding& x = out.add(Severity::warning,
                       pct(1 - cov) + " of the profiled run is spent between kernels (" + ms_text(gap) +
                           " per run): framework overhead no layer accounts for");
  x.evidence = {{"coverage", cov, "ratio"},
                {"between kernels", gap, "ms"},
                {"profiled run", run_ms, "ms"},
                {"kernels", static_cast<double>(f.run.layers.size()), "count"},
                {"gap per kernel", f.run.layers.empty() ? 0 : gap * 1000 / static_cast<double>(f.run.layers.size()),
                 "us"}};
  const std::string generic =
      "Time between kernels is the runtime's own work: scheduling each kernel, waking the thread pool, allocating "
      "outputs. It grows with the number of kernels, so fewer, larger kernels help (graph optimizations, larger "
      "batches); ONNX Runtime keeps pool threads spinning between kernels with session.intra_op.allow_spinning=1 "
      "(the default), and a memory arena avoids allocations (enableCpuMemArena).";
  if (!f.run.dispatch) {
    x.mitigation = generic;
    return;
  }
  const DispatchBreakdown& d = *f.run.dispatch;
  auto evidence = [&x](const char* name, const std::optional<double>& v) {
    if (v) x.evidence.push_back({name, *v, "ms"});
  };
  evidence("outside the executor", d.outside_executor_ms);
  evidence("between kernels in the executor", d.executor_gaps_ms);
  evidence("fences", d.fences_ms);
  evidence("the longest single gap", d.longest_gap_ms);
  evidence("added by profiling", d.profiler_ms);
  evidence("the profiler's bookkeeping between kernels (at least)", d.profiler_bookkeeping_ms);
  evidence("pool hand-off inside kernels", d.pool_handoff_ms);
  evidence("waiting for pool workers inside kernels", d.pool_wait_ms);
  const std::string fixes = dispatch_fixes(f.run, gap, run_ms);
  x.mitigation = fixes.empty() ? generic : fixes;
}

// The layers' times come from profiled runs; a profiler whose cost per kernel lies inside the kernels' events makes
// them add up to more than a plain run takes (ONNX Runtime Web: 286 kernels of a text encoder summed to 12.1 ms
// against a 5.7 ms plain run). Measured against the run's own plain timing, never a constant.
void profiled_layers_inflated(const RunFacts& f, FindingSink& out) {
  const double plain = f.run.latency_ms.median, profiled = f.run.profiled_latency_ms.median;
  if (f.run.layers.empty() || f.run.latency_ms.n == 0 || plain <= 0 || f.layer_ms < kInflatedLayers * plain) return;
  const double kernels = static_cast<double>(f.run.layers.size());
  Finding& x = out.add(Severity::warning, "the layers add up to " + ms_text(f.layer_ms) + ", yet a plain run takes " +
                                              ms_text(plain) + ": the profiler's own cost per kernel is inside the "
                                              "layer times");
  x.evidence = {{"layer times", f.layer_ms, "ms"},
                {"plain run (median)", plain, "ms"},
                {"profiled run (median)", profiled, "ms"},
                {"kernels", kernels, "count"},
                {"added by profiling per kernel", std::max(0.0, profiled - plain) * 1000 / kernels, "us"}};
  x.mitigation =
      "The runtime's profiler records each kernel (its name, shapes and times) partly inside the kernel's own span, a "
      "cost a plain run does not pay. Short kernels then read slower, and further below their roofs, than they run; "
      "a layer much longer than the cost added per kernel is barely touched. Take the model's speed from the "
      "end-to-end latency; fewer, larger kernels (graph optimizations on, a larger batch) shrink the share.";
}

}  // namespace

void add_timing_rules(RuleList& rules) {
  rules.push_back({"headroom", "timing", "the layers with the most headroom: time x (1 - efficiency) against the roofline",
                   "https://doi.org/10.1145/1498765.1498785", &headroom});
  rules.push_back({"between-kernels", "timing",
                   "the part of the profiled run no kernel covers (framework overhead between kernels)",
                   "https://onnxruntime.ai/docs/performance/tune-performance/threading.html", &between_kernels});
  rules.push_back({"profiled-layers-inflated", "timing",
                   "the layers of the profiled runs add up to more than a plain run takes (the profiler's own cost)",
                   "https://onnxruntime.ai/docs/performance/tune-performance/profiling-tools.html",
                   &profiled_layers_inflated});
}

}  // namespace rooflens
