// The results database through its C++ interface, the same tests against a real SQLite file and a real
// PostgreSQL server (a throwaway cluster, support/pg_cluster.h): round trips of hostile text (every statement is
// parameterised), one session stored once, filters, a database of a newer schema refused untouched, export →
// import between the two kinds, and four writers at once losing nothing.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "core/history.h"
#include "core/sha256.h"
#include "db/schema.h"
#include "db/store.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"
#include "support/pg_cluster.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::testing;

namespace {

const std::string kHostile = "it's \"quoted\"; '; DROP TABLE runs; -- \\ % _ ? $1 \n ünï 🙂";

HistorySession session(const std::string& model, const std::string& when, std::vector<double> medians,
                       const std::string& machine = "feedfacecafebeef") {
  HistorySession s;
  s.id = random_uuid();
  s.created_at = when;
  s.command = "profile";
  s.rooflens_version = "0.1.0";
  s.runtime = "onnxruntime-node 1.30.0";
  s.settings = R"({"repeat":3})";
  s.machine.id = machine;
  s.machine.cpu = "Test CPU " + kHostile;
  s.machine.cores = 2;
  s.machine.threads = 4;
  s.machine.memory_bytes = uint64_t{1} << 34;
  s.machine.os = "Debian";
  s.machine.kernel = "Linux 6.1";
  s.machine.roofs_hash = "0123456789abcdef";
  s.tags = {{"commit", "abc123"}, {"note", kHostile}, {kHostile, "v"}};
  HistoryRun r;
  r.model = model;
  r.model_hash = sha256_hex(model);
  r.backend = "onnxruntime";
  r.options = "graphOptimizationLevel=" + kHostile;
  r.config = "batch=1 threads=2";
  r.status = "pass";
  for (double m : medians) {
    for (double f : {0.98, 1.0, 1.03}) r.samples_ms.push_back(m * f);
    r.repetitions.push_back(3);
  }
  r.latency_ms.n = static_cast<int64_t>(r.samples_ms.size());
  r.latency_ms.median = medians.empty() ? 0 : medians[0];
  r.latency_ms.min = 0.1;
  r.latency_ms.max = 1e300;  // an extreme value survives too
  r.latency_ms.cv = 1.0 / 3;
  r.layers = {{"conv " + kHostile, "Conv", 1.25, {"n1", kHostile}}, {"relu", "Relu", 0.125, {}}};
  r.reference = {"ref " + kHostile, sha256_hex("ref"), {}};
  for (double m : medians) r.reference.run_medians.push_back(m / 1.25);
  s.runs.push_back(r);
  HistoryRun failed = r;
  failed.config = "batch=8 threads=2";
  failed.status = "crash";
  failed.error = "run: " + kHostile;
  failed.samples_ms.clear();
  failed.repetitions.clear();
  failed.layers.clear();
  failed.latency_ms = {};
  failed.reference = {};
  s.runs.push_back(failed);
  return s;
}

class HistoryStore : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("rooflens-store-" + GetParam());
    if (GetParam() == "sqlite") url_ = (dir_ / "results.db").string();
    else url_ = PgCluster::instance().new_database("store");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string url_;
};

TEST_P(HistoryStore, HostileTextRoundTripsIntactThroughParameterisedStatements) {
  auto store = db::ResultStore::open(url_);
  HistorySession s = session(kHostile + " model", "2026-01-02T03:04:05.123456Z", {10.0, 10.5, 9.75});
  ASSERT_TRUE(store->store(s));
  HistorySession back = store->load_session(s.id);
  EXPECT_EQ(history_session_to_json_line(back), history_session_to_json_line(s));
  // Nothing was executed from the text: every table is still there and holds exactly what was stored.
  db::StoreCounts c = store->counts();
  EXPECT_EQ(c.sessions, 1);
  EXPECT_EQ(c.runs, 2);
  EXPECT_EQ(c.layers, 2);
  EXPECT_EQ(c.machines, 1);
  auto points = store->points({});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].model, kHostile + " model");
  EXPECT_EQ(points[0].tags.at(kHostile), "v");
  EXPECT_EQ(points[0].run_medians, (std::vector<double>{10.0, 10.5, 9.75}));
  EXPECT_EQ(points[0].center_ms, 10.0);  // the median of the repetition medians
  EXPECT_EQ(points[0].reference.model, "ref " + kHostile);
  EXPECT_EQ(points[0].reference.model_hash, sha256_hex("ref"));
  EXPECT_EQ(points[0].reference.run_medians, (std::vector<double>{8.0, 8.4, 7.8}));
  EXPECT_EQ(points[1].reference.model, "");
  EXPECT_TRUE(points[1].reference.run_medians.empty());
  EXPECT_EQ(points[1].status, "crash");
  EXPECT_EQ(points[1].center_ms, 0);
}

