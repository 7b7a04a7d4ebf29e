// Every lint rule on a hand-built report that triggers it and on one that does not (the nearest miss).
#include <gtest/gtest.h>

#include <algorithm>

#include "lint/lint.h"
#include "support/report_builder.h"
#include "support/findings.h"

using namespace rooflens;
using rooflens::testing::ReportBuilder;

namespace {

std::vector<Finding> of_rule(const Report& r, const std::string& rule) {
  std::vector<Finding> out;
  for (auto& f : lint_report(r))
    if (f.rule == rule) out.push_back(f);
  return out;
}

using rooflens::testing::evidence;

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// conv (gpu) -> relu (cpu, the provider refused it) -> out; copies around the relu.
ReportBuilder gpu_run(bool relu_on_cpu) {
  ReportBuilder b;
  b.node("conv", "Conv", {"x", "w"}, {"c"});
  b.node("relu", "Relu", {"c"}, {"y"});
  b.layer("conv", "Conv", {"conv"}, 6.0, 1000000, 10000).device = Device::gpu;
  if (relu_on_cpu) {
    Layer& to = b.layer("Memcpy", "MemcpyToHost", {}, 1.0);
    to.kind = LayerKind::copy;
    to.device = Device::gpu;
    b.layer("relu", "Relu", {"relu"}, 2.0).device = Device::cpu;
    Layer& from = b.layer("Memcpy_1", "MemcpyFromHost", {}, 1.0);
    from.kind = LayerKind::copy;
    from.device = Device::gpu;
  } else {
    b.layer("relu", "Relu", {"relu"}, 1.0).device = Device::gpu;
  }
  b.finish();
  return b;
}

}  // namespace

TEST(LintRules, RegistryHasEveryRuleOnceWithALink) {
  std::vector<std::string> ids;
  for (const auto& r : lint_rules()) {
    EXPECT_FALSE(has(ids, r.id)) << r.id;
    ids.push_back(r.id);
    EXPECT_EQ(std::string(r.read_more).rfind("https://", 0), 0u) << r.id;
  }
  for (const char* id : {"cpu-fallback", "layout-reorders", "unfused-qdq", "fp32-island", "unfused-chain",
                         "shape-compute", "headroom", "between-kernels", "threads-above-cores", "unstable-timings",
                         "u8s8-saturation", "profiled-layers-inflated"})
    EXPECT_TRUE(has(ids, id)) << id;
}

TEST(LintRules, CpuFallbackInAGpuRun) {
  auto b = gpu_run(true);
  auto found = of_rule(b.report(), "cpu-fallback");
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.severity, Severity::error);  // (2 + 1 + 1) of 10 ms = 40% >= 20%
  EXPECT_DOUBLE_EQ(evidence(f, "CPU layers"), 1);
  EXPECT_DOUBLE_EQ(evidence(f, "copy layers"), 2);
  EXPECT_DOUBLE_EQ(evidence(f, "CPU time share"), 0.2);
  EXPECT_DOUBLE_EQ(evidence(f, "copy time"), 2.0);
  EXPECT_EQ(f.layers.front(), "relu");  // most time first
  EXPECT_TRUE(has(f.onnx_nodes, "relu"));
  EXPECT_EQ(f.run, "batch=1 threads=1");
  EXPECT_FALSE(f.mitigation.empty());
  // Everything on the GPU: nothing to say; a CPU-only run is not a fallback either.
  EXPECT_TRUE(of_rule(gpu_run(false).report(), "cpu-fallback").empty());
  ReportBuilder cpu;
  cpu.node("relu", "Relu", {"x"}, {"y"});
  cpu.layer("relu", "Relu", {"relu"}, 1.0).device = Device::cpu;
  EXPECT_TRUE(of_rule(cpu.finish(), "cpu-fallback").empty());
}

