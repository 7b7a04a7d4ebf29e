// Setup: how the measurement was made — more intra-op threads than physical cores, and timings too unstable to
// trust.
#include "core/repetitions.h"
#include "core/units.h"
#include "lint/rule.h"

namespace rooflens {
namespace {

constexpr double kUnstableCv = 0.05;  // as the profile summary warns
constexpr double kUselessCv = 0.20;   // beyond this, a comparison against this run says little: an error

void threads_above_cores(const RunFacts& f, FindingSink& out) {
  if (!f.report.hardware || f.run.threads <= 0) return;
  const MachineDesc& m = f.report.hardware->machine;
  if (m.cores <= 0 || f.run.threads <= m.cores) return;
  bool above_logical = m.threads > 0 && f.run.threads > m.threads;
  Finding& x = out.add(above_logical ? Severity::error : Severity::warning,
                       std::to_string(f.run.threads) + " intra-op threads on " + std::to_string(m.cores) +
                           " physical cores" + (above_logical ? " (more than the " + std::to_string(m.threads) +
                                                                    " logical CPUs)"
                                                              : ""));
  x.evidence = {{"intra-op threads", static_cast<double>(f.run.threads), "threads"},
                {"physical cores", static_cast<double>(m.cores), "count"},
                {"logical CPUs", static_cast<double>(m.threads), "count"}};
  x.mitigation =
      "Use at most one intra-op thread per physical core (ONNX Runtime's default when intraOpNumThreads is 0): "
      "hyper-threads share a core's vector units, and threads beyond the CPUs wait for each other at every "
      "kernel's barrier.";
}

void unstable_timings(const RunFacts& f, FindingSink& out) {
  const LatencyStats& s = f.run.latency_ms;
  RepetitionSpread spread = repetition_spread(f.run.latencies_ms, f.run.repetitions);
  bool runs_differ = f.run.repetitions_are_fresh_runs() && spread_is_large(spread);  // turns: core/repetitions.h
  if (s.n == 0 || (s.cv <= kUnstableCv && !runs_differ)) return;
  std::string title = "end-to-end latency varies: CV " + pct(s.cv) + ", p99 is " +
                      (s.median > 0 ? fixed(s.p99 / s.median, 1) : std::string("?")) +
                      "x the median";
  if (runs_differ) title += "; run medians spread " + pct(spread.spread);
  Finding& x = out.add(s.cv > kUselessCv ? Severity::error : Severity::warning, title);
  x.evidence = {{"CV", s.cv, "ratio"},
                {"median", s.median, "ms"},
                {"p99", s.p99, "ms"},
                {"samples", static_cast<double>(s.n), "count"}};
  if (spread.count > 1) {
    x.evidence.push_back({"runs", static_cast<double>(spread.count), "count"});
    x.evidence.push_back({"run-to-run spread", spread.spread, "ratio"});
  }
  x.mitigation =
      "Another process shared the CPUs, or the clock changed. Measure on a quiet machine, pin the process to fixed "
      "cores, measure longer (--duration), and time with --repeat 5 so compare can tell run-to-run variation from "
      "a change.";
}

}  // namespace

void add_setup_rules(RuleList& rules) {
  rules.push_back({"threads-above-cores", "setup", "more intra-op threads than the machine has physical cores",
                   "https://onnxruntime.ai/docs/performance/tune-performance/threading.html", &threads_above_cores});
  rules.push_back({"unstable-timings", "setup", "end-to-end latency too noisy to trust (CV > 5% or runs that differ)",
                   "https://onnxruntime.ai/docs/performance/tune-performance/troubleshooting.html",
                   &unstable_timings});
}

}  // namespace rooflens
