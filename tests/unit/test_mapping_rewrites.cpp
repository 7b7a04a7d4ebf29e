// What ONNX Runtime does to a graph beyond fusion and NCHWc, on hand-built graphs shaped like its dumps of real
// exports (ORT 1.30): an activation fused into a kernel named "<node>/QuickGeluFusion/" whose output a reorder
// renames back (torchvision EfficientNet-B0), casts inserted around kernels that have no float16 version
// (a float16 RegNet), and function ops expanded into unnamed nodes (float16 HardSwish). Then the bytes and work
// the assembly charges such layers, and the roof invariant.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "assembly/layers.h"
#include "backends/onnxruntime/ort_mapping_rules.h"
#include "support/mapping_cases.h"

using namespace rooflens;
using rooflens::testing::expect_partition;
using rooflens::testing::index_of;
using rooflens::testing::node;
using rooflens::testing::owned_names;

namespace {

// conv -> SiLU (Sigmoid, Mul) -> relu. ORT: the conv in NCHWc named after its output tensor, the SiLU fused into a
// QuickGelu named after the Mul, its output renamed, then a ReorderOutput writing the Mul's own tensor.
struct FusedActivation {
  GraphView original, optimized;
  FusedActivation() {
    original.graph_inputs = {"x"};
    original.nodes = {node("conv", "Conv", {"x", "w"}, {"conv_out"}), node("sig", "Sigmoid", {"conv_out"}, {"s"}),
                      node("mul", "Mul", {"conv_out", "s"}, {"mul_out"}), node("relu", "Relu", {"mul_out"}, {"y"})};
    original.graph_outputs = {"y"};
    optimized.graph_inputs = {"x"};
    optimized.nodes = {
        node("ReorderInput", "ReorderInput", {"x"}, {"reorder_token_0"}, "com.microsoft.nchwc"),
        node("conv_out_nchwc", "Conv", {"reorder_token_0", "reorder_w"}, {"reorder_token_1"}, "com.microsoft.nchwc"),
        node("mul/QuickGeluFusion/", "QuickGelu", {"reorder_token_1"}, {"reorder_token_2"}, "com.microsoft"),
        node("ReorderOutput_token_9", "ReorderOutput", {"reorder_token_2"}, {"mul_out"}, "com.microsoft.nchwc"),
        node("relu", "Relu", {"mul_out"}, {"y"}),
    };
  }
};

TEST(MappingRewrites, AFusedActivationNamedAfterItsNodeOwnsItsNodesNotTheReorderAfterIt) {
  FusedActivation c;
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(owned_names(c.original, m, 1), std::vector<std::string>{"conv"});
  EXPECT_EQ(owned_names(c.original, m, 2), (std::vector<std::string>{"sig", "mul"}));
  EXPECT_TRUE(m.layers[3].owned.empty());  // the reorder only carries the Mul's tensor
  EXPECT_EQ(m.layers[3].alias_of, index_of(c.original, "mul"));
  EXPECT_EQ(owned_names(c.original, m, 4), std::vector<std::string>{"relu"});
}

// A float16 graph (input cast to float16, conv, relu, cast back) on a provider with no float16 convolution: ORT
// cancels the input cast against its own, runs the conv in float32 on "InsertedPrecisionFreeCast_<tensor>" copies,
// and casts the float16 weight to float32 on every run.
struct InsertedCasts {
  GraphView original, optimized;
  InsertedCasts() {
    original.graph_inputs = {"x"};
    original.nodes = {node("x_to_fp16", "Cast", {"x"}, {"x16"}), node("conv", "Conv", {"x16", "w16"}, {"c16"}),
                      node("relu", "Relu", {"c16"}, {"r16"}), node("y_to_fp32", "Cast", {"r16"}, {"y"})};
    original.graph_outputs = {"y"};
    optimized.graph_inputs = {"x"};
    optimized.nodes = {
        node("InsertedPrecisionFreeCast_w16", "Cast", {"w16"}, {"InsertedPrecisionFreeCast_w16"}),
        node("InsertedPrecisionFreeCast_r16_nchwc", "Conv", {"x", "InsertedPrecisionFreeCast_w16"},
             {"reorder_token_3"}, "com.microsoft.nchwc", "Relu"),
        node("ReorderOutput", "ReorderOutput", {"reorder_token_3"}, {"InsertedPrecisionFreeCast_r16"},
             "com.microsoft.nchwc"),
        node("y_to_fp32", "Cast", {"InsertedPrecisionFreeCast_r16"}, {"y"}),
    };
  }
};

TEST(MappingRewrites, InsertedCastsAreAliasesAndTheConvolutionOwnsWhatItComputes) {
  InsertedCasts c;
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_TRUE(m.layers[0].owned.empty());  // the weight's cast computes nothing of the user's
  EXPECT_EQ(m.layers[0].alias_of, index_of(c.original, "conv"));  // it carries the weight the conv reads
  EXPECT_EQ(owned_names(c.original, m, 1), (std::vector<std::string>{"x_to_fp16", "conv", "relu"}));
  EXPECT_EQ(m.layers[2].alias_of, index_of(c.original, "relu"));
  EXPECT_EQ(owned_names(c.original, m, 3), std::vector<std::string>{"y_to_fp32"});
}

// ---- assembly: kernels, the analysis, bytes and the roofline ----

NodeAnalysis analysed(std::string name, std::string op, std::vector<std::string> in, std::vector<std::string> out,
                      uint64_t flops, std::vector<int64_t> shape, std::string dtype = "float") {
  NodeAnalysis n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.graph = "main";
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.flops = flops;
  for (size_t i = 0; i < n.inputs.size(); ++i) n.input_shapes.push_back(shape), n.input_dtypes.push_back(dtype);
  for (size_t i = 0; i < n.outputs.size(); ++i) n.output_shapes.push_back(shape), n.output_dtypes.push_back(dtype);
  return n;
}

KernelRecord kernel(std::string name, std::string op, double ms) {
  KernelRecord k;
  k.name = std::move(name);
  k.op = std::move(op);
  k.per_iteration_ms = {ms};
  return k;
}

GraphView graph_of(const Analysis& a, const std::string& input) {
  GraphView g;
  g.graph_inputs = {input};
  for (const auto& n : a.nodes) g.nodes.push_back(node(n.name, n.op, n.inputs, n.outputs));
  g.graph_outputs = {a.nodes.back().outputs.front()};
  return g;
}

const Layer& layer(const LayerBuild& b, const std::string& name) {
  for (const auto& l : b.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

TEST(LayerTruth, KernelsOfUnnamedExecutedNodesArePairedWithThemByOpAndOrder) {
  // Two float16 HardSwish nodes; ORT expands each into an unnamed HardSigmoid and Mul (its file names none, its profile
  // names them "<op>_<index>").
  Analysis a;
  a.nodes = {analysed("hs1", "HardSwish", {"x"}, {"h1"}, 500, {1, 100}),
             analysed("hs2", "HardSwish", {"h1"}, {"h2"}, 500, {1, 100})};
  const GraphView original = graph_of(a, "x");
  GraphView executed;
  executed.graph_inputs = {"x"};
  for (auto [in, tmp, out, at] : std::vector<std::tuple<std::string, std::string, std::string, int>>{
           {"x", "t1", "h1", 0}, {"h1", "t2", "h2", 2}}) {
    GraphView::Node sig = node("HardSigmoid_" + std::to_string(at), "HardSigmoid", {in}, {tmp});
    GraphView::Node mul = node("Mul_" + std::to_string(at + 1), "Mul", {in, tmp}, {out});
    sig.unnamed = mul.unnamed = true;
    executed.nodes.push_back(sig);
    executed.nodes.push_back(mul);
  }
  LayerSources in;
  in.original = &original;
  in.analysis = &a;
  in.executed = &executed;
  in.rules = &ort::mapping_rules();
  const LayerBuild b = build_layers({kernel("HardSigmoid_187", "HardSigmoid", 0.01), kernel("Mul_188", "Mul", 0.01),
                                     kernel("HardSigmoid_189", "HardSigmoid", 0.01), kernel("Mul_190", "Mul", 0.01)},
                                    in);
  EXPECT_EQ(b.unmapped_kernels, 0);
  EXPECT_EQ(b.layers.size(), 4u);  // no executed node left without its kernel's time
  EXPECT_EQ(layer(b, "Mul_188").onnx_nodes, std::vector<std::string>{"hs1"});
  EXPECT_EQ(layer(b, "Mul_190").onnx_nodes, std::vector<std::string>{"hs2"});
  EXPECT_TRUE(layer(b, "HardSigmoid_189").alias);
}

// ONNX Runtime Web writes no executed graph: a MatMul + Add of 3-D tensors that MatMulAddFusion turned into a Gemm
// reaches the mapper as three kernels, the Gemm named after the MatMul between two Reshapes named for the Gemm
// (vit_b_16 in onnxruntime-web 1.30). The Reshapes carry the MatMul's tensors and move no data; nothing is unmapped.
TEST(LayerTruth, ReshapesInsertedAroundAFusedGemmAreViewsOfItsNodeWithoutAnExecutedGraph) {
  Analysis a;
  a.nodes = {analysed("norm", "LayerNormalization", {"x"}, {"n"}, 500, {1, 197, 768}),
             analysed("fc/MatMul", "MatMul", {"n", "w"}, {"m"}, 1000, {1, 197, 3072}),
             analysed("fc/Add", "Add", {"m", "b"}, {"y"}, 100, {1, 197, 3072})};
  const GraphView original = graph_of(a, "x");
  LayerSources in;
  in.original = &original;
  in.analysis = &a;
  in.rules = &ort::mapping_rules();
  KernelRecord before = kernel("gemm_input_reshape_token_8", "Reshape", 0.06);
  KernelRecord after = kernel("gemm_output_reshape_token_9", "Reshape", 0.06);
  before.input_shapes = {{1, 197, 768}, {2}};
  before.input_dtypes = {"float", "int64"};
  before.output_shapes = {{197, 768}};
  before.output_dtypes = {"float"};
  const LayerBuild b = build_layers({kernel("norm", "LayerNormalization", 0.1), before,
                                     kernel("fc/MatMul/MatMulAddFusion", "Gemm", 1.0), after},
                                    in);
  EXPECT_EQ(b.unmapped_kernels, 0);
  // By its name alone the Gemm is its MatMul's (the Add it fused takes the executed graph: ort_web_graph.h).
  EXPECT_EQ(layer(b, "fc/MatMul/MatMulAddFusion").onnx_nodes.front(), "fc/MatMul");
  for (const char* name : {"gemm_input_reshape_token_8", "gemm_output_reshape_token_9"}) {
    EXPECT_TRUE(layer(b, name).alias) << name;
    EXPECT_EQ(layer(b, name).onnx_nodes, std::vector<std::string>{"fc/MatMul"}) << name;
    EXPECT_EQ(layer(b, name).bytes, 0u) << name;  // a view, though the runtime reported its tensors
  }
}

// x -> Transpose -> Shape -> (dims) and x -> Gather (rows of a table) -> Reshape: the bytes each kernel moved.
struct DataMovement {
  Analysis a;
  GraphView g, executed;
  DataMovement() {
    NodeAnalysis t = analysed("transpose", "Transpose", {"x"}, {"xt"}, 0, {64, 1024});
    NodeAnalysis s = analysed("shape", "Shape", {"xt"}, {"dims"}, 0, {64, 1024});
    s.output_shapes = {{2}};
    s.output_dtypes = {"int64"};
    s.input_read_bytes = {0};  // Shape reads no data (the cost registry says so)
    NodeAnalysis gather = analysed("gather", "Gather", {"table", "ids"}, {"rows"}, 0, {4, 1024});
    gather.input_shapes = {{30000, 1024}, {4}};
    gather.input_dtypes = {"float", "int64"};
    gather.input_read_bytes = {4 * 1024 * 4, 4 * 8};  // the 4 rows it gathers, and its indices
    NodeAnalysis reshape = analysed("reshape", "Reshape", {"rows", "shape_const"}, {"flat"}, 0, {4, 1024});
    a.nodes = {t, s, gather, reshape};
    g = graph_of(a, "x");
    g.graph_inputs.insert("ids");
    g.graph_outputs = {"dims", "flat"};
    // ORT reads the dims of x itself and drops the Transpose.
    executed.graph_inputs = g.graph_inputs;
    executed.nodes = {node("shape", "Shape", {"x"}, {"dims"}), node("gather", "Gather", {"table", "ids"}, {"rows"}),
                      node("reshape", "Reshape", {"rows", "shape_const"}, {"flat"})};
  }
  LayerSources sources() const {
    LayerSources in;
    in.original = &g;
    in.analysis = &a;
    in.executed = &executed;
    return in;
  }
  LayerBuild build(std::vector<KernelRecord> ks) const { return build_layers(ks, sources()); }
};

TEST(LayerTruth, AKernelMovesOnlyWhatItsNodesReadAndWrite) {
  DataMovement d;
  KernelRecord shape = kernel("shape", "Shape", 0.002);  // ORT reads the dims and leaves the Transpose out
  KernelRecord reshape = kernel("reshape", "Reshape", 0.002);
  const LayerBuild b = d.build({shape, kernel("gather", "Gather", 0.003), reshape});
  const Layer& s = layer(b, "shape");
  EXPECT_EQ(s.onnx_nodes, (std::vector<std::string>{"transpose", "shape"}));
  EXPECT_EQ(s.bytes, 2u * 8);  // the dims it wrote; the Transpose's data is never read
  EXPECT_EQ(layer(b, "gather").bytes, 4u * 1024 * 4 + 4 * 8 + 4 * 1024 * 4);  // rows + indices + rows written
  EXPECT_EQ(layer(b, "reshape").bytes, 0u);
  EXPECT_EQ(layer(b, "reshape").bytes_source, BytesSource::view);
}

TEST(LayerTruth, WritesAreTheKernelsOutputsInThePrecisionTheRuntimeRanIn) {
  DataMovement d;
  KernelRecord gather = kernel("gather", "Gather", 0.003);
  gather.output_shapes = {{4, 1024}};
  gather.output_dtypes = {"float16"};  // as if the runtime ran it on a half-precision copy
  const LayerBuild b = d.build({kernel("shape", "Shape", 0.002), gather});
  const Layer& g = layer(b, "gather");
  EXPECT_EQ(g.bytes_source, BytesSource::runtime_writes);
  EXPECT_EQ(g.bytes, 4u * 1024 * 4 + 4 * 8 + 4 * 1024 * 2);
}

HardwareInfo one_roof(double gflops, double gbps) {
  HardwareInfo hw;
  hw.source = "measured";
  hw.compute.push_back({"fp32_fma", "avx512", "fp32", 1, gflops});
  MemoryRoof m;
  m.level = "DRAM";
  m.kernel = "read";
  m.threads = 1;
  m.gbps = gbps;
  hw.memory.push_back(m);
  return hw;
}

TEST(LayerTruth, ALayerAboveItsRoofIsAnAttributionErrorNotAPoint) {
  DataMovement d;
  const HardwareInfo hw = one_roof(100, 8);  // 8 GB/s: the gather's 32.8 KB in 3 us are 10.9 GB/s, in 4 us 8.2
  LayerSources in = d.sources();
  in.hw = &hw;
  in.threads = 1;
  const LayerBuild fast = build_layers({kernel("gather", "Gather", 0.003)}, in);
  const Layer& g = layer(fast, "gather");
  EXPECT_GT(g.efficiency, 1.1);
  EXPECT_NE(g.attribution_error.find("x its DRAM read x1 roof"), std::string::npos) << g.attribution_error;
  ASSERT_FALSE(fast.warnings.empty());
  EXPECT_NE(fast.warnings.back().find("1 layer(s) above their roof"), std::string::npos) << fast.warnings.back();
  // The same layer a timer step longer is within the tolerance: a whole-microsecond timer may have cut it short.
  in.kernel_time_step_ms = 0.001;
  EXPECT_TRUE(layer(build_layers({kernel("gather", "Gather", 0.003)}, in), "gather").attribution_error.empty());
  // A layer under its roof carries no error.
  in.kernel_time_step_ms = 0;
  EXPECT_TRUE(layer(build_layers({kernel("gather", "Gather", 0.03)}, in), "gather").attribution_error.empty());
}

}  // namespace
