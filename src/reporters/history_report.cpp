// Terminal rendering of `rooflens history`: machines, the trend table, each trend's recent runs, check verdicts.
#include "reporters/history_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text_table.h"
#include "core/units.h"
#include "reporters/report_text.h"

namespace rooflens {
namespace {

std::string signed_pct(double ratio) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", ratio * 100);
  return buf;
}

std::string p_str(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, p >= 0.001 ? "%.3f" : "%.1e", p);
  return buf;
}

std::string day(const std::string& iso) { return iso.substr(0, 10); }
std::string minute(const std::string& iso) { return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso; }
std::string short_id(const std::string& id) { return id.substr(0, 8); }

// Eight levels of block characters over the timed runs' centres: the shape of a trend in one cell.
std::string sparkline(const std::vector<TrendPoint>& points, size_t width) {
  static const char* bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::vector<const TrendPoint*> timed;
  for (const auto& p : points)
    if (p.center_ms > 0 || p.status != "pass") timed.push_back(&p);
  if (timed.size() > width) timed.erase(timed.begin(), timed.end() - static_cast<std::ptrdiff_t>(width));
  double lo = 1e300, hi = 0;
  for (const auto* p : timed)
    if (p->center_ms > 0) lo = std::min(lo, p->center_ms), hi = std::max(hi, p->center_ms);
  std::string s;
  for (const auto* p : timed) {
    if (p->center_ms <= 0) {
      s += "×";  // failed
      continue;
    }
    int level = hi > lo ? static_cast<int>(std::lround((p->center_ms - lo) / (hi - lo) * 7)) : 3;
    s += bars[std::clamp(level, 0, 7)];
  }
  return s;
}

const TrendPoint* last_timed(const TrendSeries& s) {
  for (auto it = s.points.rbegin(); it != s.points.rend(); ++it)
    if (it->center_ms > 0) return &*it;
  return nullptr;
}

const TrendPoint* first_timed(const TrendSeries& s) {
  for (const auto& p : s.points)
    if (p.center_ms > 0) return &p;
  return nullptr;
}

std::string change_points_text(const TrendSeries& s) {
  std::string out;
  for (const auto& p : s.points) {
    if (!p.change_point) continue;
    auto commit = p.tags.find("commit");
    out += (out.empty() ? "" : ", ") + signed_pct(p.change) + " at " + minute(p.created_at) +
           (commit != p.tags.end() ? " (" + commit->second.substr(0, 10) + ")" : "");
  }
  return out.empty() ? "-" : out;
}

std::string machines_text(const Trends& t) {
  std::string out;
  for (const auto& m : t.machines)
    out += "  machine " + m.id + ": " + m.cpu + ", " + std::to_string(m.cores) + " cores / " +
           std::to_string(m.threads) + " threads, " + si_bytes(static_cast<double>(m.memory_bytes)) + ", " + m.os +
           "\n";
  return out;
}

std::string series_table(const Trends& t) {
  TextTable table{{{"model", false, 28}, {"config", false, 40}, {"machine"}, {"runs", true}, {"first"}, {"latest"},
                   {"latest ms", true}, {"vs first", true}, {"trend"}, {"change points", false, 60}},
                  {}};
  for (const auto& s : t.series) {
    const TrendPoint* first = first_timed(s);
    const TrendPoint* last = last_timed(s);
    std::string vs = first && last && first != last ? signed_pct(last->center_ms / first->center_ms - 1) : "-";
    table.rows.push_back({s.model, config_label(s.config, s.options), short_id(s.machine),
                          std::to_string(s.points.size()), day(s.points.front().created_at),
                          day(s.points.back().created_at), last ? fixed(last->center_ms, 3) : "-", vs,
                          sparkline(s.points, 24), change_points_text(s)});
  }
  return table.render();
}

std::string trend_points_table(const TrendSeries& s, size_t limit) {
  TextTable table{{{"#", true}, {"time (UTC)"}, {"commit"}, {"ms", true}, {"vs previous", true}, {"runs", true},
                   {"run medians ms", false, 48}, {"status"}, {"note", false, 60}},
                  {}};
  size_t start = s.points.size() > limit ? s.points.size() - limit : 0;
  const bool any_reference =
      std::any_of(s.points.begin(), s.points.end(), [](const TrendPoint& p) { return p.reference_ratio > 0; });
  if (any_reference) table.columns.insert(table.columns.begin() + 5, {"÷ reference", false, 40});
  const TrendPoint* prev = nullptr;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const TrendPoint& p = s.points[i];
    if (i >= start) {
      std::string medians;
      for (double m : p.run_medians) medians += (medians.empty() ? "" : " ") + fixed(m, 3);
      std::string note;
      if (p.change_point) note += "level shift " + signed_pct(p.change) + " (p " + p_str(p.change_p) + ")";
      if (p.model_changed) note += std::string(note.empty() ? "" : "; ") + "model changed";
      if (p.status != "pass") note += std::string(note.empty() ? "" : "; ") + p.error;
      auto commit = p.tags.find("commit");
      std::vector<std::string> row{std::to_string(i + 1), minute(p.created_at),
                                   commit == p.tags.end() ? "" : commit->second.substr(0, 10),
                                   p.center_ms > 0 ? fixed(p.center_ms, 3) : "-",
                                   p.center_ms > 0 && prev ? signed_pct(p.center_ms / prev->center_ms - 1) : "",
                                   std::to_string(p.run_medians.size()), medians, p.status, note};
      if (any_reference)
        row.insert(row.begin() + 5, p.reference_ratio > 0 ? fixed(p.reference_ratio, 3) + " " + p.reference : "");
      table.rows.push_back(std::move(row));
    }
    if (p.center_ms > 0) prev = &p;
  }
  return table.render();
}

}  // namespace

