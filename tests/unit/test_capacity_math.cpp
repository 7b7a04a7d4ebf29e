// The math of `rooflens capacity`: MLPerf's early-stopping bound against a direct binomial sum computed here in long
// double (not the continued fraction under test), its known values, the percentile estimate it licenses; the
// Poisson schedule's mean, its goodness of fit to the exponential (a chi-square test with a fixed seed) and its
// determinism.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "capacity/loadgen/early_stopping.h"
#include "capacity/loadgen/schedule.h"
#include "support/binomial_sum.h"

using namespace rooflens;
using namespace rooflens::capacity;

namespace {

// P(Binomial(h + t, p) >= h), directly: the sum of its terms (support/binomial_sum.h).
long double direct_odds(int64_t h, int64_t t, long double p) {
  return rooflens::testing::binomial_at_least_by_sum(h, h + t, p);
}

// The smallest h with direct_odds <= 1 - c, by walking h upward from 1.
int64_t direct_min_under(int64_t t, long double p, long double c) {
  int64_t h = 1;
  while (direct_odds(h, t, p) > 1 - c) ++h;
  return h;
}

}  // namespace

TEST(CapacityEarlyStopping, OddsMatchADirectBinomialSumOverAGrid) {
  for (double p : {0.5, 0.9, 0.95, 0.99, 0.999})
    for (int64_t t : {0, 1, 2, 5, 10, 40})
      for (int64_t h : {1, 10, 100, 459, 1000, 5000}) {
        const double got = under_limit_odds(h, t, p);
        const long double want = direct_odds(h, t, p);
        EXPECT_NEAR(got, static_cast<double>(want), 1e-11 + 1e-9 * static_cast<double>(want))
            << "p=" << p << " t=" << t << " h=" << h;
      }
}

TEST(CapacityEarlyStopping, MinimumQueriesMatchTheDirectSearch) {
  for (double p : {0.9, 0.95, 0.99})
    for (int64_t t : {0, 1, 2, 3, 7, 20}) {
      const int64_t got = min_under_limit(t, p, 0.99);
      EXPECT_EQ(got, direct_min_under(t, p, 0.99L)) << "p=" << p << " t=" << t;
      // The bound is tight: one fewer query under the limit no longer passes.
      EXPECT_LE(static_cast<double>(direct_odds(got, t, p)), 0.01);
      if (got > 1) {
        EXPECT_GT(static_cast<double>(direct_odds(got - 1, t, p)), 0.01);
      }
    }
}

TEST(CapacityEarlyStopping, KnownValues) {
  // t = 0: 0.99^h <= 0.01, h >= ln 0.01 / ln 0.99 = 458.2 -> 459 (LoadGen's first guess, ceil of that ratio).
  EXPECT_EQ(min_under_limit(0, 0.99, 0.99), 459);
  // One query over at p99: 661 under it, 662 in all — MLPerf's multi-stream min_query_count.
  EXPECT_EQ(min_under_limit(1, 0.99, 0.99) + 1, 662);
  // p90, t = 0: 0.9^h <= 0.01 -> h = 44 (ln 0.01 / ln 0.9 = 43.7).
  EXPECT_EQ(min_under_limit(0, 0.9, 0.99), 44);
}

TEST(CapacityEarlyStopping, EstimateDiscardsWhatTheBoundAllows) {
  std::vector<double> lat;
  for (int i = 1; i <= 1000; ++i) lat.push_back(i);  // 1..1000 ms, shuffled order does not matter
  std::reverse(lat.begin(), lat.end());
  const PercentileEstimate e = percentile_estimate(lat, 0.9, 0.99);
  ASSERT_TRUE(e.possible);
  // The largest t with 1000 >= h(t) + t, found here by walking t upward.
  int64_t t = 1;
  while (1000 >= direct_min_under(t + 1, 0.9L, 0.99L) + t + 1) ++t;
  EXPECT_EQ(e.t, t);
  EXPECT_EQ(e.value, 1000 - t + 1);           // the t-th highest latency
  EXPECT_GT(e.value, 900);                    // an estimate of p90 errs high, never low
  EXPECT_FALSE(percentile_estimate(std::vector<double>(40, 1.0), 0.9, 0.99).possible);
  EXPECT_EQ(percentile_estimate(std::vector<double>(40, 1.0), 0.9, 0.99).needed, direct_min_under(1, 0.9L, 0.99L) + 1);
}

TEST(CapacitySchedule, PoissonMeanAndGoodnessOfFit) {
  const double qps = 250;
  const int64_t n = 20000;
  const std::vector<int64_t> t = poisson_arrivals(qps, 42, n);
  std::vector<double> gaps;
  int64_t prev = 0;
  for (int64_t x : t) {
    ASSERT_GE(x, prev);
    gaps.push_back(static_cast<double>(x - prev) / 1e9);
    prev = x;
  }
  double mean = 0;
  for (double g : gaps) mean += g;
  mean /= static_cast<double>(gaps.size());
  // The mean gap is 1/qps within 3 standard errors (an exponential's sd equals its mean).
  EXPECT_NEAR(mean, 1 / qps, 3 * (1 / qps) / std::sqrt(static_cast<double>(n)));
  // Chi-square against the exponential CDF over 20 equiprobable bins: 19 degrees of freedom, the 0.999 quantile
  // is 43.82; a fixed seed makes the test deterministic.
  const int bins = 20;
  std::vector<int> count(bins, 0);
  for (double g : gaps) {
    const double u = 1 - std::exp(-qps * g);
    ++count[std::min(bins - 1, static_cast<int>(u * bins))];
  }
  double chi2 = 0;
  const double expected = static_cast<double>(n) / bins;
  for (int c : count) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 43.82);
  // Arrivals in disjoint 1 s windows are Poisson: their variance equals their mean (index of dispersion ~ 1).
  std::vector<int> per_second(static_cast<size_t>(t.back() / 1'000'000'000) + 1, 0);
  for (int64_t x : t) ++per_second[static_cast<size_t>(x / 1'000'000'000)];
  per_second.pop_back();  // the last window is cut short
  double m = 0, v = 0;
  for (int c : per_second) m += c;
  m /= static_cast<double>(per_second.size());
  for (int c : per_second) v += (c - m) * (c - m);
  v /= static_cast<double>(per_second.size() - 1);
  EXPECT_NEAR(v / m, 1.0, 0.35);
}

TEST(CapacitySchedule, SameSeedSameScheduleOtherSeedOther) {
  EXPECT_EQ(poisson_arrivals(100, 7, 500), poisson_arrivals(100, 7, 500));
  EXPECT_NE(poisson_arrivals(100, 7, 500), poisson_arrivals(100, 8, 500));
  EXPECT_EQ(schedule_seed(3, 40.0), schedule_seed(3, 40.0));
  EXPECT_NE(schedule_seed(3, 40.0), schedule_seed(3, 41.0));
}
