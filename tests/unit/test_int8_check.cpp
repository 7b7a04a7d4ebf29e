// int8 on x86 CPUs without VNNI (core/int8_kernels.h): which CPUs saturate u8s8 sums, the int8 weights a model's
// integer matmuls multiply and their range (analysis/int8_weights.h), and profile's check of an int8 run against an
// unoptimized run (profile/int8_check.h) with a backend whose two inference sessions the test scripts. The real kernels
// on an emulated AVX2 CPU: tests/integration/test_int8_emulated.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "analysis/int8_weights.h"
#include "core/report.h"
#include "model/loader.h"
#include "profile/int8_check.h"
#include "profile/profile.h"
#include "support/backend_info.h"
#include "support/onnx_builder.h"
#include "zoo/quantize.h"
#include "zoo/registry.h"
#include "zoo/save.h"

using namespace rooflens;
using namespace rooflens::testing;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kAvx2Flags = {"sse2", "avx", "fma", "avx2"};
const std::vector<std::string> kSkylakeSp = {"sse2", "avx", "fma", "avx2", "avx512f", "avx512dq", "avx512bw", "avx512vl"};
const std::vector<std::string> kCascadeLake = {"sse2", "avx", "fma", "avx2", "avx512f", "avx512bw", "avx512_vnni"};
const std::vector<std::string> kAlderLake = {"sse2", "avx", "fma", "avx2", "avx_vnni"};

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("rooflens-int8-" + std::to_string(::getpid()) + "-" + name)).string();
}

// The full int8 range, and weights quantized with a reduced range (|w| <= 64).
const std::vector<int8_t> kFullRange = {-128, 127, 3, -7, 64, -64, 0, 100};
const std::vector<int8_t> kReducedRange = {-64, 64, 3, -7, 10, -1, 0, 63};

TensorValue floats(const std::string& name, std::vector<float> v) {
  TensorValue t;
  t.name = name;
  t.data_type = 1;
  t.dims = {1, static_cast<int64_t>(v.size())};
  t.bytes.resize(v.size() * 4);
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

// One runtime process that answers `optimized` for an inference session at the backend's own level and `unoptimized`
// for one at opt-level disabled; it records the loads it was asked for.
struct TwoLevelRunner : LiveRunner {
  std::vector<float> optimized, unoptimized;
  std::vector<ModelLoad>* loads;
  bool disabled = false;
  TwoLevelRunner(std::vector<float> o, std::vector<float> u, std::vector<ModelLoad>* l)
      : optimized(std::move(o)), unoptimized(std::move(u)), loads(l) {}
  void start(bool) override {}
  ServedModel load(const ModelLoad& m) override {
    loads->push_back(m);
    disabled = m.opt_level == std::optional<std::string>("disabled");
    return {1.0, {{"x", true, 1}}, {{"y", true, 1}}};
  }
  std::vector<TensorValue> outputs(const FeedSpec&, std::chrono::milliseconds) override {
    return {floats("y", disabled ? unoptimized : optimized)};
  }
  Measurement measure(const FeedSpec&, const TimingOptions&, const fs::path&, std::chrono::milliseconds) override {
    return {};
  }
  void unload() override {}
  void abort() override {}
  pid_t process_id() const override { return -1; }
};

class TwoLevelBackend : public Backend {
 public:
  TwoLevelBackend(std::vector<float> optimized, std::vector<float> unoptimized)
      : optimized_(std::move(optimized)), unoptimized_(std::move(unoptimized)) {}
  BackendInfo info() const override { return backend_info("fake", "1", {}, "fake runtime"); }
  int64_t threads_for(int64_t requested) const override { return requested; }
  const MappingRules& mapping_rules() const override { return plain_mapping_rules(); }
  Measurement run(const RunSpec&) override {
    Measurement r;
    r.latencies_ms = {2.0, 2.5, 3.0};
    r.wall_s = 0.0075;
    r.stop_reason = "min_reached";
    return r;
  }
  void abort() override {}
  std::unique_ptr<LiveRunner> live_runner() override {
    return std::make_unique<TwoLevelRunner>(optimized_, unoptimized_, &loads);
  }
  std::vector<ModelLoad> loads;

 private:
  std::vector<float> optimized_, unoptimized_;
};

}  // namespace