// The memory side of the check: each latest run's peak resident set against the earlier runs' median.
std::string memory_checks_text(const Trends& t) {
  TextTable table{{{"model", false, 28}, {"config", false, 40}, {"baseline peak RSS", true}, {"latest peak RSS", true},
                   {"change", true}, {"memory verdict"}},
                  {}};
  for (const auto& c : t.checks) {
    if (c.memory_verdict.empty()) continue;
    const bool judged = c.baseline_peak_rss_bytes > 0;
    table.rows.push_back({c.model, config_label(c.config, c.options),
                          judged ? si_bytes(static_cast<double>(c.baseline_peak_rss_bytes)) : "-",
                          si_bytes(static_cast<double>(c.latest_peak_rss_bytes)),
                          judged ? signed_pct(c.memory_change) : "-", c.memory_verdict});
  }
  if (table.rows.empty()) return "";
  return "memory: each latest run's peak RSS against the median of the earlier runs' (a regression beyond +" +
         percent(t.check_options->memory_threshold, 1) + " that also exceeds every earlier run):\n" + table.render();
}

std::string checks_text(const Trends& t) {
  if (!t.check_options) return "";
  const CheckOptions& o = *t.check_options;
  std::string out = "check: each trend's latest run against up to " + std::to_string(o.last) +
                    " runs before it on the same machine (Student's t of the latest run's centre against theirs, on "
                    "logs: p < " +
                    exact(o.alpha) + " and a change beyond ±" + percent(o.threshold, 1) + "; at least " +
                    std::to_string(o.min_runs) + " earlier runs):\n";
  if (t.checks.empty()) return out + "  (no runs to check)\n";
  bool any_reference = std::any_of(t.checks.begin(), t.checks.end(), [](const TrendCheck& c) { return !c.reference.empty(); });
  TextTable table{{{"model", false, 28}, {"config", false, 40}, {"machine"}, {"latest (UTC)"}, {"baseline ms", true},
                   {"latest ms", true}, {"change", true}, {"95% CI", true}, {"p", true}, {"runs", true}, {"verdict"}},
                  {}};
  if (any_reference) table.columns.insert(table.columns.begin() + 6, {"÷ reference", false, 48});
  for (const auto& c : t.checks) {
    bool by_reference = !c.reference.empty();
    bool tested = by_reference ? c.baseline_ratio > 0 && c.latest_ratio > 0 : c.baseline_ms > 0 && c.latest_ms > 0;
    std::vector<std::string> row{c.model, config_label(c.config, c.options), short_id(c.machine), minute(c.created_at),
                                 c.baseline_ms > 0 ? fixed(c.baseline_ms, 3) : "-",
                                 c.latest_ms > 0 ? fixed(c.latest_ms, 3) : "-", tested ? signed_pct(c.change) : "-",
                                 tested ? "[" + signed_pct(c.ci_low - 1) + ", " + signed_pct(c.ci_high - 1) + "]" : "-",
                                 tested ? p_str(c.p_value) : "-", std::to_string(c.baseline_runs),
                                 c.verdict + (c.model_changed ? " (model changed)" : "")};
    if (any_reference)
      row.insert(row.begin() + 6, !by_reference ? "-"
                                  : tested      ? fixed(c.baseline_ratio, 3) + " → " + fixed(c.latest_ratio, 3) + " " + c.reference
                                                : c.reference);
    table.rows.push_back(std::move(row));
  }
  out += table.render();
  out += memory_checks_text(t);
  if (any_reference)
    out += "  ÷ reference: the run's repetition medians over those of the reference timed in turns with it "
           "(profile --reference); change, CI and p of those rows are the ratio's, so a machine that got faster or "
           "slower between sessions does not move them\n";
  return out;
}

std::string trends_text(const Trends& t, const TrendTextOptions& o) {
  size_t runs = 0;
  for (const auto& s : t.series) runs += s.points.size();
  std::string out = "history in " + t.database + ": " + std::to_string(t.series.size()) + " trend" +
                    (t.series.size() == 1 ? "" : "s") + ", " + std::to_string(runs) + " run" + (runs == 1 ? "" : "s") +
                    " (ms: a run's centre, the median of its repetition medians; times UTC)\n";
  out += machines_text(t);
  if (t.series.empty()) return out + "no runs match\n";
  out += "\n" + series_table(t);
  if (o.points > 0)
    for (const auto& s : t.series)
      out += "\n" + series_label(s) + " on " + short_id(s.machine) + ":\n" + trend_points_table(s, o.points);
  if (t.check_options) out += "\n" + checks_text(t);
  for (const auto& n : t.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace rooflens
