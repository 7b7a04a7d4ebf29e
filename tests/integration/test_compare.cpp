// `rooflens compare` through the real binary: hand-built profile reports with known sample distributions and
// bench results directories written with bench_results_to_json (verdicts, new/fixed failures, exit codes,
// usage errors), then two real profile reports of the same zoo model on the real ONNX Runtime.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/bench_results.h"
#include "core/report.h"
#include "core/stats.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"
#include "support/backend_info.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens;
using namespace rooflens::testing;

namespace {

// n samples around `median` with relative noise `cv` (normal), seeded: the same files on every run.
std::vector<double> samples(uint64_t seed, size_t n, double median, double cv) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, cv);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(median * (1 + z(rng)));
  return v;
}

Report synthetic_report(std::vector<double> latencies, double layer_ms) {
  Report r;
  r.tool.version = "test";
  r.tool.command = "profile";
  r.model.name = "tiny";
  r.backends = {rooflens::testing::backend_info("onnxruntime", "1.30.0", {}, "onnxruntime-node 1.30.0")};
  ProfileRun run;
  run.batch = 1;
  run.dims = {{"batch", 1}};
  run.threads = 2;
  run.latency_ms = summarize(latencies);
  run.latencies_ms = std::move(latencies);
  Layer conv;
  conv.name = "conv";
  conv.op = "Conv";
  conv.onnx_nodes = {"conv"};
  conv.time_ms = layer_ms;
  conv.share = 0.9;
  run.layers = {conv};
  r.runs.push_back(std::move(run));
  return r;
}

// A report whose one configuration was timed in several runs (--repeat): run r's 30 samples scatter (CV 2%)
// around levels[r], the machine's speed during that run.
Report repeated_report(const std::vector<double>& levels, uint64_t seed) {
  std::vector<double> all;
  std::vector<int64_t> runs;
  for (size_t r = 0; r < levels.size(); ++r) {
    auto s = samples(seed + r, 30, levels[r], 0.02);
    all.insert(all.end(), s.begin(), s.end());
    runs.push_back(30);
  }
  Report rep = synthetic_report(all, 9);
  rep.runs[0].repetitions = runs;
  return rep;
}

BenchEntry entry(const std::string& model, const std::string& status, std::vector<double> latencies = {}) {
  BenchEntry e;
  e.model = model;
  e.model_path = model + "/model.onnx";
  e.config = "onnxruntime";
  e.status = status;
  if (status != "pass") {
    e.stage = "load";
    e.error_type = "ort";
    e.message = "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : " + model;
  }
  e.latency_ms = summarize(latencies);
  e.latencies_ms = std::move(latencies);
  return e;
}

class CompareTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-compare-test"));
    auto base = samples(1, 40, 10.0, 0.02);
    write("base.json", report_to_json(synthetic_report(base, 9)));
    write("slow10.json", report_to_json(synthetic_report(samples(2, 40, 11.0, 0.02), 9.9)));
    write("fast10.json", report_to_json(synthetic_report(samples(3, 40, 9.0, 0.02), 8.1)));
    // A noisier BASE (CV 5%) and NEW = the same samples 1% slower, in another order: the median changes by
    // exactly 1%, far inside the noise.
    auto noisy = samples(5, 40, 10.0, 0.05), shifted = noisy;
    for (double& v : shifted) v *= 1.01;
    std::reverse(shifted.begin(), shifted.end());
    write("noisy-base.json", report_to_json(synthetic_report(noisy, 9)));
    write("noise1.json", report_to_json(synthetic_report(shifted, 9)));
    // Five runs per side. The machine's speed varies ~8% from run to run; NEW's runs are BASE's levels 3% slower
    // in another order (an offset smaller than that variation), or, on a calmer machine, 10% slower.
    write("runs-base.json", report_to_json(repeated_report({8.0, 8.7, 7.4, 8.4, 7.7}, 100)));
    write("runs-offset.json", report_to_json(repeated_report({7.4 * 1.03, 8.0 * 1.03, 7.7 * 1.03, 8.7 * 1.03, 8.4 * 1.03}, 200)));
    write("runs-calm.json", report_to_json(repeated_report({10.0, 10.2, 9.9, 10.1, 9.8}, 300)));
    write("runs-slow10.json", report_to_json(repeated_report({11.0, 11.1, 10.8, 11.2, 10.9}, 400)));

    BenchResults b, n;
    b.tool.version = n.tool.version = "test";
    b.entries = {entry("test_add", "pass", samples(10, 100, 1.0, 0.02)), entry("test_relu", "pass"),
                 entry("test_gru", "fail"), entry("test_loop", "pass")};
    n.entries = {entry("test_add", "pass", samples(11, 100, 1.0, 0.02)), entry("test_relu", "crash"),
                 entry("test_gru", "pass"), entry("test_if", "pass")};
    fs::create_directories(*dir_ / "bench-base");
    fs::create_directories(*dir_ / "bench-new");
    write("bench-base/results.json", bench_results_to_json(b));
    write("bench-new/results.json", bench_results_to_json(n));
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  static void write(const std::string& name, const std::string& text) { std::ofstream(*dir_ / name) << text; }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static CliResult cli(const std::string& args) { return run_cli(args, *dir_); }
  static json item0(const std::string& out) { return json::parse(out)["items"][0]; }

  static inline fs::path* dir_ = nullptr;
};

