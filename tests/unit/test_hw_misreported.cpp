// `rooflens hw` on a machine whose reported caches are wrong (issue 26: a VM whose CPUID reports an L3 of 508 MiB
// per core). A real quick sweep, with the reported sizes overridden, still finds its levels from the measurement:
// DRAM at every thread count, each level slower than the one before it. No timing thresholds: only the order of
// the figures, which the levels' plateaus separate by 15% or more.
#include <gtest/gtest.h>

#include <algorithm>

#include "hw/hw_table.h"
#include "hw/measure.h"
#include "hw/team.h"

using namespace rooflens;
using namespace rooflens::hw;

namespace {
constexpr uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

int level_rank(const std::string& l) { return l == "DRAM" ? 9 : l[1] - '0'; }
}  // namespace

TEST(HwMisreportedCaches, ARealSweepFindsItsLevelsAndDramAtEveryThreadCount) {
  int cpus = static_cast<int>(std::min<size_t>(2, pinning_order().size()));
  HwOptions o;
  o.quick = true;
  o.compute = false;
  o.threads = cpus >= 2 ? std::vector<int>{1, 2} : std::vector<int>{1};
  o.reported_caches = std::vector<CacheInfo>{
      {"L1d", 48 * KiB, cpus, 1}, {"L2", 1 * MiB, cpus, 1}, {"L3", 508 * MiB, cpus, 1}};
  o.max_working_set = 1 * GiB;  // enough for this machine's DRAM; no 4 GiB excursion to check the bogus L3
  o.rounds = 2;
  o.figure_seconds = 0.01;
  HardwareInfo hw = measure_hardware(o, "test");
  SCOPED_TRACE(render_hardware(hw, true, "test"));  // the levels, figures and sweep, when an expectation fails
  ASSERT_TRUE(hw.errors.empty()) << hw.errors[0].benchmark << ": " << hw.errors[0].message;
  EXPECT_EQ(hw.machine.caches[2].size_bytes, 508 * MiB);  // the report shows what was "reported"

  for (int t : o.threads) {
    std::vector<MemoryLevel> levels;
    for (const MemoryLevel& l : hw.levels)
      if (l.threads == t) levels.push_back(l);
    ASSERT_GE(levels.size(), 3u) << "x" << t << ": at least two cache levels and DRAM";
    EXPECT_EQ(levels.front().level, "L1") << "x" << t;
    EXPECT_EQ(levels.back().level, "DRAM") << "x" << t;
    const MemoryLevel& last_cache = levels[levels.size() - 2];
    EXPECT_GE(levels.back().first_bytes, 4 * last_cache.last_bytes) << "x" << t << ": DRAM is 4x beyond the caches";
    EXPECT_LT(last_cache.last_bytes, 508 * MiB) << "x" << t << ": the last cache is where the sweep fell";
    for (const char* kernel : {"read", "triad"}) {
      std::vector<MemoryRoof> rows;
      for (const MemoryRoof& m : hw.memory)
        if (m.threads == t && m.kernel == kernel) rows.push_back(m);
      std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return level_rank(a.level) < level_rank(b.level); });
      ASSERT_EQ(rows.size(), levels.size()) << "x" << t << " " << kernel << ": a figure for every level";
      EXPECT_EQ(rows.back().level, "DRAM");
      for (size_t i = 1; i < rows.size(); ++i)
        EXPECT_LT(rows[i].gbps, rows[i - 1].gbps) << "x" << t << " " << kernel << ": " << rows[i].level << " vs "
                                                  << rows[i - 1].level;
    }
  }
  EXPECT_TRUE(std::any_of(hw.notes.begin(), hw.notes.end(),
                          [](const std::string& n) { return n.find("reported L3 508 MiB") != std::string::npos; }));
}
