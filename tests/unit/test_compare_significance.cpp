// Mann-Whitney U and the bootstrap interval of the median ratio (src/compare/significance.h). Expected figures
// come from hand computation (shown in the comments) and from brute-force enumeration in the test itself.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "compare/significance.h"
#include "stats/order.h"

using namespace rooflens;

namespace {

// P(min(U) <= observed) over every way of splitting the pooled values into sizes n1/n2: the exact two-sided
// p, by enumeration (independent of the recurrence under test).
double enumerated_p(const std::vector<double>& base, const std::vector<double>& next) {
  std::vector<double> pooled = base;
  pooled.insert(pooled.end(), next.begin(), next.end());
  auto u_min = [](const std::vector<double>& a, const std::vector<double>& b) {
    double u = 0;
    for (double x : a)
      for (double y : b) u += x > y ? 1 : x == y ? 0.5 : 0;
    return std::min(u, static_cast<double>(a.size() * b.size()) - u);
  };
  double observed = u_min(base, next);
  std::vector<bool> pick(pooled.size(), false);
  std::fill(pick.begin(), pick.begin() + static_cast<long>(base.size()), true);
  size_t total = 0, extreme = 0;
  do {
    std::vector<double> a, b;
    for (size_t i = 0; i < pooled.size(); ++i) (pick[i] ? a : b).push_back(pooled[i]);
    ++total;
    extreme += u_min(a, b) <= observed + 1e-9;
  } while (std::prev_permutation(pick.begin(), pick.end()));
  return static_cast<double>(extreme) / static_cast<double>(total);
}

std::vector<double> lognormal(std::mt19937_64& rng, size_t n, double median, double sigma) {
  std::normal_distribution<double> z(0, sigma);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(median * std::exp(z(rng)));
  return v;
}

}  // namespace

TEST(CompareMannWhitney, CompleteSeparationIsTheSmallestExactP) {
  // NEW is slower in all 16 pairs: U_new = 16, U_base = 0; only 2 of the C(8,4) = 70 splits are this extreme.
  auto r = mann_whitney_u({1, 2, 3, 4}, {5, 6, 7, 8});
  EXPECT_EQ(r.u_new, 16);
  EXPECT_EQ(r.u_base, 0);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 2.0 / 70, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p(3, 3), 0.1, 1e-12);   // 2 / C(6,3): n = 3 per side can never reach p < 0.05
  EXPECT_NEAR(mann_whitney_min_p(3, 5), 2.0 / 56, 1e-12);
}

TEST(CompareMannWhitney, TortoiseAndHareTextbookExample) {
  // The classic race: finishing order T H H H H H T T T T T H. Tortoise ranks 1,7,8,9,10,11 sum to 46, so
  // U_T = 46 - 6*7/2 = 25 and U_H = 36 - 25 = 11; 286 of the 924 splits have min(U) <= 11: p = 0.3095.
  std::vector<double> tortoise{1, 7, 8, 9, 10, 11}, hare{2, 3, 4, 5, 6, 12};
  auto r = mann_whitney_u(tortoise, hare);
  EXPECT_EQ(r.u_base, 25);
  EXPECT_EQ(r.u_new, 11);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 286.0 / 924, 1e-12);
  auto swapped = mann_whitney_u(hare, tortoise);  // the test is symmetric: U swaps, p stays
  EXPECT_EQ(swapped.u_base, 11);
  EXPECT_NEAR(swapped.p_value, r.p_value, 1e-12);
}

TEST(CompareMannWhitney, ExactPAgreesWithEnumeration) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 20; ++trial) {
    size_t n1 = 3 + trial % 4, n2 = 4 + trial % 3;
    std::vector<double> a, b;
    for (size_t i = 0; i < n1; ++i) a.push_back(u(rng));
    for (size_t i = 0; i < n2; ++i) b.push_back(u(rng) + 0.3 * (trial % 3));
    auto r = mann_whitney_u(a, b);
    ASSERT_TRUE(r.exact);
    EXPECT_NEAR(r.p_value, std::min(1.0, enumerated_p(a, b)), 1e-12) << "trial " << trial;
  }
}