TEST(LintRules, InsertedLayoutConversionsWithTheirShare) {
  auto make = [](double reorder_ms) {
    ReportBuilder b;
    b.node("conv", "Conv", {"x", "w"}, {"y"});
    Layer& in = b.layer("ReorderInput", "ReorderInput", {"conv"}, reorder_ms);
    in.alias = true;
    in.kind = LayerKind::layout;
    b.layer("conv_nchwc", "Conv", {"conv"}, 10.0, 1000000, 10000);
    // The user's own Transpose is a layout kernel too, but not an inserted one.
    b.node("t", "Transpose", {"y"}, {"z"});
    b.layer("t", "Transpose", {"t"}, 1.0).kind = LayerKind::layout;
    return b;
  };
  auto hit = make(1.0);
  auto found = of_rule(hit.finish(), "layout-reorders");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::warning);  // 1 of 12 ms = 8.3% >= 5%
  EXPECT_DOUBLE_EQ(evidence(found[0], "layout layers"), 1);
  EXPECT_NEAR(evidence(found[0], "time share"), 1.0 / 12, 1e-12);
  EXPECT_EQ(found[0].layers, std::vector<std::string>{"ReorderInput"});
  auto small = make(0.05);  // 0.4%: below 1%, not worth a line
  EXPECT_TRUE(of_rule(small.finish(), "layout-reorders").empty());
}

namespace {
// x -> Q -> DQ -> conv(QLinearConv when fused) ... -> DQ -> add (float) -> Q -> DQ -> y
ReportBuilder quantized(bool fused) {
  ReportBuilder b;
  b.report().model.inputs.push_back({"x", "float", {1, 8}, {}});
  b.report().model.outputs.push_back({"y", "float", {1, 8}, {}});
  b.node("q_in", "QuantizeLinear", {"x", "s", "z"}, {"xq"}, "uint8").input_dtypes[0] = "float";
  b.node("dq_in", "DequantizeLinear", {"xq", "s", "z"}, {"xd"}, "float").input_dtypes[0] = "uint8";
  b.node("conv", "Conv", {"xd", "w"}, {"c"}).flops = 1000000;
  b.node("q_c", "QuantizeLinear", {"c", "s", "z"}, {"cq"}, "uint8");
  b.node("dq_c", "DequantizeLinear", {"cq", "s", "z"}, {"cd"});
  b.node("add", "Add", {"cd", "xd"}, {"a"}).flops = 8;
  b.node("q_a", "QuantizeLinear", {"a", "s", "z"}, {"aq"}, "uint8");
  b.node("dq_out", "DequantizeLinear", {"aq", "s", "z"}, {"y"});
  b.layer("q_in", "QuantizeLinear", {"q_in"}, 0.2).input_dtypes = {"float"};
  if (fused) {
    // The runtime folded every interior pair into integer kernels.
    b.layer("conv_quant", "QLinearConv", {"dq_in", "conv", "q_c"}, 5.0, 1000000, 10000).input_dtypes = {"uint8"};
    b.layer("add_quant", "QLinearAdd", {"dq_c", "add", "q_a"}, 0.3, 8, 1000).input_dtypes = {"uint8"};
  } else {
    b.layer("dq_in", "DequantizeLinear", {"dq_in"}, 0.2).input_dtypes = {"uint8"};
    b.layer("conv", "Conv", {"conv"}, 8.0, 1000000, 10000).input_dtypes = {"float"};
    b.layer("q_c", "QuantizeLinear", {"q_c"}, 0.2).input_dtypes = {"float"};
    b.layer("dq_c", "DequantizeLinear", {"dq_c"}, 0.2).input_dtypes = {"uint8"};
    b.layer("add", "Add", {"add"}, 0.5, 8, 1000).input_dtypes = {"float"};
    b.layer("q_a", "QuantizeLinear", {"q_a"}, 0.2).input_dtypes = {"float"};
  }
  b.layer("dq_out", "DequantizeLinear", {"dq_out"}, 0.2).input_dtypes = {"uint8"};
  b.finish();
  return b;
}
}  // namespace

