// Plausibility of measured roofs: the issue-26 VM's roofs (no DRAM row at 2 threads, an "L3" that got slower
// with more threads) warn; a DRAM figure that is not the slowest warns; sound roofs do not.
#include <gtest/gtest.h>

#include <algorithm>

#include "hw/plausibility.h"
#include "support/byte_units.h"

using namespace rooflens;
using namespace rooflens::hw;

namespace {
using rooflens::testing::MiB;

bool has(const std::vector<std::string>& ws, const std::string& part) {
  return std::any_of(ws.begin(), ws.end(), [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

// Sound roofs: each level slower than the one before, every level faster with two threads, DRAM at both.
HardwareInfo sound() {
  HardwareInfo hw;
  for (int64_t t : {1, 2}) {
    double s = static_cast<double>(t);
    hw.memory.push_back({"L1", "read", t, 500 * s, 16 * 1024});
    hw.memory.push_back({"L2", "read", t, 270 * s, 512 * 1024});
    hw.memory.push_back({"L3", "read", t, 125 * s, 8 * MiB});
    hw.memory.push_back({"DRAM", "read", t, 50 * s * 0.8, 256 * MiB});
    hw.sweep.push_back({"read", t, 1024 * MiB, 40});
    hw.compute.push_back({"fp32_fma_avx2", "avx2", "fp32", t, 60 * s});
  }
  return hw;
}
}  // namespace

TEST(HwPlausibility, SoundRoofsGiveNoWarning) { EXPECT_TRUE(plausibility_warnings(sound()).empty()); }

TEST(HwPlausibility, TheIssue26RoofsWarn) {
  // `rooflens hw` on the VM that reports a 508 MiB L3: at 2 threads no DRAM row, and its "L3" (86 GB/s at
  // 256 MiB, a DRAM-sized working set) below the 1-thread L3 (104.5 GB/s at 11 MiB).
  HardwareInfo hw;
  hw.memory = {{"L1", "read", 1, 400, 16 * 1024}, {"L3", "read", 1, 104.5, 11 * MiB}, {"DRAM", "read", 1, 30, 1024 * MiB},
               {"L1", "read", 2, 800, 32 * 1024}, {"L3", "read", 2, 86, 256 * MiB}};
  hw.sweep = {{"read", 1, 1024 * MiB, 30}, {"read", 2, 1024 * MiB, 48}};
  std::vector<std::string> w = plausibility_warnings(hw);
  EXPECT_TRUE(has(w, "no DRAM level at 2 thread(s)"));
  EXPECT_FALSE(has(w, "no DRAM level at 1 thread(s)"));
  EXPECT_TRUE(has(w, "L3 read at 2 threads (86.0 GB/s) is below 1 thread(s) (104.5 GB/s)"));
  EXPECT_EQ(w.size(), 2u);
}

TEST(HwPlausibility, DramThatIsNotTheSlowestLevelWarns) {
  // This machine's old `hw` at 2 threads: "DRAM read 204.0 GB/s at 45.3 MiB", above its L3.
  HardwareInfo hw = sound();
  for (MemoryRoof& m : hw.memory)
    if (m.level == "DRAM" && m.threads == 2) m.gbps = 260, m.working_set_bytes = 45 * MiB;
  std::vector<std::string> w = plausibility_warnings(hw);
  EXPECT_TRUE(has(w, "DRAM read at 2 thread(s) (260.0 GB/s) is not below L3 (250.0 GB/s)"));
}

TEST(HwPlausibility, ASmallDipWithMoreThreadsIsTolerated) {
  HardwareInfo hw = sound();
  for (MemoryRoof& m : hw.memory)
    if (m.level == "DRAM") m.gbps = m.threads == 1 ? 50 : 46;  // 8% lower: DRAM saturated by one core
  EXPECT_TRUE(plausibility_warnings(hw).empty());
}

TEST(HwPlausibility, ALevelSharedByTwoCachesIsOrderedByItsCaches) {
  // A Zen-1 EPYC's sweep: L1 and L2 one plateau ("L1+L2"), then L3 and DRAM. Sound as it is; an L3 no slower than
  // L1+L2 is told, as any level no slower than the one before it.
  HardwareInfo hw;
  hw.memory = {{"L1+L2", "read", 1, 76, 16 * 1024}, {"L3", "read", 1, 40, 4 * MiB}, {"DRAM", "read", 1, 15, 256 * MiB}};
  hw.sweep = {{"read", 1, 1024 * MiB, 15}};
  EXPECT_TRUE(plausibility_warnings(hw).empty());
  hw.memory[1].gbps = 80;
  std::vector<std::string> w = plausibility_warnings(hw);
  EXPECT_TRUE(has(w, "L3 read at 1 thread(s) (80.0 GB/s) is not below L1+L2 (76.0 GB/s)"));
  EXPECT_EQ(w.size(), 1u);
}

TEST(HwPlausibility, AComputeRoofBelowFewerThreadsWarns) {
  // The Chromium page's roofs cached from a busy machine: 2 threads at 41.5 GFLOP/s, 1 thread at 47.5.
  HardwareInfo hw = sound();
  for (ComputeRoof& c : hw.compute)
    if (c.threads == 2) c.gflops = 41.5 / 47.5 * 60;
  std::vector<std::string> w = plausibility_warnings(hw);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(has(w, "fp32_fma_avx2 at 2 threads (52.4 GFLOP/s) is below 1 thread(s) (60.0 GFLOP/s)"));
  // A tenth less is within a busy machine's noise, as for the memory levels.
  for (ComputeRoof& c : hw.compute)
    if (c.threads == 2) c.gflops = 0.95 * 60;
  EXPECT_TRUE(plausibility_warnings(hw).empty());
}
