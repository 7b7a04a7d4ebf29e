// Layer mapping with ONNX Runtime's rules on hand-built graphs shaped like its optimized dumps (ORT 1.30, ResNet): FusedConv at
// level "extended", NCHWc at level "all", constant folding, Identity/Dropout elimination, inserted Transposes.
// Every case also checks the invariant: each original node is owned by exactly one layer, or folded/eliminated.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "backends/onnxruntime/ort_mapping_rules.h"
#include "mapping/layer_map.h"
#include "support/mapping_cases.h"

using namespace rooflens;

namespace {

using rooflens::testing::expect_partition;
using rooflens::testing::index_of;
using rooflens::testing::node;
using rooflens::testing::owned_names;
using Node = GraphView::Node;

// ---- level "extended": Conv+BatchNormalization+Relu -> FusedConv that keeps the conv's name and Relu's tensor ----

struct Case {
  GraphView original, optimized;
};

Case extended_fusion() {
  Case c;
  c.original.graph_inputs = {"input"};
  c.original.nodes = {
      node("conv1/Conv", "Conv", {"input", "conv1.weight", "conv1.bias"}, {"c1"}),
      node("bn1", "BatchNormalization", {"c1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"}, {"b1"}),
      node("relu", "Relu", {"b1"}, {"r1"}),
      node("mp", "MaxPool", {"r1"}, {"m1"}),
  };
  c.optimized.graph_inputs = {"input"};
  c.optimized.nodes = {
      node("conv1/Conv", "FusedConv", {"input", "ConvBnFusion_W_w", "ConvBnFusion_BN_B_b"}, {"r1"}, "com.microsoft",
           "Relu"),
      node("mp", "MaxPool", {"r1"}, {"m1"}),
  };
  return c;
}

TEST(ProfileLayerMap, ExtendedFusedConvOwnsConvBatchNormAndRelu) {
  Case c = extended_fusion();
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(owned_names(c.original, m, 0), (std::vector<std::string>{"conv1/Conv", "bn1", "relu"}));
  EXPECT_EQ(owned_names(c.original, m, 1), (std::vector<std::string>{"mp"}));
  EXPECT_EQ(m.layers[0].alias_of, -1);
  EXPECT_EQ(m.layers[1].alias_of, -1);
  EXPECT_FALSE(m.layers[0].anchored_by_name);  // its output kept the original name "r1"
  for (size_t o = 0; o < c.original.nodes.size(); ++o) {
    EXPECT_GE(m.owner[o], 0) << c.original.nodes[o].name;
    EXPECT_EQ(m.fate[o], "") << c.original.nodes[o].name;
  }
}

// ---- level "all": NCHWc. ORT names the rewritten node after its output *tensor* + "_nchwc" (the zoo names
// single-output tensors after their node, so there node and tensor names coincide) and gives intermediate
// tensors new names reorder_token_N. Residual block: conv3+bn3 and downsample conv+bn, Add, Relu, then GAP. ----

Case nchwc_block(bool torch_names) {
  // torch_names: PyTorch-exporter style, tensors "<node>_output_0"; else zoo style, tensors named after nodes.
  auto name = [torch_names](const std::string& torch, const std::string& zoo) { return torch_names ? torch : zoo; };
  auto tensor = [torch_names](const std::string& node_name) {
    return torch_names ? node_name + "_output_0" : node_name;
  };
  std::string conv3 = name("/layer1/0/conv3/Conv", "conv3"), bn3 = name("/layer1/0/bn3/BatchNormalization", "bn3"),
              ds_conv = name("/layer1/0/downsample/0/Conv", "ds_conv"),
              ds_bn = name("/layer1/0/downsample/1/BatchNormalization", "ds_bn"), add = name("/layer1/0/Add", "add"),
              relu = name("/layer1/0/relu/Relu", "relu"), gap = name("/avgpool/GlobalAveragePool", "gap");
  Case c;
  c.original.graph_inputs = {"x"};
  c.original.nodes = {
      node(conv3, "Conv", {"x", "conv3.w"}, {tensor(conv3)}),
      node(bn3, "BatchNormalization", {tensor(conv3), "bn3.s", "bn3.b", "bn3.m", "bn3.v"}, {tensor(bn3)}),
      node(ds_conv, "Conv", {"x", "ds.w"}, {tensor(ds_conv)}),
      node(ds_bn, "BatchNormalization", {tensor(ds_conv), "ds.s", "ds.b", "ds.m", "ds.v"}, {tensor(ds_bn)}),
      node(add, "Add", {tensor(bn3), tensor(ds_bn)}, {tensor(add)}),
      node(relu, "Relu", {tensor(add)}, {tensor(relu)}),
      node(gap, "GlobalAveragePool", {tensor(relu)}, {tensor(gap)}),
  };
  // Conv+BN fusion (level basic) gives each conv the BN's output tensor; NCHWc then names the kernel after it.
  const std::string nchwc = "com.microsoft.nchwc";
  c.optimized.graph_inputs = {"x"};
  c.optimized.nodes = {
      node("ReorderInput", "ReorderInput", {"x"}, {"reorder_token_0"}, nchwc),
      node(tensor(ds_bn) + "_nchwc", "Conv", {"reorder_token_0", "ds_nchwc_W", "ds_nchwc_B"}, {"reorder_token_1"},
           nchwc),
      node(tensor(bn3) + "_nchwc", "Conv", {"reorder_token_0", "bn3_nchwc_W", "bn3_nchwc_B", "reorder_token_1"},
           {"reorder_token_2"}, nchwc, "Relu"),
      node(tensor(gap) + "_nchwc", "GlobalAveragePool", {"reorder_token_2"}, {"reorder_token_3"}, nchwc),
      node("ReorderOutput", "ReorderOutput", {"reorder_token_3"}, {tensor(gap)}, nchwc),
  };
  return c;
}

void expect_nchwc_mapping(const Case& c) {
  const GraphView& o = c.original;
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  // Layer 1: the downsample kernel computes the downsample Conv and its BatchNormalization, not the Add.
  EXPECT_EQ(owned_names(o, m, 1), (std::vector<std::string>{o.nodes[2].name, o.nodes[3].name}));
  EXPECT_TRUE(m.layers[1].anchored_by_name);
  // Layer 2: conv3+bn3, extended over the fused Sum (Add with the downsample result) and the Relu activation.
  EXPECT_EQ(owned_names(o, m, 2), (std::vector<std::string>{o.nodes[0].name, o.nodes[1].name, o.nodes[4].name,
                                                            o.nodes[5].name}));
  EXPECT_TRUE(m.layers[2].anchored_by_name);
  // Layer 3: the pooling only.
  EXPECT_EQ(owned_names(o, m, 3), (std::vector<std::string>{o.nodes[6].name}));
  // Reorders own nothing and point at the node whose tensor they carry.
  EXPECT_TRUE(m.layers[0].owned.empty());
  EXPECT_TRUE(m.layers[4].owned.empty());
  EXPECT_EQ(m.layers[4].alias_of, index_of(o, o.nodes[6].name)) << "ReorderOutput carries the pooled tensor g";
  ASSERT_GE(m.layers[0].alias_of, 0);
  const Node& served = o.nodes[static_cast<size_t>(m.layers[0].alias_of)];
  EXPECT_EQ(served.inputs[0], "x") << "ReorderInput carries x: its alias is a node reading x, got " << served.name;
  for (size_t i = 0; i < o.nodes.size(); ++i) EXPECT_GE(m.owner[i], 0) << o.nodes[i].name << " left unowned";
}

TEST(ProfileLayerMap, NchwcResidualBlockWithZooNames) { expect_nchwc_mapping(nchwc_block(false)); }

// The same block as the PyTorch exporter names it: ORT calls the kernels "<output tensor>_nchwc", which is not
// the name of any node. The output tensor still identifies the original node that ends the kernel.
TEST(ProfileLayerMap, NchwcResidualBlockWithExporterTensorNames) {
  Case c = nchwc_block(true);
  ASSERT_EQ(c.optimized.nodes[2].name, "/layer1/0/bn3/BatchNormalization_output_0_nchwc");
  expect_nchwc_mapping(c);
}

// GenerateNodeName appends "_token_N" when a name is taken: "<tensor>_nchwc_token_7" still anchors.
TEST(ProfileLayerMap, NchwcNameWithUniquenessTokenStillAnchors) {
  Case c = nchwc_block(false);
  c.optimized.nodes[3].name = "gap_nchwc_token_7";
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(owned_names(c.original, m, 3), (std::vector<std::string>{"gap"}));
}

// The Sum extension must not swallow an Add whose other operand the kernel does not read: here the conv
// kernel has no Sum input and the Add and Relu run as their own (in-place NCHWc, same-named) kernels.
TEST(ProfileLayerMap, NchwcConvWithoutSumInputDoesNotOwnTheAdd) {
  Case c = nchwc_block(false);
  auto& bn3_kernel = c.optimized.nodes[2];
  bn3_kernel.inputs.pop_back();
  bn3_kernel.attributes.erase("activation");
  c.optimized.nodes.insert(c.optimized.nodes.begin() + 3,
                           {node("add", "Add", {"reorder_token_2", "reorder_token_1"}, {"reorder_token_4"}),
                            node("relu", "Relu", {"reorder_token_4"}, {"reorder_token_5"})});
  c.optimized.nodes[5].inputs = {"reorder_token_5"};
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(owned_names(c.original, m, 2), (std::vector<std::string>{"conv3", "bn3"}));
  EXPECT_EQ(owned_names(c.original, m, 3), (std::vector<std::string>{"add"}));
  EXPECT_EQ(owned_names(c.original, m, 4), (std::vector<std::string>{"relu"}));
  EXPECT_EQ(owned_names(c.original, m, 5), (std::vector<std::string>{"gap"}));
  EXPECT_EQ(m.layers[6].alias_of, 6);
}

// An activation attribute only extends over a consumer of that op type.
TEST(ProfileLayerMap, ActivationAttributeMustMatchTheConsumer) {
  Case c = nchwc_block(false);
  c.optimized.nodes[2].attributes["activation"] = "Sigmoid";
  c.optimized.nodes.insert(c.optimized.nodes.begin() + 3, node("relu", "Relu", {"reorder_token_2"}, {"relu_t"}));
  c.optimized.nodes[4].inputs = {"relu_t"};
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(owned_names(c.original, m, 2), (std::vector<std::string>{"conv3", "bn3", "add"}));
  EXPECT_EQ(owned_names(c.original, m, 3), (std::vector<std::string>{"relu"}));
}

// ---- constant folding ----

Case folded_constant(const std::string& folded_name) {
  Case c;
  c.original.graph_inputs = {"x"};
  c.original.nodes = {
      node("shape_const", "Constant", {}, {"shape"}),
      node("shape_cast", "Cast", {"shape"}, {"shape64"}),  // constant too: computed from a constant only
      node("reshape", "Reshape", {"x", "shape64"}, {"y"}),
  };
  c.optimized.graph_inputs = {"x"};
  c.optimized.nodes = {node("reshape", "Reshape", {"x", folded_name}, {"y"})};
  return c;
}

TEST(ProfileLayerMap, ConstantSubgraphIsFoldedNotOwned) {
  for (std::string init : {"shape64", "ConstantFolding_shape64"}) {  // original or new initializer name
    SCOPED_TRACE(init);
    Case c = folded_constant(init);
    LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
    expect_partition(c.original, c.optimized, m);
    EXPECT_EQ(owned_names(c.original, m, 0), (std::vector<std::string>{"reshape"}));
    EXPECT_EQ(m.fate[0], "folded");
    EXPECT_EQ(m.fate[1], "folded");
    EXPECT_EQ(m.fate[2], "");
  }
}

// A random generator has no inputs but is not a constant.
TEST(ProfileLayerMap, InputFreeGeneratorIsNotFolded) {
  Case c;
  c.original.graph_inputs = {"x"};
  c.original.nodes = {node("noise", "RandomNormal", {}, {"n"}), node("add", "Add", {"x", "n"}, {"y"})};
  c.optimized.graph_inputs = {"x"};
  c.optimized.nodes = {node("add", "Add", {"x", "n"}, {"y"})};
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(m.fate[0], "eliminated");
}

// ---- elimination ----

TEST(ProfileLayerMap, EliminatedIdentityBelongsToItsConsumerAndDeadDropoutIsEliminated) {
  Case c;
  c.original.graph_inputs = {"x"};
  c.original.nodes = {
      node("r1", "Relu", {"x"}, {"a"}),
      node("id", "Identity", {"a"}, {"b"}),
      node("conv", "Conv", {"b", "w"}, {"c"}),
      node("drop", "Dropout", {"a"}, {"dead"}),  // nothing reads "dead": ORT removes the node
      node("sig", "Sigmoid", {"c"}, {"out"}),
  };
  c.optimized.graph_inputs = {"x"};
  c.optimized.nodes = {
      node("r1", "Relu", {"x"}, {"a"}),
      node("conv", "Conv", {"a", "w"}, {"c"}),  // reads the Identity's input directly
      node("sig", "Sigmoid", {"c"}, {"out"}),
  };
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(owned_names(c.original, m, 0), (std::vector<std::string>{"r1"}));
  EXPECT_EQ(owned_names(c.original, m, 1), (std::vector<std::string>{"id", "conv"}));
  EXPECT_EQ(owned_names(c.original, m, 2), (std::vector<std::string>{"sig"}));
  EXPECT_EQ(m.owner[3], -1);
  EXPECT_EQ(m.fate[3], "eliminated");
}

// ---- a Transpose the layout optimizer inserted after a node whose output it renamed ----

TEST(ProfileLayerMap, InsertedTransposeIsAnAliasOfTheNodeItCarries) {
  Case c;
  c.original.graph_inputs = {"a"};
  c.original.nodes = {node("s", "Slice", {"a", "starts", "ends"}, {"sl"}), node("r", "Relu", {"sl"}, {"out"})};
  c.optimized.graph_inputs = {"a"};
  c.optimized.nodes = {
      node("s", "Slice", {"a", "starts", "ends"}, {"sl_token_0"}),
      node("Transpose", "Transpose", {"sl_token_0"}, {"sl"}),
      node("r", "Relu", {"sl"}, {"out"}),
  };
  LayerMapping m = map_layers(c.original, c.optimized, ort::mapping_rules());
  expect_partition(c.original, c.optimized, m);
  EXPECT_EQ(owned_names(c.original, m, 0), (std::vector<std::string>{"s"}));
  EXPECT_TRUE(m.layers[0].anchored_by_name);
  EXPECT_TRUE(m.layers[1].owned.empty());
  EXPECT_EQ(m.layers[1].alias_of, 0);
  EXPECT_EQ(owned_names(c.original, m, 2), (std::vector<std::string>{"r"}));
}

// ---- name candidates ----

std::vector<std::string> name_candidates(const std::string& name) { return ort::mapping_rules().name_candidates(name); }

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(ProfileLayerMap, NameCandidatesStripRuntimeDecorations) {
  auto x = name_candidates("x_nchwc");
  ASSERT_FALSE(x.empty());
  EXPECT_EQ(x.front(), "x_nchwc");
  EXPECT_TRUE(contains(x, "x"));
  EXPECT_TRUE(contains(name_candidates("fused conv1"), "conv1"));
  EXPECT_TRUE(contains(name_candidates("a_token_12"), "a"));
  EXPECT_TRUE(contains(name_candidates("b_nchwc_token_3"), "b"));
  EXPECT_TRUE(contains(name_candidates("conv1_kernel_time"), "conv1"));
  // Nothing to strip: just the name; a name that is all suffix is not stripped to "".
  EXPECT_EQ(name_candidates("conv1"), (std::vector<std::string>{"conv1"}));
  EXPECT_FALSE(contains(name_candidates("_nchwc"), ""));
  // Only suffixes are stripped.
  EXPECT_FALSE(contains(name_candidates("x_nchwc_y"), "x"));
}

}  // namespace