TEST_F(CompareTest, TenPercentSlowdownIsASignificantRegression) {
  auto r = cli("compare " + path("base.json") + " " + path("slow10.json"));
  ASSERT_EQ(r.rc, 0) << r.err;  // without --fail-on-regression a regression is reported, not fatal
  EXPECT_NE(r.out.find("regression"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("summary: 1 regression (1 item)"), std::string::npos) << r.out;

  r = cli("compare " + path("base.json") + " " + path("slow10.json") + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json it = item0(r.out);
  EXPECT_EQ(it["verdict"], "regression");
  EXPECT_EQ(it["config"], "batch=1 threads=2");
  EXPECT_LT(it["latency"]["p_value"].get<double>(), 1e-6);
  EXPECT_GT(it["latency"]["ci_low"].get<double>(), 1.05);
  EXPECT_NEAR(it["latency"]["change"].get<double>(), 0.10, 0.02);
  EXPECT_EQ(it["layers"]["matched"].size(), 1u);
  EXPECT_NEAR(it["layers"]["matched"][0]["delta_ms"].get<double>(), 0.9, 1e-9);

  // One run per side: said above the table (and in Markdown) that run-to-run variation was not measured.
  r = cli("compare " + path("base.json") + " " + path("slow10.json"));
  EXPECT_NE(r.out.find("\n!! run-to-run variation NOT measured (every item had one run on a side)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--repeat 5"), std::string::npos) << r.out;
  r = cli("compare " + path("base.json") + " " + path("slow10.json") + " --format md");
  EXPECT_NE(r.out.find("> **Warning**: run-to-run variation NOT measured"), std::string::npos) << r.out;

  r = cli("compare " + path("base.json") + " " + path("slow10.json") + " --fail-on-regression");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_NE(r.err.find("1 significant regression beyond 5.0%"), std::string::npos) << r.err;
  // A threshold above the change turns it into a significant change below the threshold: exit 0.
  r = cli("compare " + path("base.json") + " " + path("slow10.json") + " --fail-on-regression --threshold 15%");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("below threshold"), std::string::npos) << r.out;
}

TEST_F(CompareTest, OnePercentInsideTheNoiseIsNotARegression) {
  auto r = cli("compare " + path("noisy-base.json") + " " + path("noise1.json") + " --fail-on-regression --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json it = item0(r.out);
  EXPECT_EQ(it["verdict"], "within noise");
  EXPECT_NEAR(it["latency"]["change"].get<double>(), 0.01, 1e-9);
  EXPECT_GT(it["latency"]["p_value"].get<double>(), 0.05);
  EXPECT_LT(it["latency"]["ci_low"].get<double>(), 1);
  EXPECT_GT(it["latency"]["ci_high"].get<double>(), 1);
  // Not even with no threshold at all: the change is not significant.
  r = cli("compare " + path("noisy-base.json") + " " + path("noise1.json") + " --threshold 0 --fail-on-regression");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("summary: 1 within noise (1 item)"), std::string::npos) << r.out;
}

TEST_F(CompareTest, ASpeedUpIsAnImprovementAndNeverFailsTheCheck) {
  auto r = cli("compare " + path("base.json") + " " + path("fast10.json") + " --fail-on-regression --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(item0(r.out)["verdict"], "improvement");
  // The same pair the other way round is a regression.
  r = cli("compare " + path("fast10.json") + " " + path("base.json") + " --fail-on-regression --format csv");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find(",regression,pass,pass,40,40,1,1,0,0,samples,"), std::string::npos) << r.out;
}

// Repeated runs (profile --repeat): the runs are compared, so an offset smaller than the run-to-run variation is
// within noise (the check passes), while a 10% slowdown over five runs per side is a regression (it fails).
TEST_F(CompareTest, RepeatedRunsAreComparedRunByRun) {
  auto r = cli("compare " + path("runs-base.json") + " " + path("runs-offset.json") + " --fail-on-regression --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json it = item0(r.out);
  EXPECT_EQ(it["verdict"], "within noise");
  EXPECT_EQ(it["latency"]["unit"], "runs");
  EXPECT_EQ(it["latency"]["base_runs"], 5);
  EXPECT_EQ(it["latency"]["new_runs"], 5);
  EXPECT_FALSE(it["latency"]["single_run"].get<bool>());
  EXPECT_NEAR(it["latency"]["change"].get<double>(), 0.03, 0.01);
  EXPECT_GT(it["latency"]["p_value"].get<double>(), 0.2);
  EXPECT_GT(it["latency"]["df"].get<double>(), 4);
  json j = json::parse(r.out);
  EXPECT_EQ(j["summary"]["tested_on_runs"], 1);
  EXPECT_EQ(j["summary"]["tested_on_single_runs"], 0);
  for (const auto& n : j["notes"]) EXPECT_EQ(n.get<std::string>().find("not measured"), std::string::npos) << n;

  r = cli("compare " + path("runs-calm.json") + " " + path("runs-slow10.json") + " --fail-on-regression");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.err.find("1 significant regression beyond 5.0%"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Welch's t-test on the logs of the run medians p < 0.05"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("NOT measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5/5  runs"), std::string::npos) << r.out;
}

TEST_F(CompareTest, BenchResultsListNewAndFixedFailures) {
  auto r = cli("compare " + path("bench-base") + " " + path("bench-new/results.json"));
  ASSERT_EQ(r.rc, 0) << r.err;
  auto section = [&](const std::string& title, const std::string& model) {
    size_t at = r.out.find(title);
    return at != std::string::npos && r.out.find(model, at) != std::string::npos;
  };
  EXPECT_TRUE(section("new failures (1)", "test_relu")) << r.out;
  EXPECT_TRUE(section("fixed failures (1)", "test_gru")) << r.out;
  EXPECT_TRUE(section("only in BASE (1)", "test_loop")) << r.out;
  EXPECT_TRUE(section("only in NEW (1)", "test_if")) << r.out;
  EXPECT_NE(r.out.find("NOT_IMPLEMENTED : test_relu"), std::string::npos) << r.out;

  r = cli("compare " + path("bench-base") + " " + path("bench-new") + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["summary"]["new_failures"], 1);
  EXPECT_EQ(j["summary"]["fixed"], 1);
  EXPECT_EQ(j["summary"]["regressions"], 0);
  EXPECT_EQ(j["base"]["kind"], "bench");
  for (const auto& it : j["items"]) {
    if (it["model"] != "test_add") continue;
    EXPECT_TRUE(it["verdict"] == "within noise" || it["verdict"] == "below threshold") << it;
    EXPECT_EQ(it["latency"]["base_blocks"], 10);  // 100 samples: tested as 10 blocks of 10
    EXPECT_EQ(it["latency"]["new_blocks"], 10);
  }

  // A new failure fails the check even without any latency regression.
  r = cli("compare " + path("bench-base") + " " + path("bench-new") + " --fail-on-regression --format md");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_NE(r.err.find("1 new failure"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("### new failures (1)"), std::string::npos) << r.out;
  // The other way round, test_gru is the new failure and test_relu the fixed one.
  r = cli("compare " + path("bench-new") + " " + path("bench-base") + " --format csv");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\ntest_gru,onnxruntime,new failure,pass,fail,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ntest_relu,onnxruntime,fixed,crash,pass,"), std::string::npos) << r.out;
}

TEST_F(CompareTest, UsageErrorsExitTwoUnreadableInputsExitOneWithOneLine) {
  auto r = cli("compare " + path("base.json") + " " + path("bench-new"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_NE(r.err.find("same kind"), std::string::npos) << r.err;

  for (const std::string flag : {"--threshold 5", "--threshold abc", "--format xml", "--alpha 2"}) {
    r = cli("compare " + path("base.json") + " " + path("slow10.json") + " " + flag);
    EXPECT_EQ(r.rc, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find(flag.substr(0, flag.find(' '))), std::string::npos) << flag << ": " << r.err;
  }

  write("garbage.json", "{not json");
  write("foreign.json", R"({"schema": "something/9"})");
  fs::create_directories(*dir_ / "empty-dir");
  for (const std::string bad : {"missing.json", "garbage.json", "foreign.json", "empty-dir"}) {
    r = cli("compare " + path("base.json") + " " + path(bad));
    EXPECT_EQ(r.rc, 1) << bad << ": " << r.err;
    EXPECT_EQ(r.err_lines(), 1) << bad << ": " << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  }
}

// Two real profiles of the same model: timings drift on a shared machine, so only what cannot drift is asserted:
// the run is compared, every layer is matched one to one by its ONNX nodes, nothing is only on one side.
TEST(CompareRealProfiles, SameZooModelTwiceMatchesEveryLayer) {
  if (!ort_runner_available()) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  fs::path dir = fresh_test_dir("rooflens-compare-real");
  zoo::ZooOptions sq;
  sq.image = 64;
  save_zoo_model("squeezenet1_0", sq, (dir / "sq.onnx").string());
  const std::string timing =
      " --threads 2 --warmup-ms 0 --duration 0 --iterations 20 --profile-iterations 3 -q --no-roofs --repeat 2 ";
  for (const char* name : {"a.json", "b.json"}) {
    auto r = run_cli("profile " + (dir / "sq.onnx").string() + timing + "-f " + (dir / name).string(), dir.string());
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  auto r = run_cli("compare " + (dir / "a.json").string() + " " + (dir / "b.json").string() + " --json", dir.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  json report = json::parse(slurp((dir / "a.json").string()));
  ASSERT_EQ(j["items"].size(), 1u);
  const json& it = j["items"][0];
  EXPECT_EQ(it["model"], report["model"]["name"]);
  EXPECT_EQ(it["latency"]["base_n"], report["runs"][0]["latencies_ms"].size());
  EXPECT_TRUE(it["latency"]["tested"].get<bool>());
  EXPECT_EQ(it["latency"]["unit"], "runs");  // two runs per side (--repeat 2): compared run by run
  EXPECT_EQ(it["latency"]["base_runs"], 2);
  EXPECT_EQ(it["latency"]["new_runs"], 2);
  EXPECT_GT(it["latency"]["p_value"].get<double>(), 0);
  EXPECT_LE(it["latency"]["ci_low"].get<double>(), it["latency"]["ci_high"].get<double>());
  EXPECT_EQ(it["layers"]["matched"].size(), report["runs"][0]["layers"].size());
  EXPECT_TRUE(it["layers"]["regrouped"].empty());
  EXPECT_TRUE(it["layers"]["only_base"].empty());
  EXPECT_TRUE(it["layers"]["only_new"].empty());
  auto table = run_cli("compare " + (dir / "a.json").string() + " " + (dir / "b.json").string(), dir.string());
  // Layers that compute no ONNX node (the runtime's layout reorders) match by name, and the heading says how many.
  size_t by_name = 0;
  for (const auto& l : report["runs"][0]["layers"]) by_name += !l.contains("onnx_nodes") || l["onnx_nodes"].empty();
  const size_t n = report["runs"][0]["layers"].size();
  const std::string matched = by_name == 0   ? " matched by ONNX nodes, "
                              : by_name == n ? " matched by name (they compute no ONNX node), "
                                             : " matched (" + std::to_string(by_name) +
                                                   " of them by name: they compute no ONNX node), ";
  EXPECT_NE(table.out.find(std::to_string(n) + matched + "0 fused differently, 0 only in BASE, 0 only in NEW"),
            std::string::npos)
      << table.out;
  if (!getenv("KEEP")) fs::remove_all(dir);
}

}  // namespace
