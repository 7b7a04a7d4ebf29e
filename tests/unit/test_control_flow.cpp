// Control flow and input values through the whole static path (load -> shapes -> analysis) on hand-made graphs:
// an If whose condition is computed takes its branch, an unknown condition counts the costlier branch, Loop and
// Scan bodies run their trip counts, --value steers branches, one value per dim symbol, Constant-node weights.
#include <gtest/gtest.h>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "core/errors.h"
#include "model/loader.h"
#include "support/onnx_builder.h"

using namespace rooflens;
using namespace rooflens::testing;

namespace {

Analysis analyse(const Model& m) { return analyze_model(m, CostRegistry::builtin()); }

void set_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

onnx::GraphProto* add_body(onnx::NodeProto* n, const std::string& attr, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(attr);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

// A Constant node holding an int64 tensor.
void add_int_constant(onnx::GraphProto* g, const std::string& out, std::vector<int64_t> v, bool scalar = false) {
  auto* n = add_node(g, "Constant", {}, {out}, out + "_const");
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<int64_t>(v.size()));
  for (auto x : v) t->add_int64_data(x);
}

// A Constant node holding a float tensor of `dims` (a weight, as paddle2onnx exports them).
void add_float_constant(onnx::GraphProto* g, const std::string& out, std::vector<int64_t> dims) {
  auto* n = add_node(g, "Constant", {}, {out}, out + "_const");
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t count = 1;
  for (auto d : dims) t->add_dims(d), count *= d;
  for (int64_t i = 0; i < count; ++i) t->add_float_data(0.5f);
}

// Silero-style: sr (int64 scalar) picks the branch; the 16 kHz branch multiplies x [1, 8] by a [8, 8] weight
// held in a Constant node, the 8 kHz one reshapes x to [2, 4] and multiplies by [4, 2].
onnx::ModelProto sample_rate_model() {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 8});
  add_value(g->mutable_input(), "sr", {}, {}, onnx::TensorProto::INT64);
  add_value(g->mutable_output(), "y", {});
  add_int_constant(g, "k16", {16000}, true);
  add_node(g, "Equal", {"sr", "k16"}, {"is16"}, "is16");
  auto* branch = add_node(g, "If", {"is16"}, {"y"}, "by_rate");
  auto* then_g = add_body(branch, "then_branch", "rate16");
  add_float_constant(then_g, "w16", {8, 8});
  add_node(then_g, "MatMul", {"x", "w16"}, {"y16"}, "mm16");
  add_value(then_g->mutable_output(), "y16", {});
  auto* else_g = add_body(branch, "else_branch", "rate8");
  add_int_constant(else_g, "shape8", {2, 4});
  add_node(else_g, "Reshape", {"x", "shape8"}, {"x8"}, "reshape8");
  add_float_constant(else_g, "w8", {4, 2});
  add_node(else_g, "MatMul", {"x8", "w8"}, {"y8"}, "mm8");
  add_value(else_g->mutable_output(), "y8", {});
  return m;
}

