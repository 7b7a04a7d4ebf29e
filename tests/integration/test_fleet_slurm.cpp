// Fleets on a real Slurm (issue 44): a single-node Slurm from Debian's packages (support/slurm_cluster.h) and a real
// PostgreSQL (support/pg_cluster.h). rooflens submits, Slurm schedules and runs the tasks, each task stores into the
// database; what the database holds is read back with psql, not through rooflens. When Slurm cannot start here the
// tests skip with the reason (ctest reports them skipped, never passed).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/pg_cluster.h"
#include "support/slurm_cluster.h"

namespace rooflens::testing {
namespace {

namespace fs = std::filesystem;

const std::string kZoo = "/usr/share/libonnx-testdata/data/node";
// A small zoo: a dozen node tests whose names spread over the four shards.
const std::string kFilter = "'^test_(abs|add|relu|sigmoid|tanh|exp|neg|sqrt|ceil|floor|reciprocal|softsign)$'";

std::string captured(const std::string& text, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m[1].str() : "";
}

class FleetSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kZoo)) GTEST_SKIP() << "libonnx-testdata not installed";
    try {
      slurm_ = &SlurmCluster::instance();
    } catch (const std::exception& e) {
      GTEST_SKIP() << "Slurm cannot start here: " << e.what();
    }
    pg_ = &PgCluster::instance();
    db_ = pg_->new_database("fleet");
    db_name_ = db_.substr(db_.find("@/") + 2, db_.find('?') - db_.find("@/") - 2);
    // The password reaches the tasks through the environment sbatch passes on, never through argv or the script.
    ::setenv("PGPASSWORD", PgCluster::kPassword, 1);
    dir_ = fs::temp_directory_path() / ("rooflens-fleet-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }

  std::string url() const { return pg_->url(db_name_, false); }
  std::string sql(const std::string& q) const { return pg_->psql(q, db_name_); }
  // Model -> status of the runs stored under tag key=value that no later attempt superseded.
  std::multimap<std::string, std::string> kept(const std::string& key, const std::string& value) const {
    std::multimap<std::string, std::string> out;
    std::string rows = sql("SELECT r.model || '|' || r.status FROM runs r JOIN tags t ON t.session_id = r.session_id "
                           "WHERE t.key = '" + key + "' AND t.value = '" + value + "' AND r.superseded_by = '' "
                           "ORDER BY r.model");
    std::istringstream in(rows);
    for (std::string line; std::getline(in, line);)
      if (auto bar = line.find('|'); bar != std::string::npos) out.emplace(line.substr(0, bar), line.substr(bar + 1));
    return out;
  }
  std::string task_state(const std::string& job, int task) const {
    return captured(slurm_->tool("scontrol -o show job " + job + "_" + std::to_string(task)), "JobState=(\\S+)");
  }

  SlurmCluster* slurm_ = nullptr;
  PgCluster* pg_ = nullptr;
  std::string db_, db_name_;
  fs::path dir_;
};

