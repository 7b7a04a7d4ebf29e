// The ONNX Runtime, MegEngine, Neural Engine and OpenVINO importers on the project's own fixtures
// (tests/fixtures/import/<format>/), with the figures worked out by hand from the files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "assembly/assemble.h"
#include "core/errors.h"
#include "importers/registry/registry.h"
#include "reporters/import_summary.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

using test::fixtures;

using Read = test::ImportedRun;

Read import(const std::vector<std::string>& files, const importers::ImportOptions& options = {},
            const std::string& expect_format = "") {
  auto f = fixtures(files);
  const auto& importer = importers::detect_importer(f);
  if (!expect_format.empty()) {
    EXPECT_EQ(importer.name(), expect_format);
  }
  return test::assembled(importer.read(f, options));
}

const Layer& layer(const ProfileRun& run, const std::string& name) {
  for (const auto& l : run.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

TEST(ImportOrt, CudaProfileSharesFallbackAndCopies) {
  Read r = import({"onnxruntime/cuda_ep_1.16.json"}, {}, "onnxruntime");
  ASSERT_EQ(r.run.layers.size(), 7u);  // fence events are not kernels
  EXPECT_EQ(r.run.latency_ms.n, 3);
  EXPECT_DOUBLE_EQ(r.run.load_ms, 180.4);  // session_initialization
  // Per-run kernel durations: 120, 122, 124 µs -> median 0.122 ms.
  EXPECT_DOUBLE_EQ(layer(r.run, "conv1").time_ms, 0.122);
  EXPECT_EQ(layer(r.run, "conv1").device, Device::gpu);
  EXPECT_EQ(layer(r.run, "Memcpy_token_0").kind, LayerKind::copy);
  EXPECT_FALSE(layer(r.run, "Memcpy_token_0").fallback);
  EXPECT_TRUE(layer(r.run, "nms").fallback);
  EXPECT_TRUE(layer(r.run, "shape_of").fallback);
  EXPECT_FALSE(layer(r.run, "fc").fallback);
  auto shares = layer_device_shares(r.run);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].provider, "CUDAExecutionProvider");
  EXPECT_EQ(shares[0].layers, 5);
  EXPECT_NEAR(shares[0].layer_share, 5.0 / 7.0, 1e-12);
  // Medians: CUDA 0.043+0.122+0.032+0.057+0.024 = 0.278 ms, CPU 0.006+0.212 = 0.218 ms.
  EXPECT_NEAR(shares[0].time_ms, 0.278, 1e-9);
  EXPECT_NEAR(shares[1].time_share, 0.218 / 0.496, 1e-9);
  Report report;
  report.runs = {r.run};
  EXPECT_NE(import_summary(report).find("CPU fallback: 2 layer(s)"), std::string::npos);
}

