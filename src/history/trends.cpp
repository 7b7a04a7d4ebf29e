#include "history/trends.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <tuple>

#include "compare/significance.h"
#include "compare/verdict.h"
#include "core/errors.h"
#include "core/reference_ratio.h"
#include "stats/order.h"

namespace rooflens {
namespace {

std::regex compile_trend_filter(const std::string& pattern, const char* flag) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw UsageError(std::string(flag) + " '" + pattern + "': not a valid regular expression (" + e.what() + ")");
  }
}

TrendPoint point_of(const HistoryPoint& h) {
  TrendPoint p;
  p.session = h.session;
  p.created_at = h.created_at;
  p.tags = h.tags;
  p.model_hash = h.model_hash;
  p.status = h.status;
  p.error = h.error;
  p.rooflens_version = h.rooflens_version;
  p.runtime = h.runtime;
  p.center_ms = h.status == "pass" ? h.center_ms : 0;
  p.median_ms = h.latency_ms.median;
  p.samples = h.latency_ms.n;
  p.run_medians = h.run_medians;
  p.reference = h.reference.model;
  p.reference_hash = h.reference.model_hash;
  if (h.status == "pass") p.reference_ratio = reference_ratio(h.run_medians, h.reference.run_medians);
  p.peak_rss_bytes = h.status == "pass" ? h.peak_rss_bytes : 0;
  return p;
}

bool timed(const TrendPoint& p) { return p.status == "pass" && p.center_ms > 0; }

// Indices of the timed points, and their centres.
struct Timed {
  std::vector<size_t> at;
  std::vector<double> centres;
};

void segment(const std::vector<double>& v, size_t lo, size_t hi, double alpha, double threshold,
             std::vector<std::pair<size_t, WelchLogRatio>>& found) {
  constexpr size_t kMinSide = 3;
  if (hi - lo < 2 * kMinSide) return;
  size_t best = 0;
  WelchLogRatio best_w;
  double best_t = -1;
  for (size_t k = lo + kMinSide; k + kMinSide <= hi; ++k) {
    WelchLogRatio w = welch_log_ratio({v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(k)},
                                      {v.begin() + static_cast<std::ptrdiff_t>(k), v.begin() + static_cast<std::ptrdiff_t>(hi)},
                                      1 - alpha);
    // No spread on either side (identical values) makes t infinite: rank those by the size of the shift.
    double t = w.se > 0 ? std::fabs(w.t) : (w.ratio != 1 ? 1e300 * std::fabs(std::log(w.ratio)) : 0);
    if (t > best_t) best_t = t, best = k, best_w = w;
  }
  const double candidates = static_cast<double>(hi - lo - 2 * kMinSide + 1);
  if (!(best_w.p_value < alpha / candidates) || std::fabs(best_w.ratio - 1) <= threshold) return;
  found.emplace_back(best, best_w);
  segment(v, lo, best, alpha, threshold, found);
  segment(v, best, hi, alpha, threshold, found);
}

const TrendPoint* latest_of_session(const TrendSeries& s, const std::string& session) {
  for (auto it = s.points.rbegin(); it != s.points.rend(); ++it)
    if (it->session == session) return &*it;
  return nullptr;
}

// What a check compares: the run centre (ms), or — when the latest run was timed beside a reference — the ratio
// to it, with a baseline of earlier runs timed beside the same reference file (a run beside another reference, or
// none, measured something else).
struct Judged {
  double (*value)(const TrendPoint&);
  const TrendPoint& latest;
  bool usable(const TrendPoint& p) const {
    return value(p) > 0 && (latest.reference.empty() || (p.reference == latest.reference &&
                                                        p.reference_hash == latest.reference_hash));
  }
};
double centre_of(const TrendPoint& p) { return timed(p) ? p.center_ms : 0; }
double ratio_of(const TrendPoint& p) { return timed(p) ? p.reference_ratio : 0; }

