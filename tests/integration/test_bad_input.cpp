// Bad input through the real binary: each case must end in exactly one stderr line naming the file (and the
// node where there is one), exit code 1, and no crash. The sanitizer build runs these same tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/onnx_builder.h"

namespace fs = std::filesystem;
using namespace rooflens::testing;

namespace {

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens-bad-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "models");
  }
  void TearDown() override { if (!getenv("KEEP")) fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / "models" / name).string(); }
  CliResult analyze(const std::string& model, const std::string& extra = "") {
    return run_cli("analyze " + shell_quote(model) + " " + extra, dir_.string());
  }
  // The contract for every refused input.
  void expect_one_line_error(const CliResult& r, const std::string& model, const std::string& must_contain) {
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_NE(r.err.find(model), std::string::npos) << "error must name the file: " << r.err;
    EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
  }

  // A valid model with a real weight payload: y = MatMul(x[1,64], W[64,64]).
  onnx::ModelProto matmul_model() {
    auto m = empty_model();
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", {1, 64});
    add_value(g->mutable_output(), "y", {1, 64});
    add_float_initializer(g, "W", {64, 64});
    add_node(g, "MatMul", {"x", "W"}, {"y"}, "mm");
    return m;
  }

  // The same model with W's bytes moved to an external file at `location`.
  onnx::ModelProto matmul_model_with_external_weight(const std::string& location) {
    auto m = matmul_model();
    auto* w = m.mutable_graph()->mutable_initializer(0);
    w->clear_raw_data();
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = w->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    return m;
  }

  fs::path dir_;
};

TEST_F(BadInput, EmptyFile) {
  std::string p = path("empty.onnx");
  std::ofstream(p).close();
  expect_one_line_error(analyze(p), p, "empty file");
}

TEST_F(BadInput, TruncatedFile) {
  std::string full = path("full.onnx"), cut = path("truncated.onnx");
  save(matmul_model(), full);
  std::string bytes = slurp(full);
  ASSERT_GT(bytes.size(), 16000u);
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  expect_one_line_error(analyze(cut), cut, "truncated");
  // The intact file works, so the refusal above is about the truncation.
  EXPECT_EQ(analyze(full).rc, 0);
}

TEST_F(BadInput, RandomBytes) {
  std::mt19937 rng(1234);
  for (int k = 0; k < 20; ++k) {
    std::string p = path("random" + std::to_string(k) + ".onnx");
    std::string bytes(4096, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng());
    std::ofstream(p, std::ios::binary) << bytes;
    CliResult r = analyze(p);
    expect_one_line_error(r, p, "");
  }
}

TEST_F(BadInput, CyclicGraphNamesANodeOnTheCycle) {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 4});
  add_value(g->mutable_output(), "b", {1, 4});
  add_node(g, "Add", {"x", "b"}, {"a"}, "add_in_cycle");
  add_node(g, "Relu", {"a"}, {"b"}, "relu_in_cycle");
  std::string p = path("cyclic.onnx");
  save(m, p);
  CliResult r = analyze(p);
  expect_one_line_error(r, p, "cyclic graph");
  EXPECT_TRUE(r.err.find("add_in_cycle") != std::string::npos || r.err.find("relu_in_cycle") != std::string::npos)
      << r.err;
}

TEST_F(BadInput, AbsurdInputDimIsRefused) {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {int64_t{1} << 40, 4});
  add_value(g->mutable_output(), "y", {-1, 4});
  add_node(g, "Relu", {"x"}, {"y"}, "relu");
  std::string p = path("huge_dim.onnx");
  save(m, p);
  expect_one_line_error(analyze(p), p, "1099511627776");
}

TEST_F(BadInput, AbsurdDimFromExpandSaturatesInsteadOfOverflowing) {
  // Expand to a constant 2^40 x 2^40 shape: the element count overflows int64; counts must saturate.
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 1});
  add_value(g->mutable_output(), "z", {});
  auto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(int64_t{1} << 40);
  shape->add_int64_data(int64_t{1} << 40);
  add_node(g, "Expand", {"x", "shape"}, {"y"}, "expand");
  add_node(g, "Sigmoid", {"y"}, {"z"}, "sigmoid");
  std::string p = path("saturate.onnx");
  save(m, p);
  CliResult r = analyze(p, "--format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& nodes = j["model"]["analysis"]["nodes"];
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1]["output_shapes"][0], nlohmann::json({int64_t{1} << 40, int64_t{1} << 40}));
  EXPECT_EQ(nodes[1]["bytes_written"].get<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(j["model"]["analysis"]["totals"]["bytes_written"].get<uint64_t>(), UINT64_MAX);
}