// Four array tasks store every model of the zoo exactly once, with the verdicts one local bench run of the same
// zoo gives; a task requeued after it finished runs again (attempt 1) and replaces its results instead of doubling.
TEST_F(FleetSlurm, AFourTaskArrayStoresWhatOneLocalRunStoresAndARequeueDoublesNothing) {
  const std::string common = "bench " + kZoo + " --filter " + kFilter + " --mode validate -q --db " + shell_quote(url());
  auto local = run_cli(common + " --tag local=1 -o " + (dir_ / "local").string(), dir_);
  ASSERT_TRUE(local.rc == 0 || local.rc == 1) << local.err;
  const auto expected = kept("local", "1");
  ASSERT_GE(expected.size(), 8u) << "the filter should take a dozen models";

  // An sbatch option with a space in its value: sbatch itself must read it back as one word.
  auto fleet = run_cli(common + " --slurm 4 --slurm-poll 0.5 --slurm-opt \"--comment='rooflens fleet test'\" --fleet-dir " +
                           (dir_ / "fleet").string(), dir_);
  EXPECT_EQ(fleet.rc, local.rc) << fleet.err;
  const std::string job = captured(fleet.err, "submitted Slurm job (\\d+)");
  const std::string id = captured(fleet.err, "fleet (\\S+);");
  ASSERT_FALSE(job.empty()) << fleet.err;
  ASSERT_FALSE(id.empty()) << fleet.err;
  EXPECT_NE(fleet.err.find("4 of 4 task(s) done, 0 failed"), std::string::npos) << fleet.err;
  EXPECT_NE(slurm_->tool("scontrol -o show job " + job + "_0").find("Comment=rooflens fleet test"), std::string::npos);
  // The merged result on stdout: the fleet's summary line and every model.
  EXPECT_NE(fleet.out.find("fleet " + id), std::string::npos) << fleet.out;
  for (const auto& [model, status] : expected) EXPECT_NE(fleet.out.find(model), std::string::npos) << model;
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(fs::exists(dir_ / "fleet" / ("task-" + std::to_string(t) + ".log"))) << t;
  const auto stored = kept("fleet", id);
  EXPECT_EQ(stored, expected) << "the fleet's models and verdicts against one local run's";
  std::set<std::string> once;
  for (const auto& [model, status] : stored) EXPECT_TRUE(once.insert(model).second) << model << " stored twice";
  // Which shard ran which model is the tasks' business: each task that held models stored them under its index.
  const std::string by_task = sql("SELECT count(DISTINCT t.value) FROM tags t JOIN tags f ON f.session_id = t.session_id "
                                  "WHERE t.key = 'task' AND f.key = 'fleet' AND f.value = '" + id + "'");
  EXPECT_EQ(by_task, "4");

  // Requeue task 1 (finished) and let it start now instead of after Slurm's requeue delay.
  const std::string task1 = sql("SELECT count(*) FROM runs r JOIN tags t ON t.session_id = r.session_id JOIN tags f ON "
                                "f.session_id = r.session_id WHERE t.key = 'task' AND t.value = '1' AND f.key = 'fleet' "
                                "AND f.value = '" + id + "'");
  slurm_->tool("scontrol requeue " + job + "_1");
  slurm_->tool("scontrol update jobid=" + job + "_1 StartTime=now");
  ASSERT_TRUE(wait_for([&] {
    const std::string s = slurm_->tool("scontrol -o show job " + job + "_1");
    return s.find("Restarts=1") != std::string::npos && s.find("JobState=COMPLETED") != std::string::npos;
  }, std::chrono::seconds(120))) << slurm_->tool("scontrol -o show job " + job + "_1");
  EXPECT_EQ(kept("fleet", id), expected) << "a requeued task doubled or lost results";
  const std::string attempts = sql("SELECT string_agg(DISTINCT a.value, ',') FROM runs r JOIN tags a ON a.session_id = "
                                   "r.session_id JOIN tags t ON t.session_id = r.session_id JOIN tags f ON f.session_id = "
                                   "r.session_id WHERE r.superseded_by = '' AND a.key = 'attempt' AND t.key = 'task' AND "
                                   "t.value = '1' AND f.key = 'fleet' AND f.value = '" + id + "'");
  if (task1 != "0") {
    EXPECT_EQ(attempts, "1") << "task 1's kept results are its second attempt's";
  }
  const std::string superseded = sql("SELECT count(*) FROM runs WHERE superseded_by <> ''");
  EXPECT_EQ(superseded, task1) << "each of task 1's first-attempt results superseded once";
  // The fleet view says which attempt it kept and how many it replaced.
  auto view = run_cli("history --fleet " + id + " --json --db " + shell_quote(url()), dir_);
  ASSERT_EQ(view.rc, 0) << view.err;
  const auto j = nlohmann::json::parse(view.out);
  int64_t replaced = 0, rows = 0;
  for (const auto& c : j.at("classes"))
    for (const auto& r : c.at("runs")) {
      ++rows;
      replaced += r.at("superseded").get<int64_t>();
      if (r.at("task").get<std::string>() == "1") {
        EXPECT_EQ(r.at("attempt").get<std::string>(), "1") << r.dump();
      }
    }
  EXPECT_EQ(rows, static_cast<int64_t>(expected.size()));
  EXPECT_EQ(std::to_string(replaced), task1);
  const std::string log = slurp((dir_ / "fleet" / "task-1.log").string());
  EXPECT_NE(log.find("task 1, attempt 0"), std::string::npos) << log;
  EXPECT_NE(log.find("task 1, attempt 1"), std::string::npos) << log;
}

