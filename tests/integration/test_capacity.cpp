// `rooflens capacity` on the real ONNX Runtime runner and zoo models, through the binary: an Offline run, a Server
// run far below capacity (VALID) and far above it (INVALID, "reduce --qps"), --find-peak seeded from its own Offline
// run and bracketing the rate the runner drains, a runner killed mid-run (its queries failed, the instance named,
// every record kept), Ctrl-C (partial result and records written, exit 1), bad flags (exit 2, one line naming the
// flag), the self-test. Runs are short (1-2 s on a fast machine): behaviour is checked here, speed in `make bench`.
// Every rate, SLO and duration is a multiple of what this machine serves, measured on it (capacity_pace.h).
#include <signal.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

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

const std::string kQuickCapacity = " --threads 1 --no-roofs --no-db -q ";
const std::string kNoThreads = " --no-roofs --no-db -q ";

class CapacityTest : public OrtCliSuite<CapacityTest> {
 public:
  static constexpr const char* kDir = "rooflens-capacity";
  static void prepare() {
    save_zoo_model("squeezenet1_0", {}, path("squeezenet.onnx"));
    rooflens::zoo::ZooOptions fixed;
    fixed.batch = 1;
    save_zoo_model("squeezenet1_0", fixed, path("fixed.onnx"));
  }
 protected:
  static json report(const std::string& file) { return json::parse(slurp(file)); }
  static const json& last_point(const json& rep) { return rep["capacity"]["runs"][0]["points"].back(); }

  static size_t lines(const std::string& file) {
    std::ifstream f(file);
    return static_cast<size_t>(std::count(std::istreambuf_iterator<char>(f), {}, '\n'));
  }

  // This machine's pace with squeezenet, measured once for the tests that need only a rough one.
  static const CapacityPace& pace() {
    static const CapacityPace p = measure_capacity_pace(path("squeezenet.onnx"), dir_->string());
    return p;
  }
};

std::vector<std::string> csv_rows(const std::string& file) {
  std::ifstream f(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(f, line);) out.push_back(line);
  return out;
}

// The load a server run offered its instances: its rate × the mean runtime call its instances timed in that very
// run, per instance (1: the rate they drain). The machine's speed moves between runs (by tens of % within a minute on
// a shared 2-core host), so a run's verdict is held against the speed it ran at, not against another run's.
double offered_load(const json& point) {
  double busy_s = 0, calls = 0;
  for (const json& u : point["instances"]) {
    busy_s += u["busy_share"].get<double>() * point["duration_s"].get<double>();
    calls += u["requests"].get<double>();  // its runtime calls (the key predates "message")
  }
  const double instances = static_cast<double>(point["instances"].size());
  return calls > 0 ? point["target_qps"].get<double>() * busy_s / calls / instances : 0;
}

}  // namespace

TEST_F(CapacityTest, OfflineRunIsValidAndEveryRecordIsOnTheSharedClock) {
  const std::string out = path("offline.json"), csv = path("offline.csv");
  CliResult r = cli("capacity " + path("squeezenet.onnx") + " --scenario offline --duration 1" + kQuickCapacity + "-o " + out +
                    " --queries " + csv);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("rooflens capacity:", 0), 0u);
  EXPECT_NE(r.out.find("\nVALID  offline: "), std::string::npos) << r.out;  // the verdict first
  const json rep = report(out);
  EXPECT_EQ(rep["tool"]["command"], "capacity");
  const json& p = last_point(rep);
  EXPECT_EQ(p["scenario"], "offline");
  EXPECT_EQ(p["verdict"], "VALID");
  EXPECT_GT(p["samples_per_s"].get<double>(), 0);
  EXPECT_GE(p["queries"].get<int64_t>(), 100);
  EXPECT_GT(rep["capacity"]["runs"][0]["prediction"]["service_ms"].get<double>(), 0);
  // One CSV row per query of every run (the baseline's and the offline run's), each ordered in time.
  const std::vector<std::string> rows = csv_rows(csv);
  ASSERT_GT(rows.size(), static_cast<size_t>(p["queries"].get<int64_t>()));
  EXPECT_EQ(rows[0].substr(0, 32), "run,config,scenario,target_qps,q");
  size_t offline_rows = 0;
  // Offline messages carry up to calls_per_message calls each (one reply for all; the report's key is still
  // "calls_per_request"): the queries of one message share its send time, and its calls ran one after another.
  const int64_t per_message = p["calls_per_request"].get<int64_t>();
  EXPECT_GE(per_message, 1);
  std::map<std::string, std::vector<std::pair<double, double>>> messages;  // instance + sent -> calls
  for (size_t i = 1; i < rows.size(); ++i) {
    std::vector<std::string> c;
    std::stringstream ss(rows[i]);
    for (std::string cell; std::getline(ss, cell, ',');) c.push_back(cell);
    ASSERT_GE(c.size(), 17u) << rows[i];
    if (c[2] == "offline") {
      ++offline_rows;
      messages[c[14] + "@" + c[9]].push_back({std::stod(c[10]), std::stod(c[11])});
    }
    EXPECT_EQ(c[16], "ok");
    const double sent = std::stod(c[9]), start = std::stod(c[10]), end = std::stod(c[11]), done = std::stod(c[12]);
    EXPECT_LE(sent, start) << rows[i];  // the runner timed its call inside what rooflens saw
    EXPECT_LE(start, end) << rows[i];
    EXPECT_LE(end, done) << rows[i];
  }
  EXPECT_EQ(offline_rows, static_cast<size_t>(p["queries"].get<int64_t>()));
  for (auto& [key, calls] : messages) {
    EXPECT_LE(static_cast<int64_t>(calls.size()), per_message) << key;
    std::sort(calls.begin(), calls.end());
    for (size_t k = 1; k < calls.size(); ++k) EXPECT_LE(calls[k - 1].second, calls[k].first) << key;
  }
}