// A profile with the CUDA tracer's Kernel events (fixture built from ORT's documented layout: see
// make_cuda_kernels.py). Every kernel's device time is in exactly one layer; GPU nodes are timed by their kernels.
TEST(ImportOrt, CudaKernelEventsTimeGpuNodesOnTheDevice) {
  Read r = import({"onnxruntime/cuda_kernels_1.20.json"}, {}, "onnxruntime");
  // Count in and time in, walked from the file itself: every "Kernel" event's dur.
  const auto file = nlohmann::json::parse(fixtures({"onnxruntime/cuda_kernels_1.20.json"})[0].text);
  int64_t kernels_in = 0;
  double kernel_us_in = 0;
  for (const auto& e : file)
    if (e["cat"] == "Kernel") ++kernels_in, kernel_us_in += e["dur"].get<double>();
  EXPECT_EQ(kernels_in, 16);  // 5 per run and the allocator's fill before the first node
  // Time out: the device-timed layers' per-iteration times, and the layer that holds the kernels before any node.
  double kernel_ms_out = 0;
  for (const auto& k : r.in.measurement.kernels)
    if (!k.implementation.empty() || k.name == "(GPU kernels before any node)")
      for (double ms : k.per_iteration_ms) kernel_ms_out += ms;
  EXPECT_NEAR(kernel_ms_out * 1000, kernel_us_in, 1e-9);
  // conv1: implicit GEMM + bias per run 35+8, 36+8, 37+9 µs -> median 0.044 ms (its host events took 118-125 µs).
  EXPECT_DOUBLE_EQ(layer(r.run, "conv1").time_ms, 0.044);
  EXPECT_NE(layer(r.run, "conv1").implementation.find("xmma_fprop_implicit_gemm"), std::string::npos);
  EXPECT_DOUBLE_EQ(layer(r.run, "fc").time_ms, 0.024);       // 21+3, 20+3, 22+3
  EXPECT_DOUBLE_EQ(layer(r.run, "pool").time_ms, 0.006);     // 6, 5, 6
  // No kernel followed the copy: its host time is kept (41, 40, 42 µs); the CPU node keeps its own.
  EXPECT_DOUBLE_EQ(layer(r.run, "Memcpy_token_0").time_ms, 0.041);
  EXPECT_DOUBLE_EQ(layer(r.run, "shape_of").time_ms, 0.004);
  EXPECT_DOUBLE_EQ(layer(r.run, "(GPU kernels before any node)").time_ms, 0.0);  // run 0 only: median of 2, 0, 0
  ASSERT_EQ(r.in.read.size(), 1u);
  EXPECT_NE(r.in.read[0].find("16 GPU kernel events (0.224 ms on the device, 1 before any node, "
                              "1 GPU nodes launched none: host time kept)"),
            std::string::npos)
      << r.in.read[0];
}

TEST(ImportOrt, EarlyVersionsAndTraceObjects) {
  Read early = import({"onnxruntime/cpu_2019.json"});
  ASSERT_EQ(early.run.layers.size(), 3u);
  EXPECT_EQ(early.run.layers[0].op, "Conv");
  EXPECT_EQ(early.run.layers[0].provider, "");  // 2019 profiles name no provider
  EXPECT_DOUBLE_EQ(early.run.layers[0].time_ms, 0.3005);  // median of 300 and 301 µs
  Read trt = import({"onnxruntime/trt_ep_1.30.json"});
  ASSERT_EQ(trt.run.layers.size(), 2u);
  EXPECT_EQ(trt.run.layers[0].device, Device::gpu);
  EXPECT_EQ(trt.run.layers[0].precision, "float16");
  EXPECT_TRUE(trt.run.layers[1].fallback);  // TopK on the CPU beside the TensorRT EP
}

TEST(ImportMegEngine, DeviceAndHostClocksEndAndKern) {
  Read d = import({"megengine/load_and_run.profile.json"}, {}, "megengine");
  ASSERT_EQ(d.run.layers.size(), 5u);
  EXPECT_EQ(d.run.layers[1].name, "conv0");  // ordered by start on the device clock
  EXPECT_NEAR(d.run.layers[1].time_ms, 0.120, 1e-9);  // end - start
  EXPECT_NEAR(d.run.layers[3].time_ms, 0.050, 1e-9);  // the longer of fc's two streams
  EXPECT_EQ(d.run.layers[1].flops, 884736u);         // opr_footprint.computation (no model given)
  EXPECT_EQ(d.run.layers[1].bytes, 19648u);
  EXPECT_EQ(d.run.layers[1].precision, "int8");      // QuantizedS8 input
  EXPECT_EQ(d.run.layers[4].kind, LayerKind::copy);
  EXPECT_EQ(d.run.layers[1].device, Device::gpu);
  EXPECT_NEAR(d.run.latency_ms.median, 0.200, 1e-9);  // the iteration's span: 100 µs to 300 µs
  EXPECT_NEAR(d.run.throughput_per_s, 5000.0, 1e-6);   // no wall time: one stream of 0.2 ms iterations
  Read k = import({"megengine/load_and_run.profile.json"}, {{"end", "kern"}});
  EXPECT_NEAR(k.run.layers[1].time_ms, 0.040, 1e-9);  // kern - start
  Read h = import({"megengine/load_and_run.profile.json"}, {{"clock", "host"}});
  EXPECT_NEAR(h.run.layers[1].time_ms, 0.010, 1e-9);
  EXPECT_EQ(h.run.layers[1].device, Device::cpu);
  EXPECT_THROW(import({"megengine/load_and_run.profile.json"}, {{"end", "begin"}}), UsageError);
}

