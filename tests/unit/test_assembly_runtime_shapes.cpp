// The runtime's per-kernel shapes against the analysis (assembly/kernel_shapes.h), on hand-built records shaped like
// ORT's: kernels named after executed-graph nodes, output shapes listed without the omitted outputs.
#include <gtest/gtest.h>

#include "assembly/kernel_shapes.h"

using namespace rooflens;

namespace {

NodeAnalysis node(std::string name, std::string op, std::vector<std::string> outs,
                  std::vector<std::vector<int64_t>> shapes, bool resolved = true) {
  NodeAnalysis n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.graph = "main";
  n.outputs = std::move(outs);
  n.output_shapes = std::move(shapes);
  n.shapes_resolved = resolved;
  return n;
}

KernelRecord kernel(std::string name, std::vector<std::vector<int64_t>> out_shapes) {
  KernelRecord k;
  k.name = std::move(name);
  k.output_shapes = std::move(out_shapes);
  return k;
}

GraphView::Node exec(std::string name, std::vector<std::string> outs) {
  return GraphView::Node{std::move(name), "", "", {}, std::move(outs), {}};
}

TEST(RuntimeShapes, MismatchIsAWarningNamingTheNodeAndUnresolvedTensorsAreTaken) {
  Analysis a;
  a.nodes = {node("conv", "Conv", {"c"}, {{1, 8, 4, 4}}), node("nz", "NonZero", {"i"}, {{2, -1}}, false),
             node("rank?", "Reshape", {"r"}, {{}}, false)};
  GraphView g;
  // ORT's fused kernel keeps the name of the tensor it writes.
  g.nodes = {exec("conv_fused", {"c"}), exec("nz", {"i"}), exec("rank?", {"r"})};
  auto c = check_runtime_shapes(a, {kernel("conv_fused", {{1, 8, 2, 2}}), kernel("nz", {{2, 7}}),
                                    kernel("rank?", {{3, 5}})},
                                g);
  EXPECT_EQ(c.compared, 3);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("'conv'"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("1x8x4x4"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("1x8x2x2"), std::string::npos) << c.warnings[0];
  ASSERT_EQ(c.taken.size(), 2u);
  EXPECT_EQ(c.taken.at("i"), (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(c.taken.at("r"), (std::vector<int64_t>{3, 5}));
}

TEST(RuntimeShapes, KernelsListingFewerShapesThanNamedOutputsAreNotPairedByPosition) {
  // LSTM with Y omitted: the runtime lists the shapes of Y_h and Y_c only; they pair with the named outputs in order.
  Analysis a;
  a.nodes = {node("lstm", "LSTM", {"", "yh", "yc"}, {{}, {1, 1, 64}, {1, 1, 64}})};
  GraphView g;
  g.nodes = {exec("lstm", {"", "yh", "yc"})};
  auto ok = check_runtime_shapes(a, {kernel("lstm", {{1, 1, 64}, {1, 1, 64}})}, g);
  EXPECT_EQ(ok.compared, 2);
  EXPECT_TRUE(ok.warnings.empty());
  // Only one shape for two named outputs (a non-tensor or absent output skipped): no comparison, no false warning.
  auto skipped = check_runtime_shapes(a, {kernel("lstm", {{1, 1, 32}})}, g);
  EXPECT_EQ(skipped.compared, 0);
  EXPECT_TRUE(skipped.warnings.empty());
}

TEST(RuntimeShapes, BodyNodesAndUnknownKernelsAreNotCompared) {
  Analysis a;
  a.nodes = {node("inner", "Add", {"t"}, {{4}})};
  a.nodes[0].graph = "main/if:then_branch";
  GraphView g;
  g.nodes = {exec("inner", {"t"})};
  auto c = check_runtime_shapes(a, {kernel("inner", {{5}}), kernel("nobody", {{1}})}, g);
  EXPECT_EQ(c.compared, 0);
  EXPECT_TRUE(c.warnings.empty());
}

}  // namespace