const NodeAnalysis& node(const Analysis& a, const std::string& name) {
  for (const auto& n : a.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

}  // namespace

TEST(ControlFlow, ComputedConditionTakesItsBranchAndTheOtherCostsNothing) {
  ShapeOverrides o;
  o.values["sr"] = {16000};
  Model m = load_built(sample_rate_model(), o);
  EXPECT_EQ(m.find_tensor(0, "y")->shape_string(), "1x8");  // the taken branch's shape, not a merge
  Analysis a = analyse(m);
  EXPECT_EQ(node(a, "mm16").macs, 64u);
  EXPECT_EQ(node(a, "mm16").execution, NodeExecution::Run);
  EXPECT_EQ(node(a, "mm8").execution, NodeExecution::NotTaken);
  EXPECT_EQ(node(a, "mm8").flops, 0u);
  EXPECT_EQ(a.totals.macs, 64u);
  EXPECT_EQ(a.totals.unresolved_nodes, 0);
  // Both branches' weights are the model's parameters, whichever runs.
  EXPECT_EQ(a.totals.params, 64u + 8u);
  ASSERT_EQ(a.subgraphs.size(), 2u);
  EXPECT_EQ(a.subgraphs[0].attribute, "then_branch");
  EXPECT_EQ(a.subgraphs[0].execution, NodeExecution::Run);
  EXPECT_EQ(a.subgraphs[0].macs, 64u);
  EXPECT_EQ(a.subgraphs[1].execution, NodeExecution::NotTaken);

  o.values["sr"] = {8000};
  Model m8 = load_built(sample_rate_model(), o);
  EXPECT_EQ(m8.find_tensor(0, "y")->shape_string(), "2x2");
  Analysis a8 = analyse(m8);
  EXPECT_EQ(a8.totals.macs, 2u * 4 * 2);
  EXPECT_EQ(node(a8, "mm16").execution, NodeExecution::NotTaken);
}

TEST(ControlFlow, UnknownConditionAnalysesBothAndCountsTheCostlier) {
  Model m = load_built(sample_rate_model());  // sr is not given: its value is unknown
  Analysis a = analyse(m);
  EXPECT_EQ(node(a, "mm16").execution, NodeExecution::Run);         // 64 MACs
  EXPECT_EQ(node(a, "mm8").execution, NodeExecution::NotCounted);   // 16 MACs: shown, not counted
  EXPECT_EQ(node(a, "mm8").macs, 16u);
  EXPECT_EQ(a.totals.macs, 64u);
  bool noted = false;
  for (const auto& n : a.notes) noted |= n.find("If 'by_rate'") != std::string::npos && n.find("then_branch") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_FALSE(m.find_tensor(0, "y")->fully_known());  // [1, 8] or [2, 2]: rank 2, dims unknown
  EXPECT_EQ(m.find_tensor(0, "y")->dims.size(), 2u);
}

TEST(ControlFlow, ValueErrorsNameTheInput) {
  ShapeOverrides o;
  o.values["sr"] = {16000, 8000};
  EXPECT_THROW(load_built(sample_rate_model(), o), UserError);
  ShapeOverrides bad;
  bad.values["rate"] = {16000};
  EXPECT_THROW(load_built(sample_rate_model(), bad), UsageError);
  EXPECT_EQ(parse_value_override("axes=0,-1,2.5").second, (std::vector<double>{0, -1, 2.5}));
  EXPECT_THROW(parse_value_override("sr="), UsageError);
  EXPECT_THROW(parse_value_override("sr=16k"), UsageError);
  EXPECT_THROW(parse_value_override("sr=1e300,nan"), UsageError);
  EXPECT_THROW(parse_value_override("id=18014398509481984"), UsageError);  // 2^54: not exact as a double
}

TEST(ControlFlow, LoopBodyCostTimesTripsWithOuterScopeValues) {
  // acc = Loop(M=5, cond omitted) { acc = Reshape(MatMul(acc, w), outer shape) }; w [4, 4], outer shape [1, 4].
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "acc0", {1, 4});
  add_value(g->mutable_output(), "acc", {});
  add_int_constant(g, "trips", {5}, true);
  add_int_constant(g, "target", {1, 4});  // computed in the outer graph, read inside the body
  add_float_initializer(g, "w", {4, 4});
  auto* loop = add_node(g, "Loop", {"trips", "", "acc0"}, {"acc"}, "loop");
  auto* body = add_body(loop, "body", "step");
  add_value(body->mutable_input(), "i", {}, {}, onnx::TensorProto::INT64);
  add_value(body->mutable_input(), "c", {}, {}, onnx::TensorProto::BOOL);
  add_value(body->mutable_input(), "a", {});
  add_node(body, "Identity", {"c"}, {"c_out"}, "keep");
  add_node(body, "MatMul", {"a", "w"}, {"p"}, "mm");
  add_node(body, "Reshape", {"p", "target"}, {"a_out"}, "back");
  add_value(body->mutable_output(), "c_out", {});
  add_value(body->mutable_output(), "a_out", {});
  Model model = load_built(m);
  ASSERT_EQ(model.graphs.size(), 2u);
  EXPECT_EQ(model.graphs[1].trips, 5);
  EXPECT_EQ(model.find_tensor(1, "a_out")->shape_string(), "1x4");
  EXPECT_EQ(model.find_tensor(0, "acc")->shape_string(), "1x4");
  Analysis a = analyse(model);
  EXPECT_EQ(node(a, "mm").iterations, 5);
  EXPECT_EQ(node(a, "mm").macs, 5u * 16);
  EXPECT_EQ(a.totals.macs, 80u);
  ASSERT_EQ(a.subgraphs.size(), 1u);
  EXPECT_EQ(a.subgraphs[0].iterations, 5);
  EXPECT_EQ(a.subgraphs[0].macs, 80u);
}