TrendCheck judge(const TrendSeries& s, const TrendPoint& latest, const CheckOptions& o) {
  TrendCheck c;
  c.model = s.model;
  c.config = s.config;
  c.options = s.options;
  c.machine = s.machine;
  c.session = latest.session;
  c.created_at = latest.created_at;
  c.error = latest.error;
  const Judged j{latest.reference.empty() ? &centre_of : &ratio_of, latest};
  c.reference = latest.reference;
  std::vector<double> base, base_ms;
  const TrendPoint* last_base = nullptr;
  bool earlier_passed = false;
  for (auto it = s.points.rbegin(); it != s.points.rend(); ++it) {
    if (&*it == &latest || it->created_at > latest.created_at) continue;
    if (it->status == "pass") earlier_passed = true;
    if (!j.usable(*it) || static_cast<int>(base.size()) >= o.last) continue;
    if (!last_base) last_base = &*it;
    base.push_back(j.value(*it));
    base_ms.push_back(it->center_ms);
  }
  c.baseline_runs = static_cast<int64_t>(base.size());
  c.model_changed = last_base && last_base->model_hash != latest.model_hash;
  if (latest.status != "pass") {
    c.verdict = earlier_passed ? verdict::kNewFailure : verdict::kStillFailing;
    return c;
  }
  c.latest_ms = latest.center_ms;
  if (!j.usable(latest)) {
    c.verdict = verdict::kNotTimed;
    return c;
  }
  if (static_cast<int>(base.size()) < std::max(2, o.min_runs)) {
    c.verdict = kInsufficientHistory;
    return c;
  }
  WelchLogRatio w = prediction_log_ratio(base, j.value(latest), 1 - o.alpha);
  if (c.reference.empty()) {
    c.baseline_ms = w.base_center;
  } else {
    c.baseline_ratio = w.base_center;
    c.latest_ratio = latest.reference_ratio;
    c.baseline_ms = stats::geometric_mean(base_ms);  // shown beside, not judged
  }
  // The verdict words and rules are compare's, on the same LatencyComparison (its "medians" are the judged values:
  // ratios when judged by the reference; the rules read only the ratio of the two, p and the interval).
  LatencyComparison l;
  l.tested = true;
  l.unit = test_unit::kRuns;
  l.base_median_ms = w.base_center;
  l.new_median_ms = j.value(latest);
  l.ratio = w.ratio;
  l.change = w.ratio - 1;
  l.p_value = w.p_value;
  l.df = w.df;
  l.ci_low = w.ci.low;
  l.ci_high = w.ci.high;
  l.significant = w.p_value < o.alpha && (w.ci.low > 1 || w.ci.high < 1);
  CompareOptions co;
  co.alpha = o.alpha;
  co.threshold = o.threshold;
  c.verdict = latency_verdict(l, co);
  c.change = l.change;
  c.ci_low = w.ci.low;
  c.ci_high = w.ci.high;
  c.p_value = w.p_value;
  return c;
}

}  // namespace

void mark_change_points(std::vector<TrendPoint>& points, double alpha, double threshold) {
  Timed t;
  for (size_t i = 0; i < points.size(); ++i)
    if (timed(points[i])) {
      t.at.push_back(i);
      t.centres.push_back(points[i].center_ms);
    }
  std::vector<std::pair<size_t, WelchLogRatio>> found;
  segment(t.centres, 0, t.centres.size(), alpha, threshold, found);
  for (const auto& [k, w] : found) {
    TrendPoint& p = points[t.at[k]];
    p.change_point = true;
    p.change = w.ratio - 1;
    p.change_p = w.p_value;
  }
}

