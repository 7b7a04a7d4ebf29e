// How one model × configuration ends: every outcome of the backend (refusal, crash, hang, unfeedable input,
// non-tensor values) and of validation becomes a verdict with a stage, an error class and a reason. The backend
// is a scripted LiveRunner here; the integration tests run the same paths on real ONNX Runtime.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include <onnx/onnx_pb.h>

#include "bench/entry.h"
#include "support/onnx_builder.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::bench;

namespace {

TensorValue floats(const std::string& name, std::vector<float> v) {
  TensorValue t;
  t.name = name;
  t.data_type = 1;
  t.dims = {static_cast<int64_t>(v.size())};
  t.bytes.resize(v.size() * 4);
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

// A LiveRunner whose answers the test scripts.
struct ScriptedLiveRunner : LiveRunner {
  std::function<ServedModel()> on_load = [] { return ServedModel{1.0, {{"x", true, 1}}, {{"y", true, 1}}}; };
  std::function<std::vector<TensorValue>(const FeedSpec&)> on_outputs = [](const FeedSpec&) {
    return std::vector<TensorValue>{floats("y", {1, 2})};
  };
  int loads = 0, outputs_calls = 0, unloads = 0;

  void start(bool) override {}
  ServedModel load(const ModelLoad&) override {
    ++loads;
    return on_load();
  }
  std::vector<TensorValue> outputs(const FeedSpec& f, std::chrono::milliseconds) override {
    ++outputs_calls;
    return on_outputs(f);
  }
  Measurement measure(const FeedSpec&, const TimingOptions&, const fs::path&, std::chrono::milliseconds) override {
    return {};
  }
  void unload() override { ++unloads; }
  void abort() override {}
  pid_t process_id() const override { return -1; }
};

BackendError error(const std::string& stage, const std::string& kind, const std::string& code, const std::string& text,
                   const std::string& error_class = "") {
  return BackendError(stage, kind, "/m.onnx: " + text, "last stderr line", code, text, error_class);
}

class BenchEntryVerdicts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens-entry-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "test_data_set_0");
    onnx::TensorProto t;
    t.set_name("y");
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(2);
    t.add_float_data(1);
    t.add_float_data(2);
    std::ofstream(dir_ / "test_data_set_0/output_0.pb", std::ios::binary) << t.SerializeAsString();
    model_.name = "m";
    model_.path = dir_ / "model.onnx";
    model_.data_sets = {dir_ / "test_data_set_0"};
    plan_.mode = "validate";
  }
  void TearDown() override { fs::remove_all(dir_); }
  BenchEntry run(ScriptedLiveRunner& s, const BenchModel& m, bool reference_config = true, bool others = false) {
    ModelContext ctx(m);
    return run_entry(ctx, EntrySetup{plan_, "cfg", reference_config, others, dir_}, s);
  }
  fs::path dir_;
  BenchModel model_;
  BenchPlan plan_;
};

}  // namespace

TEST_F(BenchEntryVerdicts, MatchingOutputsPassAgainstTheTestData) {
  ScriptedLiveRunner s;
  BenchEntry e = run(s, model_);
  EXPECT_EQ(e.status, "pass") << e.message;
  EXPECT_EQ(e.stage, "");
  ASSERT_TRUE(e.validation.has_value());
  EXPECT_EQ(e.validation->reference, "test_data_set_0");
  EXPECT_EQ(e.validation->data_sets, 1);
  EXPECT_EQ(s.unloads, 1);
  EXPECT_EQ(e.config, "cfg");
}

TEST_F(BenchEntryVerdicts, DifferingOutputsFailAtValidateWithTheFirstMismatch) {
  ScriptedLiveRunner s;
  s.on_outputs = [](const FeedSpec& f) {
    EXPECT_TRUE(f.test_data_dir.has_value());  // inputs come from the data set
    return std::vector<TensorValue>{floats("y", {1, 3})};
  };
  BenchEntry e = run(s, model_);
  EXPECT_EQ(e.status, "fail");
  EXPECT_EQ(e.stage, "validate");
  EXPECT_EQ(e.error_type, "mismatch");
  EXPECT_NE(e.message.find("first at [1]: expected 2, got 3"), std::string::npos) << e.message;
  // --percent-mismatch 50 lets one of two elements differ.
  model_.percent_mismatch = 50;
  EXPECT_EQ(run(s, model_).status, "pass");
}