TEST(LintRules, UnfusedQdqPairsInAQuantizedModel) {
  auto b = quantized(false);
  auto found = of_rule(b.report(), "unfused-qdq");
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  // q_in and dq_out are the model's own edges; dq_in, q_c, dq_c, q_a are pairs left inside.
  EXPECT_DOUBLE_EQ(evidence(f, "QuantizeLinear layers"), 2);
  EXPECT_DOUBLE_EQ(evidence(f, "DequantizeLinear layers"), 2);
  EXPECT_DOUBLE_EQ(evidence(f, "float layers between DQ and Q"), 2);  // conv and add ran in float
  EXPECT_DOUBLE_EQ(evidence(f, "Q->DQ round trips"), 2);               // q_c -> dq_c and q_a -> dq_out
  EXPECT_TRUE(has(f.layers, "conv") && has(f.layers, "add") && !has(f.layers, "q_in"));
  EXPECT_NEAR(evidence(f, "Q/DQ time"), 0.8, 1e-12);
  // Fused: only the edges remain. And an fp32 model has no Q/DQ to speak of.
  EXPECT_TRUE(of_rule(quantized(true).report(), "unfused-qdq").empty());
  ReportBuilder fp32;
  fp32.node("add", "Add", {"x", "x"}, {"y"});
  fp32.layer("add", "Add", {"add"}, 1.0, 8, 100);
  EXPECT_TRUE(of_rule(fp32.finish(), "unfused-qdq").empty());
}

TEST(LintRules, Fp32IslandsInAnInt8Model) {
  auto b = quantized(false);
  auto found = of_rule(b.report(), "fp32-island");
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  // conv and add are connected through dq_c/q_c only (conversions), so they are two islands.
  EXPECT_DOUBLE_EQ(evidence(f, "islands"), 2);
  EXPECT_DOUBLE_EQ(evidence(f, "float layers"), 2);
  EXPECT_DOUBLE_EQ(evidence(f, "conversion layers"), 4);  // dq_in, q_c, dq_c, q_a
  EXPECT_NEAR(evidence(f, "float FLOP share"), 1.0, 1e-12);
  EXPECT_NE(f.title.find("int8 model"), std::string::npos);
  EXPECT_TRUE(of_rule(quantized(true).report(), "fp32-island").empty());
}

TEST(LintRules, Fp32IslandInAnFp16ModelBetweenCasts) {
  auto make = [](const std::string& island_dtype) {
    ReportBuilder b;
    b.node("mm", "MatMul", {"x", "w"}, {"m"}, "float16").macs = 1000;
    b.node("up", "Cast", {"m"}, {"mf"}, "float").input_dtypes[0] = "float16";
    b.node("sm", "Softmax", {"mf"}, {"s"}, island_dtype).flops = 100;
    b.node("down", "Cast", {"s"}, {"y"}, "float16").input_dtypes[0] = island_dtype;
    b.layer("mm", "MatMul", {"mm"}, 4.0, 2000, 100).input_dtypes = {"float16"};
    b.layer("up", "Cast", {"up"}, 0.5).input_dtypes = {"float16"};
    b.layer("sm", "Softmax", {"sm"}, 1.0, 100, 400).input_dtypes = {island_dtype};
    b.layer("down", "Cast", {"down"}, 0.5).input_dtypes = {island_dtype};
    b.finish();
    return b;
  };
  auto hit = make("float");
  auto found = of_rule(hit.report(), "fp32-island");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("fp16 model"), std::string::npos);
  EXPECT_DOUBLE_EQ(evidence(found[0], "conversion layers"), 2);
  EXPECT_DOUBLE_EQ(evidence(found[0], "conversion time share"), 1.0 / 6);
  EXPECT_TRUE(of_rule(make("float16").report(), "fp32-island").empty());
}

namespace {
// conv -> bn -> relu -> conv2: with fusion off, bn and relu are two memory-bound kernels in a row.
ReportBuilder conv_bn_relu(bool fused) {
  ReportBuilder b;
  b.node("conv", "Conv", {"x", "w"}, {"c"}).flops = 1000000;
  b.node("bn", "BatchNormalization", {"c", "g", "b", "m", "v"}, {"n"}).flops = 4000;
  b.node("relu", "Relu", {"n"}, {"r"}).flops = 1000;
  b.node("conv2", "Conv", {"r", "w2"}, {"y"}).flops = 1000000;
  if (fused) {
    b.layer("conv_fused", "FusedConv", {"conv", "bn", "relu"}, 5.0, 1005000, 20000).bound = "compute";
  } else {
    b.layer("conv", "Conv", {"conv"}, 5.0, 1000000, 20000).bound = "compute";
    b.layer("bn", "BatchNormalization", {"bn"}, 1.5, 4000, 8000).bound = "memory";
    b.layer("relu", "Relu", {"relu"}, 1.0, 1000, 8000).bound = "memory";
  }
  b.layer("conv2", "Conv", {"conv2"}, 5.0, 1000000, 20000).bound = "compute";
  b.finish();
  return b;
}
}  // namespace