TEST(Int8Kernels, U8s8SaturatesOnX86WithoutVnniOnly) {
  EXPECT_TRUE(u8s8_saturates(kAvx2Flags));        // Haswell, Zen 1-3: vpmaddubsw
  EXPECT_TRUE(u8s8_saturates(kSkylakeSp));   // AVX-512 core without VNNI: vpmaddubsw on zmm
  EXPECT_FALSE(u8s8_saturates(kCascadeLake));  // AVX512-VNNI: vpdpbusd sums in 32 bits
  EXPECT_FALSE(u8s8_saturates(kAlderLake));    // AVX-VNNI
  EXPECT_FALSE(u8s8_saturates({"sse2", "avx"}));  // no AVX2: MLAS widens to 16 bits before multiplying
  EXPECT_FALSE(u8s8_saturates({}));               // nothing known
}

TEST(Int8Kernels, IntegerMatmulOpsAndTheReducedRange) {
  for (const char* op : {"QLinearConv", "QLinearMatMul", "MatMulInteger", "ConvInteger", "QGemm",
                         "DynamicQuantizeMatMul", "MatMulIntegerToFloat"})
    EXPECT_TRUE(is_integer_matmul_op(op)) << op;
  for (const char* op : {"Conv", "MatMul", "QuantizeLinear", "DequantizeLinear", "QLinearAdd"})
    EXPECT_FALSE(is_integer_matmul_op(op)) << op;
  Int8Weights w;
  EXPECT_FALSE(w.reduced_range()) << "no weights read: nothing to say";
  w.tensors = 1;
  w.min = -64;
  w.max = 64;
  EXPECT_TRUE(w.reduced_range());  // 255 x 64 x 2 = 32,640 fits a signed 16-bit lane
  w.min = -65;
  EXPECT_FALSE(w.reduced_range());
}

TEST(Int8Weights, TheRangeOfTheWeightsAQdqMatmulMultiplies) {
  const std::string full = temp_path("full.onnx"), reduced = temp_path("reduced.onnx"), fp32 = temp_path("fp32.onnx");
  qdq_matmul_model(full, kFullRange, 0.05f);
  qdq_matmul_model(reduced, kReducedRange, 0.25f);
  matmul_chain_model(fp32, 2);
  auto w = int8_weights(load_model(full));
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->tensors, 1);  // w_q; the int8 zero point is no weight
  EXPECT_EQ(w->elements, 8u);
  EXPECT_EQ(w->min, -128);
  EXPECT_EQ(w->max, 127);
  EXPECT_EQ(w->through_dequantize, 1);
  EXPECT_FALSE(w->reduced_range());
  auto r = int8_weights(load_model(reduced));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->min, -64);
  EXPECT_EQ(r->max, 64);
  EXPECT_TRUE(r->reduced_range());
  EXPECT_FALSE(int8_weights(load_model(fp32)).has_value());
  // The output's quantization step: the scale of the DequantizeLinear that produces it, read from the file.
  EXPECT_NEAR(output_quantization_step(load_model(full)).value_or(0), 0.05, 1e-7);
  EXPECT_NEAR(output_quantization_step(load_model(reduced)).value_or(0), 0.25, 1e-7);
  EXPECT_FALSE(output_quantization_step(load_model(fp32)).has_value());
  for (const auto& p : {full, reduced, fp32}) fs::remove(p);
}

