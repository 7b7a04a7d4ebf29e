// Fleets in the results database (schema 5, db/fleet_store.h), the same tests against a real SQLite file and a real
// PostgreSQL server: a task stored twice keeps one run per model × configuration (the latest attempt, whatever the
// order stored) and the fleet view names it and what it replaced; other fleets, configurations and untagged sessions
// are left alone; trends and the CI gate never see a superseded run; a score stored twice in one fleet keeps one;
// attempts storing at once keep one; a version-4 database migrates; and the CLI's `history --fleet`.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/fleet_tags.h"
#include "core/history.h"
#include "db/fleet_store.h"
#include "db/schema.h"
#include "db/score_store.h"
#include "db/store.h"
#include "history/fleet_merge.h"
#include "history/trends.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"
#include "support/pg_cluster.h"
#include "support/score_builder.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::testing;

namespace {

constexpr const char* kFleetMachineA = "aaaa00001111fee1";
constexpr const char* kFleetMachineB = "bbbb00001111fee1";

// One session of a fleet's task: one run per model at `ms` (three repetitions of three samples).
struct FleetTask {
  std::string fleet, task, attempt, node, machine = kFleetMachineA, cpu = "Xeon Test";
  std::string when;
  std::vector<std::string> models = {"resnet"};
  std::string config = "ort";
  double ms = 10;
  std::string status = "pass", error = "";
};

HistorySession fleet_session(const FleetTask& t) {
  HistorySession s;
  s.id = random_uuid();
  s.created_at = t.when;
  s.command = "bench";
  s.rooflens_version = "0.1.0";
  s.runtime = "onnxruntime-node 1.30.0";
  s.machine.id = t.machine;
  s.machine.cpu = t.cpu;
  s.machine.cores = 2;
  s.machine.threads = 2;
  s.machine.memory_bytes = uint64_t{1} << 33;
  s.machine.os = "Debian";
  if (!t.fleet.empty()) s.tags[kFleetTag] = t.fleet;
  if (!t.task.empty()) s.tags[kTaskTag] = t.task;
  if (!t.attempt.empty()) s.tags[kAttemptTag] = t.attempt;
  if (!t.node.empty()) s.tags[kNodeTag] = t.node;
  s.tags[kSchedulerTag] = "slurm";
  for (const auto& m : t.models) {
    HistoryRun r;
    r.model = m;
    r.backend = "onnxruntime";
    r.config = t.config;
    r.status = t.status;
    r.error = t.error;
    if (t.status == "pass") {
      for (double f : {0.99, 1.0, 1.01, 0.98, 1.0, 1.02, 0.99, 1.0, 1.01}) r.samples_ms.push_back(t.ms * f);
      r.repetitions = {3, 3, 3};
      r.latency_ms.n = 9;
      r.latency_ms.median = t.ms;
    }
    s.runs.push_back(r);
  }
  return s;
}

class FleetStore : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("rooflens-fleet-store-" + GetParam());
    url_ = GetParam() == "sqlite" ? (dir_ / "results.db").string() : PgCluster::instance().new_database("fleet");
  }
  void TearDown() override { fs::remove_all(dir_); }
  FleetSummary summary(db::ResultStore& store, const std::string& fleet) {
    return merge_fleet(db::load_fleet(store, fleet));
  }
  fs::path dir_;
  std::string url_;
};