// A task cancelled with scancel while it runs: rooflens names it failed, with its node and its log, and exits 1;
// the other tasks finish and store.
TEST_F(FleetSlurm, ATaskKilledWithScancelIsReportedFailedWithItsLog) {
  const std::string out = (dir_ / "out.txt").string(), err = (dir_ / "err.txt").string();
  pid_t pid = spawn_rooflens({"bench", kZoo, "--filter", "^test_(abs|add|relu|sigmoid|tanh|exp|neg|sqrt)$", "--mode",
                              "benchmark", "--duration", "1", "--warmup-ms", "0", "--no-metrics", "-q", "--db", url(),
                              "--slurm", "4", "--slurm-poll", "0.5", "--fleet-dir", (dir_ / "fleet").string()},
                             out, err);
  std::string job;
  ASSERT_TRUE(wait_for([&] { return !(job = captured(slurp(err), "submitted Slurm job (\\d+)")).empty(); },
                       std::chrono::seconds(60))) << slurp(err);
  int running = -1;
  ASSERT_TRUE(wait_for([&] {
    running = std::atoi(captured(slurm_->tool("squeue -h -r -j " + job + " -t RUNNING -o %K"), "(\\d+)").c_str());
    return !captured(slurm_->tool("squeue -h -r -j " + job + " -t RUNNING -o %K"), "(\\d+)").empty();
  }, std::chrono::seconds(60)));
  // Slurm calls a task RUNNING before its script's first line ran: cancel it once it has started (its log says so),
  // as a user cancels a task they watched start.
  const std::string started = "task " + std::to_string(running) + ", attempt 0";
  const fs::path task_log = dir_ / "fleet" / ("task-" + std::to_string(running) + ".log");
  ASSERT_TRUE(wait_for([&] { return slurp(task_log.string()).find(started) != std::string::npos; },
                       std::chrono::seconds(60))) << slurp(task_log.string());
  slurm_->tool("scancel " + job + "_" + std::to_string(running));
  const int rc = wait_exit(pid);
  const std::string e = slurp(err);
  EXPECT_EQ(rc, 1) << e;
  const std::string line = captured(e, "(rooflens: task " + std::to_string(running) + " of Slurm job " + job + " failed: [^\\n]*)");
  ASSERT_FALSE(line.empty()) << e;
  EXPECT_NE(line.find("CANCELLED"), std::string::npos) << line;
  EXPECT_NE(line.find("on node localhost"), std::string::npos) << line;
  const std::string log = captured(line, "its log: (\\S+)");
  EXPECT_TRUE(fs::exists(log)) << line;
  EXPECT_NE(slurp(log).find("task " + std::to_string(running) + ", attempt 0"), std::string::npos) << slurp(log);
  EXPECT_NE(e.find("3 of 4 task(s) done, 1 failed"), std::string::npos) << e;
}

// --fleet-whole: each task runs every model (machines side by side), so no task's results supersede another's,
// and two tasks' results folders compare as any two bench runs.
TEST_F(FleetSlurm, AWholeFleetKeepsEveryTasksRunsAndTwoTasksCompare) {
  auto r = run_cli("bench " + kZoo + " --filter '^test_(abs|relu|tanh)$' --mode benchmark --duration 0.05 --warmup-ms 0 "
                   "--no-metrics -q --db " + shell_quote(url()) + " --slurm 2 --fleet-whole --slurm-poll 0.5 --fleet-dir " +
                       (dir_ / "fleet").string(), dir_);
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string id = captured(r.err, "fleet (\\S+);");
  EXPECT_EQ(kept("fleet", id).size(), 6u) << "three models on each of two tasks";
  EXPECT_EQ(sql("SELECT count(*) FROM runs WHERE superseded_by <> ''"), "0");
  auto cmp = run_cli("compare " + (dir_ / "fleet" / "task-0-attempt-0").string() + " " +
                         (dir_ / "fleet" / "task-1-attempt-0").string(), dir_);
  EXPECT_EQ(cmp.rc, 0) << cmp.err;
  for (const char* model : {"test_abs", "test_relu", "test_tanh"}) EXPECT_NE(cmp.out.find(model), std::string::npos) << cmp.out;
}

