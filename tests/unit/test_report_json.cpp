// The report's JSON form round-trips byte for byte and refuses foreign or malformed documents clearly.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/report.h"

#include <nlohmann/json.hpp>

using namespace rooflens;

namespace {
Report sample_report() {
  Report r;
  r.tool.version = "0.1.0";
  r.tool.command = "analyze";
  r.model.path = "models/<script>alert(1)</script>.onnx";  // model-supplied strings survive as data
  r.model.name = "m";
  r.model.file_bytes = 553433881;
  r.model.opsets = {{"ai.onnx", 17}, {"com.microsoft", 1}};
  r.model.inputs.push_back({"x", "float", {1, 3, 224, 224}, {"batch", "", "", ""}});
  NodeAnalysis n;
  n.name = "conv \"1\"";
  n.op = "Conv";
  n.graph = "main";
  n.inputs = {"x", "w"};
  n.outputs = {"y"};
  n.output_shapes = {{1, 64, 112, 112}};
  n.flops = 236027904;
  n.macs = 118013952;
  n.bytes_read = 611328;
  n.bytes_written = 3211264;
  n.intensity = 61.7432;
  n.params = UINT64_MAX;  // saturated counts survive too
  r.model.analysis.nodes.push_back(n);
  r.model.analysis.totals.flops = 236027904;
  r.model.analysis.totals.intensity = 1.0 / 3.0;
  r.model.analysis.unknown_ops = {"com.example:Frobnicate"};
  return r;
}
}  // namespace

TEST(ReportJson, RoundTripsByteForByte) {
  std::string first = report_to_json(sample_report());
  Report back = report_from_json(first);
  EXPECT_EQ(report_to_json(back), first);
  EXPECT_EQ(back.model.analysis.nodes[0].params, UINT64_MAX);
  EXPECT_EQ(back.model.analysis.totals.intensity, 1.0 / 3.0);
  EXPECT_EQ(back.model.path, "models/<script>alert(1)</script>.onnx");
  EXPECT_NE(first.find("\"schema\": \"rooflens.report/2\""), std::string::npos);
}

// A report written before several backends per report (rooflens.report/1: one "backend" object, runs without
// labels) still loads: its backend becomes the only one, labelled by its name, and its runs name no backend.
TEST(ReportJson, ReadsSchemaOneProfileReports) {
  Report r = sample_report();
  r.backends = {BackendInfo{"onnxruntime", "1.30.0", {{"intraOpNumThreads", "2"}}, "onnxruntime-node 1.30.0", "x", ""}};
  ProfileRun run;
  run.batch = 1;
  run.threads = 2;
  run.latencies_ms = {1, 2, 3};
  r.runs.push_back(run);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(report_to_json(r));
  j["schema"] = "rooflens.report/1";
  nlohmann::ordered_json backend = j["backends"][0];
  backend.erase("label");
  j.erase("backends");
  j["backend"] = backend;
  j["runs"][0].erase("label");
  Report old = report_from_json(j.dump());
  EXPECT_EQ(old.schema, kReportSchema);
  ASSERT_EQ(old.backends.size(), 1u);
  EXPECT_EQ(old.backends[0].label, "onnxruntime");
  EXPECT_EQ(old.backends[0].options.at("intraOpNumThreads"), "2");
  ASSERT_EQ(old.runs.size(), 1u);
  EXPECT_EQ(old.runs[0].backend, "");
  EXPECT_EQ(old.runs[0].label(), "batch=1 threads=2");
  EXPECT_EQ(old.runs[0].latencies_ms, run.latencies_ms);
}

TEST(ReportJson, RefusesForeignAndMalformedDocuments) {
  EXPECT_THROW(report_from_json("not json"), UserError);
  EXPECT_THROW(report_from_json("[]"), UserError);
  EXPECT_THROW(report_from_json(R"({"schema": "rooflens.report/99"})"), UserError);
  std::string text = report_to_json(sample_report());
  text.replace(text.find("\"flops\""), 7, "\"flopz\"");
  EXPECT_THROW(report_from_json(text), UserError);
}

TEST(ReportJson, ControlFlowFieldsRoundTripAndOlderReportsLoad) {
  Report r = sample_report();
  NodeAnalysis body = r.model.analysis.nodes[0];
  body.name = "lstm";
  body.graph = "main/if:then_branch";
  body.execution = NodeExecution::NotTaken;
  body.iterations = 7;
  body.shape_source = ShapeSource::Runtime;
  r.model.analysis.nodes.push_back(body);
  r.model.analysis.subgraphs.push_back({"main/if:then_branch", "if", "then_branch", NodeExecution::NotCounted, -1, 3,
                                        10, 5, 40, 20});
  r.model.constant_tensors = 12;
  const std::string text = report_to_json(r);
  EXPECT_NE(text.find("\"execution\": \"not_taken\""), std::string::npos);
  EXPECT_NE(text.find("\"shape_source\": \"runtime\""), std::string::npos);
  EXPECT_NE(text.find("\"execution\": \"not_counted\""), std::string::npos);
  Report back = report_from_json(text);
  EXPECT_EQ(report_to_json(back), text);
  EXPECT_EQ(back.model.analysis.nodes[1].iterations, 7);
  EXPECT_EQ(back.model.analysis.subgraphs.at(0).iterations, -1);
  EXPECT_EQ(back.model.constant_tensors, 12);

  // A report written before these fields existed has none of them: it loads with the defaults and is written
  // back unchanged (the new fields appear only where they say something).
  const std::string old = report_to_json(sample_report());
  EXPECT_EQ(old.find("execution"), std::string::npos);
  EXPECT_EQ(old.find("subgraphs"), std::string::npos);
  EXPECT_EQ(old.find("constant_tensors"), std::string::npos);
  Report loaded = report_from_json(old);
  EXPECT_EQ(loaded.model.analysis.nodes[0].execution, NodeExecution::Run);
  EXPECT_EQ(loaded.model.analysis.nodes[0].iterations, 1);
  EXPECT_EQ(report_to_json(loaded), old);
}
