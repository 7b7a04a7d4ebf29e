#include "compare/verdict.h"

#include "compare/significance.h"
#include "core/stats.h"

namespace rooflens {
namespace {

// What the tests compare: block medians when both sides have enough samples for blocks, else the samples.
struct TestUnits {
  std::vector<std::vector<double>> base_blocks, new_blocks;  // singletons when testing samples
  std::vector<double> base, next;                            // one value per block
};

TestUnits test_units(const std::vector<double>& base, const std::vector<double>& next, LatencyComparison& l) {
  TestUnits u;
  size_t bb = time_block_count(base.size()), nb = time_block_count(next.size());
  if (bb && nb) {
    l.base_blocks = static_cast<int64_t>(bb);
    l.new_blocks = static_cast<int64_t>(nb);
    u.base_blocks = time_blocks(base, bb);
    u.new_blocks = time_blocks(next, nb);
  } else {
    for (double v : base) u.base_blocks.push_back({v});
    for (double v : next) u.new_blocks.push_back({v});
  }
  for (const auto& b : u.base_blocks) u.base.push_back(median_of(b));
  for (const auto& b : u.new_blocks) u.next.push_back(median_of(b));
  return u;
}

bool enough_samples(const LatencyComparison& l, const TestUnits& u, const CompareOptions& o) {
  auto n1 = static_cast<size_t>(l.base_n), n2 = static_cast<size_t>(l.new_n);
  return n1 >= o.min_samples && n2 >= o.min_samples && mann_whitney_min_p(u.base.size(), u.next.size()) < o.alpha &&
         l.base_median_ms > 0;
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
  TestUnits u = test_units(base, next, l);
  if (!enough_samples(l, u, o)) return l;
  l.tested = true;
  MannWhitney mw = mann_whitney_u(u.base, u.next);
  l.p_value = mw.p_value;
  l.u_new = mw.u_new;
  l.exact = mw.exact;
  BootstrapOptions b;
  b.resamples = o.resamples;
  b.confidence = 1 - o.alpha;
  RatioInterval ci = bootstrap_median_ratio(u.base_blocks, u.new_blocks, b);
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