Trends build_trends(const std::vector<HistoryPoint>& points, const TrendFilter& filter, double alpha,
                    double threshold) {
  std::regex model_re = compile_trend_filter(filter.model, "--model"), config_re = compile_trend_filter(filter.config, "--config");
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, TrendSeries> by_key;
  for (const HistoryPoint& h : points) {
    if (!filter.model.empty() && !std::regex_search(h.model, model_re)) continue;
    if (!filter.config.empty() && !std::regex_search(config_label(h.config, h.options), config_re)) continue;
    TrendSeries& s = by_key[{h.model, config_label(h.config, h.options), h.backend, h.machine, h.options}];
    if (s.points.empty()) {
      s.model = h.model;
      s.backend = h.backend;
      s.options = h.options;
      s.config = h.config;
      s.machine = h.machine;
    }
    TrendPoint p = point_of(h);
    p.model_changed = !s.points.empty() && s.points.back().model_hash != p.model_hash;
    s.points.push_back(std::move(p));
  }
  Trends t;
  for (auto& [key, s] : by_key) {
    mark_change_points(s.points, alpha, threshold);
    t.series.push_back(std::move(s));
  }
  return t;
}

namespace {

// Memory, apart from time: a run's peak resident set barely scatters between runs of one model and configuration
// on one machine (allocations are the same each run; the noise is the allocator's and the runtime's lazy
// initialisation, a few percent), so a plain rule does: the latest peak against the median of up to `last` earlier
// passing runs' peaks — a regression when it exceeds that median by more than the memory threshold and lies above
// every earlier peak; an improvement the other way round.
void judge_memory(const TrendSeries& s, const TrendPoint& latest, const CheckOptions& o, TrendCheck& c) {
  if (latest.status != "pass" || latest.peak_rss_bytes == 0) return;
  std::vector<uint64_t> base;
  for (auto it = s.points.rbegin(); it != s.points.rend() && static_cast<int>(base.size()) < o.last; ++it)
    if (&*it != &latest && it->created_at <= latest.created_at && it->status == "pass" && it->peak_rss_bytes > 0)
      base.push_back(it->peak_rss_bytes);
  c.latest_peak_rss_bytes = latest.peak_rss_bytes;
  if (static_cast<int>(base.size()) < std::max(2, o.min_runs)) {
    c.memory_verdict = kInsufficientHistory;
    return;
  }
  std::sort(base.begin(), base.end());
  const size_t n = base.size();
  c.baseline_peak_rss_bytes = n % 2 ? base[n / 2] : (base[n / 2 - 1] + base[n / 2]) / 2;
  const double latest_b = static_cast<double>(latest.peak_rss_bytes);
  c.memory_change = latest_b / static_cast<double>(c.baseline_peak_rss_bytes) - 1;
  if (c.memory_change > o.memory_threshold && latest.peak_rss_bytes > base.back()) c.memory_verdict = verdict::kRegression;
  else if (c.memory_change < -o.memory_threshold && latest.peak_rss_bytes < base.front())
    c.memory_verdict = verdict::kImprovement;
  else c.memory_verdict = verdict::kBelowThreshold;
}

}  // namespace

void check_latest(Trends& t, const std::string& machine, const CheckOptions& o) {
  t.check_options = o;
  // The latest session (on `machine`, or overall) among the runs left after filtering.
  std::string latest_at, latest_session;
  for (const auto& s : t.series) {
    if (!machine.empty() && s.machine != machine) continue;
    for (const auto& p : s.points)
      if (p.created_at > latest_at || (p.created_at == latest_at && p.session > latest_session))
        latest_at = p.created_at, latest_session = p.session;
  }
  if (latest_session.empty()) return;
  for (const auto& s : t.series) {
    if (!machine.empty() && s.machine != machine) continue;
    if (const TrendPoint* p = latest_of_session(s, latest_session)) {
      t.checks.push_back(judge(s, *p, o));
      judge_memory(s, *p, o, t.checks.back());
    }
  }
}

bool check_fails(const Trends& t) {
  return std::any_of(t.checks.begin(), t.checks.end(), [](const TrendCheck& c) {
    return c.verdict == verdict::kRegression || c.verdict == verdict::kNewFailure ||
           c.memory_verdict == verdict::kRegression;
  });
}

}  // namespace rooflens