TEST_F(CapacityTest, ServerFarBelowCapacityIsValid) {
  // A quarter of what one runner serves, an SLO of 25 of its calls: VALID with every query inside the SLO, even on a
  // machine that runs at half the speed measured.
  const CapacityPace& m = pace();
  ASSERT_GT(m.offline_qps, 0);
  const std::string out = path("below.json"), qps = m.qps(0.25), slo = m.ms(25);
  CliResult r = cli("capacity " + path("squeezenet.onnx") + " --qps " + qps + " --slo " + slo +
                    " --percentile 90 --duration 2" + kQuickCapacity + "--no-predict -o " + out);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("VALID  server at " + qps + " QPS"), std::string::npos) << r.out;
  const json rep = report(out);
  const json& p = last_point(rep);
  EXPECT_EQ(p["verdict"], "VALID");
  EXPECT_EQ(p["over_slo"], 0);
  EXPECT_TRUE(p["early_stopping"]["passed"].get<bool>());
  EXPECT_NEAR(p["scheduled_qps"].get<double>(), std::stod(qps), 0.4 * std::stod(qps));
  EXPECT_EQ(p["completed"], p["queries"]);
  // The generator issues on time: its lag stays below the verdict's warning level, a tenth of the SLO.
  EXPECT_LT(p["issue_lag"]["p99_ms"].get<double>(), 0.1 * std::stod(slo));
}

TEST_F(CapacityTest, ServerFarAboveCapacityIsInvalidAndSaysReduceQps) {
  // Eight times what one runner serves, an SLO of two calls: the queue grows through the whole run.
  const CapacityPace& m = pace();
  ASSERT_GT(m.offline_qps, 0);
  const std::string out = path("above.json"), qps = m.qps(8);
  CliResult r = cli("capacity " + path("squeezenet.onnx") + " --qps " + qps + " --slo " + m.ms(2) +
                    " --percentile 90 --duration 1" + kQuickCapacity + "--no-predict -o " + out);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("INVALID  server at " + qps + " QPS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reduce --qps"), std::string::npos) << r.out;
  const json rep = report(out);
  const json& p = last_point(rep);
  EXPECT_EQ(p["verdict"], "INVALID");
  EXPECT_GT(p["over_slo"].get<int64_t>(), p["queries"].get<int64_t>() / 2);
  EXPECT_LT(p["completed_qps"].get<double>(), 0.5 * p["scheduled_qps"].get<double>());
}