// capacity --search --slurm: the grid's configurations become array tasks, one each; every task serves its own
// configuration, writes its own report and stores under the fleet.
TEST_F(FleetSlurm, ACapacitySearchGridRunsOneConfigurationPerTask) {
  auto r = run_cli("capacity " + kZoo + "/test_relu/model.onnx --scenario offline --search --instances 1,2 --threads 1 "
                   "--duration 0.5 --no-roofs --no-predict -q -o " + (dir_ / "cap.json").string() + " --db " +
                       shell_quote(url()) + " --slurm 2 --slurm-poll 0.5 --fleet-dir " + (dir_ / "fleet").string(), dir_);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("2 of 2 task(s) done, 0 failed"), std::string::npos) << r.err;
  for (int t = 0; t < 2; ++t) {
    const auto report = nlohmann::json::parse(slurp((dir_ / ("cap-task-" + std::to_string(t) + "-attempt-0.json")).string()));
    const auto& runs = report.at("capacity").at("runs");
    ASSERT_EQ(runs.size(), 1u) << "task " << t << " runs one configuration";
    EXPECT_EQ(runs[0].at("config").at("instances"), t + 1) << "task " << t;
  }
  const std::string id = captured(r.err, "fleet (\\S+);");
  const std::string configs = sql("SELECT count(DISTINCT r.config) FROM runs r JOIN tags t ON t.session_id = r.session_id "
                                  "WHERE t.key = 'fleet' AND t.value = '" + id + "'");
  EXPECT_GE(std::stoi(configs), 2) << "each configuration's runs stored under the fleet";
}

// A two-task score fleet (one score per task's node; here both tasks share the one node, one after the other): each
// task scores the quick suite whole, writes its own result file and stores one score.
TEST_F(FleetSlurm, AScoreFleetStoresOneScorePerTask) {
  auto r = run_cli("score --quick --repetitions 1 -q --db " + shell_quote(url()) + " -o " + (dir_ / "score.json").string() +
                       " --slurm 2 --slurm-poll 0.5 --fleet-dir " + (dir_ / "fleet").string(), dir_);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("2 of 2 task(s) done, 0 failed"), std::string::npos) << r.err;
  for (int t = 0; t < 2; ++t)
    EXPECT_TRUE(fs::exists(dir_ / ("score-task-" + std::to_string(t) + "-attempt-0.json"))) << t;
  EXPECT_EQ(sql("SELECT count(*) FROM scores"), "2");
}

// Refused before anything is submitted: a password in the URL (it would sit in every task's command line), no
// database, and --shard beside --slurm.
TEST_F(FleetSlurm, APasswordInTheUrlOrNoDatabaseIsRefusedBeforeSubmitting) {
  const std::string base = "bench " + kZoo + " --filter '^test_abs$' --mode validate -q --slurm 2 --fleet-dir " +
                           (dir_ / "never").string();
  auto pw = run_cli(base + " --db " + shell_quote(pg_->url(db_name_, true)), dir_);
  EXPECT_EQ(pw.rc, 2) << pw.err;
  EXPECT_NE(pw.err.find("PGPASSFILE"), std::string::npos) << pw.err;
  EXPECT_EQ(pw.err.find(PgCluster::kPassword), std::string::npos) << "the password was shown";
  auto nodb = run_cli(base + " --no-db", dir_);
  EXPECT_EQ(nodb.rc, 2) << nodb.err;
  auto shard = run_cli(base + " --shard 1/2 --db " + shell_quote(url()), dir_);
  EXPECT_EQ(shard.rc, 2) << shard.err;
  EXPECT_FALSE(fs::exists(dir_ / "never")) << "nothing is written for a refused fleet";
}

}  // namespace
}  // namespace rooflens::testing
