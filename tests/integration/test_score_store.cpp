// Score results in the results database (schema 4), against a real SQLite file and a real PostgreSQL server: a
// score round-trips byte for byte (hostile text included), the identical score is stored once, filters, a row edited
// behind rooflens' back is refused naming its column, a version-3 database migrates and keeps its sessions; and the
// CLI path: db import of score files, history --scores listing them with quick/full groups and PROJECTED labels.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/history.h"
#include "db/schema.h"
#include "db/score_store.h"
#include "db/store.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"
#include "support/pg_cluster.h"
#include "support/score_builder.h"

namespace fs = std::filesystem;
using namespace rooflens;
using namespace rooflens::testing;

namespace {

const std::string kHostileScoreText = "it's \"quoted\"; '; DROP TABLE scores; -- \\ % _ ? $1 \n ünï 🙂 </script>";

class ScoreStore : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("rooflens-score-store-" + GetParam());
    if (GetParam() == "sqlite") url_ = (dir_ / "results.db").string();
    else url_ = PgCluster::instance().new_database("scores");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string url_;
};

TEST_P(ScoreStore, AScoreRoundTripsWholeAndIsStoredOnce) {
  auto store = db::ResultStore::open(url_);
  ScoreResult r =
      score_result(kHostileScoreText, 1234.5678901234567, {{"fp32 latency", 1100.25}, {"int8 throughput", 1385.1}});
  r.warnings = {kHostileScoreText};
  ScoreWorkload w;
  w.id = "resnet50-int8";
  w.status = WorkloadStatus::invalid;
  w.reason = kHostileScoreText;
  ScoreFigure f;
  f.metric = "latency";
  f.repetitions = {4.5, 4.75, 4.625};
  w.figures.push_back(f);
  r.workloads.push_back(w);
  auto id = db::store_score(store->connection(), r);
  ASSERT_TRUE(id.has_value());
  EXPECT_FALSE(db::store_score(store->connection(), r).has_value()) << "the identical score is stored once";
  auto back = db::load_scores(store->connection());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].uuid, *id);
  EXPECT_EQ(back[0].machine, fingerprint_of(r.machine.machine, nullptr).id);
  EXPECT_EQ(score_to_json(back[0].result), score_to_json(r));
  // The machine is one of the database's machines, beside those of history sessions.
  EXPECT_EQ(store->machines().size(), 1u);
  EXPECT_EQ(store->machines()[0].cpu, kHostileScoreText);
}

TEST_P(ScoreStore, FiltersBySuiteMachineSinceAndKind) {
  auto store = db::ResultStore::open(url_);
  ScoreResult a = score_result("cpu a", 1000, {{"fp32 latency", 1000}}, "2026-03-01T00:00:00.000000Z");
  ScoreResult b = score_result("cpu b", 2000, {{"fp32 latency", 2000}}, "2026-03-05T00:00:00.000000Z");
  ScoreResult p = b;
  p.kind = "projected";
  p.device = "NVIDIA A100 SXM4 80GB";
  ScoreResult v2 = a;
  v2.suite = "v2";
  for (const auto* r : {&a, &b, &p, &v2}) ASSERT_TRUE(db::store_score(store->connection(), *r));
  auto& c = store->connection();
  EXPECT_EQ(db::load_scores(c).size(), 4u);
  EXPECT_EQ(db::load_scores(c, {"v1", "", "", false}).size(), 3u);
  EXPECT_EQ(db::load_scores(c, {"v1", "", "", true}).size(), 2u);
  EXPECT_EQ(db::load_scores(c, {"", "", "2026-03-02", false}).size(), 2u);
  const std::string b_id = fingerprint_of(b.machine.machine, nullptr).id;
  auto mine = db::load_scores(c, {"", b_id.substr(0, 6), "", false});
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].result.kind, "measured");
  EXPECT_EQ(mine[1].result.kind, "projected");
}

// What another tool or a person changed in a row is never shown as a score: the row names the column that
// disagrees with its stored result, or the malformed result itself.
TEST_P(ScoreStore, AnEditedRowIsRefusedNamingItsColumn) {
  auto store = db::ResultStore::open(url_);
  auto& c = store->connection();
  ASSERT_TRUE(db::store_score(c, score_result("cpu", 1000, {{"fp32 latency", 1000}})));
  auto refused = [&](const std::string& column) {
    try {
      db::load_scores(c);
      ADD_FAILURE() << "loaded an edited row (" << column << ")";
    } catch (const db::DbError& e) {
      EXPECT_NE(std::string(e.what()).find(column), std::string::npos) << e.what();
    }
  };
  c.query("UPDATE scores SET overall = 9999");
  refused("scores.overall");
  c.query("UPDATE scores SET overall = 1000, kind = 'projected'");
  refused("scores.kind");
  c.query("UPDATE scores SET kind = 'measured'");
  c.query("UPDATE score_categories SET score = 5");
  refused("score_categories");
  c.query("UPDATE score_categories SET score = 1000");
  ASSERT_EQ(db::load_scores(c).size(), 1u);
  c.query("UPDATE scores SET result = '{\"schema\": \"rooflens.score/1\"}'");
  refused("scores.result");
  c.query("UPDATE scores SET result = 'not json'");
  refused("scores.result");
}