TEST_P(FleetStore, ATaskStoredTwiceKeepsItsLatestAttemptAndTheViewNamesIt) {
  auto store = db::ResultStore::open(url_);
  HistorySession first = fleet_session({"F1",
                                        "2",
                                        "0",
                                        "vm1",
                                        kFleetMachineA,
                                        "Xeon Test",
                                        "2026-11-29T00:20:00.000000Z",
                                        {"resnet", "vgg"},
                                        "ort",
                                        10});
  HistorySession again = fleet_session({"F1",
                                        "2",
                                        "1",
                                        "vm2",
                                        kFleetMachineA,
                                        "Xeon Test",
                                        "2026-11-29T00:30:00.000000Z",
                                        {"resnet", "vgg"},
                                        "ort",
                                        12});
  ASSERT_TRUE(store->store(first));
  EXPECT_EQ(db::fleet_models_stored(*store, "F1"), 2);
  ASSERT_TRUE(store->store(again));
  EXPECT_EQ(db::fleet_models_stored(*store, "F1"), 2) << "the same two models, not four";

  auto points = store->points({});
  ASSERT_EQ(points.size(), 2u);
  for (const auto& p : points) {
    EXPECT_EQ(p.session, again.id);
    EXPECT_EQ(p.latency_ms.median, 12);
  }
  db::StoreCounts c = store->counts();
  EXPECT_EQ(c.runs, 4) << "marked, not deleted";
  EXPECT_EQ(c.superseded_runs, 2);

  FleetSummary f = summary(*store, "F1");
  EXPECT_EQ(f.models, 2);
  EXPECT_EQ(f.runs, 2);
  EXPECT_EQ(f.superseded_runs, 2);
  EXPECT_EQ(f.sessions, 2);
  EXPECT_EQ(f.tasks, std::vector<std::string>{"2"});
  ASSERT_EQ(f.classes.size(), 1u);
  EXPECT_EQ(f.classes[0].cpu, "Xeon Test");
  EXPECT_EQ(f.classes[0].nodes, std::vector<std::string>{"vm2"}) << "the node of the kept attempt";
  ASSERT_EQ(f.classes[0].runs.size(), 2u);
  for (const auto& r : f.classes[0].runs) {
    EXPECT_EQ(r.attempt, "1");
    EXPECT_EQ(r.session, again.id);
    EXPECT_EQ(r.superseded, 1);
    EXPECT_EQ(r.median_ms, 12);
  }
  // The first attempt's session is still whole: the export keeps what was stored.
  EXPECT_EQ(store->load_session(first.id).runs.size(), 2u);
}

// The rule follows the sessions' times, not the order of storing: a rescued first attempt stored after the
// second (db import of an unstored file) does not displace it.
TEST_P(FleetStore, AnEarlierAttemptStoredLateDoesNotDisplaceTheLaterOne) {
  auto store = db::ResultStore::open(url_);
  HistorySession late =
      fleet_session({"F1", "0", "1", "vm2", kFleetMachineA, "Xeon Test", "2026-11-29T01:00:00.000000Z"});
  HistorySession early =
      fleet_session({"F1", "0", "0", "vm1", kFleetMachineA, "Xeon Test", "2026-11-29T00:00:00.000000Z"});
  ASSERT_TRUE(store->store(late));
  ASSERT_TRUE(store->store(early));
  auto points = store->points({});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].session, late.id);
  FleetSummary f = summary(*store, "F1");
  ASSERT_EQ(f.runs, 1);
  EXPECT_EQ(f.classes[0].runs[0].attempt, "1");
  EXPECT_EQ(f.classes[0].runs[0].superseded, 1);
}

TEST_P(FleetStore, OtherFleetsConfigurationsAndUntaggedSessionsAreLeftAlone) {
  auto store = db::ResultStore::open(url_);
  FleetTask base{"F1", "0", "0", "vm1", kFleetMachineA, "Xeon Test", "2026-11-29T00:00:00.000000Z"};
  FleetTask other_config = base;
  other_config.when = "2026-11-29T00:01:00.000000Z";
  other_config.config = "ort threads=1";
  FleetTask other_fleet = base;
  other_fleet.when = "2026-11-29T00:02:00.000000Z";
  other_fleet.fleet = "F2";
  FleetTask untagged = base;
  untagged.when = "2026-11-29T00:03:00.000000Z";
  untagged.fleet = "";
  FleetTask other_model = base;
  other_model.when = "2026-11-29T00:04:00.000000Z";
  other_model.models = {"vgg"};
  for (const auto* t : {&base, &other_config, &other_fleet, &untagged, &other_model})
    ASSERT_TRUE(store->store(fleet_session(*t)));
  EXPECT_EQ(store->points({}).size(), 5u);
  EXPECT_EQ(store->counts().superseded_runs, 0);
  EXPECT_EQ(db::fleet_models_stored(*store, "F1"), 2);
  EXPECT_EQ(db::fleet_models_stored(*store, "F2"), 1);
  EXPECT_EQ(db::fleet_models_stored(*store, "F3"), 0);
  FleetSummary f = summary(*store, "F1");
  EXPECT_EQ(f.runs, 3);
  EXPECT_EQ(f.superseded_runs, 0);
  // An untagged session with the same model and configuration stored later supersedes nothing either.
  FleetTask untagged_late = untagged;
  untagged_late.when = "2026-11-29T05:00:00.000000Z";
  ASSERT_TRUE(store->store(fleet_session(untagged_late)));
  EXPECT_EQ(store->counts().superseded_runs, 0);
}

