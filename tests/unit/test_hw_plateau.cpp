// Plateau detection on synthetic staircase sweeps: the levels found, their names and their heights.
#include <gtest/gtest.h>

#include <random>

#include "hw/measure.h"
#include "hw/plateau.h"

using namespace rooflens::hw;

namespace {
constexpr uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

// A staircase: bandwidth bw[k] while the working set fits capacity k (bw.back() beyond all of them), one
// point on each slope at the geometric mean of its neighbours, optional multiplicative noise.
std::vector<BwSample> staircase(const std::vector<uint64_t>& caps, const std::vector<double>& bw, double noise = 0,
                                unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-noise, noise);
  std::vector<BwSample> out;
  for (uint64_t ws : sweep_sizes(1 * GiB)) {
    size_t k = 0;
    while (k < caps.size() && ws > caps[k]) ++k;
    double v = bw[k];
    if (k > 0 && ws < caps[k - 1] * 3 / 2) v = std::sqrt(bw[k - 1] * bw[k]);  // on the slope
    out.push_back({ws, v * (1 + u(rng))});
  }
  return out;
}

std::vector<std::string> names(const std::vector<Plateau>& ps) {
  std::vector<std::string> n;
  for (const auto& p : ps) n.push_back(p.level);
  return n;
}
}  // namespace

TEST(HwPlateau, TwoLevels) {
  auto ps = find_plateaus(staircase({32 * KiB}, {100, 10}), {32 * KiB});
  ASSERT_EQ(names(ps), (std::vector<std::string>{"L1", "DRAM"}));
  EXPECT_DOUBLE_EQ(ps[0].gbps, 100);
  EXPECT_DOUBLE_EQ(ps[1].gbps, 10);
  EXPECT_LE(ps[0].working_set_bytes, 32 * KiB);
  EXPECT_GT(ps[1].working_set_bytes, 32 * KiB);
}

TEST(HwPlateau, ThreeLevels) {
  auto ps = find_plateaus(staircase({32 * KiB, 1 * MiB}, {100, 40, 10}), {32 * KiB, 1 * MiB});
  ASSERT_EQ(names(ps), (std::vector<std::string>{"L1", "L2", "DRAM"}));
  EXPECT_DOUBLE_EQ(ps[1].gbps, 40);
}

TEST(HwPlateau, FourLevelsWithNoise) {
  std::vector<uint64_t> caps{32 * KiB, 1 * MiB, 32 * MiB};
  std::vector<double> truth{100, 40, 20, 8};
  for (unsigned seed = 1; seed <= 20; ++seed) {
    auto ps = find_plateaus(staircase(caps, truth, 0.05, seed), caps);
    ASSERT_EQ(names(ps), (std::vector<std::string>{"L1", "L2", "L3", "DRAM"})) << "seed " << seed;
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_GE(ps[k].gbps, truth[k] * 0.95) << "seed " << seed << " level " << k;
      EXPECT_LE(ps[k].gbps, truth[k] * 1.05) << "seed " << seed << " level " << k;
    }
  }
}

TEST(HwPlateau, MissingLevelIsNotInvented) {
  // The L3 runs at DRAM speed (disabled, or too busy to show): the sweep shows three steps, not four.
  std::vector<uint64_t> caps{32 * KiB, 1 * MiB, 32 * MiB};
  auto ps = find_plateaus(staircase(caps, {100, 40, 8, 8}), caps);
  EXPECT_EQ(names(ps), (std::vector<std::string>{"L1", "L2", "DRAM"}));
}

TEST(HwPlateau, UnknownCachesAreNamedInOrderWithDramLast) {
  auto ps = find_plateaus(staircase({32 * KiB, 1 * MiB}, {100, 40, 10}), {});
  EXPECT_EQ(names(ps), (std::vector<std::string>{"L1", "L2", "DRAM"}));
}

TEST(HwPlateau, OneNoisyDipDoesNotSplitALevel) {
  std::vector<uint64_t> caps{32 * KiB, 1 * MiB};
  auto sweep = staircase(caps, {100, 40, 10});
  size_t mid = 0;
  while (sweep[mid].working_set_bytes < 256 * KiB) ++mid;
  sweep[mid].gbps = 20;  // a timer hiccup in the middle of L2
  auto ps = find_plateaus(sweep, caps);
  ASSERT_EQ(names(ps), (std::vector<std::string>{"L1", "L2", "DRAM"}));
  EXPECT_DOUBLE_EQ(ps[1].gbps, 40);
}

TEST(HwPlateau, InterferenceThatOnlySlowsPointsDownIsTolerated) {
  // A busy machine: a third of the points lose up to 45% to other processes; none gets faster.
  std::vector<uint64_t> caps{32 * KiB, 1 * MiB, 32 * MiB};
  std::vector<double> truth{150, 60, 22, 6};
  for (unsigned seed = 1; seed <= 20; ++seed) {
    auto sweep = staircase(caps, truth);
    std::mt19937 rng(seed);
    for (auto& p : sweep)
      if (rng() % 3 == 0) p.gbps *= 1 - 0.45 * std::uniform_real_distribution<double>(0, 1)(rng);
    auto ps = find_plateaus(sweep, caps);
    ASSERT_EQ(names(ps), (std::vector<std::string>{"L1", "L2", "L3", "DRAM"})) << "seed " << seed;
    for (size_t k = 0; k < 4; ++k) EXPECT_DOUBLE_EQ(ps[k].gbps, truth[k]) << "seed " << seed;
  }
}

TEST(HwPlateau, DramFigureComesFromWellOutsideTheCaches) {
  // A noisy L3 whose larger points sank to DRAM height: the DRAM figure must not be one of them.
  std::vector<uint64_t> caps{32 * KiB, 1 * MiB, 32 * MiB};
  auto sweep = staircase(caps, {100, 40, 20, 8});
  for (auto& p : sweep)
    if (p.working_set_bytes > 8 * MiB && p.working_set_bytes <= 32 * MiB) p.gbps = 8.5;
  auto ps = find_plateaus(sweep, caps);
  ASSERT_FALSE(ps.empty());
  EXPECT_EQ(ps.back().level, "DRAM");
  EXPECT_GE(ps.back().working_set_bytes, 128 * MiB);
  EXPECT_DOUBLE_EQ(ps.back().gbps, 8);
}

TEST(HwPlateau, FlatOrTinySweeps) {
  EXPECT_TRUE(find_plateaus({}, {32 * KiB}).empty());
  auto ps = find_plateaus({{4 * KiB, 50}, {8 * KiB, 51}, {16 * KiB, 49}}, {});
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].level, "L1");  // one plateau alone is never called DRAM without cache sizes
}

TEST(HwPlateau, SweepSizesSpanFourKiBToMax) {
  auto s = sweep_sizes(1 * GiB);
  EXPECT_EQ(s.front(), 4 * KiB);
  EXPECT_GE(s.back(), GiB * 99 / 100);
  EXPECT_LE(s.back(), GiB);
  for (size_t i = 1; i < s.size(); ++i) EXPECT_GT(s[i], s[i - 1]);
}