TEST(LintRules, UnfusedChainsOfMemoryBoundLayers) {
  auto b = conv_bn_relu(false);
  auto found = of_rule(b.report(), "unfused-chain");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::warning);  // 2.5 of 12.5 ms = 20%
  EXPECT_DOUBLE_EQ(evidence(found[0], "chains"), 1);
  EXPECT_DOUBLE_EQ(evidence(found[0], "layers in chains"), 2);
  EXPECT_DOUBLE_EQ(evidence(found[0], "bytes moved"), 16000);
  EXPECT_EQ(found[0].layers, (std::vector<std::string>{"bn", "relu"}));
  EXPECT_TRUE(of_rule(conv_bn_relu(true).report(), "unfused-chain").empty());
  // Without roofs, intensity decides: the same chain at 0.5 and 0.125 FLOP/B still counts.
  auto noroofs = conv_bn_relu(false);
  for (auto& l : noroofs.run().layers) l.bound.clear();
  EXPECT_EQ(of_rule(noroofs.report(), "unfused-chain").size(), 1u);
}

TEST(LintRules, ShapeComputationAtRunTime) {
  auto make = [](bool folded) {
    ReportBuilder b;
    b.node("shape", "Shape", {"x"}, {"s"}, "int64").input_dtypes[0] = "float";
    b.node("gather", "Gather", {"s", "i"}, {"g"}, "int64");
    b.node("concat", "Concat", {"g", "k"}, {"shp"}, "int64");
    b.node("reshape", "Reshape", {"x", "shp"}, {"y"});
    b.node("mm", "MatMul", {"y", "w"}, {"z"}).macs = 100;
    if (!folded) {
      b.layer("shape", "Shape", {"shape"}, 0.1);
      b.layer("gather", "Gather", {"gather"}, 0.1);
      b.layer("concat", "Concat", {"concat"}, 0.1);
    }
    b.layer("reshape", "Reshape", {"reshape"}, 0.1);
    b.layer("mm", "MatMul", {"mm"}, 5.0, 200, 100);
    b.finish();
    return b;
  };
  auto hit = make(false);
  auto found = of_rule(hit.report(), "shape-compute");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(evidence(found[0], "shape layers"), 3);  // the Reshape moves data: not counted
  EXPECT_DOUBLE_EQ(evidence(found[0], "Shape kernels"), 1);
  EXPECT_EQ(found[0].severity, Severity::warning);  // 0.3 of 5.4 ms = 5.6%
  EXPECT_TRUE(of_rule(make(true).report(), "shape-compute").empty());
}

TEST(LintRules, HeadroomIsTimeTimesMissingEfficiency) {
  ReportBuilder b;
  b.node("a", "Conv", {"x"}, {"y"});
  b.node("c", "Relu", {"y"}, {"z"});
  Layer& a = b.layer("a", "Conv", {"a"}, 10.0, 1000, 10);
  a.bound = "compute";
  a.efficiency = 0.25;
  a.roof = "fp32_fma_avx512 x1";
  Layer& c = b.layer("c", "Relu", {"c"}, 4.0, 10, 100);
  c.bound = "memory";
  c.efficiency = 0.5;
  c.roof = "L2 read x1";
  b.finish();
  auto found = of_rule(b.report(), "headroom");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(evidence(found[0], "headroom of these layers"), 7.5 + 2.0);
  EXPECT_DOUBLE_EQ(evidence(found[0], "share of layer time"), 9.5 / 14);
  EXPECT_EQ(found[0].layers, (std::vector<std::string>{"a", "c"}));
  // At 95% of the roof there is little to win; without roofs nothing can be said.
  for (auto& l : b.run().layers) l.efficiency = 0.95;
  EXPECT_TRUE(of_rule(b.report(), "headroom").empty());
  for (auto& l : b.run().layers) l.bound.clear(), l.efficiency = 0;
  EXPECT_TRUE(of_rule(b.report(), "headroom").empty());
}