TEST(CompareMannWhitney, TiesUseMidRanksAndTheCorrectedVariance) {
  // Pooled: 1b 2b 2b 2n 3b 3n 4n 5n. Mid-ranks: 1; 3,3,3; 5.5,5.5; 7; 8. R_base = 1+3+3+5.5 = 12.5,
  // U_base = 12.5 - 10 = 2.5, U_new = 13.5. Ties: (3^3-3) + (2^3-2) = 30.
  // var = 4*4/12 * (9 - 30/(8*7)) = 11.2857; z = (|13.5 - 8| - 0.5) / sqrt(var) = 1.48835; p = erfc(z/√2) = 0.136658.
  auto r = mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(r.u_base, 2.5);
  EXPECT_DOUBLE_EQ(r.u_new, 13.5);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.z, 1.488351, 1e-6);
  EXPECT_NEAR(r.p_value, 0.136658, 1e-6);
  // More ties (8 vs 9): U_new = 64.5, var = 105.3529, z = 2.727939, p = 0.0063731.
  auto t = mann_whitney_u({10, 11, 11, 12, 12, 12, 13, 14}, {12, 13, 13, 14, 14, 15, 16, 16, 17});
  EXPECT_DOUBLE_EQ(t.u_new, 64.5);
  EXPECT_NEAR(t.z, 2.727939, 1e-6);
  EXPECT_NEAR(t.p_value, 0.0063731, 1e-7);
}

TEST(CompareMannWhitney, LargeSamplesUseTheNormalApproximation) {
  // 60 vs 60 without ties, NEW shifted by 7.5: U_new = 2222, mean 1800, var = 60*60*121/12 = 36300,
  // z = (422 - 0.5) / 190.526 = 2.212301, p = 0.0269459.
  std::vector<double> a, b;
  for (int i = 1; i <= 60; ++i) a.push_back(i), b.push_back(i + 7.5);
  auto r = mann_whitney_u(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_new, 2222);
  EXPECT_NEAR(r.z, 2.212301, 1e-6);
  EXPECT_NEAR(r.p_value, 0.0269459, 1e-7);
  EXPECT_LT(mann_whitney_u(b, a).z, 0);  // z's sign says which side is slower
}

TEST(CompareMannWhitney, AllTiedOrEmptyMeansNoEvidence) {
  auto r = mann_whitney_u({5, 5, 5, 5}, {5, 5, 5});
  EXPECT_EQ(r.p_value, 1);
  EXPECT_EQ(r.u_new, 6);
  EXPECT_EQ(mann_whitney_u({}, {1, 2}).p_value, 1);
}

TEST(CompareBootstrap, DeterministicAndSeeded) {
  std::mt19937_64 rng(1);
  auto a = lognormal(rng, 40, 10, 0.05), b = lognormal(rng, 40, 11, 0.05);
  auto x = bootstrap_median_ratio(a, b), y = bootstrap_median_ratio(a, b);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
  BootstrapOptions other;
  other.seed = 12345;
  auto z = bootstrap_median_ratio(a, b, other);
  EXPECT_TRUE(z.low != x.low || z.high != x.high);
  EXPECT_LT(x.low, x.high);
}

TEST(CompareBootstrap, IntervalBracketsTheObservedRatioAndTightensWithMoreSamples) {
  std::mt19937_64 rng(2);
  auto a = lognormal(rng, 20, 10, 0.05), b = lognormal(rng, 20, 10, 0.05);
  auto big_a = lognormal(rng, 400, 10, 0.05), big_b = lognormal(rng, 400, 10, 0.05);
  auto small = bootstrap_median_ratio(a, b), big = bootstrap_median_ratio(big_a, big_b);
  EXPECT_LT(big.high - big.low, (small.high - small.low) / 2);
  EXPECT_LT(big.low, 1);
  EXPECT_GT(big.high, 1);
}

