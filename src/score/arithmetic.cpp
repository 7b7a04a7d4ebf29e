#include "score/arithmetic.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "stats/order.h"
#include "stats/student_t.h"

namespace rooflens::score {
namespace {

bool is_latency(const ScoreFigure& f) { return f.unit == "ms"; }

double score_of(const ScoreFigure& f, double raw) {
  const double t = time_ms_of(f, raw);
  return t > 0 && f.reference_time_ms > 0 ? f.reference_time_ms / t * 1000 : 0;
}

std::vector<double> rep_scores(const ScoreFigure& f) {
  std::vector<double> out;
  for (double x : f.repetitions) out.push_back(score_of(f, x));
  return out;
}

// The figures of a category that count: their workload is valid and they have a score.
std::vector<const ScoreFigure*> valid_figures(const std::string& category, const std::vector<ScoreWorkload>& ws) {
  std::vector<const ScoreFigure*> out;
  for (const auto& w : ws)
    if (w.status == WorkloadStatus::valid)
      for (const auto& f : w.figures)
        if (f.category == category && f.score > 0) out.push_back(&f);
  return out;
}

// An aggregate's interval (category or overall): its log score is Σ over member figures of weight × mean over
// repetitions of log score. Figures of one workload are measured in the same repetitions, so they are summed per
// repetition first (u_i = Σ weight × log score_i over the workload's figures: whatever their repetitions share
// stays in u); workloads are measured one after another in fresh processes, so their terms are independent and
// their variances add:
//   var = Σ_w s²(u_w) / n_w,   df = var² / Σ_w (s²(u_w) / n_w)² / (n_w - 1)   (Welch–Satterthwaite)
//   CI  = exp(Σ_w mean(u_w) ± t(0.975, df) × √var)
// A workload with one repetition gives no variance: then no interval.
struct Member {
  const ScoreWorkload* workload = nullptr;
  const ScoreFigure* figure = nullptr;
  double weight = 1;
};

ScoreInterval welch_interval(const std::vector<Member>& members) {
  std::map<const ScoreWorkload*, std::vector<const Member*>> by_workload;
  for (const auto& m : members) by_workload[m.workload].push_back(&m);
  double centre = 0, var = 0, df_denominator = 0;
  for (const auto& [w, ms] : by_workload) {
    size_t n = SIZE_MAX;
    for (const Member* m : ms) n = std::min(n, m->figure->repetitions.size());
    if (n < 2) return {};
    std::vector<double> u(n, 0.0);
    for (const Member* m : ms)
      for (size_t i = 0; i < n; ++i) u[i] += m->weight * std::log(score_of(*m->figure, m->figure->repetitions[i]));
    double mean = 0;
    for (double x : u) mean += x;
    mean /= static_cast<double>(n);
    double ss = 0;
    for (double x : u) ss += (x - mean) * (x - mean);
    const double term = ss / static_cast<double>(n - 1) / static_cast<double>(n);
    centre += mean;
    var += term;
    df_denominator += term * term / static_cast<double>(n - 1);
  }
  if (by_workload.empty()) return {};
  if (!(var > 0)) return {std::exp(centre), std::exp(centre)};
  const double half = stats::student_t_quantile(0.975, var * var / df_denominator) * std::sqrt(var);
  return {std::exp(centre - half), std::exp(centre + half)};
}

// The valid figures of a category with their workloads, each weighted 1 / (their count).
std::vector<Member> category_members(const std::string& category, const std::vector<ScoreWorkload>& ws) {
  std::vector<Member> out;
  for (const auto& w : ws)
    if (w.status == WorkloadStatus::valid)
      for (const auto& f : w.figures)
        if (f.category == category && f.score > 0) out.push_back({&w, &f, 1});
  for (auto& m : out) m.weight = 1.0 / static_cast<double>(out.size());
  return out;
}

std::string times(double x) { return fmt::format("{:.2f}×", x); }

}  // namespace

ScoreInterval log_t_interval(const std::vector<double>& xs) {
  if (xs.size() < 2 || stats::geometric_mean(xs) <= 0) return {};
  const double n = static_cast<double>(xs.size());
  double mean = 0;
  for (double x : xs) mean += std::log(x);
  mean /= n;
  double ss = 0;
  for (double x : xs) ss += (std::log(x) - mean) * (std::log(x) - mean);
  const double sd = std::sqrt(ss / (n - 1));
  const double half = stats::student_t_quantile(0.975, n - 1) * sd / std::sqrt(n);
  return {std::exp(mean - half), std::exp(mean + half)};
}

double time_ms_of(const ScoreFigure& f, double raw) {
  if (!(raw > 0)) return 0;
  return is_latency(f) ? raw : 1000 / raw;
}

void score_figure(ScoreFigure& f, bool valid) {
  f.value = stats::geometric_mean(f.repetitions);
  f.time_ms = time_ms_of(f, f.value);
  f.score = 0;
  f.ci = {};
  f.drift = 0;
  f.drift_beyond_ci = false;
  f.roof_ratio = 0;
  f.efficiency = 0;
  if (f.repetitions.size() >= 2) {
    const double first = time_ms_of(f, f.repetitions.front()), last = time_ms_of(f, f.repetitions.back());
    if (first > 0) f.drift = last / first - 1;
  }
  if (!valid || f.time_ms <= 0 || f.reference_time_ms <= 0) return;
  const std::vector<double> s = rep_scores(f);
  f.score = stats::geometric_mean(s);
  f.ci = log_t_interval(s);
  if (f.ci.high > 0 && s.size() >= 2) {
    const double half = (std::log(f.ci.high) - std::log(f.ci.low)) / 2;
    f.drift_beyond_ci = std::abs(std::log(s.back() / s.front())) > half;
  }
  if (f.roof.time_ms > 0 && f.reference_roof_time_ms > 0) {
    f.roof_ratio = f.reference_roof_time_ms / f.roof.time_ms;
    f.efficiency = f.score / 1000 / f.roof_ratio;
  }
}

ScoreAggregate aggregate_category(const std::string& name, const std::vector<ScoreWorkload>& workloads) {
  ScoreAggregate a;
  a.name = name;
  for (const auto& w : workloads)
    if (w.status != WorkloadStatus::unsupported)
      for (const auto& f : w.figures)
        if (f.category == name) ++a.members;
  const auto figs = valid_figures(name, workloads);
  a.valid_members = static_cast<int64_t>(figs.size());
  a.incomplete = a.valid_members < a.members || a.members == 0;
  std::vector<double> scores, roofs;
  for (const auto* f : figs) {
    scores.push_back(f->score);
    roofs.push_back(f->roof_ratio);
  }
  a.score = stats::geometric_mean(scores);
  a.ci = welch_interval(category_members(name, workloads));
  a.roof_ratio = stats::geometric_mean(roofs);  // 0 unless every valid figure has roofs
  a.efficiency = a.roof_ratio > 0 ? a.score / 1000 / a.roof_ratio : 0;
  a.explanation = explain(a, workloads);
  return a;
}

ScoreAggregate aggregate_overall(const std::vector<ScoreAggregate>& categories,
                                 const std::vector<ScoreWorkload>& workloads) {
  ScoreAggregate a;
  a.name = "overall";
  a.members = static_cast<int64_t>(categories.size());
  std::vector<double> scores, roofs;
  std::vector<std::vector<Member>> parts;
  for (const auto& c : categories) {
    a.incomplete = a.incomplete || c.incomplete;
    if (c.score <= 0) continue;
    ++a.valid_members;
    scores.push_back(c.score);
    roofs.push_back(c.roof_ratio);
    parts.push_back(category_members(c.name, workloads));
  }
  a.incomplete = a.incomplete || a.valid_members < a.members || a.members == 0;
  a.score = stats::geometric_mean(scores);
  a.roof_ratio = stats::geometric_mean(roofs);
  a.efficiency = a.roof_ratio > 0 ? a.score / 1000 / a.roof_ratio : 0;
  std::vector<Member> members;  // every valid figure, weighted 1 / (categories × its category's figures)
  for (auto& part : parts)
    for (auto& m : part) {
      m.weight /= static_cast<double>(parts.size());
      members.push_back(m);
    }
  a.ci = welch_interval(members);
  a.explanation = explain(a, workloads);
  return a;
}

std::string explain(const ScoreAggregate& a, const std::vector<ScoreWorkload>& workloads) {
  if (a.score <= 0)
    return fmt::format("{}: no score ({} of {} {} valid)", a.name, a.valid_members, a.members,
                       a.name == "overall" ? "categories" : "figures");
  std::string line = fmt::format("{} {} the reference", a.name, times(a.score / 1000));
  if (a.roof_ratio > 0) {
    // Which roof bounds it: the bound and compute dtype shared by its figures, else "roofs".
    std::map<std::string, int> kinds;
    for (const auto& w : workloads)
      if (w.status == WorkloadStatus::valid)
        for (const auto& f : w.figures)
          if ((a.name == "overall" || f.category == a.name) && f.score > 0)
            ++kinds[f.roof.bound == "compute" ? w.precision + " compute" : f.roof.bound];
    const std::string roof = kinds.size() == 1 ? kinds.begin()->first + " roof" : "roofs";
    line += fmt::format(": {} {}, efficiency {}", roof, times(a.roof_ratio), times(a.efficiency));
  } else {
    line += " (no roofs: not decomposed)";
  }
  if (a.incomplete)
    line += fmt::format(" — incomplete: {} of {} {} valid", a.valid_members, a.members,
                        a.name == "overall" ? "categories" : "figures");
  return line;
}

void rescore(ScoreResult& r, const std::vector<std::string>& order) {
  for (auto& w : r.workloads)
    for (auto& f : w.figures) score_figure(f, w.status == WorkloadStatus::valid);
  r.categories.clear();
  for (const auto& c : order) r.categories.push_back(aggregate_category(c, r.workloads));
  r.overall = aggregate_overall(r.categories, r.workloads);
  r.ci_method = kCiMethod;
}

}  // namespace rooflens::score