TEST_F(BenchEntryVerdicts, RuntimeOutcomesBecomeVerdicts) {
  struct Case { BackendError err; bool at_load; const char* status; const char* stage; const char* type; };
  std::vector<Case> cases{
      // The backend classifies its runtime's message; the suite groups by that class.
      {error("load", "error", "ort", "Could not find an implementation for BitShift(11) node with name ''",
             "ort:no-kernel"),
       true, "fail", "load", "ort:no-kernel"},
      {error("run", "died", "died", "the ONNX Runtime runner was killed by SIGSEGV during 'outputs'"), false, "crash",
       "run", "crash"},
      {error("run", "timeout", "timeout", "the ONNX Runtime runner did not answer 'outputs' within 2 s; killed it"),
       false, "timeout", "run", "timeout"},
      {error("run", "error", "input", "input 'x' is int64 but the data set holds float32"), false, "skip", "run",
       "input"},
      {error("run", "error", "ort", "Non-zero status code returned while running Add node."), false, "fail", "run",
       "ort"},
  };
  for (const auto& c : cases) {
    ScriptedLiveRunner s;
    if (c.at_load) s.on_load = [&c]() -> ServedModel { throw c.err; };
    else s.on_outputs = [&c](const FeedSpec&) -> std::vector<TensorValue> { throw c.err; };
    BenchEntry e = run(s, model_);
    EXPECT_EQ(e.status, c.status) << c.err.detail;
    EXPECT_EQ(e.stage, c.stage) << c.err.detail;
    EXPECT_EQ(e.error_type, c.type) << c.err.detail;
    EXPECT_EQ(e.message, c.err.detail);  // the runtime's own words, without the model path
    bool gone = e.status == "crash" || e.status == "timeout";
    EXPECT_EQ(e.stderr_tail, gone ? "last stderr line" : "") << c.err.detail;
  }
}

TEST_F(BenchEntryVerdicts, NonTensorValuesAndListedSkipsAreSkippedWithTheirReason) {
  ScriptedLiveRunner s;
  s.on_load = [] { return ServedModel{1.0, {{"seq", false, 0}}, {{"y", true, 1}}}; };
  BenchEntry e = run(s, model_);
  EXPECT_EQ(e.status, "skip");
  EXPECT_EQ(e.error_type, "non-tensor");
  EXPECT_NE(e.message.find("input 'seq' is a sequence, map or optional value"), std::string::npos);
  EXPECT_EQ(s.outputs_calls, 0);

  ScriptedLiveRunner untouched;
  BenchModel listed = model_;
  listed.skip = "needs 40 GB";
  listed.skip_type = "listed";
  BenchEntry l = run(untouched, listed);
  EXPECT_EQ(l.status, "skip");
  EXPECT_EQ(l.message, "needs 40 GB");
  EXPECT_EQ(untouched.loads, 0);
}

TEST_F(BenchEntryVerdicts, WithoutTestDataTheFirstConfigurationIsTheReference) {
  BenchModel m = model_;
  m.data_sets.clear();
  m.path = dir_ / "missing.onnx";  // rooflens cannot read it: inputs are left to the runner to generate
  ModelContext ctx(m);
  ScriptedLiveRunner first;
  BenchEntry a = run_entry(ctx, EntrySetup{plan_, "A", true, true, dir_}, first);
  EXPECT_EQ(a.status, "pass");
  EXPECT_FALSE(a.validation.has_value());
  ASSERT_TRUE(ctx.reference.has_value());
  ScriptedLiveRunner second;
  second.on_outputs = [](const FeedSpec& f) {
    EXPECT_FALSE(f.test_data_dir.has_value());
    return std::vector<TensorValue>{floats("y", {1, 2.5f})};
  };
  BenchEntry b = run_entry(ctx, EntrySetup{plan_, "B", false, true, dir_}, second);
  EXPECT_EQ(b.status, "fail");
  EXPECT_EQ(b.error_type, "mismatch");
  EXPECT_EQ(b.validation->reference, "config:A");
}

TEST_F(BenchEntryVerdicts, AnInt8ModelsMismatchOnACpuWithoutVnniSaysWhy) {
  ScriptedLiveRunner s;
  s.on_outputs = [](const FeedSpec&) { return std::vector<TensorValue>{floats("y", {1, 3})}; };
  const std::string note = "int8 on a CPU without VNNI";
  rooflens::testing::qdq_matmul_model(model_.path.string(), {-128, 127, 3, -7, 64, -64, 0, 100});
  plan_.isa = {"sse2", "avx", "fma", "avx2"};
  BenchEntry e = run(s, model_);
  EXPECT_EQ(e.error_type, "mismatch");
  EXPECT_NE(e.message.find(note), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("(-128..127)"), std::string::npos) << e.message;
  // With VNNI nothing saturates; weights within ±64 cannot saturate; an fp32 model has no int8 kernels.
  plan_.isa = {"sse2", "avx", "fma", "avx2", "avx512f", "avx512bw", "avx512_vnni"};
  EXPECT_EQ(run(s, model_).message.find(note), std::string::npos);
  plan_.isa = {"sse2", "avx", "fma", "avx2"};
  rooflens::testing::qdq_matmul_model(model_.path.string(), {-64, 64, 3, -7, 10, -1, 0, 63});
  EXPECT_EQ(run(s, model_).message.find(note), std::string::npos);
  rooflens::testing::matmul_chain_model(model_.path.string(), 1);
  EXPECT_EQ(run(s, model_).message.find(note), std::string::npos);
}