TEST(ControlFlow, LoopTripsFromASimulatedConditionAndCarriedValues) {
  // n = Loop(M absent, cond=true, n0=1) { n = n * 2; cond = n < 100 }: 7 trips (2, 4, ..., 128), n = 128.
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {4});
  add_value(g->mutable_output(), "y", {});
  add_int_constant(g, "n0", {1}, true);
  auto* t = g->add_initializer();
  t->set_name("yes");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  auto* loop = add_node(g, "Loop", {"", "yes", "n0"}, {"n"}, "doubling");
  auto* body = add_body(loop, "body", "twice");
  add_value(body->mutable_input(), "i", {}, {}, onnx::TensorProto::INT64);
  add_value(body->mutable_input(), "c", {}, {}, onnx::TensorProto::BOOL);
  add_value(body->mutable_input(), "k", {}, {}, onnx::TensorProto::INT64);
  add_int_constant(body, "two", {2}, true);
  add_int_constant(body, "limit", {100}, true);
  add_node(body, "Mul", {"k", "two"}, {"k2"}, "double");
  add_node(body, "Less", {"k2", "limit"}, {"go"}, "more");
  add_value(body->mutable_output(), "go", {});
  add_value(body->mutable_output(), "k2", {});
  // The carried value's final contents size a tensor downstream: ConstantOfShape([n]).
  add_node(g, "Unsqueeze", {"n", "zero"}, {"n1"}, "as_list");
  add_int_constant(g, "zero", {0});
  add_node(g, "ConstantOfShape", {"n1"}, {"y"}, "fill");
  Model model = load_built(m);
  EXPECT_EQ(model.graphs[1].trips, 7);
  EXPECT_EQ(model.find_tensor(0, "y")->shape_string(), "128");
}