TEST_P(HistoryStore, ASessionIsStoredOnceAndReopeningKeepsIt) {
  HistorySession s = session("m", "2026-01-02T03:04:05.000001Z", {5, 6});
  {
    auto store = db::ResultStore::open(url_);
    EXPECT_TRUE(store->store(s));
    EXPECT_FALSE(store->store(s));  // the same id: nothing written
  }
  auto again = db::ResultStore::open(url_);
  EXPECT_EQ(db::schema_version(again->connection()), db::kSchemaVersion);
  EXPECT_EQ(again->counts().sessions, 1);
  EXPECT_EQ(again->session_ids(), std::vector<std::string>{s.id});
}

TEST_P(HistoryStore, FiltersBySinceMachineAndTags) {
  auto store = db::ResultStore::open(url_);
  HistorySession a = session("m", "2026-01-01T00:00:00.000000Z", {5}, "aaaa111122223333");
  HistorySession b = session("m", "2026-02-01T00:00:00.000000Z", {6}, "bbbb111122223333");
  b.tags["branch"] = "main";
  ASSERT_TRUE(store->store(a));
  ASSERT_TRUE(store->store(b));
  db::HistoryQuery q;
  q.since = "2026-01-15T00:00:00Z";
  EXPECT_EQ(store->points(q).size(), 2u);  // b's two runs
  q = {};
  q.machine = "aaaa";
  auto pa = store->points(q);
  ASSERT_EQ(pa.size(), 2u);
  EXPECT_EQ(pa[0].session, a.id);
  q = {};
  q.tags = {{"branch", "main"}, {"commit", "abc123"}};
  auto pb = store->points(q);
  ASSERT_EQ(pb.size(), 2u);
  EXPECT_EQ(pb[0].session, b.id);
  q.tags = {{"branch", "'; DROP TABLE tags; --"}};
  EXPECT_TRUE(store->points(q).empty());
  q = {};
  q.machine = "%";  // a prefix, not a LIKE pattern
  EXPECT_TRUE(store->points(q).empty());
  EXPECT_EQ(store->machines().size(), 2u);
}

TEST_P(HistoryStore, ADatabaseOfANewerSchemaIsRefusedAndLeftUntouched) {
  {
    auto store = db::ResultStore::open(url_);
    ASSERT_TRUE(store->store(session("m", "2026-01-01T00:00:00.000000Z", {5})));
    store->connection().query("INSERT INTO rooflens_schema (version, applied_at, description) VALUES (?, ?, ?)",
                              {int64_t{99}, std::string("2030-01-01T00:00:00Z"), std::string("from the future")});
  }
  std::string before = GetParam() == "sqlite" ? sha256_file(url_) : "";
  try {
    db::ResultStore::open(url_);
    FAIL() << "a newer schema was accepted";
  } catch (const db::DbTooNew& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("newer rooflens (schema version 99"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nothing was changed"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  if (GetParam() == "sqlite") {
    EXPECT_EQ(sha256_file(url_), before);
  }
  // Still readable by hand, still version 99, still one session.
  auto raw = db::parse_db_url(url_);
  auto c = raw.kind == db::DbKind::sqlite ? db::open_sqlite(raw) : db::open_postgres(raw);
  EXPECT_EQ(db::schema_version(*c), 99);
  EXPECT_EQ(c->query("SELECT count(*) FROM sessions", {})[0][0], std::optional<std::string>("1"));
}

// A database an older rooflens left (schema version 1: runs without a reference) is migrated when opened: its runs
// are still there, with no reference and no peak memory, and new runs keep theirs.
TEST_P(HistoryStore, AVersionOneDatabaseIsMigratedAndKeepsItsRuns) {
  {
    auto raw = db::parse_db_url(url_);
    auto c = raw.kind == db::DbKind::sqlite ? db::open_sqlite(raw) : db::open_postgres(raw);
    db::ensure_schema(*c, 1);
    ASSERT_EQ(db::schema_version(*c), 1);
    c->query("INSERT INTO machines (id, cpu, cores, threads, memory_bytes, os, first_seen) VALUES"
             " ('00dd00dd00dd00dd', 'old cpu', 2, 4, 1, 'Debian', '2025-01-01T00:00:00.000000Z')");
    c->query("INSERT INTO sessions (uuid, created_at, command, machine, kernel, roofs_hash, rooflens_version, runtime,"
             " settings) VALUES ('old-session', '2025-01-01T00:00:00.000000Z', 'profile', '00dd00dd00dd00dd', 'k',"
             " '', '0.0.9', 'ort', '{}')");
    c->query("INSERT INTO runs (session_id, seq, model, model_hash, backend, options, config, status, error, n, min_ms,"
             " max_ms, mean_ms, median_ms, p90_ms, p95_ms, p99_ms, std_ms, cv, center_ms, repetition_medians,"
             " repetitions, samples) SELECT id, 0, 'old model', '', 'onnxruntime', '', 'batch=1', 'pass', '', 2, 4,"
             " 6, 5, 5, 6, 6, 6, 1, 0.2, 5, '[4.0,6.0]', '[1,1]', '[4.0,6.0]' FROM sessions WHERE uuid = 'old-session'");
    EXPECT_THROW(c->query("SELECT reference_model FROM runs"), db::DbError);  // version 1 has no such column
  }
  auto store = db::ResultStore::open(url_);
  // Every migration since version 1 ran, each recorded once (3: runs.peak_rss_bytes).
  EXPECT_EQ(db::schema_version(store->connection()), db::kSchemaVersion);
  EXPECT_EQ(store->connection().query("SELECT count(*) FROM rooflens_schema")[0][0],
            std::optional<std::string>(std::to_string(db::kSchemaVersion)));
  HistorySession s = session("new model", "2026-01-02T03:04:05.000000Z", {10.0});
  ASSERT_TRUE(store->store(s));
  auto points = store->points({});
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].model, "old model");
  EXPECT_EQ(points[0].center_ms, 5);
  EXPECT_EQ(points[0].run_medians, (std::vector<double>{4.0, 6.0}));
  EXPECT_EQ(points[0].reference.model, "");
  EXPECT_TRUE(points[0].reference.run_medians.empty());
  EXPECT_EQ(points[0].peak_rss_bytes, 0u);  // stored before memory was: none recorded, not a regression
  EXPECT_EQ(points[1].reference.run_medians, (std::vector<double>{8.0}));
  HistorySession old = store->load_session("old-session");
  ASSERT_EQ(old.runs.size(), 1u);
  EXPECT_EQ(old.runs[0].samples_ms, (std::vector<double>{4.0, 6.0}));
  EXPECT_EQ(old.runs[0].reference.model, "");
  EXPECT_EQ(history_session_to_json_line(store->load_session(s.id)), history_session_to_json_line(s));
}

