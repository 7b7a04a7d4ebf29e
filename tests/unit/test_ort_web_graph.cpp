// The executed graph of an ONNX Runtime Web run is the native build's optimisation of the model, kept only when every
// kernel of the web profile is one of its nodes with the same op (backends/onnxruntime/ort_web_graph.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/onnxruntime/ort_web_graph.h"

using namespace rooflens;

namespace {

GraphView::Node graph_node(std::string name, std::string op) {
  GraphView::Node n;
  n.name = std::move(name);
  n.op = std::move(op);
  return n;
}

KernelRecord web_kernel(std::string name, std::string op) {
  KernelRecord k;
  k.name = std::move(name);
  k.op = std::move(op);
  return k;
}

Measurement profiled(std::vector<GraphView::Node> nodes, std::vector<KernelRecord> kernels) {
  Measurement m;
  m.executed_graph = GraphView{};
  m.executed_graph->nodes = std::move(nodes);
  m.kernels = std::move(kernels);
  return m;
}

TEST(OrtWebGraph, KeptWhenEveryKernelIsANodeWithItsOpAndGeneratedNamesArePairedInOrder) {
  // The native optimisation counted its generated names from another start than the web build's.
  Measurement m = profiled({graph_node("Transpose_token_5", "Transpose"), graph_node("conv", "Conv"),
                            graph_node("Transpose_token_9", "Transpose")},
                           {web_kernel("Transpose_token_223", "Transpose"), web_kernel("conv", "Conv"),
                            web_kernel("Transpose_token_225", "Transpose")});
  const RunSetting s = ort::check_web_executed_graph(m);
  ASSERT_TRUE(m.executed_graph.has_value());
  EXPECT_EQ(s.value, "the native build's, checked");
  EXPECT_EQ(m.executed_graph->nodes[0].name, "Transpose_token_223");  // renamed after the kernel it is
  EXPECT_EQ(m.executed_graph->nodes[2].name, "Transpose_token_225");
  EXPECT_TRUE(m.warnings.empty());
}

TEST(OrtWebGraph, APrecisionCastOfASharedConstantPairsWhicheverCopyEachBuildKept) {
  // text_encoder.fp16: one cast of a constant all four layers repeat, named after layers.3's copy natively and
  // layers.2's in the web build. A cast of a tensor named otherwise than by its numbers does not pair.
  const std::string web = "InsertedPrecisionFreeCast_/encoder/layers.2/self_attn/Constant_23_output_0";
  Measurement m = profiled(
      {graph_node("InsertedPrecisionFreeCast_/encoder/layers.3/self_attn/Constant_23_output_0", "Cast"),
       graph_node("mm", "MatMul")},
      {web_kernel(web, "Cast"), web_kernel("mm", "MatMul")});
  ort::check_web_executed_graph(m);
  ASSERT_TRUE(m.executed_graph.has_value()) << (m.warnings.empty() ? "" : m.warnings[0]);
  EXPECT_EQ(m.executed_graph->nodes[0].name, web);
  Measurement other = profiled(
      {graph_node("InsertedPrecisionFreeCast_/encoder/layers.3/self_attn/Constant_23_output_0", "Cast")},
      {web_kernel("InsertedPrecisionFreeCast_/encoder/layers.3/linear1/weight", "Cast")});
  ort::check_web_executed_graph(other);
  EXPECT_FALSE(other.executed_graph.has_value());
}

TEST(OrtWebGraph, DroppedWithAWarningWhenAKernelIsNotInIt) {
  // The web build ran a LayerNormalization the native graph does not have (another fusion): map by names instead.
  Measurement m = profiled({graph_node("ln/ReduceMean", "ReduceMean"), graph_node("fc", "MatMul")},
                           {web_kernel("ln/Mul/LayerNormFusion/", "LayerNormalization"), web_kernel("fc", "MatMul")});
  const RunSetting s = ort::check_web_executed_graph(m);
  EXPECT_FALSE(m.executed_graph.has_value());
  EXPECT_EQ(s.value, "none");
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("'ln/Mul/LayerNormFusion/' (LayerNormalization)"), std::string::npos) << m.warnings[0];
  // Same name, another op: not the same node either.
  Measurement other = profiled({graph_node("fc", "MatMul")}, {web_kernel("fc", "Gemm")});
  ort::check_web_executed_graph(other);
  EXPECT_FALSE(other.executed_graph.has_value());
}

}  // namespace
