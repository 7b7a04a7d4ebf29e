// The report's `capacity` section: byte-for-byte round trip with every optional part, strict reading of closed
// sets, the headline of each scenario, and the items compare and the results database keep.
#include <algorithm>

#include <gtest/gtest.h>

#include "compare/compare.h"
#include "compare/sources.h"
#include "core/capacity.h"
#include "core/comparison.h"
#include "core/history.h"
#include "core/errors.h"
#include "core/report.h"

using namespace rooflens;

namespace {

ScenarioResult point(Scenario s, double qps, bool valid, std::vector<double> lat) {
  ScenarioResult p;
  p.scenario = s;
  p.target_qps = qps;
  p.valid = valid;
  if (!valid) {
    p.reasons = {"p99 latency 31.00 ms exceeds the SLO of 20 ms (12 of 700 queries over it)"};
    p.recommendations = {"reduce --qps (this run: 48)"};
  }
  p.queries = p.completed = static_cast<int64_t>(lat.size());
  p.samples = p.queries;
  p.samples_per_s = p.completed_qps = 40.5;
  p.latency_ms = {static_cast<int64_t>(lat.size()), 1, 2, 2, 3, 3, 4, 4.5, 5};
  p.percentile_ms = 4;
  p.early_stopping = {99, 0.99, 700, 1, 662, true, 0};
  p.issue_lag = {0.01, 0.05, 0.2};
  p.instances = {{0, 4242, "0", 700, 700, 0, 0.93}};
  p.latencies_ms = std::move(lat);
  return p;
}

Report capacity_report() {
  Report r;
  r.tool.version = "0.1";
  r.tool.command = "capacity";
  r.model.name = "resnet50";
  CapacityResult c;
  c.settings.scenario = Scenario::server;
  c.settings.slo_ms = 20;
  c.settings.percentile = 99;
  c.settings.find_peak = true;
  CapacityRun run;
  run.config.instances = 2;
  run.config.threads = 1;
  run.config.max_batch = 4;
  run.config.batch_timeout_ms = 2;
  run.points = {point(Scenario::single_stream, 0, true, {3, 3.1}), point(Scenario::server, 40, true, {5, 6, 7}),
                point(Scenario::server, 48, false, {9, 31})};
  run.peak = PeakSearch{40, 40, 48, 0.2, true};
  run.prediction = Prediction{3.1, 0.2, 44, 300, 40, 0.1, {{20, 3, 5, true}, {44, 6, 19, true}}};
  run.explanation = CapacityExplanation{40, 8'000'000'000, 200'000'000, 320, 8, 2, 1000, 30, "fp32 x2", "DRAM read x2",
                                        0.32, 0.27};
  run.timeline = {{0, 1.5, 4.5, 2}, {1, 2, 5, 1}};
  run.warnings = {"a warning"};
  c.runs = {run};
  CapacityRun failed;
  failed.config.instances = 4;
  failed.failure = "instance 3: cannot start";
  c.runs.push_back(failed);
  c.self_test = SelfTest{90000, 4000, 0.05, 2000, 0.2, 0.4};
  c.warnings = {"w"};
  r.capacity = c;
  return r;
}

}  // namespace

TEST(CapacityReport, RoundTripsByteForByte) {
  const std::string once = report_to_json(capacity_report());
  const Report back = report_from_json(once);
  ASSERT_TRUE(back.capacity.has_value());
  EXPECT_EQ(report_to_json(back), once);
  EXPECT_EQ(back.capacity->runs[0].config.label(), "instances=2 threads=1 concurrency=1 batch=1 max_batch=4 timeout=2ms");
  EXPECT_NE(once.find("\"verdict\": \"INVALID\""), std::string::npos);
  EXPECT_NE(once.find("\"scenario\": \"single-stream\""), std::string::npos);
  // A report without the section reads and writes as before.
  Report plain = capacity_report();
  plain.capacity.reset();
  EXPECT_EQ(report_to_json(plain).find("capacity\":"), std::string::npos);
}

TEST(CapacityReport, ClosedSetsAreReadStrictly) {
  std::string text = report_to_json(capacity_report());
  std::string bad = text;
  bad.replace(bad.find("\"VALID\""), 7, "\"GOOD\"");
  EXPECT_THROW(report_from_json(bad), UserError);
  bad = text;
  bad.replace(bad.find("\"server\""), 8, "\"serverx\"");
  EXPECT_THROW(report_from_json(bad), UserError);
}