// A requeued task that lands on another machine: its first attempt, slower, is the newest run of the first machine.
// Seen by the gate it would be judged a regression there; superseded, it is no part of any trend.
TEST_P(FleetStore, TrendsAndTheGateDoNotSeeSupersededRuns) {
  auto store = db::ResultStore::open(url_);
  for (int i = 0; i < 5; ++i) {
    FleetTask t{"", "", "", "", kFleetMachineA, "Xeon Test", "2026-11-2" + std::to_string(i) + "T00:00:00.000000Z"};
    t.ms = 10 + 0.05 * i;
    ASSERT_TRUE(store->store(fleet_session(t)));
  }
  HistorySession slow = fleet_session(
      {"F1", "0", "0", "vm1", kFleetMachineA, "Xeon Test", "2026-11-29T00:00:00.000000Z", {"resnet"}, "ort", 20});
  HistorySession moved = fleet_session(
      {"F1", "0", "1", "vm9", kFleetMachineB, "Epyc Test", "2026-11-29T01:00:00.000000Z", {"resnet"}, "ort", 10});
  ASSERT_TRUE(store->store(slow));
  ASSERT_TRUE(store->store(moved));

  db::HistoryQuery q;
  q.machine = kFleetMachineA;
  Trends t = build_trends(store->points(q), {});
  ASSERT_EQ(t.series.size(), 1u);
  EXPECT_EQ(t.series[0].points.size(), 5u);
  for (const auto& p : t.series[0].points) EXPECT_NE(p.session, slow.id);
  check_latest(t, kFleetMachineA, CheckOptions{});
  ASSERT_EQ(t.checks.size(), 1u);
  EXPECT_NE(t.checks[0].session, slow.id);
  EXPECT_FALSE(check_fails(t));

  // The same through the command: the gate on the first machine passes, and the fleet view sits on the second.
  CliResult r = run_cli("history --db " + shell_quote(url_) + " --check --machine " + kFleetMachineA, dir_.string());
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  // Control: with the mark removed by hand, the same gate fails on the slow run (what the mark protects from).
  store->connection().query("UPDATE runs SET superseded_by = ''");
  CliResult unmarked =
      run_cli("history --db " + shell_quote(url_) + " --check --machine " + kFleetMachineA, dir_.string());
  EXPECT_EQ(unmarked.rc, 1) << unmarked.out << unmarked.err;
}

