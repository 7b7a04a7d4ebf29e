// Shape inference end to end on hand-made graphs: rooflens' own shape functions take precedence where
// libonnx 1.12 would apply an outdated rule, values flow through shape arithmetic, and control-flow bodies are
// analysed and labelled.
#include <gtest/gtest.h>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "model/loader.h"
#include "support/onnx_builder.h"

using namespace rooflens;
using namespace rooflens::testing;

namespace {

onnx::TensorProto* add_int64_initializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (auto x : v) t->add_int64_data(x);
  return t;
}

}  // namespace

TEST(ShapeInference, ReduceMeanOpset18TakesAxesFromItsInput) {
  // Under the opset-13 rule (axes attribute) libonnx would reduce every axis: [1,1,1]. Opset 18 reads input 1.
  auto m = empty_model(18);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 3, 4});
  add_value(g->mutable_output(), "y", {});
  add_int64_initializer(g, "axes", {1});
  auto* n = add_node(g, "ReduceMean", {"x", "axes"}, {"y"}, "mean");
  auto* keep = n->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  Model model = load_built(m);
  EXPECT_EQ(model.find_tensor(0, "y")->shape_string(), "2x4");
}

TEST(ShapeInference, ShapeGatherConcatReshapeChainResolvesFromValues) {
  // y = Reshape(x, Concat(Gather(Shape(x), 0), [-1])) : [batch, 3, 4] -> [batch, 12]
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {-1, 3, 4}, {"batch"});
  add_value(g->mutable_output(), "y", {-1, -1});
  add_int64_initializer(g, "zero", {0});
  add_int64_initializer(g, "minus_one", {-1});
  add_node(g, "Shape", {"x"}, {"s"}, "shape");
  add_node(g, "Gather", {"s", "zero"}, {"b"}, "gather");
  auto* cat = add_node(g, "Concat", {"b", "minus_one"}, {"target"}, "concat");
  auto* axis = cat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  add_node(g, "Reshape", {"x", "target"}, {"y"}, "reshape");
  ShapeOverrides o;
  o.batch = 6;
  Model model = load_built(m, o);
  EXPECT_EQ(model.find_tensor(0, "y")->shape_string(), "6x12");
}

TEST(ShapeInference, ContribFusedConvResolvesAndIsCosted) {
  auto m = empty_model(17);
  auto* ms = m.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 8, 16, 16});
  add_value(g->mutable_output(), "z", {});
  add_float_initializer(g, "w", {4, 8, 3, 3});
  auto* conv = add_node(g, "FusedConv", {"x", "w"}, {"y"}, "fused", "com.microsoft");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  add_node(g, "Relu", {"y"}, {"z"}, "relu");  // a default-domain op downstream of the contrib op
  Model model = load_built(m);
  EXPECT_EQ(model.find_tensor(0, "y")->shape_string(), "1x4x16x16");
  EXPECT_EQ(model.find_tensor(0, "z")->shape_string(), "1x4x16x16");
  Analysis a = analyze_model(model, CostRegistry::builtin());
  EXPECT_EQ(a.nodes[0].macs, 4u * 16 * 16 * 8 * 3 * 3);
  EXPECT_EQ(a.totals.unresolved_nodes, 0);
}

TEST(ShapeInference, LoopBodyNodesAreAnalysedAndLabelled) {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "trip", {}, {}, onnx::TensorProto::INT64);
  add_value(g->mutable_input(), "cond", {}, {}, onnx::TensorProto::BOOL);
  add_value(g->mutable_input(), "acc0", {4});
  add_value(g->mutable_output(), "acc", {4});
  add_float_initializer(g, "step", {4}, 1.0f);
  auto* loop = add_node(g, "Loop", {"trip", "cond", "acc0"}, {"acc"}, "loop");
  auto* attr = loop->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  auto* body = attr->mutable_g();
  body->set_name("body");
  add_value(body->mutable_input(), "i", {}, {}, onnx::TensorProto::INT64);
  add_value(body->mutable_input(), "c_in", {}, {}, onnx::TensorProto::BOOL);
  add_value(body->mutable_input(), "a_in", {4});
  add_value(body->mutable_output(), "c_out", {}, {}, onnx::TensorProto::BOOL);
  add_value(body->mutable_output(), "a_out", {4});
  add_node(body, "Identity", {"c_in"}, {"c_out"}, "keep_going");
  add_node(body, "Add", {"a_in", "step"}, {"a_out"}, "accumulate");  // reads an outer-scope initializer
  Model model = load_built(m);
  ASSERT_EQ(model.graphs.size(), 2u);
  EXPECT_EQ(model.graphs[1].path, "main/loop:body");
  Analysis a = analyze_model(model, CostRegistry::builtin());
  ASSERT_EQ(a.nodes.size(), 3u);
  EXPECT_EQ(a.nodes[0].name, "loop");
  EXPECT_EQ(a.nodes[2].name, "accumulate");
  EXPECT_EQ(a.nodes[2].graph, "main/loop:body");
  EXPECT_EQ(a.nodes[2].flops, 4u);
  EXPECT_EQ(a.nodes[2].output_shapes[0], (std::vector<int64_t>{4}));
}