TEST(ImportNeuralEngine, CsvTraceAndBoth) {
  Read csv = import({"neural_engine/profiling_2023-03-01_10-00-00_0.csv"}, {}, "neural-engine");
  ASSERT_EQ(csv.run.layers.size(), 3u);
  EXPECT_DOUBLE_EQ(csv.run.layers[1].time_ms, 0.075);
  EXPECT_EQ(csv.run.layers[1].implementation, "post op gelu_tanh");
  EXPECT_EQ(csv.run.layers[1].precision, "uint8");
  EXPECT_EQ(csv.run.layers[1].input_shapes[1], (std::vector<int64_t>{256, 256}));
  EXPECT_DOUBLE_EQ(csv.run.latency_ms.median, 0.118);  // the CSV's total latency
  Read trace = import({"neural_engine/profiling_2023-03-01_10-00-00_0.json"});
  ASSERT_EQ(trace.run.layers.size(), 3u);
  // Three iterations; the first 1.6x slower with 4 µs of reshape: median of (0.124, 0.075, 0.075).
  EXPECT_NEAR(trace.run.layers[1].time_ms, 0.075, 1e-9);
  EXPECT_EQ(trace.run.latency_ms.n, 3);
  EXPECT_NEAR(trace.run.latency_ms.median, 0.118, 1e-9);
  ASSERT_TRUE(trace.in.measurement.executed_graph);
  EXPECT_EQ(trace.in.measurement.executed_graph->nodes[1].inputs[0], "input.1_quant");  // ":0" dropped
  Read both = import({"neural_engine/profiling_2023-03-01_10-00-00_0.csv",
                      "neural_engine/profiling_2023-03-01_10-00-00_0.json"});
  EXPECT_EQ(both.run.layers[1].implementation, "post op gelu_tanh");
  EXPECT_EQ(both.run.latency_ms.n, 3);
}

TEST(ImportOpenVino, CountersPrecisionsAndNotRun) {
  Read avg = import({"openvino/benchmark_average_counters_report.csv"}, {}, "openvino");
  ASSERT_EQ(avg.run.layers.size(), 4u);  // input, conv1/Relu and output NOT_RUN
  EXPECT_EQ(avg.run.layers[0].precision, "int8");
  EXPECT_EQ(avg.run.layers[0].implementation, "jit_avx512_1x1");
  EXPECT_EQ(avg.run.layers[2].precision, "float");
  EXPECT_EQ(avg.run.layers[3].kind, LayerKind::layout);  // Reorder
  EXPECT_DOUBLE_EQ(avg.run.layers[0].time_ms, 0.412);
  Read det = import({"openvino/benchmark_detailed_counters_report.csv"});
  ASSERT_EQ(det.run.layers.size(), 4u);
  EXPECT_NEAR(det.run.layers[0].time_ms, (0.412 + 0.453) / 2, 1e-9);  // two requests: 0.412 and 0.412 x 1.1
  Read xml = import({"openvino/exec_graph.xml"});
  ASSERT_EQ(xml.run.layers.size(), 4u);
  EXPECT_DOUBLE_EQ(xml.run.layers[0].time_ms, 0.412);
  Read both = import({"openvino/benchmark_average_counters_report.csv", "openvino/exec_graph.xml"});
  EXPECT_EQ(both.in.measurement.kernels[0].onnx_nodes, (std::vector<std::string>{"conv1/Conv", "conv1/Relu"}));
  EXPECT_EQ(both.in.measurement.kernels[2].onnx_nodes, (std::vector<std::string>{"fc/Gemm", "flatten/Flatten"}));
}

TEST(ImportAuto, RefusesFilesOfTwoFormats) {
  auto f = fixtures({"openvino/exec_graph.xml", "megengine/load_and_run.profile.json"});
  try {
    importers::detect_importer(f);
    FAIL() << "mixed formats accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("one run of one tool"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rooflens