TEST(Int8Weights, TheZoosQdqModelInlineAndWithExternalData) {
  zoo::ZooOptions o;
  o.batch = 1;
  o.image = 64;
  const std::string inline_path = temp_path("sq.onnx"), external_path = temp_path("sq-ext.onnx");
  auto built = zoo::make_model(zoo::find_model("squeezenet1_0"), o);
  const zoo::QdqStats stats = zoo::quantize_qdq(built.model);
  onnx::ModelProto copy = built.model;
  zoo::save_model(built.model, inline_path, false);
  zoo::save_model(copy, external_path, true);  // every large weight in a side file
  auto a = int8_weights(load_model(inline_path)), b = int8_weights(load_model(external_path));
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->through_dequantize, stats.quantized_nodes);  // one int8 weight behind each quantized Conv
  EXPECT_EQ(a->tensors, b->tensors);
  EXPECT_EQ(a->elements, b->elements);
  EXPECT_EQ(a->min, b->min);
  EXPECT_EQ(a->max, b->max);
  EXPECT_FALSE(a->reduced_range()) << a->min << ".." << a->max;
  for (const auto& p : {inline_path, external_path, external_path + ".data"}) fs::remove(p);
}

TEST(Int8Check, WhichRunsAreCheckedAndHowClosely) {
  Int8Weights qdq;
  qdq.tensors = qdq.through_dequantize = 1;
  qdq.min = -128;
  qdq.max = 127;
  Int8Weights reduced = qdq;
  reduced.min = -64;
  reduced.max = 64;
  Int8Weights qoperator = qdq;
  qoperator.through_dequantize = 0;  // QLinearConv nodes: every optimization level runs the same integer kernels
  EXPECT_TRUE(wants_int8_check(Int8CheckMode::automatic, qdq, kAvx2Flags));
  EXPECT_FALSE(wants_int8_check(Int8CheckMode::automatic, qdq, kCascadeLake));
  EXPECT_FALSE(wants_int8_check(Int8CheckMode::automatic, reduced, kAvx2Flags));
  EXPECT_FALSE(wants_int8_check(Int8CheckMode::automatic, std::nullopt, kAvx2Flags));
  EXPECT_FALSE(wants_int8_check(Int8CheckMode::automatic, qoperator, kAvx2Flags));
  EXPECT_TRUE(wants_int8_check(Int8CheckMode::always, qdq, kCascadeLake));
  EXPECT_TRUE(wants_int8_check(Int8CheckMode::always, reduced, kCascadeLake));
  EXPECT_FALSE(wants_int8_check(Int8CheckMode::always, qoperator, kAvx2Flags));
  EXPECT_FALSE(wants_int8_check(Int8CheckMode::never, qdq, kAvx2Flags));
  EXPECT_EQ(parse_int8_check("always"), Int8CheckMode::always);
  EXPECT_THROW(parse_int8_check("sometimes"), UsageError);
  // Quantized outputs: 1.5 of their steps, absolute; outputs of float ops: 5% + 0.05.
  Tolerance stepped = int8_check_tolerance(0.05);
  EXPECT_DOUBLE_EQ(stepped.atol, 0.075);
  EXPECT_DOUBLE_EQ(stepped.rtol, 0);
  EXPECT_DOUBLE_EQ(stepped.percent_mismatch, 1.0);  // 1% of an output's elements may lie beyond
  Tolerance plain = int8_check_tolerance(std::nullopt);
  EXPECT_DOUBLE_EQ(plain.atol, 0.05);
  EXPECT_DOUBLE_EQ(plain.rtol, 0.05);
}

