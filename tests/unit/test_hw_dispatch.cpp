// ISA dispatch never selects a kernel the (forced) feature mask lacks, and a failing sub-benchmark becomes
// an error entry while the rest of the run completes.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/errors.h"
#include "hw/measure.h"
#include "hw/team.h"

using namespace rooflens;
using namespace rooflens::hw;

TEST(HwDispatch, SelectionNeverExceedsTheMask) {
  for (FeatureMask mask = 0; mask <= kAllFeatures; ++mask) {
    for (const ComputeKernel& k : select_compute(compute_kernels(), mask))
      ASSERT_EQ(k.needs & ~mask, 0u) << k.name << " selected under mask " << mask;
    ASSERT_EQ(select_bandwidth(mask).needs & ~mask, 0u) << "mask " << mask;
  }
}

TEST(HwDispatch, EveryKernelIsSelectedWhenEverythingIsThere) {
  EXPECT_EQ(select_compute(compute_kernels(), kAllFeatures).size(), compute_kernels().size());
  EXPECT_EQ(select_bandwidth(0).isa, "portable");
}

// A cache level's ceiling for a layer that reads and writes needs the level's read and write figures
// (ProfileRoofline.ACacheCarriesReadsAndWrites...): the roofs a first profile measures (--quick) must hold both on
// every ISA path, or an elementwise layer meets the read figure alone and reads as above its roof.
TEST(HwDispatch, TheQuickSweepMeasuresReadsAndWritesOnEveryIsaPath) {
  for (FeatureMask mask : {FeatureMask{0}, FeatureMask{kAvx2 | kFma}, kAllFeatures}) {
    const BwKernelSet& set = select_bandwidth(mask);
    for (const char* name : {"read", "write"}) {
      const auto k = std::find_if(set.kernels.begin(), set.kernels.end(), [&](const BwKernel& b) { return b.name == name; });
      ASSERT_NE(k, set.kernels.end()) << set.isa << " has no " << name << " kernel";
      EXPECT_TRUE(k->quick) << set.isa << ": --quick leaves out the " << name << " kernel";
    }
  }
}

// An int8 layer meets an int8 peak on every x86 class ONNX Runtime has u8s8 kernels for: VNNI's dot product where
// the CPU has it (first, so --quick keeps it), AVX2's multiply-add pairs where it does not (a Zen 3 EPYC: without
// it, QDQ ResNet-50's QLinearConvs met the fp32 ceiling and ran above it).
TEST(HwDispatch, EveryAvx2ClassHasAnInt8PeakAndVnniComesFirst) {
  auto first_int8 = [](FeatureMask mask) -> std::string {
    for (const ComputeKernel& k : select_compute(compute_kernels(), mask))
      if (k.dtype == "int8") return k.name;
    return "";
  };
  EXPECT_EQ(first_int8(kAvx2 | kFma), "int8_madd_avx2");
  EXPECT_EQ(first_int8(kAvx2 | kFma | kAvxVnni), "int8_dot_avx_vnni");
  EXPECT_EQ(first_int8(kAllFeatures), "int8_dot_avx512_vnni");
  EXPECT_EQ(first_int8(kSse2), "") << "no u8s8 kernel of this kind before AVX2";
  FeatureMask here = detect_features();
  if ((here & kAvx2) == 0) GTEST_SKIP() << "this CPU has no AVX2";
  HwOptions o;  // the kernel runs and counts operations (a figure above zero), whatever this CPU's class
  o.threads = {1};
  o.force_mask = kAvx2 | kFma;
  o.bandwidth = false;
  o.compute_seconds = 0.002;
  o.reps = 1;
  o.rounds = 1;
  const HardwareInfo hw = measure_hardware(o, "test");
  EXPECT_TRUE(std::any_of(hw.compute.begin(), hw.compute.end(),
                          [](const ComputeRoof& c) { return c.name == "int8_madd_avx2" && c.gflops > 0; }));
}

