// Timing statistics (nearest-rank percentiles, sample std) and the profile grid flags (--batch ranges, --sweep,
// the batch x sweep x threads cartesian product).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "core/errors.h"
#include "core/stats.h"
#include "profile/profile.h"
#include "stats/order.h"

using namespace rooflens;

namespace {

std::vector<double> one_to(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  std::shuffle(v.begin(), v.end(), std::mt19937(42));  // summarize must not rely on sorted input
  return v;
}

TEST(ProfileStats, NearestRankPercentilesOfOneToHundred) {
  LatencyStats s = summarize(one_to(100));
  EXPECT_EQ(s.n, 100);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.median, 50.5);  // even: mean of the 50th and 51st
  EXPECT_EQ(s.p90, 90);
  EXPECT_EQ(s.p95, 95);
  EXPECT_EQ(s.p99, 99);
  // Sample variance of 1..n is n(n+1)/12.
  EXPECT_NEAR(s.std, std::sqrt(100.0 * 101.0 / 12.0), 1e-12);
  EXPECT_NEAR(s.cv, s.std / 50.5, 1e-15);
}

TEST(ProfileStats, NearestRankOnTenSamplesPicksMeasuredValues) {
  std::vector<double> v{7, 3, 10, 1, 9, 2, 8, 4, 6, 5};
  for (double& x : v) x *= 1.5;
  LatencyStats s = summarize(v);
  EXPECT_EQ(s.p90, 9 * 1.5);   // ceil(0.9 * 10) = 9th smallest
  EXPECT_EQ(s.p95, 10 * 1.5);  // ceil(9.5) = 10th
  EXPECT_EQ(s.p99, 10 * 1.5);
  EXPECT_DOUBLE_EQ(s.median, 5.5 * 1.5);
}

TEST(ProfileStats, PercentilesAtLargerCountsAreExactRanks) {
  // p/100 * n in floating point must not push an exact rank up by one (0.07 * 100 = 7.000000000000001).
  for (int n : {20, 200, 1000, 4000}) {
    SCOPED_TRACE(n);
    LatencyStats s = summarize(one_to(n));
    auto rank = [n](int p) { return static_cast<double>((n * p + 99) / 100); };  // ceil(p * n / 100), exactly
    EXPECT_EQ(s.p90, rank(90));
    EXPECT_EQ(s.p95, rank(95));
    EXPECT_EQ(s.p99, rank(99));
  }
}

TEST(ProfileStats, MedianOddEvenAndSampleStd) {
  EXPECT_EQ(stats::median_of({3, 1, 2}), 2);
  EXPECT_EQ(stats::median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(stats::median_of({}), 0);
  LatencyStats s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  // Squared deviations sum to 32: population std would be 2, the sample std (n-1) is sqrt(32/7).
  EXPECT_NEAR(s.std, std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt(32.0 / 7.0) / 5, 1e-12);
}

TEST(ProfileStats, SingleAndEmptySamples) {
  LatencyStats one = summarize({3.25});
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.min, 3.25);
  EXPECT_EQ(one.max, 3.25);
  EXPECT_EQ(one.median, 3.25);
  EXPECT_EQ(one.p90, 3.25);
  EXPECT_EQ(one.p99, 3.25);
  EXPECT_EQ(one.std, 0);  // undefined for n = 1: reported as 0, not NaN
  EXPECT_EQ(one.cv, 0);
  LatencyStats none = summarize({});
  EXPECT_EQ(none.n, 0);
  EXPECT_EQ(none.mean, 0);
  EXPECT_EQ(none.p99, 0);
  EXPECT_FALSE(std::isnan(none.cv));
  EXPECT_EQ(stats::percentile_nearest_rank({}, 50), 0);
  EXPECT_EQ(stats::percentile_nearest_rank({1, 2, 3}, 0.001), 1);  // smallest rank is 1
  EXPECT_EQ(stats::percentile_nearest_rank({1, 2, 3}, 100), 3);
}

// ---- grid flags ----

using V = std::vector<int64_t>;

TEST(ProfileGrid, IntListRangesDoubleFromLowAndEndAtHigh) {
  EXPECT_EQ(parse_int_list("1-64", "--batch"), (V{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(parse_int_list("1-8", "--batch"), (V{1, 2, 4, 8}));
  EXPECT_EQ(parse_int_list("3-10", "--batch"), (V{3, 6, 10}));  // hi appended when doubling misses it
  EXPECT_EQ(parse_int_list("5-5", "--batch"), (V{5}));
  EXPECT_EQ(parse_int_list("1,8,32", "--batch"), (V{1, 8, 32}));
  EXPECT_EQ(parse_int_list("4", "--batch"), (V{4}));
}

TEST(ProfileGrid, IntListRefusesMalformedValuesNamingTheFlag) {
  for (const char* bad : {"0", "a", "8-1", "", "1,,2", "1,", "-4", "1-", "2.5", "1-0", "4x", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    try {
      parse_int_list(bad, "--batch");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--batch"), std::string::npos) << e.what();
    }
  }
}

TEST(ProfileGrid, SweepParsesDimAndValues) {
  SweepAxis seq = parse_sweep("seq=128,256");
  EXPECT_EQ(seq.dim, "seq");
  EXPECT_EQ(seq.values, (V{128, 256}));
  SweepAxis th = parse_sweep("threads=1-4");
  EXPECT_EQ(th.dim, "threads");
  EXPECT_EQ(th.values, (V{1, 2, 4}));
  EXPECT_THROW(parse_sweep("seq"), UsageError);
  EXPECT_THROW(parse_sweep("=1,2"), UsageError);
  EXPECT_THROW(parse_sweep("seq="), UsageError);
  EXPECT_THROW(parse_sweep("seq=0"), UsageError);
}

TEST(ProfileGrid, ExpandGridIsTheFullCartesianProduct) {
  ProfileOptions o;
  o.batches = {1, 8};
  o.sweeps = {parse_sweep("seq=128,256,512"), parse_sweep("threads=1,2")};
  auto grid = expand_grid(o);
  ASSERT_EQ(grid.size(), 2u * 3u * 2u);
  std::set<std::string> labels;
  for (const auto& c : grid) labels.insert(c.label());
  EXPECT_EQ(labels.size(), grid.size()) << "every configuration is distinct";
  EXPECT_TRUE(labels.count("batch=8 seq=256 threads=2"));
  EXPECT_TRUE(labels.count("batch=1 seq=512 threads=1"));
  // Batch is the outermost axis, threads the innermost.
  EXPECT_EQ(grid.front().label(), "batch=1 seq=128 threads=1");
  EXPECT_EQ(grid[1].label(), "batch=1 seq=128 threads=2");
  EXPECT_EQ(grid.back().label(), "batch=8 seq=512 threads=2");
  for (const auto& c : grid) {
    EXPECT_TRUE(c.batch == 1 || c.batch == 8);
    ASSERT_EQ(c.dims.size(), 1u);
    EXPECT_TRUE(c.threads == 1 || c.threads == 2);
  }
}

TEST(ProfileGrid, ExpandGridDefaultsToOneConfiguration) {
  ProfileOptions o;
  auto grid = expand_grid(o);
  ASSERT_EQ(grid.size(), 1u);
  EXPECT_EQ(grid[0].batch, 0);
  EXPECT_EQ(grid[0].label(), "default");
  o.threads = 4;  // --threads applies when threads are not swept
  EXPECT_EQ(expand_grid(o)[0].label(), "threads=4");
  o.sweeps = {parse_sweep("seq=16,32")};
  grid = expand_grid(o);
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_EQ(grid[1].label(), "seq=32 threads=4");
}

}  // namespace
