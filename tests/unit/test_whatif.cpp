// whatif on a hand-built report with known roofs: each mode's arithmetic done by hand (comments), checked.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "hw/datasheets.h"
#include "support/report_builder.h"
#include "whatif/whatif.h"

using namespace rooflens;
using rooflens::testing::ReportBuilder;

namespace {

// fp32 peak 100 GFLOP/s at 1 thread, 200 at 2; int8 400 at 1 thread. L1 (32 KiB per core) 400/800 GB/s, DRAM 10/20.
// Every layer below moves more than 64 KiB, so it streams from DRAM.
HardwareInfo whatif_roofs() {
  HardwareInfo h;
  h.machine.model = "test cpu";
  h.machine.cores = 2;
  h.machine.threads = 2;
  h.machine.caches = {{"L1d", 32768, 2, 1}};
  h.compute = {{"fp32_fma", "avx2", "fp32", 1, 100}, {"fp32_fma", "avx2", "fp32", 2, 200},
               {"int8_vnni", "avx512vnni", "int8", 1, 400}};
  h.memory = {{"L1", "read", 1, 400, 0}, {"L1", "read", 2, 800, 0}, {"DRAM", "read", 1, 10, 0}, {"DRAM", "read", 2, 20, 0}};
  return h;
}

// A: conv, compute-bound: 1 GFLOP, 1 MB (400 KB of weights), 20 ms -> 50 GFLOP/s = 50% of the 100 peak.
// B: add, memory-bound: 1 MFLOP, 10 MB (0.1 FLOP/B -> 1 GFLOP/s allowed at 10 GB/s), 2 ms -> 0.5 = 50%.
// C: matmul whose bytes are all weights: 0.1 GFLOP, 20 MB (5 FLOP/B -> 50 allowed), 4 ms -> 25 = 50%.
ReportBuilder whatif_report() {
  ReportBuilder b;
  b.report().hardware = whatif_roofs();
  NodeAnalysis& conv = b.node("conv", "Conv", {"x", "w"}, {"c"});
  conv.params = 100000;
  conv.macs = 500000000;
  conv.input_shapes = {{1, 64, 56, 56}, {64, 64, 3, 3}};
  b.node("add", "Add", {"c", "x"}, {"a"});
  NodeAnalysis& mm = b.node("mm", "MatMul", {"a", "w2"}, {"y"});
  mm.params = 5000000;
  mm.macs = 50000000;
  mm.input_shapes = {{1, 2000}, {2000, 2500}};
  b.layer("conv", "Conv", {"conv"}, 20.0, 1000000000, 1000000);
  b.layer("add", "Add", {"add"}, 2.0, 1000000, 10000000);
  b.layer("mm", "MatMul", {"mm"}, 4.0, 100000000, 20000000);
  auto& ls = b.run().layers;  // (references taken before later push_backs would dangle)
  ls[0].macs = 500000000;
  ls[2].macs = 50000000;
  for (auto& l : ls) l.efficiency = 0.5;
  ls[0].bound = "compute";
  ls[1].bound = ls[2].bound = "memory";
  b.finish();
  b.run().latency_ms.median = 26.0;  // = the layers (coverage 1, no gap)
  return b;
}

const LayerProjection& projected_layer(const Projection& p, const std::string& name) {
  for (const auto& l : p.runs.at(0).layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

}  // namespace

TEST(WhatIf, ThreadsFromThePerThreadRoofs) {
  auto b = whatif_report();
  WhatIfOptions o;
  o.threads = 2;
  Projection p = project(b.report(), o);
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 10.0, 1e-9);  // 50% of 200 GFLOP/s
  EXPECT_NEAR(projected_layer(p, "add").time_ms, 1.0, 1e-9);    // 50% of 0.1 x 20 GB/s
  EXPECT_NEAR(projected_layer(p, "mm").time_ms, 2.0, 1e-9);     // 50% of 5 x 20 GB/s
  EXPECT_EQ(projected_layer(p, "conv").roof, "fp32_fma x2");
  EXPECT_NEAR(p.runs[0].projected_ms, 13.0, 1e-9);    // 26 ms x 13 / 26
  EXPECT_EQ(p.modes, std::vector<std::string>{"threads"});
  EXPECT_GE(p.assumptions.size(), 3u);
  // Roofs at 4 threads were never measured: refuse rather than guess.
  o.threads = 4;
  EXPECT_THROW(project(b.report(), o), UserError);
}

TEST(WhatIf, DatasheetDeviceKeepsEfficiencyAgainstTheDevicesRoofline) {
  auto b = whatif_report();
  WhatIfOptions o;
  const auto& a100 = hw::find_datasheet_device("a100");
  o.roofs = hw::datasheet_hardware(a100);
  o.roofs_label = a100.name + " (datasheet)";
  Projection p = project(b.report(), o);
  // conv: 1000 FLOP/B x 2039 GB/s > 19500: compute-bound, 50% of 19.5 TFLOP/s.
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 1e9 / (0.5 * 19500e9) * 1000, 1e-12);
  // add: 0.1 FLOP/B x 2039 GB/s = 203.9 GFLOP/s allowed, 50% of it.
  EXPECT_NEAR(projected_layer(p, "add").time_ms, 1e6 / (0.5 * 203.9e9) * 1000, 1e-12);
  EXPECT_EQ(projected_layer(p, "add").roof, "DRAM datasheet x1");
  ASSERT_TRUE(p.hardware.has_value());
  EXPECT_EQ(p.hardware->source, "datasheet");
  EXPECT_NE(p.target.find("datasheet"), std::string::npos);
  o.threads = 2;  // a datasheet device has no thread counts
  EXPECT_THROW(project(b.report(), o), UsageError);
}