TEST(LintRules, TimeBetweenKernels) {
  ReportBuilder b;
  b.node("a", "Relu", {"x"}, {"y"});
  b.layer("a", "Relu", {"a"}, 6.0);
  b.run().coverage = 0.75;  // the layers cover 6 of 8 ms
  b.finish();
  auto found = of_rule(b.report(), "between-kernels");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(evidence(found[0], "between kernels"), 2.0);
  EXPECT_DOUBLE_EQ(evidence(found[0], "profiled run"), 8.0);
  b.run().coverage = 0.95;
  EXPECT_TRUE(of_rule(b.report(), "between-kernels").empty());
}

namespace {

// One 6 ms layer in an 8 ms profiled run (coverage 0.75, 2 ms between kernels) of 400 kernels, its dispatch
// breakdown to be filled by the test.
DispatchBreakdown thin_run(ReportBuilder& b) {
  b.node("a", "Relu", {"x"}, {"y"});
  b.layer("a", "Relu", {"a"}, 6.0);
  b.run().coverage = 0.75;
  b.run().between_kernels_ms = 2.0;
  b.run().profiled_run_ms = 8.0;
  DispatchBreakdown d;
  d.kernels = 400;
  return d;
}

}  // namespace

TEST(LintRules, TimeBetweenKernelsNamesTheFixItsBreakdownSupports) {
  ReportBuilder b;
  DispatchBreakdown d = thin_run(b);
  d.outside_executor_ms = 0.1;
  d.executor_gaps_ms = 1.8;
  b.run().dispatch = d;
  b.finish();
  auto found = of_rule(b.report(), "between-kernels");
  ASSERT_EQ(found.size(), 1u);
  const std::string& fix = found[0].mitigation;
  EXPECT_NE(fix.find("4.5 us for each of 400 kernels: fewer, larger kernels"), std::string::npos) << fix;
  EXPECT_EQ(fix.find("outside the executor"), std::string::npos) << fix;  // 0.1 of 2 ms: not worth a word
  EXPECT_EQ(fix.find("profiler"), std::string::npos) << fix;
  EXPECT_DOUBLE_EQ(evidence(found[0], "between kernels in the executor"), 1.8);
  // Profiling itself costs most of the gap: the finding says the plain run spends less there.
  b.run().dispatch->profiler_ms = 1.5;
  std::string profiler = of_rule(b.report(), "between-kernels")[0].mitigation;
  EXPECT_NE(profiler.find("A profiled run takes 1.500 ms longer than a plain one (75.0% of this gap)"),
            std::string::npos) << profiler;
  // The calling thread waiting for pool workers inside kernels, with spinning off: fewer threads, spinning.
  b.run().dispatch->pool_wait_ms = 1.0;
  b.run().settings = {{"spinning", "off", SettingSource::rooflens, "session.intra_op.allow_spinning", ""}};
  std::string pool = of_rule(b.report(), "between-kernels")[0].mitigation;
  EXPECT_NE(pool.find("fewer intra-op threads (--threads 1)"), std::string::npos) << pool;
  EXPECT_NE(pool.find("spinning is off"), std::string::npos) << pool;
}

// A gap the profiler's calibrated bookkeeping explains is not the runtime's overhead: no finding; one it does not
// explain still is, with the bookkeeping in its evidence.
TEST(LintRules, TimeBetweenKernelsLeavesTheProfilersBookkeepingAside) {
  ReportBuilder b;
  DispatchBreakdown d = thin_run(b);
  d.executor_gaps_ms = 1.9;
  d.profiler_gap_ms = 0.004;
  d.profiler_bookkeeping_ms = 1.6;
  d.coverage_without_profiler = 0.94;
  b.run().dispatch = d;
  b.finish();
  EXPECT_TRUE(of_rule(b.report(), "between-kernels").empty());
  b.run().dispatch->coverage_without_profiler = 0.85;
  auto found = of_rule(b.report(), "between-kernels");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(evidence(found[0], "the profiler's bookkeeping between kernels (at least)"), 1.6);
}