TEST(CapacityReport, HeadlinesAndItems) {
  const Report r = capacity_report();
  const CapacityRun& run = r.capacity->runs[0];
  const CapacityHeadline h = headline(run, Scenario::server);
  EXPECT_EQ(h.name, "server peak");
  EXPECT_EQ(h.value, 40);  // the highest VALID point
  EXPECT_DOUBLE_EQ(h.ms, 25);
  const std::vector<CapacityItem> items = capacity_items(*r.capacity);
  ASSERT_EQ(items.size(), 4u);  // three points with latencies and the headline; the failed configuration none
  EXPECT_EQ(items[1].config, "instances=2 threads=1 concurrency=1 batch=1 max_batch=4 timeout=2ms · server qps=40");
  EXPECT_EQ(items[1].samples_ms, (std::vector<double>{5, 6, 7}));
  EXPECT_EQ(items[3].config, run.config.label() + " · headline server peak");
  EXPECT_EQ(items[3].samples_ms, std::vector<double>{25});
  // Offline's headline is its throughput, as ms per sample.
  CapacityRun off;
  off.points = {point(Scenario::offline, 0, true, {1, 2})};
  EXPECT_NEAR(headline(off, Scenario::offline).ms, 1000 / 40.5, 1e-12);
}

TEST(CapacityReport, CompareMatchesItemsOfTwoCapacityResults) {
  Report base = capacity_report(), head = capacity_report();
  head.capacity->runs[0].points[1].latencies_ms = {50, 60, 70};  // ten times slower at 40 QPS
  CompareSource b = source_from_report(base, "base.json"), n = source_from_report(head, "new.json");
  EXPECT_EQ(b.description.rfind("capacity report of resnet50", 0), 0u);
  ASSERT_EQ(b.items.size(), 5u);  // four items and the failed configuration
  EXPECT_EQ(b.items[4].status, status::kFail);
  const Comparison c = compare_sources(b, n, {});
  ASSERT_EQ(c.items.size(), 5u);
  for (const auto& i : c.items) EXPECT_TRUE(i.verdict != verdict::kOnlyBase && i.verdict != verdict::kOnlyNew) << i.config;
}

TEST(CapacityReport, EachInstanceUnderLoadMeetsTheSameSingleStreamRun) {
  Report single;
  single.model.name = "resnet50";
  single.backends = {BackendInfo{"onnxruntime", "1.30.0", {}, "ort", "onnxruntime", ""}};
  ProfileRun alone;
  alone.batch = 1;
  alone.threads = 1;
  alone.dims = {{"batch", 1}};
  alone.latencies_ms = {5, 5, 5};
  alone.layers = {Layer{}};
  alone.layers[0].name = "conv";
  alone.layers[0].onnx_nodes = {"conv"};
  alone.layers[0].time_ms = 4;
  single.runs = {alone};
  Report load = single;
  load.runs.clear();
  for (int i = 0; i < 2; ++i) {
    ProfileRun r = alone;
    r.dims["instance"] = i;
    r.layers[0].time_ms = 6;
    load.runs.push_back(r);
  }
  load.capacity = CapacityResult{};
  const Comparison c = compare_sources(source_from_report(single, "a.json"), source_from_report(load, "b.json"), {});
  ASSERT_EQ(c.items.size(), 2u);
  for (const auto& i : c.items) {
    EXPECT_NE(i.config.find("instance="), std::string::npos);
    ASSERT_TRUE(i.layers.has_value()) << i.config;
    ASSERT_EQ(i.layers->matched.size(), 1u);
    EXPECT_DOUBLE_EQ(i.layers->matched[0].delta_ms(), 2);
  }
  EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.find("under load") != std::string::npos; }));
}

TEST(CapacityReport, TheResultsDatabaseKeepsTheItemsAndTheFailedConfiguration) {
  HistorySession s;
  add_report(s, capacity_report());
  ASSERT_EQ(s.runs.size(), 5u);
  EXPECT_EQ(s.runs[3].config, "instances=2 threads=1 concurrency=1 batch=1 max_batch=4 timeout=2ms · headline server peak");
  EXPECT_EQ(s.runs[3].samples_ms, std::vector<double>{25});
  EXPECT_EQ(s.runs[3].repetitions, std::vector<int64_t>{1});
  EXPECT_EQ(s.runs[4].status, "fail");
  EXPECT_EQ(s.runs[4].error, "instance 3: cannot start");
}
