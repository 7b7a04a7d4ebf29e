// Why NEW is slower (compare/why_slower.h): each cause said only where the figures show it.
#include <gtest/gtest.h>

#include "compare/why_slower.h"

using namespace rooflens;

namespace {

Layer compute_layer(const std::string& name, double ms, double efficiency, const std::string& roof) {
  Layer l;
  l.name = name;
  l.op = "Conv";
  l.time_ms = ms;
  l.bound = "compute";
  l.efficiency = efficiency;
  l.roof = roof;
  return l;
}

CompareItem side(int64_t threads, const std::string& roof, double gflops, std::vector<Layer> layers) {
  CompareItem i;
  i.threads = threads;
  i.compute_roof = roof;
  i.compute_roof_gflops = gflops;
  i.layers = std::move(layers);
  return i;
}

bool says(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

TEST(WhySlower, FewerThreadsAreSaidWithTheRuntimesReason) {
  CompareItem base = side(2, "", 0, {}), next = side(1, "", 0, {});
  next.threads_note = "no SharedArrayBuffer: the page is not cross-origin isolated";
  const auto why = why_slower(base, next, nullptr);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("NEW ran 1 intra-op thread(s) where BASE ran 2: no SharedArrayBuffer"), std::string::npos);
  EXPECT_TRUE(why_slower(base, base, nullptr).empty());  // the same threads: nothing to say
}

TEST(WhySlower, ALowerComputeCeilingIsSaidWithBothRoofs) {
  CompareItem base = side(2, "fp32_fma_avx2 x2", 200, {}), next = side(2, "fp32_muladd_wasm_simd128 x2", 80, {});
  next.roofs_engine = "wasm:node";
  const auto why = why_slower(base, next, nullptr);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_TRUE(says(why, "80.0 GFLOP/s (fp32_muladd_wasm_simd128 x2, wasm:node's own)")) << why[0];
  EXPECT_TRUE(says(why, "at most 40% as fast")) << why[0];
  // Ceilings within 10% of each other explain nothing.
  EXPECT_TRUE(why_slower(base, side(2, "other x2", 190, {}), nullptr).empty());
}

TEST(WhySlower, NodesBaseFusedThatNewRunsAsMoreKernelsAreNamed) {
  LayerComparison l;
  LayerGroupDelta split;
  split.base_layers = {"fused_conv"};
  split.new_layers = {"conv", "relu"};
  split.onnx_nodes = {"conv", "relu"};
  split.base_ms = 1;
  split.new_ms = 3;
  LayerGroupDelta merged = split;  // NEW fused what BASE did not: not a cause of NEW's loss
  std::swap(merged.base_layers, merged.new_layers);
  l.regrouped = {merged, split};
  const auto why = why_slower(CompareItem{}, CompareItem{}, &l);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_TRUE(says(why, "2 ONNX node(s) BASE fused into 1 kernel(s) (fused_conv) run as 2 kernels in NEW: +2.000 ms"));
}

TEST(WhySlower, AKernelFartherBelowItsOwnCeilingIsTheKernel) {
  CompareItem base = side(2, "", 0, {compute_layer("a", 1, 0.6, "avx2"), compute_layer("b", 1, 0.6, "avx2")});
  CompareItem next = side(2, "", 0, {compute_layer("a", 4, 0.2, "wasm"), compute_layer("b", 2, 0.5, "wasm")});
  LayerComparison l;
  for (const char* n : {"a", "b"}) {
    LayerDelta d;
    d.name = d.base_name = n;
    d.base_ms = 1;
    d.new_ms = std::string(n) == "a" ? 4 : 2;
    l.matched.push_back(d);
  }
  const auto why = why_slower(base, next, &l);
  ASSERT_EQ(why.size(), 1u);  // b is at 0.5 of its roof against 0.6: its ceiling explains it
  EXPECT_TRUE(says(why, "Conv a: NEW's kernel reaches 20.0% of its roof (wasm), BASE's 60.0% of its own (avx2)"));
}

TEST(WhySlower, MoreTimeInPrecisionCastsIsSaid) {
  Layer cast = compute_layer("InsertedPrecisionFreeCast_x", 0.25, 0, "");
  cast.inserted_for = "precision";
  CompareItem base = side(1, "", 0, {}), next = side(1, "", 0, {cast, cast});
  const auto why = why_slower(base, next, nullptr);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_TRUE(says(why, "NEW runs 2 kernel(s) the runtime inserted to change precision (0.500 ms")) << why[0];
  EXPECT_TRUE(why_slower(next, next, nullptr).empty());  // as many on both sides: not a cause
}

}  // namespace

namespace {

// A runner that took clearly more page faults a run (its outputs landing on fresh memory) is named; a small or
// shared count, or one side without the count, says nothing.
TEST(WhySlower, ARunnerThatTookMorePageFaultsARunIsNamed) {
  CompareItem base = side(2, "", 0, {}), next = side(2, "", 0, {});
  base.page_faults_per_run = 0.2;
  next.page_faults_per_run = 16;
  auto why = why_slower(base, next, nullptr);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("NEW's runner took 16.0 page faults a run, BASE's 0.2"), std::string::npos) << why[0];
  next.page_faults_per_run = 6;  // under 8 a run (32 KiB): not said
  EXPECT_TRUE(why_slower(base, next, nullptr).empty());
  base.page_faults_per_run = 12;
  next.page_faults_per_run = 20;  // both sides fault: under twice BASE's + 4
  EXPECT_TRUE(why_slower(base, next, nullptr).empty());
  base.page_faults_per_run.reset();
  next.page_faults_per_run = 100;  // BASE not counted: nothing to hold it against
  EXPECT_TRUE(why_slower(base, next, nullptr).empty());
}

}  // namespace
