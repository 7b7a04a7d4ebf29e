// zoo make --quantize qdq [--reduce-range]: every Conv/Gemm reads DequantizeLinear'd activations and int8 weights (int32 biases),
// writes through a QuantizeLinear -> DequantizeLinear pair, the float weights are gone, the result passes ONNX's
// checker and rooflens' own analysis knows every op's cost.
#include <gtest/gtest.h>
#include <onnx/checker.h>

#include <map>
#include <set>
#include <string>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "core/errors.h"
#include "model/loader.h"
#include "zoo/quantize.h"
#include "zoo/registry.h"

using namespace rooflens;

TEST(ZooQuantize, QdqAroundEveryConvAndGemmOfResNet18) {
  zoo::ZooOptions o;
  o.image = 32;
  zoo::BuiltModel m = zoo::make_model(zoo::find_model("resnet18"), o);
  zoo::QdqStats stats = zoo::quantize_qdq(m.model);
  const onnx::GraphProto& g = m.model.graph();
  std::map<std::string, const onnx::NodeProto*> producer;
  std::map<std::string, std::vector<const onnx::NodeProto*>> consumers;
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& n : g.node()) {
    for (const auto& t : n.output()) producer[t] = &n;
    for (const auto& t : n.input()) consumers[t].push_back(&n);
  }
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  int convs = 0, gemms = 0;
  for (const auto& n : g.node()) {
    if (n.op_type() != "Conv" && n.op_type() != "Gemm") continue;
    (n.op_type() == "Conv" ? convs : gemms)++;
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(producer.count(n.input(i))) << n.name() << " input " << i;
      EXPECT_EQ(producer[n.input(i)]->op_type(), "DequantizeLinear") << n.name() << " input " << i;
    }
    const onnx::NodeProto* wdq = producer[n.input(1)];
    ASSERT_TRUE(inits.count(wdq->input(0)));
    EXPECT_EQ(inits[wdq->input(0)]->data_type(), onnx::TensorProto::INT8) << "weights of " << n.name();
    if (n.input_size() > 2) {
      const onnx::NodeProto* bdq = producer[n.input(2)];
      ASSERT_TRUE(bdq && inits.count(bdq->input(0)));
      EXPECT_EQ(inits[bdq->input(0)]->data_type(), onnx::TensorProto::INT32) << "bias of " << n.name();
    }
    ASSERT_EQ(consumers[n.output(0)].size(), 1u);
    EXPECT_EQ(consumers[n.output(0)][0]->op_type(), "QuantizeLinear") << n.name() << "'s output";
  }
  EXPECT_EQ(convs, 20);
  EXPECT_EQ(gemms, 1);
  EXPECT_EQ(stats.quantized_nodes, 21);
  // No float weight of a Conv/Gemm survives: float initializers left are scales and what float ops read
  // (BatchNormalization's parameters).
  for (const auto& t : g.initializer()) {
    if (t.data_type() != onnx::TensorProto::FLOAT || t.dims_size() == 0) continue;
    for (const auto* c : consumers[t.name()])
      EXPECT_EQ(c->op_type(), "BatchNormalization") << t.name() << " is a float tensor read by " << c->op_type();
  }
  // BatchNormalization and Relu stay float: fed by a DequantizeLinear, feeding a QuantizeLinear further on.
  int float_ops = 0;
  for (const auto& n : g.node()) float_ops += n.op_type() == "BatchNormalization" || n.op_type() == "Relu";
  EXPECT_GT(float_ops, 20);
  EXPECT_NO_THROW(onnx::checker::check_model(m.model));
  std::string bytes;
  ASSERT_TRUE(m.model.SerializeToString(&bytes));
  Model loaded = load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "q.onnx", "");
  Analysis a = analyze_model(loaded, CostRegistry::builtin());
  EXPECT_TRUE(a.unknown_ops.empty());
  EXPECT_EQ(a.totals.nodes, g.node_size());
}

TEST(ZooQuantize, RefusesOpsetsBelow13) {
  zoo::ZooOptions o;
  o.image = 64;
  o.opset = 13;
  zoo::BuiltModel m = zoo::make_model(zoo::find_model("squeezenet1_0"), o);
  m.model.mutable_opset_import(0)->set_version(12);
  EXPECT_THROW(zoo::quantize_qdq(m.model), UserError);
}

// --reduce-range: every Conv/Gemm weight in 7 bits, [-64, 64], reaching ±64 (its scale is max |w| / 64); the default
// reaches ±127. The graph is the same either way: only the weights' range and scales differ.
TEST(ZooQuantize, ReduceRangeKeepsWeightsIn7Bits) {
  zoo::ZooOptions o;
  o.image = 32;
  auto extremes = [&](bool reduce) {
    zoo::BuiltModel m = zoo::make_model(zoo::find_model("resnet18"), o);
    const zoo::QdqStats stats = zoo::quantize_qdq(m.model, zoo::QdqOptions{reduce});
    EXPECT_EQ(stats.quantized_nodes, 21);
    std::set<int> peaks;  // max |q| of each int8 weight tensor
    for (const auto& t : m.model.graph().initializer()) {
      if (t.data_type() != onnx::TensorProto::INT8 || t.dims_size() == 0) continue;
      int peak = 0;
      for (char c : t.raw_data()) peak = std::max(peak, std::abs(static_cast<int>(static_cast<int8_t>(c))));
      peaks.insert(peak);
    }
    EXPECT_NO_THROW(onnx::checker::check_model(m.model));
    return peaks;
  };
  EXPECT_EQ(extremes(true), std::set<int>{64}) << "every weight tensor's largest value maps to 64";
  EXPECT_EQ(extremes(false), std::set<int>{127});
}