TEST_F(CapacityTest, FindPeakBracketsTheRateTheRunnerDrains) {
  // The SLO is 8 calls of this machine, measured just before. Long beside a call: a run at half the rate the runner
  // drains queues a call or two at its 90th percentile, so it passes even if the machine slows to half its measured
  // speed. Short beside a run of 100 queries: at 1.3 × the rate the runner drains, the queue grows by 0.3 s a second,
  // 20 calls by the 90th percentile of the run, so no such rate passes even at twice the speed measured.
  const CapacityPace m = measure_capacity_pace(path("squeezenet.onnx"), dir_->string());
  ASSERT_GT(m.offline_qps, 0);
  const std::string peak = path("peak.json");
  CliResult r = cli("capacity " + path("squeezenet.onnx") + " --find-peak --slo " + m.ms(8) + " --percentile 90 "
                    "--duration 1 --precision 20% --min-queries 100" + kQuickCapacity + "-o " + peak);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const json rep = report(peak);
  const json& run = rep["capacity"]["runs"][0];
  ASSERT_GE(run["points"].size(), 3u);
  // The search seeds itself from an Offline run of its own, measured first, never from the prediction.
  const json& seed = run["points"][0];
  ASSERT_EQ(seed["scenario"], "offline");
  const double offline = seed["completed_qps"].get<double>();
  ASSERT_GT(offline, 0);
  EXPECT_NEAR(run["points"][1]["target_qps"].get<double>(), 0.8 * offline, 1e-9 * offline)
      << "the first rate tried is 0.8 × the Offline throughput (docs/capacity.md, Find the peak)";
  // The bracket's VALID end did not overload the runner; its INVALID end kept it at least half busy.
  const double lower = run["peak"]["lower"].get<double>(), upper = run["peak"]["upper"].get<double>();
  EXPECT_GT(lower, 0);
  ASSERT_GT(upper, lower);
  for (size_t i = 1; i < run["points"].size(); ++i) {
    const json& p = run["points"][i];
    EXPECT_EQ(p["scenario"], "server");
    EXPECT_TRUE(p["verdict"] == "VALID" || p["verdict"] == "INVALID");
    const double load = offered_load(p), qps = p["target_qps"].get<double>();
    if (qps == lower) {
      EXPECT_LE(load, 1.3) << "VALID at " << qps << " QPS";
    }
    if (qps == upper) {
      EXPECT_GE(load, 0.5) << "INVALID at " << qps << " QPS";
    }
  }
  // The prediction stands beside the measurement.
  EXPECT_GT(run["prediction"]["peak_qps"].get<double>(), 0);
  EXPECT_EQ(run["prediction"]["measured_peak_qps"].get<double>(), lower);
  EXPECT_NE(r.out.find("VALID  server peak"), std::string::npos) << r.out;
}

TEST_F(CapacityTest, FindPeakGivesUpWhenQueriesMissTheSloWithoutQueueing) {
  // No rate meets an SLO of a twentieth of a call: an INVALID run with idle instances (a fifth of the Offline rate)
  // ends the search instead of walking down to rates whose minimum query count takes hours. The search starts at
  // the user's --qps: no Offline run first.
  const CapacityPace& m = pace();
  ASSERT_GT(m.offline_qps, 0);
  const std::string out = path("no-peak.json"), qps = m.qps(0.2);
  CliResult r = cli("capacity " + path("squeezenet.onnx") + " --find-peak --qps " + qps + " --slo " + m.ms(0.05) +
                    " --percentile 90 --duration 0.5 --min-queries 30 --no-predict" + kQuickCapacity + "-o " + out);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("INVALID  no server QPS tried was VALID"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: find-peak stopped at " + qps + " QPS"), std::string::npos) << r.out;
  const json run = report(out)["capacity"]["runs"][0];
  EXPECT_EQ(run["points"].size(), 1u);
  EXPECT_EQ(run["peak"]["qps"], 0);
}

TEST_F(CapacityTest, AKilledRunnerFailsItsQueriesNamesTheInstanceAndKeepsTheRecords) {
  // Half what one runner serves, on two: far below capacity; the run lasts long enough to be killed in its middle.
  const CapacityPace& m = pace();
  ASSERT_GT(m.offline_qps, 0);
  const std::string out = path("killed.json"), csv = path("killed.csv");
  pid_t pid = spawn_rooflens({"capacity", path("squeezenet.onnx"), "--qps", m.qps(0.5), "--slo", m.ms(25),
                              "--instances", "2", "--threads", "1", "--duration", m.seconds(400, 20), "--no-predict",
                              "--no-roofs", "--no-db", "-q", "-o", out, "--queries", csv},
                             path("killed.out"), path("killed.err"));
  ASSERT_TRUE(wait_for([&] { return lines(csv) > 40; }, m.patience(200)));
  const std::vector<pid_t> kids = children_of(pid);
  ASSERT_EQ(kids.size(), 2u);
  const size_t before = lines(csv);
  ::kill(kids[1], SIGKILL);
  EXPECT_EQ(wait_exit(pid), 1) << slurp(path("killed.err"));
  const json rep = report(out);
  EXPECT_TRUE(rep["capacity"]["partial"].get<bool>());
  const json& p = last_point(rep);
  EXPECT_EQ(p["verdict"], "INVALID");
  ASSERT_FALSE(p["reasons"].empty());
  EXPECT_NE(p["reasons"][0].get<std::string>().find("instance 1 (pid " + std::to_string(kids[1]) + ")"),
            std::string::npos)
      << p["reasons"].dump();
  // Nothing measured before the kill was lost; every query issued is in the records (none silently dropped).
  const std::vector<std::string> rows = csv_rows(csv);
  EXPECT_GE(rows.size(), before);
  size_t server_rows = 0, failed = 0;
  for (const auto& row : rows) {
    if (row.find(",server,") != std::string::npos) ++server_rows;
    if (row.find(",failed,") != std::string::npos) {
      ++failed;
      EXPECT_NE(row.find("instance 1"), std::string::npos) << row;
    }
  }
  EXPECT_EQ(server_rows, static_cast<size_t>(p["queries"].get<int64_t>()));
  EXPECT_EQ(static_cast<int64_t>(failed), p["failed"].get<int64_t>());
  EXPECT_NE(slurp(path("killed.out")).find("INVALID"), std::string::npos);
}

TEST_F(CapacityTest, CtrlCWritesThePartialResultAndTheRecords) {
  const CapacityPace& m = pace();
  ASSERT_GT(m.offline_qps, 0);
  const std::string out = path("interrupted.json"), csv = path("interrupted.csv");
  pid_t pid = spawn_rooflens({"capacity", path("squeezenet.onnx"), "--qps", m.qps(0.5), "--slo", m.ms(25), "--threads",
                              "1", "--duration", m.seconds(400, 30), "--no-predict", "--no-roofs", "--no-db", "-q",
                              "-o", out, "--queries", csv},
                             path("int.out"), path("int.err"));
  ASSERT_TRUE(wait_for([&] { return lines(csv) > 20; }, m.patience(100)));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 1) << slurp(path("int.err"));
  const json rep = report(out);
  EXPECT_TRUE(rep["capacity"]["partial"].get<bool>());
  const json& p = last_point(rep);
  EXPECT_EQ(p["verdict"], "INVALID");
  EXPECT_NE(p["reasons"].dump().find("interrupted"), std::string::npos);
  EXPECT_EQ(csv_rows(csv).size(), static_cast<size_t>(p["queries"].get<int64_t>()) + 1);
}