TEST(HwDispatch, WithAvx512MaskedOffAvx2FiguresAreStillProduced) {
  FeatureMask here = detect_features();
  if ((here & (kAvx2 | kFma)) != (kAvx2 | kFma)) GTEST_SKIP() << "this CPU has no AVX2+FMA";
  HwOptions o;
  o.threads = {1};
  o.force_mask = ~kAvx512Family;
  o.bandwidth = false;
  o.compute_seconds = 0.002;
  o.reps = 1;
  o.rounds = 1;
  o.figure_seconds = 0.005;
  HardwareInfo hw = measure_hardware(o, "test");
  EXPECT_TRUE(hw.errors.empty());
  bool avx2 = false;
  for (const ComputeRoof& c : hw.compute) {
    EXPECT_EQ(c.isa.find("avx512"), std::string::npos) << c.name;
    EXPECT_GT(c.gflops, 0) << c.name;
    avx2 |= c.name == "fp32_fma_avx2";
  }
  EXPECT_TRUE(avx2);
  for (const std::string& f : hw.machine.isa) EXPECT_EQ(f.find("avx512"), std::string::npos) << f;
  EXPECT_NE(select_bandwidth(here & ~kAvx512Family).isa, "avx512");
}

TEST(HwDispatch, ParsesFeatureListsAndRefusesUnknownNames) {
  EXPECT_EQ(parse_features("avx2,fma"), kAvx2 | kFma);
  EXPECT_EQ(parse_features(""), 0u);
  EXPECT_THROW(parse_features("avx2,avx1024"), UserError);
}

namespace {
double good_kernel(uint64_t iters) {
  double x = 1;
  for (uint64_t i = 0; i < iters; ++i) x = x * 0.999 + 0.001;
  return x;
}
double failing_kernel(uint64_t) { throw std::runtime_error("kernel exploded"); }
double failing_bw(const BwArgs&) { throw std::runtime_error("bandwidth kernel exploded"); }
}  // namespace

TEST(HwErrors, AFailingSubBenchmarkIsRecordedAndTheRunGoesOn) {
  std::vector<ComputeKernel> registry = {
      {"bad", "none", "fp64", 0, 1, failing_kernel},
      {"good", "none", "fp64", 0, 2, good_kernel},
  };
  BwKernelSet bw = select_bandwidth(0);
  bw.kernels.insert(bw.kernels.begin(), BwKernel{"broken", 1, 1, failing_bw});
  HwOptions o;
  o.threads = {static_cast<int>(std::min<size_t>(2, pinning_order().size()))};
  o.compute_registry = &registry;
  o.bandwidth_set = &bw;
  o.compute_seconds = 0.002;
  o.bandwidth_seconds = 0.0005;
  o.reps = 1;
  o.rounds = 2;  // a failure in round 1 is recorded once, and its kernel is skipped in round 2
  o.figure_seconds = 0.002;
  o.max_working_set = 256 * 1024;
  HardwareInfo hw = measure_hardware(o, "test");
  ASSERT_EQ(hw.errors.size(), 2u);
  EXPECT_NE(hw.errors[0].benchmark.find("bad"), std::string::npos);
  EXPECT_EQ(hw.errors[0].message, "kernel exploded");
  EXPECT_NE(hw.errors[1].benchmark.find("broken"), std::string::npos);
  ASSERT_EQ(hw.compute.size(), 1u);
  EXPECT_EQ(hw.compute[0].name, "good");
  bool read_swept = false;
  for (const SweepPoint& p : hw.sweep) {
    EXPECT_NE(p.kernel, "broken");
    read_swept |= p.kernel == "read" && p.gbps > 0;
  }
  EXPECT_TRUE(read_swept);
}

TEST(HwErrors, TooManyThreadsIsAUserError) {
  EXPECT_THROW(Team(100000), UserError);
  EXPECT_THROW(Team(0), UserError);
}

TEST(HwTeam, TimedWorkRunsOnEveryThreadEveryRep) {
  int n = static_cast<int>(std::min<size_t>(2, pinning_order().size()));
  Team team(n);
  std::vector<int> calls(n);
  double t = team.timed(5, [&](int tid) { ++calls[tid]; });
  EXPECT_GE(t, 0);
  for (int c : calls) EXPECT_EQ(c, 5);
  EXPECT_THROW(team.timed(2, [](int tid) { if (tid == 0) throw std::runtime_error("x"); }), std::runtime_error);
  team.timed(1, [&](int tid) { ++calls[tid]; });  // the team still works after a failure
  for (int c : calls) EXPECT_EQ(c, 6);
}