TEST_P(FleetStore, AScoreStoredTwiceInOneFleetKeepsOne) {
  auto store = db::ResultStore::open(url_);
  auto& c = store->connection();
  const std::map<std::string, std::string> first_tags{
      {kFleetTag, "S1"}, {kTaskTag, "3"}, {kAttemptTag, "0"}, {kNodeTag, "vm1"}};
  std::map<std::string, std::string> again_tags = first_tags;
  again_tags[kAttemptTag] = "1";
  ScoreResult first = score_result("Xeon Test", 1000, {{"fp32 latency", 1000}}, "2026-11-29T00:00:00.000000Z");
  ScoreResult again = score_result("Xeon Test", 1100, {{"fp32 latency", 1100}}, "2026-11-29T01:00:00.000000Z");
  ScoreResult other_machine = score_result("Epyc Test", 900, {{"fp32 latency", 900}}, "2026-11-29T00:30:00.000000Z");
  ScoreResult quick = first;
  quick.quick = true;
  ScoreResult untagged = score_result("Xeon Test", 950, {{"fp32 latency", 950}}, "2026-11-29T02:00:00.000000Z");
  ASSERT_TRUE(db::store_score(c, first, first_tags));
  ASSERT_TRUE(db::store_score(c, again, again_tags));
  ASSERT_TRUE(db::store_score(c, other_machine, first_tags));
  ASSERT_TRUE(db::store_score(c, quick, first_tags));
  ASSERT_TRUE(db::store_score(c, untagged));

  auto kept = db::load_scores(c, {"", "", "", false, {{kFleetTag, "S1"}}});
  ASSERT_EQ(kept.size(), 3u) << "the retried full score once, the other machine's, the quick one";
  int full_on_xeon = 0;
  for (const auto& s : kept)
    if (s.result.machine.machine.model == "Xeon Test" && !s.result.quick) {
      ++full_on_xeon;
      EXPECT_EQ(s.result.overall.score, 1100);
      EXPECT_EQ(s.tags.at(kAttemptTag), "1");
    }
  EXPECT_EQ(full_on_xeon, 1);
  EXPECT_EQ(db::load_scores(c).size(), 4u) << "the untagged score stands beside the fleet's";
  EXPECT_EQ(db::load_scores(c, {"", "", "", false, {}, true}).size(), 5u);

  FleetSummary f = summary(*store, "S1");
  EXPECT_EQ(f.scores, 3);
  EXPECT_EQ(f.superseded_scores, 1);
  EXPECT_EQ(f.runs, 0);
  ASSERT_EQ(f.classes.size(), 2u);
  const FleetClass& xeon = f.classes[0].cpu == "Xeon Test" ? f.classes[0] : f.classes[1];
  ASSERT_EQ(xeon.scores.size(), 2u);
  for (const auto& s : xeon.scores) {
    if (s.quick) continue;
    EXPECT_EQ(s.attempt, "1");
    EXPECT_EQ(s.superseded, 1);
    EXPECT_EQ(s.overall, 1100);
  }
}

// Four attempts of one task storing at the same moment, each its own process and connection: one run is kept,
// the other three marked with its session.
TEST_P(FleetStore, AttemptsStoringAtOnceKeepOne) {
  { db::ResultStore::open(url_); }  // migrated before the race: the race under test is the fleet's
  std::vector<HistorySession> attempts;
  for (int a = 0; a < 4; ++a)
    attempts.push_back(fleet_session({"F1", "0", std::to_string(a), "vm" + std::to_string(a), kFleetMachineA,
                                      "Xeon Test", "2026-11-29T00:0" + std::to_string(a) + ":00.000000Z"}));
  std::vector<pid_t> kids;
  for (const auto& s : attempts) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int rc = 0;
      try {
        rc = db::ResultStore::open(url_)->store(s) ? 0 : 2;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "attempt: %s\n", e.what());
        rc = 1;
      }
      ::_exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) EXPECT_EQ(wait_exit(k), 0);
  auto store = db::ResultStore::open(url_);
  auto points = store->points({});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].session, attempts.back().id) << "the latest attempt";
  db::HistoryQuery all;
  all.with_superseded = true;
  int marked = 0;
  for (const auto& p : store->points(all)) marked += p.superseded_by == attempts.back().id;
  EXPECT_EQ(marked, 3);
}

