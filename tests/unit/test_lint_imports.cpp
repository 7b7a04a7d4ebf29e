// Lint on runs other tools profiled: the project's TensorRT int8 fixture (tests/fixtures/import/trtexec/
// mobilenet_qat, a QAT MobileNetV2-class engine as TensorRT 8.6 exports it) imported without its ONNX model. The
// rules read only neutral fields: the reformats TensorRT inserted (layout kind, inserted_for) and the user's
// QuantizeLinear nodes it ran as standalone float -> int8 conversions (their tensors' element types).
#include <gtest/gtest.h>

#include <algorithm>

#include "importers/driver/import.h"
#include "lint/lint.h"
#include "support/import_fixtures.h"
#include "support/findings.h"

namespace rooflens {
namespace {

std::vector<std::string> mobilenet_qat_files() {
  std::vector<std::string> out;
  for (const char* part : {"graph", "profile", "timing", "profile.metadata", "build.metadata"})
    out.push_back(test::fixture_path(std::string("trtexec/mobilenet_qat/mobilenet_qat.engine.") + part + ".json"));
  return out;
}

const Finding* finding(const std::vector<Finding>& all, const std::string& rule) {
  auto it = std::find_if(all.begin(), all.end(), [&](const Finding& f) { return f.rule == rule; });
  return it == all.end() ? nullptr : &*it;
}

using rooflens::testing::evidence;

TEST(LintImports, TensorRtInt8EngineHasReformatAndQdqFindings) {
  ImportSpec spec;
  spec.format = "trtexec";
  spec.files = mobilenet_qat_files();
  Report report = run_import(spec).report;
  ASSERT_EQ(report.runs.size(), 1u);
  const ProfileRun& run = report.runs[0];
  // What the findings must say, counted here from the layers: TREx's report card for these files gives 5
  // reformats and 19 QuantizeLinear layers (make_fixtures.py).
  double layer_ms = 0, reformat_ms = 0, q_ms = 0;
  size_t reformats = 0, quantizes = 0;
  for (const auto& l : run.layers) {
    layer_ms += l.time_ms;
    if (l.inserted_for == "reformat") reformat_ms += l.time_ms, ++reformats;
    if (l.name.rfind("QuantizeLinear_", 0) == 0) q_ms += l.time_ms, ++quantizes;
  }
  ASSERT_EQ(reformats, 5u);
  ASSERT_EQ(quantizes, 19u);

  std::vector<Finding> all = lint_report(report);
  const Finding* layout = finding(all, "layout-reorders");
  ASSERT_NE(layout, nullptr);
  EXPECT_DOUBLE_EQ(evidence(*layout, "layout layers"), 5);
  EXPECT_NEAR(evidence(*layout, "time share"), reformat_ms / layer_ms, 1e-12);
  EXPECT_EQ(layout->severity, reformat_ms / layer_ms >= 0.05 ? Severity::warning : Severity::info);
  EXPECT_EQ(layout->layers.size(), 5u);
  for (const auto& name : layout->layers) EXPECT_EQ(name.rfind("Reformatting CopyNode", 0), 0u) << name;

  const Finding* qdq = finding(all, "unfused-qdq");
  ASSERT_NE(qdq, nullptr) << "an int8 engine (53 int8 convolutions) with standalone QuantizeLinear layers";
  EXPECT_DOUBLE_EQ(evidence(*qdq, "QuantizeLinear layers"), 19);
  EXPECT_DOUBLE_EQ(evidence(*qdq, "DequantizeLinear layers"), 0);  // TensorRT fused every DQ into its consumer
  EXPECT_NEAR(evidence(*qdq, "Q/DQ time"), q_ms, 1e-9);
  for (const auto& name : qdq->layers) EXPECT_EQ(name.rfind("QuantizeLinear_", 0), 0u) << name;
}

TEST(LintImports, AnFp16EngineHasNoQdqFinding) {
  // TensorRT 10's layout fixture: an fp16 engine (a convolution and a Myelin region, both reading half).
  ImportSpec spec;
  spec.format = "trtexec";
  for (const char* part : {"graph", "profile", "metadata"})
    spec.files.push_back(test::fixture_path(std::string("trtexec/trt10/small.engine.") + part + ".json"));
  std::vector<Finding> all = lint_report(run_import(spec).report);
  EXPECT_EQ(finding(all, "unfused-qdq"), nullptr);
  EXPECT_EQ(finding(all, "fp32-island"), nullptr);
}

}  // namespace
}  // namespace rooflens