TEST(WhatIf, AnotherMachinesMeasuredRoofsAtTheRunsThreadCount) {
  auto b = whatif_report();
  HardwareInfo other = whatif_roofs();
  other.machine.model = "other cpu";
  for (auto& c : other.compute) c.gflops *= 3;    // fp32 at 1 thread: 300 GFLOP/s
  for (auto& m : other.memory) m.gbps *= 0.5;     // DRAM at 1 thread: 5 GB/s
  WhatIfOptions o;
  o.roofs = other;
  o.roofs_label = "other.json";
  Projection p = project(b.report(), o);
  EXPECT_EQ(p.modes, std::vector<std::string>{"roofs"});
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 20.0 / 3, 1e-9);  // compute-bound: 50% of 300 GFLOP/s
  EXPECT_NEAR(projected_layer(p, "add").time_ms, 4.0, 1e-9);        // memory-bound: 50% of 0.1 x 5 GB/s
  EXPECT_NEAR(projected_layer(p, "mm").time_ms, 8.0, 1e-9);         // 5 FLOP/B x 5 GB/s = 25 < 300: still memory-bound
  ASSERT_TRUE(p.hardware.has_value());
  EXPECT_EQ(p.hardware->machine.model, "other cpu");
  // e2e: measured 26 ms x (20/3 + 4 + 8) / 26 (no gap here).
  EXPECT_NEAR(p.runs[0].projected_ms, 20.0 / 3 + 12, 1e-9);
}

TEST(WhatIf, QuantizeShrinksBytesAndUsesTheDtypeCeilingForMatmulClassLayers) {
  auto b = whatif_report();
  WhatIfOptions o;
  o.quantize = "int8";
  Projection p = project(b.report(), o);
  // conv (MACs): 250 KB at 4000 FLOP/B, int8 peak 400 -> 50% = 200 GOP/s -> 5 ms.
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 5.0, 1e-9);
  EXPECT_NEAR(projected_layer(p, "conv").bytes, 250000, 1e-6);
  // add (no MACs): 2.5 MB at 0.4 FLOP/B -> 4 GFLOP/s allowed at 10 GB/s -> 2 -> 0.5 ms.
  EXPECT_NEAR(projected_layer(p, "add").time_ms, 0.5, 1e-9);
  // fp16 has no ceiling here: bytes halve, compute stays at the fp32 peak; the assumption says so.
  o.quantize = "fp16";
  p = project(b.report(), o);
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 20.0, 1e-9);  // still compute-bound at 100 GFLOP/s
  EXPECT_NEAR(projected_layer(p, "add").time_ms, 1.0, 1e-9);
  bool said = false;
  for (const auto& a : p.assumptions) said = said || a.find("none in the roofs") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(WhatIf, BatchScalesFlopsAndActivationsNotWeights) {
  auto b = whatif_report();
  WhatIfOptions o;
  o.batch = 8;
  Projection p = project(b.report(), o);
  // conv: 8 GFLOP; bytes 400 KB weights + 600 KB x 8 = 5.2 MB; compute-bound at 50 GFLOP/s -> 160 ms.
  EXPECT_NEAR(projected_layer(p, "conv").bytes, 5.2e6, 1e-3);
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 160.0, 1e-9);
  // add: no weights, 80 MB, 0.1 FLOP/B -> 16 ms.
  EXPECT_NEAR(projected_layer(p, "add").time_ms, 16.0, 1e-9);
  // mm: all 20 MB are weights, so 0.8 GFLOP over the same 20 MB = 40 FLOP/B: now compute-bound (40 x 10 > 100).
  EXPECT_NEAR(projected_layer(p, "mm").time_ms, 16.0, 1e-9);
  EXPECT_TRUE(projected_layer(p, "mm").bound_changed);
  EXPECT_EQ(projected_layer(p, "mm").bound, "compute");
  EXPECT_FALSE(projected_layer(p, "conv").bound_changed);
}

