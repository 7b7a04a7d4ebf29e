#include "reporters/profile_summary.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/reference_ratio.h"
#include "core/repetitions.h"
#include "core/text_table.h"
#include "core/units.h"
#include "reporters/findings_report.h"
#include "reporters/memory_text.h"
#include "reporters/report_text.h"
#include "reporters/run_setup_text.h"
#include "stats/order.h"

namespace rooflens {
namespace {

std::string summary_percent(double v) { return fixed(v * 100, 1) + "%"; }

bool repeated(const Report& r) {
  for (const auto& run : r.runs)
    if (run.repetitions.size() > 1) return true;
  return false;
}

std::string e2e_table(const Report& r) {
  const bool runs = repeated(r);
  TextTable t;
  t.columns = {{"config"}, {"p50 ms", true}, {"p90 ms", true}, {"p99 ms", true}, {"mean ms", true},
               {"CV", true}, {"n", true}, {"items/s", true}, {"GFLOP/s", true}, {"overhead", true},
               {"coverage", true}, {"peak RSS", true}};
  // With --repeat: how many runs, and how far apart their medians lie (run to run) next to the CV (within a run).
  if (runs) t.columns.insert(t.columns.begin() + 7, {{"runs", true}, {"run medians ms", true}, {"spread", true}});
  for (const auto& run : r.runs) {
    const auto& s = run.latency_ms;
    if (s.n == 0 && run.latencies_ms.empty()) {  // not timed (--layers-only): no figure, not a zero
      std::vector<std::string> row(t.columns.size(), "-");
      row[0] = run.label();
      row[10 + (runs ? 3 : 0)] = run.layers.empty() || run.coverage <= 0 ? "-" : summary_percent(run.coverage);
      t.rows.push_back(std::move(row));
      continue;
    }
    std::vector<std::string> row{run.label(), fixed(s.median, 3), fixed(s.p90, 3),
                                 fixed(s.p99, 3), fixed(s.mean, 3), summary_percent(s.cv), std::to_string(s.n),
                                 fixed(run.throughput_per_s, 1), fixed(run.gflops, 1),
                                 run.profiling_overhead > 0 ? fixed(run.profiling_overhead, 3) + "x" : "-",
                                 // An imported run may know neither (no profiled runs to cover, no RSS): "-", not 0.
                                 run.layers.empty() || run.coverage <= 0 ? "-" : summary_percent(run.coverage),
                                 run.peak_rss_bytes > 0 ? si_bytes(static_cast<double>(run.peak_rss_bytes)) : "-"};
    if (runs) {
      RepetitionSpread sp = repetition_spread(run.latencies_ms, run.repetitions);
      bool several = sp.count > 1;
      row.insert(row.begin() + 7, {std::to_string(sp.count),
                                   several ? fixed(sp.min_median, 3) + "–" + fixed(sp.max_median, 3) : "-",
                                   several ? summary_percent(sp.spread) : "-"});
    }
    t.rows.push_back(std::move(row));
  }
  return t.render();
}

std::string layer_table(const ProfileRun& run, size_t top) {
  std::vector<const Layer*> ls;
  for (const auto& l : run.layers) ls.push_back(&l);
  std::stable_sort(ls.begin(), ls.end(), [](const Layer* a, const Layer* b) { return a->time_ms > b->time_ms; });
  if (ls.size() > top) ls.resize(top);
  // A run in an engine with roofs of its own (WebAssembly): eff is against those, "of CPU" against the machine's.
  const bool engine = !run.roofs_engine.empty();
  TextTable t;
  t.columns = {{"#", true}, {"layer", false, 40}, {"op", false, 18}, {"ms", true}, {"share", true},
               {"nodes", true}, {"FLOPs", true}, {"bytes", true}, {"FLOP/B", true}, {"GFLOP/s", true},
               {"GB/s", true}, {"bound"}, {"eff", true}};
  if (engine) t.columns.push_back({"of CPU", true});
  size_t i = 0;
  for (const Layer* l : ls) {
    t.rows.push_back({std::to_string(++i), l->name, l->op, fixed(l->time_ms, 3), summary_percent(l->share),
                      l->alias ? "alias" : std::to_string(l->onnx_nodes.size()), si(static_cast<double>(l->flops)),
                      si_bytes(static_cast<double>(l->bytes)), fixed(l->intensity, 1), fixed(l->gflops, 1),
                      fixed(l->gbps, 1), l->bound.empty() ? "-" : l->bound,
                      // An attribution error is no efficiency: the layer cannot be where its figures put it.
                      l->bound.empty() ? "-" : !l->attribution_error.empty() ? "!" + summary_percent(l->efficiency)
                                                                              : summary_percent(l->efficiency)});
    if (engine) t.rows.back().push_back(l->cpu_efficiency ? summary_percent(*l->cpu_efficiency) : "-");
  }
  std::string note;
  if (engine)
    note = "  eff: of " + run.roofs_engine + "'s own roofs (what it allows); of CPU: of the machine's native roofs\n";
  return t.render() + note;
}

// The layer table's last row: what the kernels do not cover. Σ layer medians + the time between kernels against
// the profiled run; what is left is noise inside kernels (a preemption lands in a different kernel each iteration).
std::string run_balance(const ProfileRun& run) {
  if (!run.between_kernels_ms || !run.profiled_run_ms) return "";
  double layers = 0;
  for (const auto& l : run.layers) layers += l.time_ms;
  double between = *run.between_kernels_ms, run_ms = *run.profiled_run_ms;
  std::string cover = summary_percent(run.coverage) + " of each run";
  if (run.dispatch && run.dispatch->coverage_without_profiler)
    cover += ", " + summary_percent(*run.dispatch->coverage_without_profiler) + " without the profiler's bookkeeping";
  std::string out = "    + between kernels  " + fixed(between, 3) + " ms  (the runtime between its kernels, median per "
                    "iteration; kernels cover " + cover + ")\n";
  out += "    = layers " + fixed(layers, 3) + " + between " + fixed(between, 3) + " = " + fixed(layers + between, 3) +
         " ms; profiled run " + fixed(run_ms, 3) + " ms";
  double rest = run_ms - layers - between;
  if (run_ms > 0 && rest > 0.05 * run_ms)
    out += " (" + fixed(rest, 3) + " ms of noise inside kernels: the sum of per-kernel medians drops it)";
  else if (run_ms > 0 && rest < -0.05 * run_ms)  // noise only lowers the sum: this is time counted twice
    out += " (the layers exceed the run by " + fixed(-rest, 3) + " ms: kernels overlapped, in parallel or nested)";
  return out + "\n";
}

// profile --reference: how the run compares with the reference timed in turns with it, pair by pair.
std::string reference_lines(const Report& r) {
  std::string out;
  for (const auto& run : r.runs) {
    if (!run.reference) continue;
    const ReferenceTiming& ref = *run.reference;
    std::vector<double> ratios = paired_ratios(run.repetition_medians(), ref.repetition_medians());
    if (ratios.empty()) continue;
    std::sort(ratios.begin(), ratios.end());
    const size_t n = ratios.size();
    out += "\n" + run.label() + " ÷ reference " + ref.name + " (timed in turns, " + std::to_string(n) +
           " pairs): " + fixed(reference_ratio(run), 3) + " (median pair; middle half " + fixed(ratios[n / 4], 3) +
           "–" + fixed(ratios[(3 * n) / 4], 3) + "); reference p50 " +
           fixed(stats::median_of(ref.latencies_ms), 3) + " ms\n";
  }
  return out;
}

}  // namespace

std::string profile_summary(const Report& r, size_t top_layers) {
  std::ostringstream out;
  if (r.backends.size() > 1) {
    out << r.model.name << " on " << r.backends.size() << " backends, runs interleaved:";
    for (const auto& b : r.backends) {
      out << "\n  " << b.label << ": " << (b.runtime.empty() ? b.name : b.runtime);
      if (!b.options.empty()) out << " with " << options_text(b);
    }
  } else {
    out << r.model.name << " on " << (r.is_profile() ? runtimes_text(r) : "?");
    if (r.is_profile() && !r.backends[0].options.empty()) out << "\n  options: " << options_text(r.backends[0]);
  }
  if (r.hardware)
    out << "\n  roofs: " << roofs_text(*r.hardware);
  // An import's latencies are whatever the other tool timed (often with its profiler on): never "profiling off".
  const char* timed_as = r.tool.command == "import" ? "as the imported files time it" : "profiling off";
  out << "\n\nend-to-end latency (" << timed_as << "; percentiles nearest-rank" +
             std::string(repeated(r) ? "; over all runs; spread = (highest - lowest run median) / p50" : "") + "):\n";
  if (!r.runs.empty()) out << e2e_table(r) << reference_lines(r) << settings_lines(r) << page_fault_lines(r)
                         << run_memory_text(r);
  else out << "  (no configuration finished)\n";
  for (const auto& run : r.runs) {
    if (run.layers.empty()) continue;
    out << "\ntop " << std::min(top_layers, run.layers.size()) << " of " << run.layers.size() << " layers, "
        << run.label() << " (median of profiled iterations; "
        << run.unowned.size() << " ONNX nodes folded/eliminated):\n"
        << layer_table(run, top_layers) << run_balance(run) << dispatch_line(run);
    if (r.runs.size() > 2) {
      out << "(layers of the other configurations are in the JSON report)\n";
      break;
    }
  }
  std::vector<std::string> warnings = roof_warnings(r);
  warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
  for (const auto& run : r.runs)
    for (const auto& w : run.warnings) warnings.push_back(run.label() + ": " + w);
  if (!warnings.empty()) {
    out << "\nwarnings:\n";
    for (const auto& w : warnings) out << "  - " << w << "\n";
  }
  out << findings_section(r);
  if (!r.failures.empty()) {
    out << "\nfailures:\n";
    for (const auto& f : r.failures)
      out << "  - " << f.label() << " [" << f.stage << ", " << f.kind << "] "
          << f.message << "\n";
  }
  if (r.partial) out << "\ninterrupted: the report holds the configurations that finished\n";
  return out.str();
}

}  // namespace rooflens
