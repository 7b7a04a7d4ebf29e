// stats/: each function once against values that do not share its method. Reference figures come from an
// independent Python implementation (stdlib only): the incomplete beta by its hypergeometric power series (not the
// continued fraction under test), the t CDF cross-checked by Simpson integration of the density, the binomial tail by
// a direct sum of its terms in long double here; closed forms and printed tables where they exist.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "stats/beta.h"
#include "stats/binomial.h"
#include "stats/normal.h"
#include "stats/order.h"
#include "stats/pareto.h"
#include "stats/splitmix64.h"
#include "stats/student_t.h"
#include "support/binomial_sum.h"

using namespace rooflens::stats;

TEST(StatsIncompleteBeta, ClosedFormsAndAnIndependentSeries) {
  EXPECT_NEAR(incomplete_beta(2, 3, 0.5), 11.0 / 16, 1e-15);  // integer a, b: a binomial tail, 11/16
  EXPECT_NEAR(incomplete_beta(1, 1, 0.37), 0.37, 1e-15);      // uniform
  EXPECT_NEAR(incomplete_beta(3.5, 1, 0.6), std::pow(0.6, 3.5), 1e-15);  // I_x(a, 1) = x^a
  EXPECT_NEAR(incomplete_beta(1, 5, 0.3), 1 - std::pow(0.7, 5), 1e-14);  // I_x(1, b) = 1 - (1 - x)^b
  EXPECT_NEAR(incomplete_beta(0.5, 0.5, 0.2), 2 / M_PI * std::asin(std::sqrt(0.2)), 1e-14);  // arcsine law
  // Python power series (x^a (1-x)^b / (a B(a,b)) * 2F1(a+b, 1; a+1; x), with the symmetry for large x).
  EXPECT_NEAR(incomplete_beta(2.5, 0.5, 0.3), 0.018927124071945616, 1e-15);
  EXPECT_NEAR(incomplete_beta(10, 0.5, 0.9), 0.15164090963471025, 1e-14);
  EXPECT_NEAR(incomplete_beta(50, 3.5, 0.95), 0.6287445871499431, 1e-13);
  EXPECT_NEAR(incomplete_beta(4, 7, 0.3) + incomplete_beta(7, 4, 0.7), 1, 1e-15);  // symmetry
  EXPECT_EQ(incomplete_beta(2, 3, 0), 0);
  EXPECT_EQ(incomplete_beta(2, 3, 1), 1);
  EXPECT_TRUE(std::isnan(incomplete_beta(-1, 3, 0.5)));
}

TEST(StatsStudentT, CdfAndTwoSidedTail) {
  EXPECT_NEAR(student_t_cdf(2, 5), 0.9490302605850709, 1e-14);  // Simpson integration agrees to 4e-15
  EXPECT_NEAR(student_t_cdf(-2, 5), 1 - 0.9490302605850709, 1e-14);
  EXPECT_DOUBLE_EQ(student_t_cdf(0, 3), 0.5);
  EXPECT_NEAR(student_t_cdf(1, 1), 0.75, 1e-15);  // Cauchy: 1/2 + atan(1)/pi
  EXPECT_NEAR(student_t_two_sided_p(3.5, 2.7), 0.04652560492194135, 1e-14);  // fractional df, as Welch's are
  // Far in the tail the two-sided p keeps its digits (1 - cdf would round to 0 around 1e-16).
  EXPECT_NEAR(student_t_two_sided_p(10, 30) / 4.5752514082295786e-11, 1, 1e-10);
  EXPECT_EQ(student_t_two_sided_p(INFINITY, 4), 0);
}

TEST(StatsStudentT, QuantilesMatchTheTables) {
  // Two-sided 95% critical values of printed t tables (and the Python bisection of the series CDF).
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736174655, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.302652729749456, 1e-11);
  EXPECT_NEAR(student_t_quantile(0.975, 5), 2.570581835636313, 1e-11);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228138851986274, 1e-11);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042272456301233, 1e-11);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604094871349979, 1e-11);
  EXPECT_NEAR(student_t_quantile(0.975, 3.4), 2.980773502558617, 1e-11);
  EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.959963984540054, 1e-5);  // -> the normal's
  EXPECT_NEAR(student_t_quantile(0.025, 5), -2.570581835636313, 1e-11);
  EXPECT_EQ(student_t_quantile(0.5, 7), 0);
  for (double p : {0.6, 0.9, 0.99, 0.9999})
    EXPECT_NEAR(student_t_cdf(student_t_quantile(p, 2.5), 2.5), p, 1e-13) << p;
}

TEST(StatsNormal, CdfAndQuantileAgainstTheTables) {
  EXPECT_DOUBLE_EQ(normal_cdf(0), 0.5);
  EXPECT_NEAR(normal_cdf(1.96), 0.9750021048517795, 1e-15);
  EXPECT_NEAR(normal_cdf(-1), 0.15865525393145707, 1e-15);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 1e-12);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-12);
  EXPECT_TRUE(std::isnan(normal_quantile(1)));
}