TEST(WhatIf, SparseUsesThePerfRatioTableThenTheIdealRatio) {
  auto b = whatif_report();
  WhatIfOptions o;
  o.sparse = parse_sparse("0.9:4x1");
  Projection p = project(b.report(), o);
  // Nothing else changes: conv keeps 20 ms, then / (1 / (1 - 0.9)) = 2 ms; add has no weights.
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 2.0, 1e-9);
  EXPECT_NEAR(projected_layer(p, "add").time_ms, 2.0, 1e-9);
  EXPECT_NE(projected_layer(p, "conv").note.find("ideal"), std::string::npos);
  o.perf_table = parse_perf_table("weight_shape,pattern,sparse_ratio,perf_ratio\n64x64x3x3,4x1,0.9,4\n*,4x1,0.9,2\n", "t.csv");
  p = project(b.report(), o);
  EXPECT_NEAR(projected_layer(p, "conv").time_ms, 5.0, 1e-9);   // exact row: 20 / 4
  EXPECT_NEAR(projected_layer(p, "mm").time_ms, 2.0, 1e-9);     // "*" row: 4 / 2
  EXPECT_THROW(parse_perf_table("64x64,4x1,0.9\n", "bad.csv"), UserError);
  EXPECT_THROW(parse_perf_table("64x64,4x1,1.5,2\n", "bad.csv"), UserError);
}

TEST(WhatIf, ParsesSparseSpecs) {
  EXPECT_DOUBLE_EQ(parse_sparse("0.9").ratio, 0.9);
  EXPECT_EQ(parse_sparse("0.9").pattern, "4x1");
  EXPECT_DOUBLE_EQ(parse_sparse("80%:2:4").ratio, 0.8);
  EXPECT_EQ(parse_sparse("0.5:2:4").pattern, "2:4");
  EXPECT_THROW(parse_sparse("1.2"), UsageError);
  EXPECT_THROW(parse_sparse("lots"), UsageError);
}

TEST(WhatIf, RefusesNothingToDoAndReportsWithoutRoofs) {
  auto b = whatif_report();
  EXPECT_THROW(project(b.report(), WhatIfOptions{}), UsageError);
  b.report().hardware.reset();
  WhatIfOptions o;
  o.threads = 2;
  EXPECT_THROW(project(b.report(), o), UserError);
}

TEST(Datasheets, EveryDeviceCitesItsSourceAndHasThePeaksAsked) {
  const auto& all = hw::datasheet_devices();
  for (const char* want : {"a100-sxm4-80gb", "a100-pcie-80gb", "h100-sxm5-80gb", "h100-pcie-80gb", "l4", "t4",
                           "rtx-3090", "rtx-4090", "titan-rtx", "jetson-agx-orin-64gb"})
    EXPECT_NO_THROW(hw::find_datasheet_device(want)) << want;
  for (const auto& d : all) {
    EXPECT_EQ(d.source_url.rfind("https://", 0), 0u) << d.id;
    EXPECT_GT(d.fp32, 0) << d.id;
    EXPECT_GT(d.fp16, d.fp32) << d.id;  // tensor cores
    EXPECT_GT(d.int8, d.fp16 - 1) << d.id;
    EXPECT_GT(d.memory_gbps, 0) << d.id;
    HardwareInfo h = hw::datasheet_hardware(d);
    EXPECT_EQ(h.source, "datasheet");
    ASSERT_EQ(h.memory.size(), 1u);
    EXPECT_EQ(h.memory[0].level, "DRAM");
  }
  EXPECT_EQ(hw::find_datasheet_device("H100").id, "h100-sxm5-80gb");  // aliases, any case
  EXPECT_THROW(hw::find_datasheet_device("a100-pcie-40gb-typo"), UserError);
  // Published figures the table must carry as such (A100 datasheet; H100 datasheet halved for dense).
  EXPECT_DOUBLE_EQ(hw::find_datasheet_device("a100").fp32, 19500);
  EXPECT_DOUBLE_EQ(hw::find_datasheet_device("a100").memory_gbps, 2039);
  EXPECT_DOUBLE_EQ(hw::find_datasheet_device("h100").int8, 1979000);
}

// The memory assumption is stated only when a run has a memory prediction to project (an import has none).
TEST(WhatIf, TheMemoryAssumptionOnlyWhereAMemoryPredictionIsProjected) {
  auto b = whatif_report();
  WhatIfOptions o;
  o.threads = 2;
  auto says_memory = [](const Projection& p) {
    for (const auto& a : p.assumptions)
      if (a.rfind("Memory:", 0) == 0) return true;
    return false;
  };
  const Projection without = project(b.report(), o);
  EXPECT_FALSE(without.runs[0].memory);
  EXPECT_FALSE(says_memory(without));
  b.run().memory.emplace();
  const Projection with = project(b.report(), o);
  EXPECT_TRUE(with.runs[0].memory);
  EXPECT_TRUE(says_memory(with));
}