TEST(ControlFlow, LoopCarriedShapesReachAFixedPointAndUnknownTripsAreSaid) {
  // x grows by one element per trip (Concat): the carried dim changes, so it becomes unknown; M is an input.
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "m", {}, {}, onnx::TensorProto::INT64);
  add_value(g->mutable_input(), "x0", {1});
  add_value(g->mutable_output(), "x", {});
  auto* loop = add_node(g, "Loop", {"m", "", "x0"}, {"x"}, "grow");
  auto* body = add_body(loop, "body", "append");
  add_value(body->mutable_input(), "i", {}, {}, onnx::TensorProto::INT64);
  add_value(body->mutable_input(), "c", {}, {}, onnx::TensorProto::BOOL);
  add_value(body->mutable_input(), "a", {});
  add_node(body, "Identity", {"c"}, {"c_out"}, "keep");
  auto* cat = add_node(body, "Concat", {"a", "a"}, {"a_out"}, "twice");
  set_int(cat, "axis", 0);
  add_value(body->mutable_output(), "c_out", {});
  add_value(body->mutable_output(), "a_out", {});
  Model model = load_built(m);
  const TensorInfo* x = model.find_tensor(0, "x");
  ASSERT_TRUE(x && x->has_rank);
  EXPECT_EQ(x->dims.size(), 1u);
  EXPECT_FALSE(x->fully_known());
  Analysis a = analyse(model);
  EXPECT_EQ(model.graphs[1].trips, -1);
  EXPECT_FALSE(node(a, "twice").cost_known);
  bool noted = false;
  for (const auto& n : a.notes) noted |= n.find("Loop 'grow': trip count not computable") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ControlFlow, ScanRunsItsBodyOncePerSliceAndStacksOutputs) {
  // Scan over x [6, 4] (axis 0): state s [4] += row; each row also multiplied by w [4, 3] -> scan output [6, 3].
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "s0", {4});
  add_value(g->mutable_input(), "x", {6, 4});
  add_value(g->mutable_output(), "s", {});
  add_value(g->mutable_output(), "ys", {});
  add_float_initializer(g, "w", {4, 3});
  auto* scan = add_node(g, "Scan", {"s0", "x"}, {"s", "ys"}, "scan");
  set_int(scan, "num_scan_inputs", 1);
  auto* body = add_body(scan, "body", "row");
  add_value(body->mutable_input(), "state", {});
  add_value(body->mutable_input(), "r", {});
  add_node(body, "Add", {"state", "r"}, {"state_out"}, "sum");
  add_node(body, "MatMul", {"r", "w"}, {"y"}, "project");
  add_value(body->mutable_output(), "state_out", {});
  add_value(body->mutable_output(), "y", {});
  Model model = load_built(m);
  EXPECT_EQ(model.graphs[1].trips, 6);
  EXPECT_EQ(model.find_tensor(0, "ys")->shape_string(), "6x3");
  EXPECT_EQ(model.find_tensor(0, "s")->shape_string(), "4");
  Analysis a = analyse(model);
  EXPECT_EQ(node(a, "project").macs, 6u * 12);
  EXPECT_EQ(a.totals.unresolved_nodes, 0);
}

TEST(InputSymbols, TheBatchDefaultReachesEveryInputThatNamesTheSymbol) {
  // Silero VAD's older export: `batch` is dim 0 of `input` and dim 1 of `h`.
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "input", {-1, 64}, {"batch", ""});
  add_value(g->mutable_input(), "h", {2, -1, 64}, {"", "batch", ""});
  add_value(g->mutable_output(), "y", {});
  add_node(g, "Identity", {"h"}, {"y"}, "pass");
  Model d = load_built(m);
  EXPECT_EQ(d.find_tensor(0, "h")->shape_string(), "2x1x64");
  EXPECT_EQ(d.input_symbols.at("batch"), 1);
  ShapeOverrides o;
  o.batch = 4;
  EXPECT_EQ(load_built(m, o).find_tensor(0, "h")->shape_string(), "2x4x64");
  ShapeOverrides s;
  s.shapes["input"] = {3, 64};  // --shape binds the symbol it replaces too
  EXPECT_EQ(load_built(m, s).find_tensor(0, "h")->shape_string(), "2x3x64");
}

TEST(ConstantWeights, CountAsParametersAndWeightsButSingleElementOperandsDoNot) {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 8});
  add_value(g->mutable_output(), "z", {});
  add_float_constant(g, "w", {8, 4});
  add_float_constant(g, "six", {});
  add_node(g, "MatMul", {"x", "w"}, {"y"}, "mm");
  add_node(g, "Mul", {"y", "six"}, {"z"}, "scale");
  Model model = load_built(m);
  ModelInfo info = summarize_model(model);
  EXPECT_EQ(info.initializers, 0);
  EXPECT_EQ(info.constant_tensors, 1);
  EXPECT_EQ(info.weight_bytes, 8u * 4 * 4);
  Analysis a = analyse(model);
  EXPECT_EQ(a.totals.params, 32u);
  EXPECT_EQ(node(a, "mm").params, 32u);
  EXPECT_EQ(node(a, "scale").params, 0u);
}