// A database rooflens 4 left (runs and scores without marks or score tags) gains them when opened: its rows are
// kept rows, and a fleet stored afterwards supersedes as any.
TEST_P(FleetStore, AVersionFourDatabaseMigratesAndKeepsItsRows) {
  {
    auto raw = db::parse_db_url(url_);
    auto c = raw.kind == db::DbKind::sqlite ? db::open_sqlite(raw) : db::open_postgres(raw);
    db::ensure_schema(*c, 4);
    ASSERT_EQ(db::schema_version(*c), 4);
    EXPECT_FALSE(c->table_exists("score_tags"));
    EXPECT_THROW(c->query("SELECT superseded_by FROM runs"), db::DbError);
    db::ResultStore old(std::move(c));
    ASSERT_TRUE(old.store(fleet_session({"", "", "", "", kFleetMachineA, "Xeon Test", "2026-11-01T00:00:00.000000Z"})));
    old.connection().query(
        "INSERT INTO scores (uuid, created_at, stored_at, machine, suite, quick, kind, device, cpu,"
        " cores, threads, cores_used, isa, memory_bytes, os, kernel, runtime, runtime_version,"
        " rooflens_version, rooflens_commit, roofs, overall, overall_low, overall_high, roof_ratio,"
        " efficiency, incomplete, partial, result) SELECT 'old-score', 'x', 'x', id, 'v1', 0,"
        " 'measured', '', 'c', 1, 1, 1, '[]', 1, 'os', 'k', 'r', 'v', 'v', '', '', 1, 1, 1, 1, 1, 0,"
        " 0, 'not read here' FROM machines");
  }
  auto store = db::ResultStore::open(url_);
  EXPECT_EQ(db::schema_version(store->connection()), db::kSchemaVersion);
  EXPECT_TRUE(store->connection().table_exists("score_tags"));
  EXPECT_EQ(store->connection().query("SELECT count(*) FROM scores WHERE superseded_by = ''")[0][0],
            std::optional<std::string>("1"));
  ASSERT_EQ(store->points({}).size(), 1u);
  EXPECT_EQ(store->points({})[0].superseded_by, "");
  ASSERT_TRUE(
      store->store(fleet_session({"F1", "0", "0", "vm1", kFleetMachineA, "Xeon Test", "2026-11-29T00:00:00.000000Z"})));
  ASSERT_TRUE(
      store->store(fleet_session({"F1", "0", "1", "vm1", kFleetMachineA, "Xeon Test", "2026-11-29T01:00:00.000000Z"})));
  EXPECT_EQ(store->points({}).size(), 2u) << "the old untagged run and the fleet's kept one";
  EXPECT_EQ(store->counts().superseded_runs, 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, FleetStore, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// db export writes superseded runs too; storing the lines again elsewhere, in the opposite order, marks the same
// runs: the kept set is a property of the sessions, not of the database they went through.
TEST(FleetStoreMove, ExportedAttemptsImportedInAnyOrderKeepTheSameRuns) {
  fs::path dir = fresh_test_dir("rooflens-fleet-move");
  auto lite = db::ResultStore::open((dir / "a.db").string());
  for (int a = 0; a < 3; ++a)
    ASSERT_TRUE(lite->store(fleet_session({"F1",
                                           "0",
                                           std::to_string(a),
                                           "vm1",
                                           kFleetMachineA,
                                           "Xeon Test",
                                           "2026-11-29T0" + std::to_string(a) + ":00:00.000000Z",
                                           {"resnet", "vgg"}})));
  std::vector<std::string> lines;
  for (const auto& id : lite->session_ids()) lines.push_back(history_session_to_json_line(lite->load_session(id)));
  ASSERT_EQ(lines.size(), 3u);
  auto pg = db::ResultStore::open(PgCluster::instance().new_database("fleetmove"));
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) ASSERT_TRUE(pg->store(history_session_from_json(*it)));
  auto kept_of = [](db::ResultStore& s) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& p : s.points({})) out.emplace_back(p.session, p.model);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(kept_of(*pg), kept_of(*lite));
  EXPECT_EQ(pg->counts().superseded_runs, 4);
  EXPECT_EQ(lite->counts().superseded_runs, 4);
  fs::remove_all(dir);
}

