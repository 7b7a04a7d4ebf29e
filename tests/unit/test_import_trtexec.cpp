// trtexec / TREx importer on the project's own fixtures (tests/fixtures/import/trtexec/, written by
// make_fixtures.py in TensorRT 8.2, 8.6 and 10 layouts). The MobileNet QAT figures are those TREx's report card
// computes for the same files (its formulas, run by make_fixtures.py): 78 layers, Σ averageMs 0.3421197 ms,
// weights 3,469,760 B, activations 17,610,912 B, e2e median 0.452 ms, 5 reformats and 19 Q/DQ layers. The import
// keeps the 2 layers TREx leaves out (a Constant and a NoOp, at 0 ms): 80. Parity on TREx's sample plans:
// test_import_trtexec_parity.cpp.
#include <gtest/gtest.h>

#include <numeric>

#include "assembly/assemble.h"
#include "core/errors.h"
#include "importers/registry/registry.h"
#include "importers/trtexec/trt_names.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

using test::fixtures;

ProfileRun assemble(const importers::Imported& in) { return test::assembled(in).run; }

const std::vector<std::string> kMobileNet = {
    "trtexec/mobilenet_qat/mobilenet_qat.engine.graph.json", "trtexec/mobilenet_qat/mobilenet_qat.engine.profile.json",
    "trtexec/mobilenet_qat/mobilenet_qat.engine.timing.json",
    "trtexec/mobilenet_qat/mobilenet_qat.engine.profile.metadata.json",
    "trtexec/mobilenet_qat/mobilenet_qat.engine.build.metadata.json"};