TEST(ShapeInference, ZeroStrideIsRefusedBeforeLibonnxDividesByIt) {
  // Regression for a fuzzer finding: libonnx 1.12's pool inference raised SIGFPE on strides [2, 0].
  auto m = empty_model(9);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 3, 7, 7});
  add_value(g->mutable_output(), "y", {});
  auto* pool = add_node(g, "MaxPool", {"x"}, {"y"}, "pool");
  for (auto [name, values] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}, {"strides", {2, 0}}}) {
    auto* a = pool->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto v : values) a->add_ints(v);
  }
  Model model = load_built(m);
  EXPECT_EQ(model.find_tensor(0, "y")->dims.size(), 0u) << "only the declared (empty) shape, nothing inferred";
  bool noted = false;
  for (const auto& note : model.notes) noted |= note.find("'strides' must be positive") != std::string::npos;
  EXPECT_TRUE(noted);
}

// Each node breaks a rule the ONNX spec states and libonnx 1.12's inference function relies on without checking:
// before the rules (libonnx_preconditions) every one of these crashed the process inside libonnx (a read past a
// shape's end). Now each is refused with a note naming the rule, and the model still loads.
TEST(ShapeInference, NodesBreakingLibonnxPreconditionsAreRefusedNotCrashing) {
  struct Case {
    std::string op;
    int opset;
    std::vector<std::vector<int64_t>> inputs;
    std::vector<std::pair<std::string, int64_t>> ints;
    std::string note;
  };
  const std::vector<Case> cases = {
      {"GatherND", 13, {{2, 3}, {2, 1}}, {{"batch_dims", -7}}, "'batch_dims' must be non-negative"},  // CI's crash
      {"Conv", 11, {{2, 3, 4}, {5, 5, 5, 5}}, {}, "inputs 0 and 1 have ranks 3 and 4"},
      {"ConvTranspose", 11, {{1, 2, 3, 4}, {3}}, {}, "inputs 0 and 1 have ranks 4 and 1"},
      {"MaxUnpool", 11, {{2, 3, 4}, {3}}, {{"kernel_shape", 0}}, "inputs 0 and 1 have ranks 3 and 1"},
      {"Gemm", 6, {{2}, {2, 3}, {3}}, {}, "input 0 has rank 1; Gemm requires rank 2"},
      {"GRU", 3, {{2}, {1, 6, 2}, {1, 6, 2}}, {{"hidden_size", 2}}, "input 0 has rank 1; GRU requires rank 3"},
      {"LSTM", 1, {{2, 1, 2}, {1, 8}, {1, 8, 2}}, {{"hidden_size", 2}}, "input 1 has rank 2; LSTM requires rank 3"},
      {"STFT", 17, {{2}, {2}}, {}, "input 0 has rank 1; STFT requires rank 3"},
  };
  for (const auto& c : cases) {
    auto m = empty_model(c.opset);
    auto* g = m.mutable_graph();
    std::vector<std::string> names;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      names.push_back("in" + std::to_string(i));
      add_value(g->mutable_input(), names.back(), c.inputs[i]);
    }
    add_value(g->mutable_output(), "y", {});
    auto* node = add_node(g, c.op, names, {"y"}, "n");
    for (const auto& [name, v] : c.ints) {
      auto* a = node->add_attribute();
      a->set_name(name);
      if (name == "kernel_shape") {  // INTS: one spatial dim
        a->set_type(onnx::AttributeProto::INTS);
        a->add_ints(2);
      } else {
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
      }
    }
    Model model = load_built(m);
    bool noted = false;
    for (const auto& note : model.notes) noted |= note.find(c.note) != std::string::npos;
    EXPECT_TRUE(noted) << c.op << ": no note containing \"" << c.note << "\"";
  }
}
