// `profile` compares the shapes ONNX Runtime reports per kernel with the static analysis (assembly/runtime_shapes):
// a tensor no static analysis can shape (NonZero of an input: its size is the data's) takes the runtime's shape, so
// the layers after it are counted; the analysis of the model at the same dims marks those nodes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "support/cli_runner.h"
#include "support/onnx_builder.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

class ProfileRuntimeShapes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ort_runner_available()) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
    dir_ = fresh_test_dir("rooflens-runtime-shapes");
  }
  void TearDown() override {
    if (!getenv("KEEP") && !dir_.empty()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// x[4,8] -> NonZero -> [2,K] -> Cast float -> MatMul(W[16,2]) -> [16,K] -> Relu. Generated inputs are random
// floats, none exactly 0, so K = 32 at run time; statically K is unknowable.
void save_nonzero_model(const std::string& file) {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {4, 8});
  add_float_initializer(g, "w", {16, 2});
  add_node(g, "NonZero", {"x"}, {"idx"}, "nonzero");
  add_node(g, "Cast", {"idx"}, {"idxf"}, "cast")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("to");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(onnx::TensorProto::FLOAT);
    return a;
  }());
  add_node(g, "MatMul", {"w", "idxf"}, {"prod"}, "matmul");
  add_node(g, "Relu", {"prod"}, {"y"}, "relu");
  add_value(g->mutable_output(), "y", {16, -1});
  save(m, file);
}

const json* node_named(const json& analysis, const std::string& name) {
  for (const auto& n : analysis["nodes"])
    if (n["name"] == name) return &n;
  return nullptr;
}

TEST_F(ProfileRuntimeShapes, UnresolvedTensorsTakeTheRuntimesShapesAndTheirCostIsCounted) {
  save_nonzero_model(path("nonzero.onnx"));
  // Static analysis alone: the MatMul's cost is unknown (its second operand is [2, ?]).
  auto an = run_cli("analyze " + path("nonzero.onnx") + " --json", dir_);
  ASSERT_EQ(an.rc, 0) << an.err;
  const json st = json::parse(an.out)["model"]["analysis"];
  ASSERT_NE(node_named(st, "matmul"), nullptr);
  EXPECT_FALSE((*node_named(st, "matmul"))["cost_known"].get<bool>());
  EXPECT_GT(st["totals"]["unresolved_nodes"].get<int64_t>(), 0);

  const std::string report = path("nonzero.json");
  auto r = run_cli("profile " + path("nonzero.onnx") + kQuickProfile + "--no-roofs -o " + report,
                   dir_);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  const json rep = json::parse(slurp(report));
  ASSERT_EQ(rep["runs"].size(), 1u);
  const json& run = rep["runs"][0];
  // MatMul [16,2] x [2,32]: 16*2*32 MACs; Relu 16*32 FLOPs; NonZero and Cast cost no FLOPs.
  EXPECT_EQ(run["macs"].get<uint64_t>(), 16u * 2 * 32);
  EXPECT_EQ(run["flops"].get<uint64_t>(), 2u * 16 * 2 * 32 + 16 * 32);
  const json& a = rep["model"]["analysis"];
  EXPECT_EQ(a["totals"]["flops"], run["flops"]);
  for (const std::string name : {"nonzero", "cast", "matmul", "relu"}) {
    const json* n = node_named(a, name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(n->value("shape_source", "static"), "runtime") << name;
    EXPECT_TRUE((*n)["shapes_resolved"].get<bool>()) << name;
  }
  EXPECT_EQ((*node_named(a, "matmul"))["output_shapes"], json::parse("[[16, 32]]"));
  bool said = false;
  for (const auto& w : run["warnings"]) said |= w.get<std::string>().find("shape_source") != std::string::npos;
  EXPECT_TRUE(said) << run["warnings"].dump();
  uint64_t layer_macs = 0;
  for (const auto& l : run["layers"]) layer_macs += l["macs"].get<uint64_t>();
  EXPECT_EQ(layer_macs, 16u * 2 * 32) << run["layers"].dump();
}

TEST_F(ProfileRuntimeShapes, ResolvedModelsTakeNothingAndWarnOfNoMismatch) {
  // A model the analysis shapes completely: the runtime's shapes agree, nothing is taken, no warning.
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 8});
  add_float_initializer(g, "w", {8, 4});
  add_node(g, "MatMul", {"x", "w"}, {"p"}, "mm");
  add_node(g, "Relu", {"p"}, {"y"}, "relu");
  add_value(g->mutable_output(), "y", {2, 4});
  save(m, path("plain.onnx"));
  const std::string report = path("plain.json");
  auto r = run_cli("profile " + path("plain.onnx") + kQuickProfile + "--no-roofs -o " + report, dir_);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  const json rep = json::parse(slurp(report));
  for (const auto& n : rep["model"]["analysis"]["nodes"]) EXPECT_FALSE(n.contains("shape_source")) << n.dump();
  for (const auto& w : rep["runs"][0]["warnings"]) {
    EXPECT_EQ(w.get<std::string>().find("the runtime ran"), std::string::npos) << w;
    EXPECT_EQ(w.get<std::string>().find("shape_source"), std::string::npos) << w;
  }
  EXPECT_EQ(rep["runs"][0]["macs"].get<uint64_t>(), 2u * 8 * 4);
}

}  // namespace