TEST_F(CapacityTest, BadFlagsAreOneLineNamingTheFlagWithExitTwo) {
  const std::string m = path("squeezenet.onnx");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--qps 0 --slo 15ms", "--qps"},
      {"--qps -3 --slo 15ms", "--qps"},
      {"--qps 10 --slo 0ms", "--slo"},
      {"--qps 10", "--slo"},
      {"--qps 10 --slo 15ms --percentile 100", "--percentile"},
      {"--qps 10 --slo 15ms --percentile 0", "--percentile"},
      {"--qps 10 --slo 15ms --instances 2 --threads 2", "--oversubscribe"},
      {"--qps 10 --slo 15ms --instances 1,2", "--search"},
      {"--qps 10 --slo 15ms --slo-typo", "--slo-typo"},
      {"--scenario offline --find-peak", "--find-peak"},
  };
  for (const auto& [flags, named] : cases) {
    CliResult r = cli("capacity " + m + " " + flags + kNoThreads);
    EXPECT_EQ(r.rc, 2) << flags << ": " << r.err;
    EXPECT_LE(r.err_lines(), 2) << flags << ": " << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << flags << ": " << r.err;
  }
  // Dynamic batching on a model whose batch is fixed.
  CliResult f = cli("capacity " + path("fixed.onnx") + " --qps 10 --slo 50ms --max-batch 4" + kNoThreads);
  EXPECT_EQ(f.rc, 2) << f.err;
  EXPECT_EQ(f.err_lines(), 1) << f.err;
  EXPECT_NE(f.err.find("--max-batch"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("fixed batch of 1"), std::string::npos) << f.err;
}

TEST_F(CapacityTest, SelfTestReportsTheGeneratorsOwnCost) {
  const std::string out = path("self.json");
  CliResult r = cli("capacity --self-test --duration 1 -q --no-db -o " + out);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const json st = report(out)["capacity"]["self_test"];
  EXPECT_GT(st["engine_qps"].get<double>(), st["max_qps"].get<double>());  // the runners' pipes cost something
  EXPECT_GT(st["max_qps"].get<double>(), 0);
  EXPECT_NEAR(st["lag_at_qps"].get<double>(), st["max_qps"].get<double>() / 2, 1e-6);
  EXPECT_GE(st["latency_p99_ms"].get<double>(), st["latency_p50_ms"].get<double>());
  EXPECT_NE(r.out.find("self-test (one Identity)"), std::string::npos) << r.out;
}