// The interval is a 95% one: over many synthetic data sets with a true median ratio of 1.10, it must contain
// 1.10 in close to 95% of them (percentile bootstrap of a median runs a little narrow for n = 30; 88% is far
// below what a correct implementation gives and far above what a wrong one does).
TEST(CompareBootstrap, CoversTheTrueRatioAboutNinetyFivePercentOfTheTime) {
  std::mt19937_64 rng(3);
  int covered = 0, excludes_one = 0, trials = 200;
  for (int t = 0; t < trials; ++t) {
    auto a = lognormal(rng, 30, 10, 0.05), b = lognormal(rng, 30, 11, 0.05);
    BootstrapOptions o;
    o.resamples = 1000;
    o.seed = static_cast<uint64_t>(t) + 1;
    auto ci = bootstrap_median_ratio(a, b, o);
    covered += ci.low <= 1.10 && 1.10 <= ci.high;
    excludes_one += ci.low > 1;
  }
  EXPECT_GE(covered, trials * 88 / 100);
  EXPECT_LE(covered, trials * 99 / 100);
  EXPECT_EQ(excludes_one, trials);  // a 10% shift at 5% noise is always detected
}

TEST(CompareBlocks, ConsecutiveSamplesInUpToTwentyBlocksOfAtLeastTen) {
  EXPECT_EQ(time_block_count(49), 0u);  // 4 blocks of 10 would be too few: test the samples themselves
  EXPECT_EQ(time_block_count(50), 5u);
  EXPECT_EQ(time_block_count(125), 12u);
  EXPECT_EQ(time_block_count(5000), 20u);
  std::vector<double> v;
  for (int i = 0; i < 53; ++i) v.push_back(i);
  auto blocks = time_blocks(v, 5);
  ASSERT_EQ(blocks.size(), 5u);
  size_t total = 0;
  double next = 0;
  for (const auto& b : blocks) {
    EXPECT_TRUE(b.size() == 10 || b.size() == 11);
    for (double x : b) EXPECT_EQ(x, next++);  // in time order, nothing lost or repeated
    total += b.size();
  }
  EXPECT_EQ(total, 53u);
}

TEST(CompareBlocks, BlockBootstrapOfSingletonsIsTheSampleBootstrap) {
  std::mt19937_64 rng(4);
  auto a = lognormal(rng, 30, 10, 0.05), b = lognormal(rng, 31, 11, 0.05);
  std::vector<std::vector<double>> sa, sb;
  for (double x : a) sa.push_back({x});
  for (double x : b) sb.push_back({x});
  auto x = bootstrap_median_ratio(a, b), y = bootstrap_median_ratio(sa, sb);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
}

// A machine whose speed drifts during a run (frequency, other processes): each run is 20 stretches of 50
// samples at a level anywhere in 10..12 ms, with 0.5% noise within a stretch. BASE and NEW come from the same
// process. The 1000 samples of a run are far from independent: Mann-Whitney on them calls a "change" in most
// pairs of runs, while on block medians it is right about as often as alpha promises, and the block bootstrap
// interval contains 1 (the true ratio) in nearly all of them.
TEST(CompareBlocks, DriftWithinARunIsNoiseOnBlocksButNotOnSamples) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> level(10, 12);
  std::normal_distribution<double> noise(0, 0.005);
  auto drifting_run = [&] {
    std::vector<double> v;
    for (int stretch = 0; stretch < 20; ++stretch) {
      double l = level(rng);
      for (int i = 0; i < 50; ++i) v.push_back(l * (1 + noise(rng)));
    }
    return v;
  };
  int raw_significant = 0, block_significant = 0, covered = 0, trials = 40;
  BootstrapOptions o;
  o.resamples = 500;
  for (int t = 0; t < trials; ++t) {
    auto base = drifting_run(), next = drifting_run();
    raw_significant += mann_whitney_u(base, next).p_value < 0.05;
    auto bb = time_blocks(base, time_block_count(base.size())), nb = time_blocks(next, time_block_count(next.size()));
    std::vector<double> bm, nm;
    for (const auto& b : bb) bm.push_back(stats::median_of(b));
    for (const auto& b : nb) nm.push_back(stats::median_of(b));
    block_significant += mann_whitney_u(bm, nm).p_value < 0.05;
    auto ci = bootstrap_median_ratio(bb, nb, o);
    covered += ci.low <= 1 && 1 <= ci.high;
  }
  std::printf("drift: significant on samples %d/%d, on blocks %d/%d; block interval covers 1 in %d/%d\n",
              raw_significant, trials, block_significant, trials, covered, trials);
  EXPECT_GE(raw_significant, trials / 2) << "samples look independent after all?";
  EXPECT_LE(block_significant, trials / 8);
  EXPECT_GE(covered, trials * 85 / 100);
}
