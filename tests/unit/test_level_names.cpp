// Memory level names (core/level_names.h): the spelling `rooflens hw` gives a level, and the order every consumer
// puts levels in.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/level_names.h"

using namespace rooflens;

TEST(LevelNames, ALevelIsNamedAfterTheCachesItSpans) {
  EXPECT_EQ(cache_level_name(1, 1), "L1");
  EXPECT_EQ(cache_level_name(1, 2), "L1+L2");
  EXPECT_EQ(cache_level_name(2, 4), "L2+L3+L4");
  for (auto [first, last] : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {3, 3}, {2, 4}}) {
    std::optional<LevelSpan> s = level_span(cache_level_name(first, last));
    ASSERT_TRUE(s) << first << ".." << last;
    EXPECT_EQ(s->first, first);
    EXPECT_EQ(s->last, last);
  }
  EXPECT_EQ(level_span("DRAM")->first, kDramLevel);
  for (const char* bad : {"", "L", "L0", "L9", "L12", "L1+", "+L1", "L2+L1", "L1+L3", "L1L2", "l1", "HBM", "L1+L2 "})
    EXPECT_FALSE(level_span(bad)) << bad;
}

TEST(LevelNames, NearerLevelsComeFirst) {
  std::vector<std::string> v{"DRAM", "L3", "HBM", "L1+L2", "L2", "L1"};
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) { return level_nearer(a, b); });
  EXPECT_EQ(v, (std::vector<std::string>{"L1", "L1+L2", "L2", "L3", "DRAM", "HBM"}));
}
