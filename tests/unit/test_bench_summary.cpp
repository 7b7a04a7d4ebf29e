// The closing console table of `rooflens bench` and the error classes it groups by.
#include <gtest/gtest.h>

#include "backends/onnxruntime/ort_error_class.h"
#include "reporters/bench_summary.h"

using namespace rooflens;

namespace {

BenchEntry summary_entry(const std::string& model, const std::string& config, const std::string& status,
                 const std::string& type = "", double wall = 0.1) {
  BenchEntry e;
  e.model = model;
  e.config = config;
  e.status = status;
  e.error_type = type;
  e.stage = status == "pass" || status == "skip" ? "" : "load";
  e.message = type.empty() ? "" : "because " + type;
  e.wall_s = wall;
  return e;
}

BenchResults results() {
  BenchResults r;
  r.options.mode = "validate";
  r.configs = {{"cfgA", {}}, {"cfgB", {}}};
  r.entries = {summary_entry("m1", "cfgA", "pass", "", 0.5), summary_entry("m2", "cfgA", "fail", "ort:no-kernel"),
               summary_entry("m3", "cfgA", "fail", "ort:no-kernel"), summary_entry("m4", "cfgA", "skip", "non-tensor"),
               summary_entry("m5", "cfgA", "crash", "crash", 2.0), summary_entry("m1", "cfgB", "pass", "", 0.3),
               summary_entry("m2", "cfgB", "fail", "mismatch")};
  return r;
}

}  // namespace

TEST(BenchSummary, PassRatePerConfigurationLeavesSkipsOut) {
  EXPECT_DOUBLE_EQ(pass_rate(1, 5, 1), 0.25);
  EXPECT_DOUBLE_EQ(pass_rate(0, 2, 2), 0.0);
  std::string s = bench_summary(results(), {});
  // cfgA: 5 entries, 1 pass, 2 fail, 1 crash, 1 skip -> 1 / 4 = 25.0%.
  EXPECT_NE(s.find("cfgA         5     1     2        0      1     1      25.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("cfgB         2     1     1        0      0     0      50.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("pass rate 33.3% (2 of 6 that ran; 1 skipped)"), std::string::npos) << s;
  EXPECT_NE(s.find("5 models × 2 configurations, validate mode"), std::string::npos) << s;
}

TEST(BenchSummary, FailuresGroupedByTypeBiggestFirstAndSkipsByReason) {
  std::string s = bench_summary(results(), {});
  size_t kernel = s.find("ort:no-kernel"), crash = s.find("crash   crash"), mismatch = s.find("mismatch");
  ASSERT_NE(kernel, std::string::npos) << s;
  ASSERT_NE(crash, std::string::npos) << s;
  EXPECT_LT(kernel, crash);     // 2 entries before 1
  EXPECT_LT(kernel, mismatch);
  EXPECT_NE(s.find("failures by error type (4):"), std::string::npos) << s;
  EXPECT_NE(s.find("m2, m3"), std::string::npos) << s;
  EXPECT_NE(s.find("non-tensor ×1: m4"), std::string::npos) << s;
  // Validate mode: slowest by wall time, the crash (2 s) first.
  size_t slow = s.find("slowest");
  ASSERT_NE(slow, std::string::npos);
  EXPECT_LT(s.find("m5", slow), s.find("m1", slow));
}

TEST(BenchSummary, InterruptedRunsSayTheyArePartial) {
  BenchResults r = results();
  r.partial = true;
  EXPECT_NE(bench_summary(r, {}).find("INTERRUPTED, partial results"), std::string::npos);
}

TEST(BenchErrorClass, OnnxRuntimeMessagesFallIntoStableClasses) {
  using rooflens::ort::classify_ort_message;
  EXPECT_EQ(classify_ort_message("Could not find an implementation for BitShift(11) node with name ''"), "ort:no-kernel");
  EXPECT_EQ(classify_ort_message("Load model from m.onnx failed:Fatal error: ai.onnx.preview.training:Adam(-1) is not "
                                 "a registered function/op"),
            "ort:unregistered-op");
  EXPECT_EQ(classify_ort_message("Unsupported data type: 16"), "ort:unsupported-type");
  EXPECT_EQ(classify_ort_message("Exception during initialization: x.cc:48 RNN layout_ == 0 was false. Batchwise "
                                 "recurrent operations (layout == 1) are not supported."),
            "ort:unsupported-attribute");
  EXPECT_EQ(classify_ort_message("Exception during initialization: something else"), "ort:kernel-init");
  EXPECT_EQ(classify_ort_message("something nobody expected"), "ort");
}