TEST(LintRules, OneLongGapIsNamedAsWorkInOnePlace) {
  ReportBuilder b;
  DispatchBreakdown d = thin_run(b);
  d.longest_gap_ms = 0.05;  // 2.5% of the gap: spread over the kernels
  b.run().dispatch = d;
  b.finish();
  auto spread = of_rule(b.report(), "between-kernels");
  ASSERT_EQ(spread.size(), 1u);
  EXPECT_DOUBLE_EQ(evidence(spread[0], "the longest single gap"), 0.05);
  EXPECT_EQ(spread[0].mitigation.find("One stretch"), std::string::npos) << spread[0].mitigation;
  b.run().dispatch->longest_gap_ms = 0.8;
  std::string one = of_rule(b.report(), "between-kernels")[0].mitigation;
  EXPECT_NE(one.find("One stretch between two kernels holds 0.800 ms of it (40.0%"), std::string::npos) << one;
}

TEST(LintRules, LayersAddingUpToMoreThanAPlainRunCarryTheProfilersCost) {
  ReportBuilder b;
  b.node("a", "Relu", {"x"}, {"y"});
  b.node("c", "Relu", {"y"}, {"z"});
  b.layer("a", "Relu", {"a"}, 6.0);
  b.layer("c", "Relu", {"c"}, 6.0);
  b.run().latency_ms.n = 100;
  b.run().latency_ms.median = 5.0;
  b.run().profiled_latency_ms.n = 10;
  b.run().profiled_latency_ms.median = 13.0;
  b.finish();
  auto found = of_rule(b.report(), "profiled-layers-inflated");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::warning);
  EXPECT_DOUBLE_EQ(evidence(found[0], "layer times"), 12.0);
  EXPECT_DOUBLE_EQ(evidence(found[0], "plain run (median)"), 5.0);
  EXPECT_DOUBLE_EQ(evidence(found[0], "added by profiling per kernel"), 4000.0);  // (13 - 5) ms over 2 kernels
  // Layers within a quarter of the plain run: nothing to say; no plain timing (--layers-only): nothing to hold.
  b.run().latency_ms.median = 10.0;
  EXPECT_TRUE(of_rule(b.report(), "profiled-layers-inflated").empty());
  b.run().latency_ms.median = 5.0;
  b.run().latency_ms.n = 0;
  EXPECT_TRUE(of_rule(b.report(), "profiled-layers-inflated").empty());
}

TEST(LintRules, ThreadsAbovePhysicalCores) {
  ReportBuilder b;
  b.node("a", "Relu", {"x"}, {"y"});
  b.layer("a", "Relu", {"a"}, 1.0);
  b.finish();
  HardwareInfo hw;
  hw.machine.cores = 2;
  hw.machine.threads = 4;
  b.report().hardware = hw;
  b.run().threads = 4;
  auto found = of_rule(b.report(), "threads-above-cores");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::warning);
  b.run().threads = 8;
  EXPECT_EQ(of_rule(b.report(), "threads-above-cores")[0].severity, Severity::error);  // above logical CPUs too
  b.run().threads = 2;
  EXPECT_TRUE(of_rule(b.report(), "threads-above-cores").empty());
  b.report().hardware.reset();  // no machine description: nothing to compare with
  b.run().threads = 8;
  EXPECT_TRUE(of_rule(b.report(), "threads-above-cores").empty());
}

TEST(LintRules, UnstableTimings) {
  ReportBuilder b;
  b.node("a", "Relu", {"x"}, {"y"});
  b.layer("a", "Relu", {"a"}, 1.0);
  b.finish();
  b.run().latency_ms.cv = 0.08;
  b.run().latency_ms.median = 10;
  b.run().latency_ms.p99 = 15;
  auto found = of_rule(b.report(), "unstable-timings");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::warning);
  EXPECT_NE(found[0].title.find("1.5x"), std::string::npos) << found[0].title;
  b.run().latency_ms.cv = 0.3;
  EXPECT_EQ(of_rule(b.report(), "unstable-timings")[0].severity, Severity::error);
  b.run().latency_ms.cv = 0.02;
  EXPECT_TRUE(of_rule(b.report(), "unstable-timings").empty());
  // Steady samples inside each run, but two runs far apart: run to run is unstable.
  b.run().latencies_ms = {10, 10.1, 9.9, 10, 10.05, 20, 20.1, 19.9, 20, 20.05};
  b.run().repetitions = {5, 5};
  found = of_rule(b.report(), "unstable-timings");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("run medians spread"), std::string::npos);
}