TEST(ImportTrtexec, MobileNetQatHasTheReportCardFigures) {
  auto files = fixtures(kMobileNet);
  const auto& importer = importers::detect_importer(files);
  ASSERT_EQ(importer.name(), "trtexec");
  importers::Imported in = importer.read(files, {});
  ProfileRun run = assemble(in);
  EXPECT_EQ(run.layers.size(), 80u);  // every layer of the plan, the Constant and the NoOp too
  ASSERT_FALSE(in.read.empty());
  EXPECT_NE(in.read[0].find("80 layers (2 NoOp or Constant: no kernel runs for them; TREx's report card counts 78)"),
            std::string::npos) << in.read[0];
  double sum_mean = 0;
  int reformats = 0, qdq = 0, int8 = 0;
  for (const auto& l : run.layers) {
    ASSERT_TRUE(l.mean_ms.has_value()) << l.name;
    sum_mean += *l.mean_ms;
    if (l.op == "Constant" || l.op == "NoOp") {
      EXPECT_EQ(l.time_ms, 0) << l.name;
      EXPECT_EQ(l.bytes, 0u) << l.name;  // no kernel: nothing moved, nothing in the memory figures
      continue;
    }
    if (l.inserted_for == "reformat") {
      ++reformats;
      EXPECT_EQ(l.kind, LayerKind::layout) << l.name;
    }
    if (l.name.rfind("QuantizeLinear_", 0) == 0) ++qdq;
    if (l.precision == "int8") ++int8;
    EXPECT_EQ(l.device, Device::gpu);
  }
  EXPECT_NEAR(sum_mean, 0.3421197, 1e-7);
  EXPECT_EQ(reformats, 5);
  EXPECT_EQ(qdq, 19);
  EXPECT_EQ(int8, 53);
  ASSERT_TRUE(run.weights_bytes && run.activations_bytes);
  EXPECT_EQ(*run.weights_bytes, 3469760u);
  EXPECT_EQ(*run.activations_bytes, 17610912u);
  EXPECT_EQ(run.latency_ms.n, 201);
  EXPECT_DOUBLE_EQ(run.latency_ms.median, 0.452);
  // Phases from the timing export: H2D 0.021 and D2H 0.012 ms every inference; compute = latency - both.
  ASSERT_EQ(run.phases.size(), 4u);
  EXPECT_EQ(run.phases[1].name, "h2d");
  EXPECT_DOUBLE_EQ(run.phases[1].ms.median, 0.021);
  EXPECT_NEAR(run.phases[2].ms.median, 0.452 - 0.033, 1e-9);
  EXPECT_EQ(in.measurement.device_name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(in.model_path, "mobilenet_qat.onnx");
  EXPECT_EQ(in.batch, 1);
  EXPECT_EQ(in.backend.options.at("Precision"), "FP32+FP16+INT8");
}

TEST(ImportTrtexec, MacsFromWeightCountsWithoutAModel) {
  importers::Imported in = importers::find_importer("trtexec").read(fixtures(kMobileNet), {});
  ProfileRun run = assemble(in);
  // The stem: 3x3 conv 3->32, stride 2 on 224x224: 112*112 output positions x 864 weights.
  const Layer& stem = run.layers[1];
  EXPECT_EQ(stem.op, "Convolution");
  EXPECT_EQ(stem.macs, 112u * 112u * 864u);
  EXPECT_EQ(stem.flops, 2u * 112u * 112u * 864u);
  EXPECT_TRUE(stem.cost_known);
  // Bytes: int8 input 1x3x224x224 + int8 output 1x32x112x112 + 864 int8 weights + 32 float biases.
  EXPECT_EQ(stem.bytes, 3u * 224 * 224 + 32u * 112 * 112 + 864 + 32 * 4);
  EXPECT_EQ(stem.implementation.rfind("sm80_xmma_fprop", 0), 0u);
  const Layer& pool = *std::find_if(run.layers.begin(), run.layers.end(), [](const Layer& l) { return l.op == "Pooling"; });
  EXPECT_FALSE(pool.cost_known);  // only bytes are known
}

TEST(ImportTrtexec, TensorRT82Layout) {
  auto files = fixtures({"trtexec/trt82/small.engine.graph.json", "trtexec/trt82/small.engine.profile.json",
                         "trtexec/trt82/small.engine.profile.metadata.json"});
  importers::Imported in = importers::detect_importer(files).read(files, {});
  ProfileRun run = assemble(in);
  ASSERT_EQ(run.layers.size(), 3u);
  EXPECT_EQ(run.layers[0].op, "Scale");  // Q/DQ as TensorRT 8.2 shows it
  EXPECT_DOUBLE_EQ(run.layers[1].time_ms, 0.05);  // no medianMs: the mean is the layer time
  EXPECT_EQ(run.layers[2].macs, 40960u);          // fully connected: batch 1 x 40960 weights
  EXPECT_EQ(run.layers[2].weight_bytes, 40960u * 4);
  // Five latency statistics (min, max, mean, median, p99) and no samples.
  EXPECT_DOUBLE_EQ(run.latency_ms.median, 0.98);
  EXPECT_DOUBLE_EQ(run.latency_ms.p99, 1.3);
  EXPECT_DOUBLE_EQ(run.latency_ms.p90, 0);
  EXPECT_DOUBLE_EQ(run.throughput_per_s, 1900.0);  // trtexec's own (two streams), not 1000 / mean latency
  EXPECT_EQ(in.measurement.device_name, "Tesla T4");
}

TEST(ImportTrtexec, TensorRT10MetadataNamesTheOnnxNodes) {
  auto files = fixtures({"trtexec/trt10/small.engine.graph.json", "trtexec/trt10/small.engine.profile.json",
                         "trtexec/trt10/small.engine.metadata.json"});
  importers::Imported in = importers::detect_importer(files).read(files, {});
  ASSERT_EQ(in.measurement.kernels.size(), 2u);
  EXPECT_EQ(in.measurement.kernels[0].onnx_nodes, (std::vector<std::string>{"/conv1/Conv", "/relu1/Relu"}));
  EXPECT_EQ(in.measurement.kernels[1].onnx_nodes, (std::vector<std::string>{"/flatten/Flatten", "/fc/Gemm"}));
  EXPECT_EQ(in.measurement.kernels[0].precision, "float16");
  EXPECT_EQ(in.measurement.kernels[1].output_dtypes, (std::vector<std::string>{"float"}));
  EXPECT_DOUBLE_EQ(*in.measurement.kernels[1].median_ms, 0.028);
  EXPECT_EQ(in.measurement.device_name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(in.measurement.input_shapes.at("x"), (std::vector<int64_t>{1, 3, 32, 32}));
}

TEST(ImportTrtexec, ProfileOnlyDlaRun) {
  auto files = fixtures({"trtexec/dla_profile_only/orin_dla.profile.json"});
  importers::Imported in = importers::detect_importer(files).read(files, {});
  ProfileRun run = assemble(in);
  ASSERT_EQ(run.layers.size(), 3u);
  EXPECT_EQ(run.layers[0].inserted_for, "reformat");
  EXPECT_EQ(run.layers[0].kind, LayerKind::layout);
  EXPECT_DOUBLE_EQ(run.layers[1].time_ms, 0.39);
  EXPECT_FALSE(run.layers[1].cost_known);
}

TEST(ImportTrtexec, LayerNamesListTheirParts) {
  using importers::trt::name_parts;
  EXPECT_EQ(name_parts("features.0.0.weight + QuantizeLinear_8 + Conv_12 + PWN(Clip_16)"),
            (std::vector<std::string>{"features.0.0.weight", "QuantizeLinear_8", "Conv_12", "Clip_16"}));
  EXPECT_EQ(name_parts("PWN(PWN(/m/act/Sigmoid), PWN(/m/act/Mul))"),
            (std::vector<std::string>{"/m/act/Sigmoid", "/m/act/Mul"}));
  EXPECT_EQ(name_parts("{ForeignNode[/m/Split_16.../m/Add]}"), (std::vector<std::string>{"/m/Split_16.../m/Add"}));
  EXPECT_EQ(name_parts("Gemm_864 + (Unnamed Layer* 849) [Shuffle]"), (std::vector<std::string>{"Gemm_864"}));
  EXPECT_EQ(name_parts("/model_10/attn/MatMul_myl109_2"), (std::vector<std::string>{"/model_10/attn/MatMul"}));
  EXPECT_EQ(name_parts("QuantizeLinear_7_quantize_scale_node"), (std::vector<std::string>{"QuantizeLinear_7"}));
  EXPECT_EQ(importers::trt::inserted_for("Reformatting CopyNode for Input Tensor 0 to Conv_3 + Relu_4"), "reformat");
  EXPECT_EQ(importers::trt::inserted_for("input_0 input reformatter 0"), "reformat");
  EXPECT_EQ(importers::trt::inserted_for("/model.10/Split_output_0 copy"), "copy");
  EXPECT_EQ(importers::trt::inserted_for("Conv_3 + Relu_4"), "");
  const MappingRules& rules = importers::trt::mapping_rules();
  auto named = rules.nodes_in_name("conv.weight + Conv_3 + {ForeignNode[a...b]}");
  EXPECT_EQ(named.nodes, (std::vector<std::string>{"conv.weight", "Conv_3"}));
  ASSERT_EQ(named.spans.size(), 1u);
  EXPECT_EQ(named.spans[0], (std::pair<std::string, std::string>{"a", "b"}));
  EXPECT_TRUE(rules.nodes_in_name("Reformatting CopyNode for Input Tensor 0 to Conv_3").empty());
  auto cands = rules.name_candidates("Reformatting CopyNode for Input Tensor 0 to Conv_3 + Relu_4");
  EXPECT_EQ(cands[1], "Relu_4");  // the node the reformatter carries a tensor for: where the fused layer ends
}

TEST(ImportTrtexec, RefusesWhatIsNotItsFile) {
  importers::InputFile f{"notes.txt", "hello"};
  EXPECT_THROW(importers::find_importer("trtexec").read({f}, {}), UserError);
  EXPECT_THROW(importers::find_importer("trtexec").read(fixtures(kMobileNet), {{"clock", "host"}}), UsageError);
}

}  // namespace
}  // namespace rooflens

