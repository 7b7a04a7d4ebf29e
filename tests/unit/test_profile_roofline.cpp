// Roofline placement of measured layers: which cache level a working set fits in (private caches scale with the
// threads, shared ones do not), compute vs memory bound, efficiency, and the thread count used for the roofs.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/roofline.h"
#include "assembly/assemble.h"
#include "assembly/layers.h"
#include "hw/raise_roofs.h"
#include "support/byte_units.h"

using namespace rooflens;

namespace {

using rooflens::testing::KiB; using rooflens::testing::MiB;

MachineDesc machine() {
  MachineDesc m;
  m.cores = 2;
  m.threads = 2;
  m.caches = {
      {"L1d", 32 * KiB, 2, 1},
      {"L1i", 512 * MiB, 2, 1},  // instruction cache: never holds data
      {"L2", 1 * MiB, 2, 1},
      {"L3", 36 * MiB, 1, 2},    // one instance shared by both cores
  };
  return m;
}

TEST(ProfileRoofline, MemoryLevelOneThread) {
  MachineDesc m = machine();
  EXPECT_EQ(memory_level_for(m, 0, 1), "L1");
  EXPECT_EQ(memory_level_for(m, 32 * KiB, 1), "L1");
  EXPECT_EQ(memory_level_for(m, 32 * KiB + 1, 1), "L2");  // not L1i
  EXPECT_EQ(memory_level_for(m, 1 * MiB, 1), "L2");
  EXPECT_EQ(memory_level_for(m, 1 * MiB + 1, 1), "L3");
  EXPECT_EQ(memory_level_for(m, 36 * MiB, 1), "L3");
  EXPECT_EQ(memory_level_for(m, 36 * MiB + 1, 1), "DRAM");
}

TEST(ProfileRoofline, MemoryLevelTwoThreadsAddsPrivateCachesOnly) {
  MachineDesc m = machine();
  EXPECT_EQ(memory_level_for(m, 48 * KiB, 2), "L1");  // two private L1d
  EXPECT_EQ(memory_level_for(m, 64 * KiB + 1, 2), "L2");
  EXPECT_EQ(memory_level_for(m, 3 * MiB / 2, 2), "L2");
  EXPECT_EQ(memory_level_for(m, 2 * MiB + 1, 2), "L3");
  EXPECT_EQ(memory_level_for(m, 36 * MiB + 1, 2), "DRAM");  // the shared L3 does not double
  // More threads than cache instances: only the instances there are.
  EXPECT_EQ(memory_level_for(m, 64 * KiB, 8), "L1");
  EXPECT_EQ(memory_level_for(m, 64 * KiB + 1, 8), "L2");
  EXPECT_EQ(memory_level_for(MachineDesc{}, 1, 1), "DRAM");  // no cache information
}

HardwareInfo hardware() {
  HardwareInfo hw;
  hw.machine = machine();
  hw.compute = {
      {"fp32_fma_avx2", "avx2", "fp32", 1, 100},
      {"fp32_add_avx2", "avx2", "fp32", 1, 50},   // a slower fp32 kernel: the peak is the fastest one
      {"fp32_fma_avx2", "avx2", "fp32", 2, 200},
      {"int8_vnni", "avx512_vnni", "int8", 1, 1000},  // other dtypes are not fp32 ceilings
  };
  hw.memory = {
      {"L1", "read", 1, 400, 16 * KiB}, {"L1", "read", 2, 800, 32 * KiB},
      {"L2", "read", 1, 200, 512 * KiB}, {"L2", "write", 1, 150, 512 * KiB}, {"L2", "read", 2, 400, 1 * MiB},
      // no L3 point (as with --quick): L3-sized layers fall outward to DRAM
      {"DRAM", "read", 1, 20, 256 * MiB}, {"DRAM", "read", 2, 30, 256 * MiB},
  };
  return hw;
}

TEST(ProfileRoofline, HighIntensityLayerIsComputeBound) {
  HardwareInfo hw = hardware();
  // 1 GFLOP over 16 KiB in 20 ms: 50 GFLOP/s against a 100 GFLOP/s peak.
  RoofPlacement p = place_on_roofline(hw, 1, 1'000'000'000, 16 * KiB, 0.02);
  EXPECT_EQ(p.bound, "compute");
  EXPECT_EQ(p.roof, "fp32_fma_avx2 x1");
  EXPECT_DOUBLE_EQ(p.attainable, 100);
  EXPECT_DOUBLE_EQ(p.efficiency, 0.5);
  // At two threads the two-thread ceiling applies.
  p = place_on_roofline(hw, 2, 1'000'000'000, 16 * KiB, 0.02);
  EXPECT_EQ(p.roof, "fp32_fma_avx2 x2");
  EXPECT_DOUBLE_EQ(p.attainable, 200);
  EXPECT_DOUBLE_EQ(p.efficiency, 0.25);
  // Three threads were never measured: the nearest measured count (2) is used.
  EXPECT_EQ(place_on_roofline(hw, 3, 1'000'000'000, 16 * KiB, 0.02).roof, "fp32_fma_avx2 x2");
}

TEST(ProfileRoofline, LowIntensityDramLayerIsMemoryBound) {
  HardwareInfo hw = hardware();
  // 100 MFLOP over 100 MB (> 36 MiB L3): 1 FLOP/B x 20 GB/s = 20 GFLOP/s attainable; achieved 10.
  RoofPlacement p = place_on_roofline(hw, 1, 100'000'000, 100'000'000, 0.01);
  EXPECT_EQ(p.bound, "memory");
  EXPECT_EQ(p.roof, "DRAM read x1");
  EXPECT_DOUBLE_EQ(p.attainable, 20);
  EXPECT_DOUBLE_EQ(p.efficiency, 0.5);
  // At 2 threads: 30 GB/s.
  p = place_on_roofline(hw, 2, 100'000'000, 100'000'000, 0.01);
  EXPECT_EQ(p.roof, "DRAM read x2");
  EXPECT_DOUBLE_EQ(p.attainable, 30);
  // An L3-sized layer with no L3 measurement uses the next level out.
  p = place_on_roofline(hw, 1, 10'000'000, 10 * MiB, 0.01);
  EXPECT_EQ(p.bound, "memory");
  EXPECT_EQ(p.roof, "DRAM read x1");
}

TEST(ProfileRoofline, CacheResidentLayerUsesThatLevelsBandwidth) {
  HardwareInfo hw = hardware();
  // 512 KiB fits L2 at 1 thread: 0.1 FLOP/B x 200 GB/s = 20 GFLOP/s < 100 peak -> memory bound on L2 read
  // (the fastest L2 kernel, not the slower write).
  uint64_t bytes = 512 * KiB;
  uint64_t flops = bytes / 10;
  RoofPlacement p = place_on_roofline(hw, 1, flops, bytes, 1e-3);
  EXPECT_EQ(p.bound, "memory");
  EXPECT_EQ(p.roof, "L2 read x1");
  EXPECT_DOUBLE_EQ(p.attainable, static_cast<double>(flops) / static_cast<double>(bytes) * 200);
  EXPECT_DOUBLE_EQ(p.efficiency, static_cast<double>(flops) / 1e-3 / 1e9 / p.attainable);
}

TEST(ProfileRoofline, FlopFreeLayerIsMemoryBoundOnBandwidth) {
  HardwareInfo hw = hardware();
  // 1 MB (fits the 1 MiB L2) moved in 0.1 ms: 10 GB/s of 200.
  RoofPlacement p = place_on_roofline(hw, 1, 0, 1'000'000, 1e-4);
  EXPECT_EQ(p.bound, "memory");
  EXPECT_EQ(p.roof, "L2 read x1");
  EXPECT_DOUBLE_EQ(p.attainable, 200);
  EXPECT_NEAR(p.efficiency, 0.05, 1e-12);
  // Nothing moved, nothing to place.
  EXPECT_EQ(place_on_roofline(hw, 1, 0, 0, 1e-4).bound, "");
}

TEST(ProfileRoofline, NoRoofsOrNoTimeGiveNoPlacement) {
  HardwareInfo empty;
  empty.machine = machine();
  RoofPlacement p = place_on_roofline(empty, 1, 1'000'000, 1'000, 1e-3);
  EXPECT_EQ(p.bound, "");
  EXPECT_EQ(p.efficiency, 0);
  EXPECT_EQ(place_on_roofline(empty, 1, 0, 1'000, 1e-3).bound, "");
  EXPECT_EQ(place_on_roofline(hardware(), 1, 1'000'000, 1'000, 0).bound, "");
  // Compute ceilings without memory ceilings: everything with flops is compute bound.
  HardwareInfo compute_only = hardware();
  compute_only.memory.clear();
  p = place_on_roofline(compute_only, 1, 100'000'000, 100'000'000, 0.01);
  EXPECT_EQ(p.bound, "compute");
  EXPECT_DOUBLE_EQ(p.efficiency, 0.1);
}

TEST(ProfileRoofline, ThreadTieChoosesFewerThreads) {
  HardwareInfo hw;
  hw.machine = machine();
  hw.compute = {{"fp32_fma", "avx2", "fp32", 1, 100}, {"fp32_fma", "avx2", "fp32", 3, 300}};
  EXPECT_EQ(place_on_roofline(hw, 2, 1'000'000'000, 1, 0.1).roof, "fp32_fma x1");
}

}  // namespace

// Levels the sweep found override the reported sizes: the machine above "reports" a 36 MiB L3, but the sweep
// (issue 26's VM: an L3 of 508 MiB reported, a real one far smaller) says where each level's plateau lies.
HardwareInfo swept() {
  HardwareInfo hw = hardware();
  hw.machine.caches[3].size_bytes = 508 * MiB;
  hw.memory.push_back({"L3", "read", 1, 100, 4 * MiB});
  hw.memory.push_back({"L3", "triad", 1, 110, 8 * MiB});  // the best kernel at the level is the ceiling
  hw.levels = {{"L1", 1, 4 * KiB, 45 * KiB, 48 * KiB},     {"L2", 1, 64 * KiB, 724 * KiB, 1 * MiB},
               {"L3", 1, 1448 * KiB, 16 * MiB, 0},          {"DRAM", 1, 128 * MiB, 1024 * MiB, 0},
               {"L1", 2, 4 * KiB, 90 * KiB, 96 * KiB},      {"L2", 2, 128 * KiB, 1448 * KiB, 2 * MiB}};
  return hw;
}

TEST(ProfileRoofline, TheSweepsLevelsDecideWhichCeilingAWorkingSetMeets) {
  HardwareInfo hw = swept();
  EXPECT_EQ(memory_level_for(hw, 40 * KiB, 1), "L1");
  EXPECT_EQ(memory_level_for(hw, 50 * KiB, 1), "L1");    // on the slope into L2: the faster level's roof
  EXPECT_EQ(memory_level_for(hw, 64 * KiB, 1), "L2");    // L2's plateau has begun
  EXPECT_EQ(memory_level_for(hw, 1 * MiB, 1), "L2");
  EXPECT_EQ(memory_level_for(hw, 20 * MiB, 1), "L3");
  EXPECT_EQ(memory_level_for(hw, 100 * MiB, 1), "L3");   // 36 MiB "L3" reported, but DRAM begins at 128 MiB
  // DRAM's plateau begins at 128 MiB, 4x the L3 (twice where its plateau ended: 32 MiB); a layer of just that
  // much can have a share of its data in the L3 still (STREAM's rule: DRAM's from beyond 4x the last cache).
  EXPECT_EQ(memory_level_for(hw, 128 * MiB, 1), "L3");
  EXPECT_EQ(memory_level_for(hw, 129 * MiB, 1), "DRAM");
  EXPECT_EQ(memory_level_for(hw, 300 * MiB, 1), "DRAM");
  // Reported sizes alone would have said DRAM from 36 MiB on and, with 508 MiB, never.
  EXPECT_EQ(memory_level_for(hw.machine, 100 * MiB, 1), "L3");
  EXPECT_EQ(memory_level_for(hw.machine, 600 * MiB, 1), "DRAM");
  // Two threads: the sweep found no L3 or DRAM there (a warning says so); past its last level is DRAM.
  EXPECT_EQ(memory_level_for(hw, 1 * MiB, 2), "L2");
  EXPECT_EQ(memory_level_for(hw, 1448 * KiB, 2), "L2");
  EXPECT_EQ(memory_level_for(hw, 2 * MiB, 2), "DRAM");
  // The ceiling is the best kernel at that level: triad's 110, not read's 100.
  RoofPlacement p = place_on_roofline(hw, 1, 0, 20 * MiB, 20.0 * MiB / 55e9);
  EXPECT_EQ(p.roof, "L3 triad x1");
  EXPECT_DOUBLE_EQ(p.attainable, 110);
  EXPECT_NEAR(p.efficiency, 0.5, 1e-12);
}

// A Zen-1 EPYC's roofs: L1 and L2 read alike, so the sweep found one level for both, "L1+L2" (docs/roofs.md).
TEST(ProfileRoofline, ALevelSharedByTwoCachesHoldsWhatFitsEitherOfThem) {
  HardwareInfo hw;
  hw.machine.caches = {{"L1d", 32 * KiB, 2, 1}, {"L2", 512 * KiB, 2, 1}, {"L3", 8 * MiB, 1, 2}};
  hw.memory = {{"L1+L2", "read", 1, 76, 16 * KiB},  {"L3", "read", 1, 40, 4 * MiB}, {"DRAM", "read", 1, 15, 1024 * MiB},
               {"L1+L2", "read", 2, 152, 32 * KiB}, {"L3", "read", 2, 60, 4 * MiB},
               {"DRAM", "read", 2, 22, 1024 * MiB}};
  hw.levels = {{"L1+L2", 1, 4 * KiB, 256 * KiB, 512 * KiB}, {"L3", 1, 1 * MiB, 4 * MiB, 8 * MiB},
               {"DRAM", 1, 64 * MiB, 1024 * MiB, 0},         {"L1+L2", 2, 4 * KiB, 512 * KiB, 1 * MiB},
               {"L3", 2, 1 * MiB, 4 * MiB, 8 * MiB},        {"DRAM", 2, 64 * MiB, 1024 * MiB, 0}};
  EXPECT_EQ(memory_level_for(hw, 8 * KiB, 1), "L1+L2");
  EXPECT_EQ(memory_level_for(hw, 300 * KiB, 1), "L1+L2");
  EXPECT_EQ(memory_level_for(hw, 2 * MiB, 2), "L3");
  RoofPlacement p = place_on_roofline(hw, 2, 0, 300 * KiB, 300.0 * KiB / 76e9);
  EXPECT_EQ(p.roof, "L1+L2 read x2");
  EXPECT_DOUBLE_EQ(p.attainable, 152);
  EXPECT_NEAR(p.efficiency, 0.5, 1e-12);
  // Without the levels (a hand-edited roofs file), the reported sizes name "L1" or "L2": both are in "L1+L2".
  hw.levels.clear();
  EXPECT_EQ(place_on_roofline(hw, 1, 0, 16 * KiB, 1e-6).roof, "L1+L2 read x1");
  EXPECT_EQ(place_on_roofline(hw, 1, 0, 400 * KiB, 1e-6).roof, "L1+L2 read x1");
  EXPECT_EQ(place_on_roofline(hw, 1, 0, 6 * MiB, 1e-6).roof, "L3 read x1");
  // A level the roofs lack falls outward, past levels that end before it.
  auto l3 = [](const MemoryRoof& m) { return m.level == "L3"; };
  hw.memory.erase(std::remove_if(hw.memory.begin(), hw.memory.end(), l3), hw.memory.end());
  EXPECT_EQ(place_on_roofline(hw, 1, 0, 6 * MiB, 1e-6).roof, "DRAM read x1");
}

TEST(ProfileRoofline, ACacheCarriesReadsAndWritesOnPathsOfTheirOwnButDramDoesNot) {
  HardwareInfo hw = hardware();  // L2 x1: read 200, write 150 GB/s; DRAM x1: read 20
  hw.memory.push_back({"DRAM", "write", 1, 10, 256 * MiB});
  // 512 KiB in L2, half of it written: its reads need 256 KiB / 200 GB/s, its writes 256 KiB / 150 GB/s; the longer
  // decides, so all 512 KiB may move at 512 / (256 / 150) = 300 GB/s, above the read figure alone.
  const uint64_t bytes = 512 * KiB, written = 256 * KiB;
  const double seconds = static_cast<double>(bytes) / 250e9;  // 250 GB/s achieved
  RoofPlacement p = place_on_roofline(hw, 1, 0, bytes, seconds, "fp32", written);
  EXPECT_EQ(p.roof, "L2 read+write x1");
  EXPECT_NEAR(p.attainable, 300, 1e-9);
  EXPECT_NEAR(p.efficiency, 250.0 / 300, 1e-9);
  // Without the split, the best kernel's figure, which 250 GB/s exceeds.
  p = place_on_roofline(hw, 1, 0, bytes, seconds);
  EXPECT_EQ(p.roof, "L2 read x1");
  EXPECT_GT(p.efficiency, 1.2);
  // A mostly-reading layer gets little more than the read figure: its writes ride beside its reads.
  p = place_on_roofline(hw, 1, 0, bytes, seconds, "fp32", 16 * KiB);
  EXPECT_NEAR(p.attainable, 200.0 * 512 / 496, 1e-9);
  // DRAM's channels carry both directions in turn: all bytes at the best figure, split or not.
  p = place_on_roofline(hw, 1, 0, 100 * MiB, 0.01, "fp32", 50 * MiB);
  EXPECT_EQ(p.roof, "DRAM read x1");
  EXPECT_DOUBLE_EQ(p.attainable, 20);
}

// Roofs measured again after a layer ran above them (a slow spell of the host when they were first measured): only a
// higher figure of the same ceiling replaces the cached one, each replacement is noted, and a memory level the first
// sweep did not find is not invented.
TEST(RaiseRoofs, AHigherFigureOfTheSameCeilingReplacesTheCachedOneAndIsNoted) {
  const HardwareInfo have = hardware();
  HardwareInfo now;
  now.compute = {{"fp32_fma_avx2", "avx2", "fp32", 2, 260},   // higher: raised
                 {"fp32_fma_avx2", "avx2", "fp32", 1, 90},    // lower: the cached 100 stays
                 {"fp32_fma_avx2", "avx2", "fp32", 4, 390}};  // a thread count the cache lacks: added
  now.memory = {{"L2", "read", 2, 480, 1 * MiB},              // higher: raised
                {"DRAM", "read", 2, 25, 256 * MiB},           // lower: stays
                {"L3", "read", 2, 300, 8 * MiB}};             // a level the cache has no point for: not added
  std::optional<HardwareInfo> raised = hw::raise_roofs(have, now);
  ASSERT_TRUE(raised.has_value());
  auto compute = [&](int64_t threads) {
    for (const auto& c : raised->compute)
      if (c.name == "fp32_fma_avx2" && c.threads == threads) return c.gflops;
    return -1.0;
  };
  EXPECT_EQ(compute(2), 260);
  EXPECT_EQ(compute(1), 100);
  EXPECT_EQ(compute(4), 390);
  EXPECT_EQ(raised->memory.size(), have.memory.size());
  for (const auto& m : raised->memory) {
    if (m.level == "L2" && m.kernel == "read" && m.threads == 2) {
      EXPECT_EQ(m.gbps, 480);
    }
    if (m.level == "DRAM" && m.threads == 2) {
      EXPECT_EQ(m.gbps, 30);
    }
  }
  ASSERT_EQ(raised->notes.size(), have.notes.size() + 3);
  EXPECT_NE(raised->notes[have.notes.size()].find("fp32_fma_avx2 x2 measured again"), std::string::npos);
  EXPECT_NE(raised->notes[have.notes.size()].find("was 200.0 GFLOP/s"), std::string::npos);
  EXPECT_NE(raised->notes.back().find("L2 read x2"), std::string::npos);
  // Nothing higher: nothing to raise, and the caller keeps its roofs (and its attribution errors).
  now.compute = {{"fp32_fma_avx2", "avx2", "fp32", 2, 150}};
  now.memory.clear();
  EXPECT_FALSE(hw::raise_roofs(have, now).has_value());
}

// A run placed again against raised roofs: the layer that was above the old ceiling is placed under the new one, the
// placement's own warning about it goes, and the run's other warnings stay.
TEST(RaiseRoofs, ARunPlacedAgainLosesTheErrorTheLowRoofGaveAndKeepsItsOtherWarnings) {
  const HardwareInfo low = hardware();  // fp32 x1: 100 GFLOP/s
  ProfileRun run;
  run.threads = 1;
  Layer l;
  l.name = "conv";
  l.op = "Conv";
  l.flops = 1'000'000'000;
  l.bytes = 16 * KiB;
  l.time_ms = 8;  // 125 GFLOP/s: 1.25x the low roof
  run.layers = {l};
  run.warnings = {"kernel times cover 97% of each profiled run"};
  for (auto& w : place_layers(run.layers, &low, run.threads, 0)) run.warnings.push_back(w);
  ASSERT_FALSE(run.layers[0].attribution_error.empty());
  ASSERT_EQ(run.warnings.size(), 2u);

  HardwareInfo high = low;
  for (auto& c : high.compute)
    if (c.name == "fp32_fma_avx2" && c.threads == 1) c.gflops = 150;
  place_run_again(run, &low, high, 0);
  EXPECT_TRUE(run.layers[0].attribution_error.empty()) << run.layers[0].attribution_error;
  EXPECT_EQ(run.layers[0].roof, "fp32_fma_avx2 x1");
  EXPECT_NEAR(run.layers[0].efficiency, 125.0 / 150, 1e-9);
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(run.warnings[0], "kernel times cover 97% of each profiled run");
}

// An engine's roofs measured again (WebAssembly's, first measured while other work ran): compute by the same rule as
// the machine's; the sweep becomes the upper envelope of both, and the memory levels are found again on it — the busy
// sweep's blurred "L1+L2+L3" has no counterpart in the quiet one, whose levels stand.
TEST(RaiseRoofs, AnEnginesSweepBecomesTheEnvelopeOfBothAndItsLevelsAreFoundAgain) {
  EngineRoofs have;
  have.engine = "wasm:chromium";
  have.measured_at = "2026-12-01T05:00:00Z";
  have.compute = {{"fp32_muladd_wasm_simd128", "wasm_simd128", "fp32", 2, 95}};
  have.memory = {{"L1+L2+L3", "copy", 2, 12, 1 * MiB}, {"DRAM", "copy", 2, 39.9, 256 * MiB}};
  have.sweep = {{"copy", 2, 1 * MiB, 12}, {"copy", 2, 256 * MiB, 39.9}, {"copy", 2, 512 * MiB, 38.0}};
  EngineRoofs now = have;
  now.compute[0].gflops = 90;  // lower: stays
  now.sweep = {{"copy", 2, 1 * MiB, 230}, {"copy", 2, 256 * MiB, 36.0}, {"copy", 2, 512 * MiB, 56.6},
               {"copy", 2, 1024 * MiB, 50.0}};
  // Levels as the engine's rules would find them on this envelope: L1+L2 to 1 MiB, DRAM from 256 MiB.
  auto find_levels = [](EngineRoofs& e) {
    e.memory.clear();
    double cache = 0, dram = 0;
    for (const SweepPoint& p : e.sweep) (p.working_set_bytes <= 1 * MiB ? cache : dram) =
        std::max(p.working_set_bytes <= 1 * MiB ? cache : dram, p.gbps);
    e.memory = {{"L1+L2", "copy", 2, cache, 1 * MiB}, {"DRAM", "copy", 2, dram, 512 * MiB}};
  };
  std::optional<EngineRoofs> raised = hw::raise_engine_roofs(have, now, find_levels);
  ASSERT_TRUE(raised.has_value());
  EXPECT_EQ(raised->compute[0].gflops, 95);
  ASSERT_EQ(raised->sweep.size(), 4u);
  EXPECT_EQ(raised->sweep[0].gbps, 230);
  EXPECT_EQ(raised->sweep[1].gbps, 39.9);  // the first measurement's, higher there
  EXPECT_EQ(raised->sweep[2].gbps, 56.6);
  EXPECT_EQ(raised->sweep[3].gbps, 50.0);
  ASSERT_EQ(raised->memory.size(), 2u);
  EXPECT_EQ(raised->memory[0].level, "L1+L2");
  EXPECT_EQ(raised->memory[0].gbps, 230);
  EXPECT_EQ(raised->memory[1].gbps, 56.6);
  ASSERT_EQ(raised->notes.size(), 2u);
  EXPECT_NE(raised->notes[0].find("L1+L2 copy x2 measured again"), std::string::npos) << raised->notes[0];
  EXPECT_NE(raised->notes[0].find("(new)"), std::string::npos) << raised->notes[0];
  EXPECT_NE(raised->notes[1].find("was 39.9 GB/s, measured 2026-12-01T05:00:00Z"), std::string::npos);
  // Nothing higher anywhere: the caller keeps its roofs.
  for (SweepPoint& p : now.sweep) p.gbps = 1;
  EXPECT_FALSE(hw::raise_engine_roofs(have, now, find_levels).has_value());
}