TEST(Int8Check, ComparesTheRunsInferenceSessionWithOneAtOptLevelDisabled) {
  // One step off passes (requantization rounds either way); 20 steps off do not.
  TwoLevelBackend backend({0.0f, 0.05f, 1.0f}, {0.0f, 0.10f, 0.0f});
  RunSpec r;
  r.model = "/models/m.onnx";
  r.key.threads = 3;
  r.feed.dims = {{"batch", 1}};
  Int8Check c = check_int8_outputs(backend, r, kAvx2Flags, 0.05);
  ASSERT_EQ(backend.loads.size(), 2u);
  EXPECT_FALSE(backend.loads[0].opt_level.has_value()) << "the run's own inference session first";
  EXPECT_EQ(backend.loads[1].opt_level, std::optional<std::string>("disabled"));
  for (const auto& l : backend.loads) {
    EXPECT_EQ(l.threads, 3);
    EXPECT_EQ(l.dims, r.feed.dims);
  }
  EXPECT_EQ(c.isa, kAvx2Flags);
  EXPECT_EQ(c.validation.reference, kUnoptimizedReference);
  EXPECT_DOUBLE_EQ(c.output_step, 0.05);
  EXPECT_DOUBLE_EQ(c.atol, 0.075);
  EXPECT_EQ(c.elements(), 3u);
  EXPECT_EQ(c.mismatched(), 1u);
  EXPECT_NEAR(c.max_abs_error(), 1.0, 1e-6);
  EXPECT_FALSE(c.passed());
  ASSERT_EQ(c.validation.first_mismatches.size(), 1u);
  EXPECT_EQ(c.validation.first_mismatches[0].index, 2);

  TwoLevelBackend same({0.0f, 0.05f, 1.0f}, {0.0f, 0.10f, 1.05f});
  EXPECT_TRUE(check_int8_outputs(same, r, kAvx2Flags, 0.05).passed());
  // A deep network carries a rounding step or two to a few outputs: 1 of 200 elements beyond is within the 1%.
  std::vector<float> optimized(200, 0.5f), unoptimized(200, 0.5f);
  unoptimized[7] = 0.6f;
  TwoLevelBackend rounding(optimized, unoptimized);
  Int8Check few = check_int8_outputs(rounding, r, kAvx2Flags, 0.05);
  EXPECT_EQ(few.mismatched(), 1u);
  EXPECT_TRUE(few.passed());
  EXPECT_DOUBLE_EQ(few.percent_mismatch, 1.0);
}

TEST(Int8Check, ProfileChecksQdqModelsWhereU8s8Saturates) {
  const std::string model = temp_path("profile.onnx");
  qdq_matmul_model(model, kFullRange);
  auto profile = [&](const std::vector<std::string>& isa, Int8CheckMode mode) {
    ProfileOptions o;
    o.model = model;
    o.timing.layers = false;
    o.isa = isa;
    o.int8_check = mode;
    TwoLevelBackend backend({0.0f, 1.0f}, {0.0f, 0.0f});
    return run_profile(o, {&backend}, nullptr, {});
  };
  Report avx2 = profile(kAvx2Flags, Int8CheckMode::automatic);
  ASSERT_TRUE(avx2.model.int8_weights.has_value());
  EXPECT_EQ(avx2.model.int8_weights->max, 127);
  ASSERT_EQ(avx2.runs.size(), 1u);
  ASSERT_TRUE(avx2.runs[0].int8_check.has_value());
  EXPECT_EQ(avx2.runs[0].int8_check->mismatched(), 1u);
  EXPECT_NEAR(avx2.runs[0].int8_check->output_step, 0.05, 1e-7);
  // The report's roofs name the machine when they name its features: an AVX2 machine's roofs, here.
  HardwareInfo roofs;
  roofs.machine.isa = kAvx2Flags;
  {
    ProfileOptions o;
    o.model = model;
    o.timing.layers = false;
    o.isa = kCascadeLake;
    TwoLevelBackend backend({0.0f, 1.0f}, {0.0f, 0.0f});
    Report r = run_profile(o, {&backend}, &roofs, {});
    ASSERT_TRUE(r.runs[0].int8_check.has_value());
    EXPECT_EQ(r.runs[0].int8_check->isa, kAvx2Flags);
  }
  EXPECT_FALSE(profile(kCascadeLake, Int8CheckMode::automatic).runs[0].int8_check.has_value());
  EXPECT_TRUE(profile(kCascadeLake, Int8CheckMode::always).runs[0].int8_check.has_value());
  EXPECT_FALSE(profile(kAvx2Flags, Int8CheckMode::never).runs[0].int8_check.has_value());
  // The records survive the report's JSON round trip byte for byte.
  const std::string json = report_to_json(avx2);
  Report back = report_from_json(json);
  EXPECT_EQ(report_to_json(back), json);
  ASSERT_TRUE(back.runs[0].int8_check.has_value());
  EXPECT_EQ(back.runs[0].int8_check->mismatched(), 1u);
  EXPECT_EQ(back.model.int8_weights->min, -128);
  fs::remove(model);
}
