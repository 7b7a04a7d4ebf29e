#include "compare/verdict.h"

#include "compare/significance.h"
#include "core/repetitions.h"
#include "stats/order.h"

namespace rooflens {
namespace {

// What the single-run tests compare: block medians when both sides have enough samples for blocks, else the
// samples.
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
  for (const auto& b : u.base_blocks) u.base.push_back(stats::median_of(b));
  for (const auto& b : u.new_blocks) u.next.push_back(stats::median_of(b));
  return u;
}

bool enough_samples(const LatencyComparison& l, const CompareOptions& o) {
  auto n1 = static_cast<size_t>(l.base_n), n2 = static_cast<size_t>(l.new_n);
  return n1 >= o.min_samples && n2 >= o.min_samples && l.base_median_ms > 0;
}

void set_change(LatencyComparison& l) {
  if (l.base_median_ms > 0 && l.new_median_ms > 0) {
    l.ratio = l.new_median_ms / l.base_median_ms;
    l.change = l.ratio - 1;
  }
}

// One run on a side: Mann-Whitney and the bootstrap on its samples (or blocks of them).
void test_single_runs(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& o,
                      LatencyComparison& l) {
  TestUnits u = test_units(base, next, l);
  if (!enough_samples(l, o) || mann_whitney_min_p(u.base.size(), u.next.size()) >= o.alpha) return;
  l.tested = true;
  l.unit = l.base_blocks ? test_unit::kBlocks : test_unit::kSamples;
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
}

// Several runs on both sides: each run's median is one observation of "how fast is it", and their spread is
// the run-to-run variation the verdict has to beat. The medians shown are the geometric means the test compares.
// Runs measured in pairs (o.paired, as many on each side, at least 3) are tested pair by pair.
bool test_repetitions(const LatencySide& base, const LatencySide& next, const CompareOptions& o,
                      LatencyComparison& l) {
  const std::vector<double> bm = repetition_medians(base.samples, base.repetitions),
                            nm = repetition_medians(next.samples, next.repetitions);
  const bool paired = o.paired && bm.size() == nm.size() && bm.size() >= 3;
  WelchLogRatio w = paired ? paired_log_ratio(bm, nm, 1 - o.alpha) : welch_log_ratio(bm, nm, 1 - o.alpha);
  if (!(w.base_center > 0)) return false;  // a run median <= 0: not timings; fall back to the samples
  l.base_median_ms = w.base_center;
  l.new_median_ms = w.new_center;
  set_change(l);
  if (!enough_samples(l, o)) return true;
  l.tested = true;
  l.unit = paired ? test_unit::kPairs : test_unit::kRuns;
  l.p_value = w.p_value;
  l.df = w.df;
  l.ci_low = w.ci.low;
  l.ci_high = w.ci.high;
  return true;
}

}  // namespace

LatencyComparison compare_latency(const LatencySide& base, const LatencySide& next, const CompareOptions& o) {
  LatencyComparison l;
  l.base_n = static_cast<int64_t>(base.samples.size());
  l.new_n = static_cast<int64_t>(next.samples.size());
  l.base_runs = static_cast<int64_t>(repetition_sizes(base.repetitions, base.samples.size()).size());
  l.new_runs = static_cast<int64_t>(repetition_sizes(next.repetitions, next.samples.size()).size());
  if (l.base_runs >= 2 && l.new_runs >= 2 && test_repetitions(base, next, o, l)) {
    l.significant = l.tested && l.p_value < o.alpha && (l.ci_low > 1 || l.ci_high < 1);
    return l;
  }
  l.base_median_ms = base.samples.empty() ? base.stats_median : stats::median_of(base.samples);
  l.new_median_ms = next.samples.empty() ? next.stats_median : stats::median_of(next.samples);
  set_change(l);
  test_single_runs(base.samples, next.samples, o, l);
  l.significant = l.tested && l.p_value < o.alpha && (l.ci_low > 1 || l.ci_high < 1);
  return l;
}

LatencyComparison compare_latency(const std::vector<double>& base, const std::vector<double>& next,
                                  const CompareOptions& o, double base_stats_median, double new_stats_median) {
  return compare_latency(LatencySide{base, {}, base_stats_median}, LatencySide{next, {}, new_stats_median}, o);
}

std::string latency_verdict(const LatencyComparison& l, const CompareOptions& o) {
  if (!l.tested) return verdict::kInsufficient;
  if (!l.significant) return verdict::kWithinNoise;
  if (l.ci_low > 1 && l.change > o.threshold) return verdict::kRegression;
  if (l.ci_high < 1 && l.change < -o.threshold) return verdict::kImprovement;
  return verdict::kBelowThreshold;
}

}  // namespace rooflens
