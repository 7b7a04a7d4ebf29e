#include "reporters/run_setup_text.h"

#include "core/units.h"

namespace rooflens {
namespace {

std::string tag(SettingSource s) {
  switch (s) {
    case SettingSource::user: return "user";
    case SettingSource::rooflens: return "rooflens";
    case SettingSource::runtime_default: return "runtime default";
    case SettingSource::observed: return "observed";
  }
  return "?";
}

std::string threads_seen(const ThreadsObserved& t) {
  std::string out = "profile: pool " + std::to_string(t.pool);
  if (t.working) out += ", " + std::to_string(*t.working) + " working";
  return out;
}

// The settings someone chose, each with its source, then the runtime's defaults in one group.
std::string run_settings(const ProfileRun& run) {
  std::string chosen, defaults;
  for (const auto& s : run.settings) {
    if (s.source == SettingSource::runtime_default) {
      defaults += (defaults.empty() ? "" : ", ") + s.name + " " + s.value;
      continue;
    }
    chosen += (chosen.empty() ? "" : " · ") + s.name + " " + s.value + " [" + tag(s.source) + "]";
    if (s.name == "intra_op_threads" && run.threads_observed) chosen += " (" + threads_seen(*run.threads_observed) + ")";
  }
  if (defaults.empty()) return chosen;
  return chosen + (chosen.empty() ? "" : "; ") + "runtime defaults: " + defaults;
}

std::string ms(double v) { return fixed(v, 3); }

}  // namespace

std::string settings_lines(const Report& r) {
  std::string out, last;
  for (const auto& run : r.runs) {
    if (run.settings.empty()) continue;
    std::string text = run_settings(run);
    if (text == last) continue;
    out += "  " + run.label() + ": " + text + "\n";
    last = std::move(text);
  }
  if (out.empty()) return "";
  return "\nrun settings (value [set by: user, or rooflens = chosen and passed explicitly]; runtime defaults: not "
         "passed, the runtime's documented default):\n" + out;
}

std::string page_fault_lines(const Report& r) {
  std::string out;
  bool any = false;
  for (const auto& run : r.runs) {
    if (!run.page_faults_per_run) continue;
    any |= *run.page_faults_per_run >= 1;
    out += "  " + run.label() + ": " + fixed(*run.page_faults_per_run, 1);
    if (run.repetition_page_faults.size() > 1) {  // per repetition, so a runner's state that lasted shows
      std::string each;
      for (size_t i = 0; i < run.repetition_page_faults.size() && i < run.repetitions.size(); ++i)
        each += (each.empty() ? "" : ", ") +
                fixed(static_cast<double>(run.repetition_page_faults[i]) / static_cast<double>(run.repetitions[i]), 1);
      out += " (by run: " + each + ")";
    }
    out += "\n";
  }
  if (!any) return "";
  return "\nminor page faults a run in the runner (its outputs landing on memory the process had not held; "
         "docs/compare.md):\n" + out;
}

std::string dispatch_line(const ProfileRun& run) {
  if (!run.dispatch || !run.between_kernels_ms) return "";
  const DispatchBreakdown& d = *run.dispatch;
  std::string parts;
  auto add = [&parts](const std::string& what, const std::optional<double>& v) {
    if (v) parts += (parts.empty() ? "" : " + ") + what + " " + ms(*v);
  };
  add("outside the executor", d.outside_executor_ms);
  add("in the executor between kernels", d.executor_gaps_ms);
  add("fences", d.fences_ms);
  std::string out = "      between kernels, as the runtime timed it: " + (parts.empty() ? "-" : parts) + " ms";
  if (d.kernels > 0 && d.executor_gaps_ms)
    out += " (" + fixed(*d.executor_gaps_ms * 1000 / static_cast<double>(d.kernels), 1) + " us per kernel, " +
           std::to_string(d.kernels) + " kernels)";
  if (d.longest_gap_ms) out += "; the longest single gap " + ms(*d.longest_gap_ms) + " ms";
  if (d.profiler_ms) out += "; profiling itself adds " + ms(*d.profiler_ms) + " ms per run (profiled − plain median)";
  out += "\n";
  if (d.profiler_bookkeeping_ms && d.profiler_gap_ms && d.coverage_without_profiler)
    out += "      of the time between kernels, at least " + ms(*d.profiler_bookkeeping_ms) + " ms is the profiler's own "
           "bookkeeping (" + fixed(*d.profiler_gap_ms * 1000, 1) + " us a kernel or more, calibrated in the runner on a "
           "chain of one-float kernels): without it the kernels cover " + fixed(*d.coverage_without_profiler * 100, 1) +
           "% of the run\n";
  if (d.pool_wait_ms || d.pool_handoff_ms) {
    out += "      inside kernels, the calling thread handed work to the pool " + ms(d.pool_handoff_ms.value_or(0)) +
           " ms and waited for its workers " + ms(d.pool_wait_ms.value_or(0)) + " ms per run";
    if (d.parallel_kernels) out += " (" + std::to_string(*d.parallel_kernels) + " parallel kernels)";
    out += "\n";
  }
  return out;
}

}  // namespace rooflens