#include "analysis/roofline.h"

namespace rooflens {
namespace {

// A layer's precision picks the ceiling it is placed under; a precision the roofs lack falls back to fp32.
TEST(ImportRoofs, PrecisionPicksTheCeiling) {
  HardwareInfo hw;
  hw.source = "datasheet";
  hw.compute = {{"fp32", "vector", "fp32", 1, 19500}, {"int8_tensor", "tensor", "int8", 1, 624000}};
  hw.memory = {{"DRAM", "datasheet", 1, 2039, 0}};
  // 1 GFLOP over 1 MB in 0.01 ms: intensity 1000, above both ridge points.
  RoofPlacement i8 = place_on_roofline(hw, 1, 1000000000, 1000000, 1e-5, roof_dtype("int8"));
  EXPECT_EQ(i8.roof, "int8_tensor x1");
  EXPECT_DOUBLE_EQ(i8.attainable, 624000);
  RoofPlacement f16 = place_on_roofline(hw, 1, 1000000000, 1000000, 1e-5, roof_dtype("float16"));
  EXPECT_EQ(f16.roof, "fp32 x1");  // no fp16 ceiling here
  EXPECT_EQ(roof_dtype("uint8"), "int8");
  EXPECT_EQ(roof_dtype("int64"), "");
}

}  // namespace
}  // namespace rooflens