TEST(LintRules, FindingsAreSortedBySeverityWithinARun) {
  auto b = gpu_run(true);  // cpu-fallback: error
  b.run().latency_ms.cv = 0.08;  // unstable-timings: warning
  auto all = lint_report(b.report());
  ASSERT_GE(all.size(), 2u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_GE(all[i - 1].severity, all[i].severity);
}

namespace {

const std::vector<std::string> kAvx2Isa = {"sse2", "avx", "fma", "avx2"};
const std::vector<std::string> kVnniIsa = {"sse2", "avx", "fma", "avx2", "avx512f", "avx512bw", "avx512_vnni"};

// x -> DequantizeLinear(uint8) and w -> DequantizeLinear(int8) -> MatMul -> QuantizeLinear, which the runtime ran as
// one QLinearMatMul (its weight prepacked, so only its int8 zero point is among the kernel's inputs), then a float
// Softmax. `layers` false: a run without layer times (--no-layers).
ReportBuilder u8s8_run(bool layers = true) {
  ReportBuilder b;
  b.node("dq_x", "DequantizeLinear", {"xq", "s", "zx"}, {"xd"}).input_dtypes = {"uint8", "float", "uint8"};
  b.node("dq_w", "DequantizeLinear", {"wq", "s", "zw"}, {"wd"}).input_dtypes = {"int8", "float", "int8"};
  b.node("matmul", "MatMul", {"xd", "wd"}, {"m"}).macs = 1000;
  b.node("q_m", "QuantizeLinear", {"m", "s", "zx"}, {"mq"}, "uint8");
  b.node("softmax", "Softmax", {"md"}, {"y"});
  if (layers) {
    b.layer("matmul_quant", "QLinearMatMul", {"dq_x", "dq_w", "matmul", "q_m"}, 3.0, 2000, 1000).input_dtypes = {
        "uint8", "float", "uint8", "float", "int8", "float", "uint8"};
    b.layer("softmax", "Softmax", {"softmax"}, 1.0, 80, 1000).input_dtypes = {"float"};
  }
  b.finish();
  return b;
}

Int8Weights full_range_weights() {
  Int8Weights w;
  w.tensors = w.through_dequantize = 1;
  w.elements = 8;
  w.min = -127;
  w.max = 127;
  return w;
}

// 40 of 1000 logits 2 to 75 output steps (0.05) off a run at opt-level disabled, or none beyond one step.
Int8Check int8_check(const std::vector<std::string>& isa, bool deviates) {
  Int8Check c;
  c.isa = isa;
  c.output_step = 0.05;
  c.atol = 0.075;
  OutputCheck o;
  o.name = "y";
  o.elements = 1000;
  o.mismatched = deviates ? 40 : 0;
  o.max_abs_error = deviates ? 3.75 : 0.05;
  o.passed = !deviates;
  o.failure = deviates ? "mismatch" : "";
  c.validation.reference = kUnoptimizedReference;
  c.validation.data_sets = 1;
  c.validation.outputs = {o};
  return c;
}

}  // namespace

TEST(LintRules, U8s8SaturationWithTheDeviationFromAnUnoptimizedRun) {
  auto b = u8s8_run();
  b.report().model.int8_weights = full_range_weights();
  b.run().int8_check = int8_check(kAvx2Isa, true);
  auto found = of_rule(b.report(), "u8s8-saturation");
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.severity, Severity::error);
  EXPECT_NE(f.title.find("40 of 1000 output elements"), std::string::npos) << f.title;
  EXPECT_NE(f.title.find("75 steps"), std::string::npos) << f.title;
  EXPECT_EQ(f.layers, std::vector<std::string>{"matmul_quant"});  // the u8s8 layer, not the float Softmax
  EXPECT_TRUE(has(f.onnx_nodes, "matmul"));
  EXPECT_DOUBLE_EQ(evidence(f, "u8s8 layers"), 1);
  EXPECT_NEAR(evidence(f, "their time share"), 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(evidence(f, "output elements beyond tolerance"), 40);
  EXPECT_DOUBLE_EQ(evidence(f, "max abs error"), 3.75);
  EXPECT_DOUBLE_EQ(evidence(f, "int8 weight min"), -127);
  EXPECT_NE(f.mitigation.find("reduce_range=True"), std::string::npos);
  EXPECT_NE(f.mitigation.find("session.x64quantprecision=1"), std::string::npos);

  // Measured within tolerance: said as it was (info); not measured: the documented behaviour (warning).
  b.run().int8_check = int8_check(kAvx2Isa, false);
  found = of_rule(b.report(), "u8s8-saturation");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::info);
  b.run().int8_check.reset();
  b.report().hardware = HardwareInfo{};
  b.report().hardware->machine.isa = kAvx2Isa;  // the report's machine, when the run recorded no check
  found = of_rule(b.report(), "u8s8-saturation");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::warning);
  EXPECT_NE(found[0].mitigation.find("--int8-check always"), std::string::npos);
}

