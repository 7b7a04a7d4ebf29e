#include "compare/verdict.h"

#include "compare/significance.h"
#include "core/stats.h"

namespace rooflens {
namespace {

bool enough_samples(const LatencyComparison& l, const CompareOptions& o) {
  auto n1 = static_cast<size_t>(l.base_n), n2 = static_cast<size_t>(l.new_n);
  return n1 >= o.min_samples && n2 >= o.min_samples && mann_whitney_min_p(n1, n2) < o.alpha && l.base_median_ms > 0;
}

}  // namespace

LatencyComparison compare_latency(const std::vector<double>& base, const std::vector<double>& next,
                                  const CompareOptions& o, double base_stats_median, double new_stats_median) {
  LatencyComparison l;
  l.base_n = static_cast<int64_t>(base.size());
  l.new_n = static_cast<int64_t>(next.size());
  l.base_median_ms = base.empty() ? base_stats_median : median_of(base);
  l.new_median_ms = next.empty() ? new_stats_median : median_of(next);
  if (l.base_median_ms > 0 && l.new_median_ms > 0) {
    l.ratio = l.new_median_ms / l.base_median_ms;
    l.change = l.ratio - 1;
  }
  if (!enough_samples(l, o)) return l;
  l.tested = true;
  MannWhitney mw = mann_whitney_u(base, next);
  l.p_value = mw.p_value;
  l.u_new = mw.u_new;
  l.exact = mw.exact;
  BootstrapOptions b;
  b.resamples = o.resamples;
  b.confidence = 1 - o.alpha;
  RatioInterval ci = bootstrap_median_ratio(base, next, b);
  l.ci_low = ci.low;
  l.ci_high = ci.high;
  l.significant = l.p_value < o.alpha && (l.ci_low > 1 || l.ci_high < 1);
  return l;
}

std::string latency_verdict(const LatencyComparison& l, const CompareOptions& o) {
  if (!l.tested) return verdict::kInsufficient;
  if (!l.significant) return verdict::kWithinNoise;
  if (l.ci_low > 1 && l.change > o.threshold) return verdict::kRegression;
  if (l.ci_high < 1 && l.change < -o.threshold) return verdict::kImprovement;
  return verdict::kBelowThreshold;
}

}  // namespace rooflens
