// More of `rooflens capacity` on the real ONNX Runtime runner with a zoo model: multi-stream queries of several
// samples (one runtime call each, judged by the early-stopping estimate), dynamic batching merging queued queries
// into one call (every merged query keeps its own scheduled time), and a runner that stops answering (killed after
// --timeout, its queries failed with the instance named). Rates, SLOs and timeouts are multiples of what this
// machine serves, measured on it (capacity_pace.h).
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/capacity_pace.h"
#include "support/cli_runner.h"
#include "support/processes.h"
#include "support/ort_cli_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

class CapacityScenarioTest : public OrtCliSuite<CapacityScenarioTest> {
 public:
  static constexpr const char* kDir = "rooflens-capacity-scenarios";
  static void prepare() {
    save_zoo_model("squeezenet1_0", {}, path("squeezenet.onnx"));
  }
 protected:
  static const CapacityPace& pace() {
    static const CapacityPace p = measure_capacity_pace(path("squeezenet.onnx"), dir_->string());
    return p;
  }
};

// The CSV's rows as cells (no quoted commas in these files: no errors).
std::vector<std::vector<std::string>> cells(const std::string& file) {
  std::ifstream f(file);
  std::vector<std::vector<std::string>> out;
  for (std::string line; std::getline(f, line);) {
    std::vector<std::string> row;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) row.push_back(c);
    out.push_back(row);
  }
  return out;
}

}  // namespace

TEST_F(CapacityScenarioTest, MultiStreamQueriesHoldSeveralSamplesInOneCall) {
  const std::string out = path("multi.json"), csv = path("multi.csv");
  CliResult r = cli("capacity " + path("squeezenet.onnx") + " --scenario multi-stream --samples-per-query 4 "
                    "--percentile 90 --duration 0.5 --threads 1 --no-roofs --no-db -q -o " + out + " --queries " + csv);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const json p = json::parse(slurp(out))["capacity"]["runs"][0]["points"].back();
  EXPECT_EQ(p["scenario"], "multi-stream");
  EXPECT_EQ(p["samples"].get<int64_t>(), 4 * p["queries"].get<int64_t>());
  EXPECT_TRUE(p["early_stopping"]["passed"].get<bool>());
  EXPECT_GE(p["early_stopping"]["estimate_ms"].get<double>(), p["latency_ms"]["p90"].get<double>());
  EXPECT_NE(r.out.find("early-stopping p90 estimate"), std::string::npos) << r.out;
  size_t rows = 0;
  for (const auto& row : cells(csv))
    if (row.size() > 15 && row[2] == "multi-stream") {
      ++rows;
      EXPECT_EQ(row[6], "4");   // samples of the query
      EXPECT_EQ(row[15], "4");  // the call's batch
    }
  EXPECT_EQ(rows, p["queries"].get<size_t>());
}

TEST_F(CapacityScenarioTest, DynamicBatchingMergesQueuedQueriesIntoOneCall) {
  const CapacityPace& m = pace();
  ASSERT_GT(m.offline_qps, 0);
  const std::string out = path("batching.json"), csv = path("batching.csv");
  // Four times the arrivals one runner takes at batch 1: queries queue, and merge into calls of up to 8.
  CliResult r = cli("capacity " + path("squeezenet.onnx") + " --qps " + m.qps(4) + " --slo " + m.ms(10) +
                    " --percentile 90 --duration 1 --max-batch 8 --batch-timeout 2ms --threads 1 --no-predict "
                    "--no-roofs --no-db -q -o " + out + " --queries " + csv);
  ASSERT_NE(r.rc, 2) << r.err;
  std::map<std::string, std::vector<std::vector<std::string>>> calls;  // start_ms -> the queries it served
  for (const auto& row : cells(csv))
    if (row.size() > 16 && row[2] == "server" && row[16] == "ok") calls[row[10]].push_back(row);
  ASSERT_FALSE(calls.empty());
  size_t merged = 0;
  for (const auto& [start, queries] : calls) {
    const int batch = std::stoi(queries.front()[15]);
    EXPECT_LE(batch, 8);
    EXPECT_EQ(static_cast<size_t>(batch), queries.size()) << "call at " << start;  // every query of the call is there
    if (queries.size() > 1) {
      ++merged;
      // Each merged query counts from its own scheduled time.
      EXPECT_NE(queries.front()[7], queries.back()[7]);
    }
  }
  EXPECT_GT(merged, calls.size() / 4) << calls.size() << " calls";
  EXPECT_NE(json::parse(slurp(out))["capacity"]["runs"][0]["label"].get<std::string>().find("max_batch=8 timeout=2ms"),
            std::string::npos);
}

TEST_F(CapacityScenarioTest, AHungRunnerIsKilledAfterTheTimeoutAndItsQueriesFail) {
  // Half what one runner serves, on two; a runner holding a message for 20 of its calls' time (1 s at least) is hung.
  const CapacityPace& m = pace();
  ASSERT_GT(m.offline_qps, 0);
  const std::string out = path("hung.json"), csv = path("hung.csv"), timeout = m.seconds(20, 1);
  pid_t pid = spawn_rooflens({"capacity", path("squeezenet.onnx"), "--qps", m.qps(0.5), "--slo", m.ms(25), "--instances",
                              "2", "--threads", "1", "--duration", m.seconds(400, 20), "--timeout", timeout,
                              "--no-predict", "--no-roofs", "--no-db", "-q", "-o", out, "--queries", csv},
                             path("hung.out"), path("hung.err"));
  ASSERT_TRUE(wait_for([&] { return cells(csv).size() > 20; }, m.patience(100)));
  const std::vector<pid_t> kids = children_of(pid);
  ASSERT_EQ(kids.size(), 2u);
  ::kill(kids[0], SIGSTOP);  // alive, but no longer answering
  EXPECT_EQ(wait_exit(pid), 1) << slurp(path("hung.err"));
  const json p = json::parse(slurp(out))["capacity"]["runs"][0]["points"].back();
  EXPECT_EQ(p["verdict"], "INVALID");
  EXPECT_NE(p["reasons"][0].get<std::string>().find("instance 0 (pid " + std::to_string(kids[0]) +
                                                    "): did not answer within " + timeout + " s; killed it"),
            std::string::npos)
      << p["reasons"].dump();
  EXPECT_GE(p["failed"].get<int64_t>(), 1);
  ::kill(kids[0], SIGKILL);  // already killed by rooflens; a no-op unless it failed to
}
