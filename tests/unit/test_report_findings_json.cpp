// The fields lint and whatif added to the report: findings, the layers' kind/device/dtypes, the projection. They
// round-trip byte for byte, are absent from reports written before them (which still load and write back
// unchanged), and closed sets refuse values outside them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/report.h"
#include "support/report_builder.h"

using namespace rooflens;

namespace {
Report with_everything() {
  rooflens::testing::ReportBuilder b;
  b.node("a", "Relu", {"x"}, {"y"});
  Layer& l = b.layer("a", "Relu", {"a"}, 1.5);
  l.kind = LayerKind::copy;
  l.device = Device::gpu;
  l.input_dtypes = {"float16"};
  l.output_dtypes = {"float16"};
  b.finish();
  Finding f;
  f.rule = "cpu-fallback";
  f.severity = Severity::error;
  f.run = "batch=1 threads=1";
  f.title = "1 layer(s) left on the CPU";
  f.layers = {"a"};
  f.onnx_nodes = {"a"};
  f.evidence = {{"CPU time share", 0.25, "ratio"}, {"CPU time", 1.5, "ms"}};
  f.mitigation = "do this";
  f.read_more = "https://example.org/x";
  b.report().findings = std::vector<Finding>{f};
  Projection p;
  p.modes = {"device", "quantize"};
  p.target = "NVIDIA T4 (datasheet), int8";
  p.assumptions = {"an assumption"};
  p.hardware = HardwareInfo{};
  p.hardware->source = "datasheet";
  RunProjection rp;
  rp.run = "batch=1 threads=1";
  rp.measured_ms = 2;
  rp.projected_ms = 0.5;
  LayerProjection lp;
  lp.name = "a";
  lp.time_ms = 0.25;
  lp.bound = "memory";
  lp.bound_changed = true;
  rp.layers = {lp};
  p.runs = {rp};
  b.report().whatif = p;
  return b.report();
}
}  // namespace

TEST(ReportFindingsJson, RoundTripsFindingsKindsAndProjections) {
  std::string first = report_to_json(with_everything());
  Report back = report_from_json(first);
  EXPECT_EQ(report_to_json(back), first);
  ASSERT_TRUE(back.findings.has_value());
  ASSERT_EQ(back.findings->size(), 1u);
  EXPECT_EQ((*back.findings)[0].severity, Severity::error);
  EXPECT_EQ((*back.findings)[0].evidence[0].unit, "ratio");
  const Layer& l = back.runs[0].layers[0];
  EXPECT_EQ(l.kind, LayerKind::copy);
  EXPECT_EQ(l.device, Device::gpu);
  EXPECT_EQ(l.input_dtypes, std::vector<std::string>{"float16"});
  ASSERT_TRUE(back.whatif.has_value());
  EXPECT_TRUE(back.whatif->runs[0].layers[0].bound_changed);
  EXPECT_EQ(back.whatif->hardware->source, "datasheet");
  EXPECT_NE(first.find("\"severity\": \"error\""), std::string::npos);
  EXPECT_NE(first.find("\"kind\": \"copy\""), std::string::npos);
}

TEST(ReportFindingsJson, OlderReportsLoadAndWriteBackUnchanged) {
  Report r = with_everything();
  r.findings.reset();
  r.whatif.reset();
  Layer& l = r.runs[0].layers[0];
  l.kind = LayerKind::compute;
  l.device = Device::unknown;
  l.input_dtypes.clear();
  l.output_dtypes.clear();
  std::string text = report_to_json(r);
  // What a report written before lint looks like: none of the new keys.
  for (const char* key : {"\"findings\"", "\"whatif\"", "\"kind\"", "\"device\""})
    EXPECT_EQ(text.find(key), std::string::npos) << key;
  auto layer = nlohmann::json::parse(text)["runs"][0]["layers"][0];
  EXPECT_FALSE(layer.contains("input_dtypes"));
  EXPECT_FALSE(layer.contains("output_dtypes"));
  Report back = report_from_json(text);
  EXPECT_FALSE(back.findings.has_value());  // not linted, which is not "no findings"
  EXPECT_EQ(report_to_json(back), text);
  // Linted with nothing found: an empty list, written as such.
  back.findings = std::vector<Finding>{};
  EXPECT_NE(report_to_json(back).find("\"findings\": []"), std::string::npos);
}

TEST(ReportFindingsJson, ClosedSetsRefuseOtherValues) {
  std::string text = report_to_json(with_everything());
  auto replaced = [&text](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_THROW(report_from_json(replaced("\"severity\": \"error\"", "\"severity\": \"fatal\"")), UserError);
  EXPECT_THROW(report_from_json(replaced("\"kind\": \"copy\"", "\"kind\": \"teleport\"")), UserError);
  EXPECT_THROW(report_from_json(replaced("\"device\": \"gpu\"", "\"device\": \"tpu\"")), UserError);
}