TEST(StatsBinomial, UpperTailMatchesADirectSumOverAGrid) {
  for (double p : {0.1, 0.5, 0.9, 0.99, 0.999})
    for (int64_t n : {1, 10, 100, 1000, 5000})
      for (int64_t k : {int64_t{1}, n / 3 + 1, n / 2 + 1, n - 3, n}) {
        if (k < 1 || k > n) continue;
        const long double want = rooflens::testing::binomial_at_least_by_sum(k, n, p);
        EXPECT_NEAR(binomial_at_least(k, n, p), static_cast<double>(want), 1e-11 + 1e-9 * static_cast<double>(want))
            << "p=" << p << " n=" << n << " k=" << k;
      }
  EXPECT_EQ(binomial_at_least(0, 10, 0.3), 1);
  EXPECT_EQ(binomial_at_least(11, 10, 0.3), 0);
}

TEST(StatsSplitMix64, ThePublishedStreamAndItsUniforms) {
  // The reference implementation's first outputs for seed 0, and their 53 high bits as a fraction.
  SplitMix64 r(0);
  EXPECT_EQ(r.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(r.next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(r.next(), 0x06c45d188009454fULL);
  SplitMix64 u(0);
  EXPECT_DOUBLE_EQ(u.uniform(), 0.8833108082136426);
  EXPECT_DOUBLE_EQ(u.uniform(), 0.43152799704850997);
}

TEST(StatsOrder, PercentilesAndMedians) {
  const std::vector<double> sorted{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(percentile_nearest_rank(sorted, 50), 5);  // ceil(5) = 5th
  EXPECT_EQ(percentile_nearest_rank(sorted, 90), 9);
  EXPECT_EQ(percentile_nearest_rank(sorted, 91), 10);  // ceil(9.1) = 10th
  EXPECT_EQ(percentile_nearest_rank({}, 50), 0);
  EXPECT_EQ(median_of({5, 1, 3}), 3);
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_of({}), 0);
  EXPECT_EQ(upper_median({4, 1, 3, 2}), 3);  // measured, not the mean of 2 and 3
  EXPECT_EQ(upper_median({5, 1, 3}), 3);
  EXPECT_EQ(upper_median({}), 0);
}

TEST(StatsOrder, MedianIntervalUsesOrderStatistics) {
  // n = 100 at 95%: ranks 40 and 61 (1-based), as runners/ort/stats.mjs computes them.
  std::vector<double> s;
  for (int i = 100; i >= 1; --i) s.push_back(i);
  auto ci = median_ci(s, 0.95);
  ASSERT_TRUE(ci);
  EXPECT_EQ(ci->first, 40);
  EXPECT_EQ(ci->second, 61);
  EXPECT_FALSE(median_ci({1, 2, 3}, 0.95));
}

TEST(StatsOrder, RobustCvAndGeometricMean) {
  // {1, 2, 3, 4, 100}: median 3, |deviations| {2, 1, 0, 1, 97}, MAD 1: the outlier does not count.
  EXPECT_NEAR(robust_cv({1, 2, 3, 4, 100}), 1.4826 / 3, 1e-15);
  EXPECT_EQ(robust_cv({7}), 0);
  EXPECT_NEAR(geometric_mean({1, 4, 16}), 4, 1e-14);
  EXPECT_NEAR(geometric_mean({2, 8}), 4, 1e-14);
  EXPECT_EQ(geometric_mean({}), 0);
  EXPECT_EQ(geometric_mean({1, 0}), 0);
  EXPECT_EQ(geometric_mean({4, -1}), 0);
  EXPECT_EQ(geometric_mean({4, std::numeric_limits<double>::infinity()}), 0);
}

// A sweep's trade-off: points no other matches on both axes and beats on one form the front, by x; an equal point
// given twice counts once. The knee is worked out by hand: front (10, 100), (40, 90), (60, 50), (80, 10) spans x 10-80
// and y 10-100; scaled, (40, 90) lies 30/70 + 80/90 - 1 = 0.317 above the chord and (60, 50) 50/70 + 40/90 - 1 =
// 0.159: the knee is (40, 90).
TEST(StatsPareto, TheFrontByXAndItsKneeFarthestFromTheChord) {
  const std::vector<ParetoPoint> pts{{60, 50}, {10, 100}, {30, 40}, {40, 90}, {80, 10}, {40, 90}, {50, 45}};
  const std::vector<size_t> front = pareto_front(pts);
  EXPECT_EQ(front, (std::vector<size_t>{1, 3, 0, 4}));
  ASSERT_TRUE(pareto_knee(pts, front).has_value());
  EXPECT_EQ(*pareto_knee(pts, front), 3u);
  // A straight front has no point above its chord; two points have no knee; nor does an empty sweep.
  const std::vector<ParetoPoint> line{{1, 3}, {2, 2}, {3, 1}};
  EXPECT_EQ(pareto_front(line).size(), 3u);
  EXPECT_FALSE(pareto_knee(line, pareto_front(line)).has_value());
  const std::vector<ParetoPoint> two{{1, 2}, {2, 1}};
  EXPECT_FALSE(pareto_knee(two, pareto_front(two)).has_value());
  EXPECT_TRUE(pareto_front({}).empty());
  // One point that beats all others on both axes is the whole front.
  const std::vector<ParetoPoint> best{{1, 1}, {5, 5}, {2, 4}};
  EXPECT_EQ(pareto_front(best), (std::vector<size_t>{1}));
}