// The command: sessions a fleet's tasks would store (imported as JSON lines), `history --fleet` as JSON and text,
// and an id with nothing stored is one line naming it.
TEST(FleetCli, HistoryFleetShowsTheMergedRunAndRefusesAnUnknownId) {
  fs::path dir = fresh_test_dir("rooflens-fleet-cli");
  const std::string db = (dir / "results.db").string();
  std::vector<HistorySession> sessions{
      fleet_session(
          {"bench-1", "0", "0", "vm1", kFleetMachineA, "Xeon Test", "2026-11-29T00:00:00.000000Z", {"resnet", "vgg"}}),
      fleet_session({"bench-1",
                     "1",
                     "0",
                     "vm2",
                     kFleetMachineB,
                     "Epyc Test",
                     "2026-11-29T00:01:00.000000Z",
                     {"bert"},
                     "ort",
                     0,
                     "timeout",
                     "benchmark: timed out after 60 s"}),
      fleet_session({"bench-1",
                     "1",
                     "1",
                     "vm3",
                     kFleetMachineB,
                     "Epyc Test",
                     "2026-11-29T00:09:00.000000Z",
                     {"bert"},
                     "ort",
                     0,
                     "crash",
                     "run: the runner died (signal 11)"})};
  {
    std::ofstream out(dir / "fleet.jsonl");
    for (const auto& s : sessions) out << history_session_to_json_line(s) << "\n";
  }
  ASSERT_EQ(
      run_cli("db import -q --db " + shell_quote(db) + " " + shell_quote((dir / "fleet.jsonl").string()), dir.string())
          .rc,
      0);
  CliResult r = run_cli("history --db " + shell_quote(db) + " --fleet bench-1 --json", dir.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema").get<std::string>(), kFleetSchema);
  EXPECT_EQ(j.at("fleet"), "bench-1");
  EXPECT_EQ(j.at("summary").at("models"), 3);
  EXPECT_EQ(j.at("summary").at("statuses").at("pass"), 2);
  EXPECT_EQ(j.at("summary").at("statuses").at("crash"), 1);
  EXPECT_FALSE(j.at("summary").at("statuses").contains("timeout")) << "the timed-out attempt was superseded";
  EXPECT_EQ(j.at("summary").at("tasks").get<std::vector<std::string>>(), (std::vector<std::string>{"0", "1"}));
  ASSERT_EQ(j.at("classes").size(), 2u);
  for (const auto& c : j.at("classes")) {
    EXPECT_EQ(c.at("machines").size(), 1u);
    if (c.at("cpu") != "Epyc Test") continue;
    ASSERT_EQ(c.at("runs").size(), 1u);
    const auto& bert = c.at("runs")[0];
    EXPECT_EQ(bert.at("model"), "bert");
    EXPECT_EQ(bert.at("status"), "crash");
    EXPECT_EQ(bert.at("error"), sessions[2].runs[0].error);
    EXPECT_EQ(bert.at("attempt"), "1");
    EXPECT_EQ(bert.at("node"), "vm3");
    EXPECT_EQ(bert.at("superseded"), 1);
    EXPECT_EQ(c.at("nodes").get<std::vector<std::string>>(), (std::vector<std::string>{"vm3"}));
  }
  CliResult text =
      run_cli("history --db " + shell_quote(db) + " --fleet bench-1 -o " + shell_quote((dir / "fleet.txt").string()),
              dir.string());
  ASSERT_EQ(text.rc, 0) << text.err;
  const std::string table = slurp((dir / "fleet.txt").string());
  EXPECT_NE(table.find("bench-1"), std::string::npos) << table;
  EXPECT_NE(table.find(sessions[2].runs[0].error), std::string::npos) << table;
  for (const char* cpu : {"Xeon Test", "Epyc Test"}) EXPECT_NE(table.find(cpu), std::string::npos) << table;

  CliResult none = run_cli("history --db " + shell_quote(db) + " --fleet no-such-fleet", dir.string());
  EXPECT_EQ(none.rc, 1);
  EXPECT_EQ(none.err_lines(), 1) << none.err;
  EXPECT_NE(none.err.find("no-such-fleet"), std::string::npos) << none.err;
  CliResult mixed = run_cli("history --db " + shell_quote(db) + " --fleet bench-1 --check", dir.string());
  EXPECT_EQ(mixed.rc, 2) << mixed.err;
  fs::remove_all(dir);
}

}  // namespace