// A database rooflens 3 left (history sessions, no score tables) gains them when opened and keeps its sessions.
TEST_P(ScoreStore, AVersionThreeDatabaseGainsTheScoreTables) {
  {
    auto raw = db::parse_db_url(url_);
    auto c = raw.kind == db::DbKind::sqlite ? db::open_sqlite(raw) : db::open_postgres(raw);
    db::ensure_schema(*c, 3);
    ASSERT_EQ(db::schema_version(*c), 3);
    EXPECT_FALSE(c->table_exists("scores"));
    db::ResultStore old(std::move(c));
    HistorySession s = new_session("profile", fingerprint_of(score_result("cpu", 1, {}).machine.machine, nullptr));
    ASSERT_TRUE(old.store(s));
  }
  auto store = db::ResultStore::open(url_);
  EXPECT_EQ(db::schema_version(store->connection()), db::kSchemaVersion);
  EXPECT_EQ(store->session_ids().size(), 1u);
  ASSERT_TRUE(db::store_score(store->connection(), score_result("cpu", 1000, {{"fp32 latency", 1000}})));
  EXPECT_EQ(db::load_scores(store->connection()).size(), 1u);
  EXPECT_EQ(store->machines().size(), 1u) << "the score's machine is the session's";
}

INSTANTIATE_TEST_SUITE_P(Backends, ScoreStore, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

void write_score(const fs::path& path, const ScoreResult& r) { std::ofstream(path) << score_to_json(r); }

// The CLI end to end: score files from three machines (one quick, one projected) imported, listed side by side.
TEST(ScoreListCli, ImportedScoresAreListedQuickApartAndProjectedLabelled) {
  fs::path dir = fresh_test_dir("rooflens-score-list");
  auto cli = [&dir](const std::string& args) { return run_cli(args, dir.string()); };
  const std::string db = "sqlite:" + (dir / "s.db").string();
  ScoreResult fast = score_result("Fast CPU", 2000, {{"fp32 latency", 2100}, {"int8 throughput", 1900}});
  ScoreResult slow = score_result("Slow CPU", 900, {{"fp32 latency", 800}, {"int8 throughput", 1000}});
  slow.machine.machine.cores = 2;
  ScoreResult quick = score_result("Quickest CPU", 5000, {{"fp32 latency", 5000}, {"int8 throughput", 5000}});
  quick.quick = true;
  ScoreResult proj = score_result("Fast CPU", 40000, {{"fp32 latency", 40000}, {"int8 throughput", 40000}});
  proj.kind = "projected";
  proj.device = "NVIDIA A100 SXM4 80GB";
  proj.machine.roofs = "datasheet";
  ScoreResult broken = score_result("Broken CPU", 3000, {{"fp32 latency", 3000}});
  broken.categories[0].incomplete = broken.overall.incomplete = true;
  std::string files;
  int n = 0;
  for (const auto* r : {&fast, &slow, &quick, &proj, &broken}) {
    fs::path f = dir / ("s" + std::to_string(n++) + ".json");
    write_score(f, *r);
    files += " " + f.string();
  }
  auto imported = cli("db import" + files + " --db " + db);
  ASSERT_EQ(imported.rc, 0) << imported.err;
  EXPECT_NE(imported.err.find("5 scores stored"), std::string::npos) << imported.err;
  EXPECT_NE(cli("db import" + files + " --db " + db).err.find("5 already there"), std::string::npos);
  auto list = cli("history --scores --db " + db);
  ASSERT_EQ(list.rc, 0) << list.err;
  const std::string& out = list.out;
  size_t full = out.find("suite v1 · full"), quick_at = out.find("suite v1 · quick");
  ASSERT_NE(full, std::string::npos) << out;
  ASSERT_NE(quick_at, std::string::npos) << out;
  EXPECT_LT(full, quick_at);
  // Full: Fast (1) above Slow (2); the incomplete one unranked; the projection labelled and ranked apart (P1) even
  // though its number is the highest. The quick score is only in the quick group, ranked 1 there.
  size_t r1 = out.find("1     Fast CPU"), r2 = out.find("2     Slow CPU"), rb = out.find("-     Broken CPU"),
         p1 = out.find("P1    PROJECTED NVIDIA A100 SXM4 80GB");
  EXPECT_TRUE(r1 < r2 && r2 < rb && rb < p1 && p1 < quick_at) << out;
  EXPECT_NE(out.find("1     Quickest CPU", quick_at), std::string::npos) << out;
  EXPECT_EQ(out.find("Quickest CPU"), out.find("1     Quickest CPU", quick_at) + 6) << "quick only in its group";
  EXPECT_NE(out.find("3000*"), std::string::npos) << "incomplete overall marked";
  EXPECT_NE(out.find("[1920, 2080]"), std::string::npos) << "the 95% interval shown";
  EXPECT_NE(out.find("1.50× × 1.33×"), std::string::npos) << "overall roof ratio × efficiency of Fast CPU\n" << out;
  auto measured = cli("history --scores --measured-only --db " + db);
  EXPECT_EQ(measured.out.find("PROJECTED NVIDIA"), std::string::npos);
  auto json = cli("history --scores --json --db " + db);
  EXPECT_NE(json.out.find("\"schema\": \"rooflens.leaderboard/1\""), std::string::npos);
  EXPECT_EQ(cli("history --scores --check --db " + db).rc, 2) << "a trend option with --scores is a usage error";
  // A malformed score file is one line naming it, and nothing is imported.
  std::ofstream(dir / "bad.json") << "{\"schema\": \"rooflens.score/1\", \"suite\": 1}";
  auto bad = cli("db import " + (dir / "bad.json").string() + " --db " + db);
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("bad.json"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

}  // namespace