TEST(LintRules, U8s8SaturationStaysQuietWhereNothingCanSaturate) {
  // Weights within ±64: no pair sum leaves 16 bits, whatever the CPU.
  auto reduced = u8s8_run();
  reduced.report().model.int8_weights = full_range_weights();
  reduced.report().model.int8_weights->min = -64;
  reduced.report().model.int8_weights->max = 64;
  reduced.run().int8_check = int8_check(kAvx2Isa, true);
  EXPECT_TRUE(of_rule(reduced.report(), "u8s8-saturation").empty());
  // An fp32 model on the same CPU.
  ReportBuilder fp32;
  fp32.node("matmul", "MatMul", {"x", "w"}, {"y"}).macs = 1000;
  fp32.layer("matmul", "MatMul", {"matmul"}, 1.0, 2000, 1000).input_dtypes = {"float", "float"};
  fp32.report().hardware = HardwareInfo{};
  fp32.report().hardware->machine.isa = kAvx2Isa;
  EXPECT_TRUE(of_rule(fp32.finish(), "u8s8-saturation").empty());
  // No CPU features known (a datasheet, --no-roofs without a check): nothing to say.
  auto unknown = u8s8_run();
  unknown.report().model.int8_weights = full_range_weights();
  EXPECT_TRUE(of_rule(unknown.report(), "u8s8-saturation").empty());
  // A VNNI CPU: quiet unless the weights are known to be full range.
  unknown.report().hardware = HardwareInfo{};
  unknown.report().hardware->machine.isa = kVnniIsa;
  unknown.report().model.int8_weights.reset();
  EXPECT_TRUE(of_rule(unknown.report(), "u8s8-saturation").empty());
}

TEST(LintRules, U8s8SaturationOnAVnniCpuSaysTheModelIsNotPortable) {
  auto b = u8s8_run();
  b.report().model.int8_weights = full_range_weights();
  b.report().hardware = HardwareInfo{};
  b.report().hardware->machine.isa = kVnniIsa;
  auto found = of_rule(b.report(), "u8s8-saturation");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::info);
  EXPECT_NE(found[0].title.find("no saturation here (VNNI)"), std::string::npos) << found[0].title;
  EXPECT_NE(found[0].mitigation.find("reduce_range=True"), std::string::npos);
}

TEST(LintRules, U8s8SaturationWithoutLayerTimesNamesTheQdqNodes) {
  auto b = u8s8_run(false);
  b.report().model.int8_weights = full_range_weights();
  b.run().int8_check = int8_check(kAvx2Isa, true);
  auto found = of_rule(b.report(), "u8s8-saturation");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].layers.empty());
  EXPECT_EQ(found[0].onnx_nodes, std::vector<std::string>{"matmul"});
  EXPECT_DOUBLE_EQ(evidence(found[0], "u8s8 nodes"), 1);
}