TEST_P(HistoryStore, FourWritersAtOnceLoseNothing) {
  // Four processes, each its own connection, start on an empty database at the same moment: they migrate it once
  // and store all of their sessions.
  std::vector<pid_t> kids;
  for (int w = 0; w < 4; ++w) {
    pid_t pid = ::fork();
    if (pid == 0) {
      int rc = 0;
      try {
        auto store = db::ResultStore::open(url_);
        for (int i = 0; i < 5; ++i)
          if (!store->store(session("w" + std::to_string(w), "2026-01-01T00:00:0" + std::to_string(i) + ".000000Z",
                                    {1.0 + w, 2.0 + i})))
            rc = 2;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        rc = 1;
      }
      ::_exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) EXPECT_EQ(wait_exit(k), 0);
  auto store = db::ResultStore::open(url_);
  db::StoreCounts c = store->counts();
  EXPECT_EQ(c.sessions, 20);
  EXPECT_EQ(c.runs, 40);
  EXPECT_EQ(c.layers, 40);
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryStore, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(HistoryStoreMove, ExportFromSqliteImportIntoPostgresGivesTheSameLines) {
  fs::path dir = fresh_test_dir("rooflens-store-move");
  auto lite = db::ResultStore::open((dir / "a.db").string());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(lite->store(session("m" + std::to_string(i), "2026-01-0" + std::to_string(i + 1) + "T00:00:00.000000Z", {1.5, 2.25})));
  auto pg = db::ResultStore::open(PgCluster::instance().new_database("move"));
  std::vector<std::string> lines;
  for (const auto& id : lite->session_ids()) lines.push_back(history_session_to_json_line(lite->load_session(id)));
  for (const auto& line : lines) ASSERT_TRUE(pg->store(history_session_from_json(line)));
  std::vector<std::string> back;
  for (const auto& id : pg->session_ids()) back.push_back(history_session_to_json_line(pg->load_session(id)));
  EXPECT_EQ(back, lines);
  fs::remove_all(dir);
}

TEST(HistoryStoreUrl, AnUnreachableServerIsOneLineWithoutThePassword) {
  try {
    db::ResultStore::open("postgresql://me:hunter2-secret@127.0.0.1:1/perf?connect_timeout=5");
    FAIL() << "connected to nothing";
  } catch (const db::DbError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find("hunter2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("postgresql://me:***@127.0.0.1:1/perf"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cannot connect"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(HistoryStoreUrl, AFileThatIsNotADatabaseIsRefused) {
  fs::path dir = fresh_test_dir("rooflens-store-notdb");
  std::ofstream(dir / "x.db") << "this is not an SQLite file, it is plain text long enough to be read as a header";
  EXPECT_THROW(db::ResultStore::open((dir / "x.db").string()), db::DbError);
  fs::remove_all(dir);
}

}  // namespace