TEST_F(BadInput, ExternalDataOutsideTheModelDirectoryIsRefused) {
  std::ofstream(dir_ / "secret.bin", std::ios::binary) << std::string(64 * 64 * 4, 'x');
  fs::create_symlink(dir_ / "secret.bin", dir_ / "models" / "link.bin");
  for (const std::string& location : std::vector<std::string>{"../secret.bin", (dir_ / "secret.bin").string(), "link.bin"}) {
    auto m = matmul_model_with_external_weight(location);
    std::string p = path("escape.onnx");
    save(m, p);
    CliResult r = analyze(p);
    expect_one_line_error(r, p, "outside the model directory");
    EXPECT_NE(r.err.find("'W'"), std::string::npos) << "must name the initializer: " << r.err;
  }
}

TEST_F(BadInput, ExternalDataInsideTheModelDirectoryWorks) {
  std::ofstream(dir_ / "models" / "w.bin", std::ios::binary) << std::string(64 * 64 * 4, '\0');
  auto m = matmul_model_with_external_weight("w.bin");
  std::string p = path("inside.onnx");
  save(m, p);
  CliResult r = analyze(p, "--format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"]["analysis"]["totals"]["macs"].get<uint64_t>(), 64u * 64u);
  EXPECT_EQ(j["model"]["analysis"]["totals"]["params"].get<uint64_t>(), 64u * 64u);
}

TEST_F(BadInput, NonLeadingSymbolicDimNeedsAValue) {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "tokens", {-1, -1, 16}, {"batch", "seq"});
  add_value(g->mutable_output(), "y", {-1, -1, 16}, {"batch", "seq"});
  add_node(g, "Relu", {"tokens"}, {"y"}, "relu");
  std::string p = path("symbolic.onnx");
  save(m, p);
  CliResult r = analyze(p);
  expect_one_line_error(r, p, "--dim seq=N");
  EXPECT_NE(r.err.find("'tokens' dim 1"), std::string::npos) << r.err;
  // Given the value, the same file analyses, and batch defaults to 1 with a note saying so.
  CliResult ok = analyze(p, "--dim seq=8 --format json");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  auto j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j["model"]["analysis"]["nodes"][0]["output_shapes"][0], nlohmann::json({1, 8, 16}));
  EXPECT_NE(j["model"]["analysis"]["notes"].dump().find("batch defaulted to 1"), std::string::npos);
  CliResult b = analyze(p, "--dim seq=8 --batch 4 --format json");
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(b.out)["model"]["analysis"]["nodes"][0]["output_shapes"][0],
            nlohmann::json({4, 8, 16}));
}

TEST_F(BadInput, UnknownDomainOpIsAnalysedAsCostUnknown) {
  auto m = empty_model();
  auto* op = m.add_opset_import();
  op->set_domain("com.example");
  op->set_version(1);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 8});
  add_value(g->mutable_output(), "y", {2, 8});
  add_node(g, "Relu", {"x"}, {"r"}, "relu");
  add_node(g, "Frobnicate", {"r"}, {"y"}, "frob", "com.example");
  std::string p = path("unknown_domain.onnx");
  save(m, p);
  CliResult r = analyze(p, "--format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& a = j["model"]["analysis"];
  EXPECT_EQ(a["unknown_ops"], nlohmann::json({"com.example:Frobnicate"}));
  EXPECT_EQ(a["totals"]["unknown_cost_nodes"], 1);
  EXPECT_FALSE(a["nodes"][1]["cost_known"].get<bool>());
  // Its bytes are still counted: 2x8 floats in (and the declared output out).
  EXPECT_EQ(a["nodes"][1]["bytes_read"].get<uint64_t>(), 64u);
  // The table view lists it in the summary line, not as a silent zero.
  CliResult t = analyze(p);
  EXPECT_NE(t.out.find("cost unknown for 1 node(s): com.example:Frobnicate"), std::string::npos) << t.out;
}

TEST_F(BadInput, UsageErrorsExitWithTwo) {
  std::string p = path("m.onnx");
  save(matmul_model(), p);
  EXPECT_EQ(analyze(p, "--shape nosuchinput:1x2").rc, 2);
  EXPECT_EQ(analyze(p, "--shape x:1xfoo").rc, 2);
  EXPECT_EQ(analyze(p, "--format yaml").rc, 2);
  EXPECT_EQ(run_cli("analyze", dir_.string()).rc, 2);
  EXPECT_EQ(run_cli("analyze " + shell_quote(path("missing.onnx")), dir_.string()).rc, 1);
}

}  // namespace
