#include "reporters/score_summary.h"

#include <fmt/format.h>

#include "core/text_table.h"

namespace rooflens {
namespace {

std::string score_text(double score, const ScoreInterval& ci) {
  if (score <= 0) return "-";
  if (ci.high <= 0) return fmt::format("{:.0f}", score);
  return fmt::format("{:.0f} [{:.0f}, {:.0f}]", score, ci.low, ci.high);
}

std::string score_ratio(double x) { return x > 0 ? fmt::format("{:.2f}×", x) : "-"; }

std::string value_text(const ScoreFigure& f) {
  if (f.value <= 0) return "-";
  return fmt::format("{:.4g} {}", f.value, f.unit);
}

}  // namespace

std::string score_summary(const ScoreResult& r) {
  std::string out = fmt::format("rooflens score · suite {} · {}{}{}\n", r.suite, r.quick ? "quick" : "full",
                                r.kind == "projected" ? " · projected for " + r.device : "",
                                r.partial ? " · PARTIAL (interrupted)" : "");
  const MachineDesc& m = r.machine.machine;
  out += fmt::format("machine: {} · {} cores used · {} · {}\n", m.model.empty() ? "unknown CPU" : m.model,
                     r.machine.cores_used, r.machine.runtime.runtime.empty() ? r.machine.runtime.name : r.machine.runtime.runtime,
                     r.machine.tool.version.empty() ? "" : "rooflens " + r.machine.tool.version);
  out += fmt::format("\nOVERALL {}{}   (95% CI; {} repetitions; {:.0f} s)\n", score_text(r.overall.score, r.overall.ci),
                     r.overall.incomplete ? "  INCOMPLETE" : "", r.repetitions, r.seconds);
  out += "  " + r.overall.explanation + "\n";
  for (const auto& c : r.categories)
    out += fmt::format("  {:<16} {:<20} {}\n", c.name, score_text(c.score, c.ci) + (c.incomplete ? " *" : ""),
                       c.explanation);

  TextTable t;
  t.columns = {{"workload"}, {"status"}, {"figure"}, {"measured", true}, {"reference", true}, {"score [95% CI]", true},
               {"roof", true}, {"efficiency", true}, {"drift", true}, {"bound"}, {"config", false, 48}};
  for (const auto& w : r.workloads) {
    if (w.figures.empty()) {
      t.rows.push_back({w.id, to_string(w.status), "-", "-", "-", "-", "-", "-", "-", "-", ""});
      continue;
    }
    for (const auto& f : w.figures) {
      const double ref = f.reference_time_ms > 0 ? (f.unit == "ms" ? f.reference_time_ms : 1000 / f.reference_time_ms) : 0;
      t.rows.push_back({w.id, to_string(w.status), f.metric, value_text(f),
                        ref > 0 ? fmt::format("{:.4g}", ref) : "-", score_text(f.score, f.ci), score_ratio(f.roof_ratio),
                        score_ratio(f.efficiency),
                        f.repetitions.size() >= 2 ? fmt::format("{:+.1f}%{}", f.drift * 100, f.drift_beyond_ci ? " !" : "") : "-",
                        f.roof.bound.empty() ? "-" : f.roof.bound, f.config});
    }
  }
  out += "\n" + t.render();
  bool drift = false;
  for (const auto& w : r.workloads)
    for (const auto& f : w.figures) drift = drift || f.drift_beyond_ci;
  if (drift) out += "drift !: the last repetition differs from the first by more than the 95% interval (throttling, a noisy neighbour)\n";
  for (const auto& w : r.workloads)
    if (w.status != WorkloadStatus::valid)
      out += fmt::format("{} {}: {}{}\n", w.id, to_string(w.status), w.reason,
                         w.max_abs_error > 0 ? fmt::format(" (max abs error {:.3g})", w.max_abs_error) : "");
  for (const auto& s : r.warnings) out += "warning: " + s + "\n";
  if (r.quick) out += "quick score: a subset with shorter runs; never compare it with a full score\n";
  return out;
}

std::string projected_score_summary(const ScoreResult& r, const std::vector<CalibrationRow>& calibration) {
  std::string out = fmt::format("PROJECTED score of {} (suite {}, {}) — not measured\n", r.device, r.suite,
                                r.quick ? "quick" : "full");
  auto line = [&](const ScoreAggregate& a) {
    // The explanation ends with where the efficiency came from ("... efficiency 1.31× learned").
    const auto at = a.explanation.find("efficiency"), end = a.explanation.find("; incomplete");
    out += a.score > 0 ? fmt::format("  {:<18} {:>8.0f}   roofs {:.2f}× × {}{}\n", a.name, a.score, a.roof_ratio,
                                     at == std::string::npos ? fmt::format("efficiency {:.2f}×", a.efficiency)
                                                             : a.explanation.substr(at, end - at),
                                     a.incomplete ? "  incomplete" : "")
                       : fmt::format("  {:<18} {:>8}\n", a.name, "-");
  };
  line(r.overall);
  for (const auto& c : r.categories) line(c);
  for (const auto& w : r.warnings) out += "  note: " + w + "\n";
  if (!calibration.empty()) {
    out += "calibration on this machine: projected / measured - 1 (over the categories both scored)\n";
    for (const auto& c : calibration)
      out += fmt::format("  {:<18} projected {:>8.0f}  measured {:>8.0f}  error {:+.1f}%\n", c.name, c.projected,
                         c.measured, c.error * 100);
  }
  return out;
}

}  // namespace rooflens
