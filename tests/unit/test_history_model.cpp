// The history data model and what is computed from it without a database: SHA-256 (against coreutils'
// sha256sum), the JSON-lines form (round trip, strict rejection), database URLs (kinds, redaction, scrubbing,
// default path), --shard partitions, the prediction test of `history --check` (against the stdlib-only Python
// reference in scripts/compare-reference/tdist.py), change points and the gate's verdicts.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "compare/significance.h"
#include "core/errors.h"
#include "core/history.h"
#include "core/sha256.h"
#include "db/rows.h"
#include "db/url.h"
#include "history/trends.h"
#include "bench/shard.h"

using namespace rooflens;

namespace {

std::string sha256sum_of(const std::string& path) {
  std::string cmd = "sha256sum '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[80] = {};
  size_t n = p ? fread(buf, 1, 64, p) : 0;
  if (p) pclose(p);
  return std::string(buf, n);
}

TEST(HistorySha256, StandardVectorsAndCoreutilsAgree) {
  // FIPS 180-2 appendix B: "abc" and the 448-bit message.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // Lengths around the padding boundaries, through sha256sum.
  auto path = std::filesystem::temp_directory_path() / ("rooflens-sha-" + std::to_string(::getpid()));
  std::mt19937 rng(7);
  for (size_t len : {55u, 56u, 63u, 64u, 65u, 119u, 120u, 1000u, 1u << 20}) {
    std::string data(len, '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    std::ofstream(path, std::ios::binary) << data;
    EXPECT_EQ(sha256_file(path.string()), sha256sum_of(path.string())) << len;
    Sha256 pieces;  // fed in odd chunks
    for (size_t i = 0; i < len; i += 7) pieces.update(data.data() + i, std::min<size_t>(7, len - i));
    EXPECT_EQ(pieces.hex(), sha256_hex(data)) << len;
  }
  std::filesystem::remove(path);
  EXPECT_THROW(sha256_file("/nonexistent/model.onnx"), UserError);
}

HistorySession sample_session() {
  HistorySession s;
  s.id = random_uuid();
  s.created_at = "2026-03-04T05:06:07.000123Z";
  s.command = "bench";
  s.machine.id = "0123456789abcdef";
  s.tags = {{"commit", "deadbeef"}};
  HistoryRun r;
  r.model = "m";
  r.config = "onnxruntime";
  r.status = "pass";
  r.samples_ms = {1, 2, 3, 4};
  r.repetitions = {2, 2};
  r.layers = {{"l", "Conv", 0.5, {"a", "b"}}};
  s.runs.push_back(r);
  return s;
}

TEST(HistoryJson, RoundTripsAndRejectsWhatItCannotTrust) {
  HistorySession s = sample_session();
  std::string line = history_session_to_json_line(s);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(history_session_to_json_line(history_session_from_json(line)), line);
  auto rejects = [&](const std::string& from, const std::string& to, const std::string& says) {
    std::string bad = line;
    size_t at = bad.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    bad.replace(at, from.size(), to);
    try {
      history_session_from_json(bad);
      ADD_FAILURE() << "accepted " << to;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  rejects("\"rooflens.history/1\"", "\"rooflens.history/9\"", "schema");
  rejects("\"repetitions\":[2,2]", "\"repetitions\":[2,3]", "repetitions");
  rejects("\"samples_ms\":[1.0,2.0", "\"samples_ms\":[-1.0,2.0", "samples_ms");
  rejects("\"status\":\"pass\"", "\"status\":\"great\"", "status");
  rejects("2026-03-04T05:06:07.000123Z", "yesterday", "created_at");
  rejects("\"commit\":\"deadbeef\"", "\"commit\":7", "tags");
  EXPECT_THROW(history_session_from_json("not json"), UserError);
  EXPECT_THROW(history_session_from_json("[1,2]"), UserError);
  EXPECT_THROW(history_session_from_json("{}"), UserError);
}

TEST(HistoryJson, AReportOfSeveralBackendsNamesEachRunsBackendAndAFailureReplacesItsRun) {
  Report r;
  r.model.name = "m";
  r.model.path = "/nonexistent/m.onnx";  // no file: the hash is empty, the run is still kept
  r.backends = {BackendInfo{"onnxruntime", "1.30.0", {{"graphOptimizationLevel", "basic"}}, "ort rt", "onnxruntime", ""},
                BackendInfo{"opencv", "4.6", {}, "cv rt", "opencv", ""}};
  for (const char* b : {"onnxruntime", "opencv"}) {
    ProfileRun run;
    run.backend = b;
    run.batch = 1;
    run.threads = 2;
    run.latencies_ms = {1, 2, 3};
    run.repetitions = {3};
    r.runs.push_back(run);
  }
  Failure f;
  static_cast<RunKey&>(f) = r.runs[1];
  f.stage = "run";
  f.kind = "died";
  f.message = "run 2 of 3: died";
  r.failures.push_back(f);
  MachineFingerprint machine;
  machine.id = "id";
  HistorySession s = new_session("profile", machine);
  add_report(s, r);
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[0].backend, "onnxruntime");
  EXPECT_EQ(s.runs[0].options, "graphOptimizationLevel=basic");
  EXPECT_EQ(s.runs[0].config, r.runs[0].label());
  EXPECT_EQ(s.runs[0].model_hash, "");
  EXPECT_EQ(s.runs[1].backend, "opencv");
  EXPECT_EQ(s.runs[1].status, "crash");  // the later repetition's failure is what the configuration is
  EXPECT_EQ(s.runs[1].config, r.runs[1].label());
  EXPECT_EQ(s.runtime, "ort rt; cv rt");  // every backend's runtime, once each
  add_report(s, r);
  EXPECT_EQ(s.runtime, "ort rt; cv rt");
}

TEST(HistoryRows, ParsersAreStrict) {
  EXPECT_EQ(db::parse_int(std::string("42"), "c"), 42);
  EXPECT_THROW(db::parse_int(std::string("42x"), "c"), db::DbError);
  EXPECT_THROW(db::parse_int(std::nullopt, "c"), db::DbError);
  EXPECT_EQ(db::parse_double(std::string("1.5e+15"), "c"), 1.5e15);
  EXPECT_THROW(db::parse_double(std::string("NaN"), "c"), db::DbError);
  EXPECT_THROW(db::parse_double(std::string("Infinity"), "c"), db::DbError);
  EXPECT_EQ(db::parse_doubles(std::string("[0.5,2]"), "c"), (std::vector<double>{0.5, 2}));
  EXPECT_THROW(db::parse_doubles(std::string("[0.5,\"x\"]"), "c"), db::DbError);
  EXPECT_THROW(db::parse_counts(std::string("[1,-2]"), "c"), db::DbError);
  EXPECT_EQ(db::parse_strings(std::string(db::strings_json({"a'b", "c\"d"})), "c"),
            (std::vector<std::string>{"a'b", "c\"d"}));
}

TEST(HistoryUrl, KindsRedactionAndDefaults) {
  EXPECT_EQ(db::parse_db_url("results.db").kind, db::DbKind::sqlite);
  EXPECT_EQ(db::parse_db_url("sqlite:/x/y.db").target, "/x/y.db");
  EXPECT_EQ(db::parse_db_url("sqlite:///x/y.db").target, "/x/y.db");
  auto pg = db::parse_db_url("postgresql://ci:p%40ss@db.example:5433/perf?sslmode=require");
  EXPECT_EQ(pg.kind, db::DbKind::postgresql);
  EXPECT_EQ(pg.shown, "postgresql://ci:***@db.example:5433/perf?sslmode=require");
  EXPECT_EQ(db::redact_url("postgres://u@h/d?password=xyz&sslmode=disable"), "postgres://u@h/d?password=***&sslmode=disable");
  EXPECT_EQ(db::scrub("failed for p@ss and p%40ss\nsecond line", "p%40ss"), "failed for *** and *** second line");
  EXPECT_THROW(db::parse_db_url("mysql://u:pw@h/d"), UsageError);
  try {
    db::parse_db_url("mysql://u:pw@h/d");
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("pw@"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db::default_db_path("/xdg", "/home/u"), "/xdg/rooflens/results.db");
  EXPECT_EQ(db::default_db_path("relative", "/home/u"), "/home/u/.local/share/rooflens/results.db");
  EXPECT_EQ(db::default_db_path(nullptr, "/home/u"), "/home/u/.local/share/rooflens/results.db");
  EXPECT_EQ(db::default_db_path(nullptr, nullptr), "");
}

TEST(HistoryShard, PartsAreDisjointCoverEverythingAndStayPut) {
  std::vector<bench::BenchModel> models;
  auto named = [](const std::string& name) {
    bench::BenchModel m;
    m.name = name;
    return m;
  };
  for (int i = 0; i < 500; ++i) models.push_back(named("test_model_" + std::to_string(i)));
  for (int64_t n : {1, 2, 3, 7}) {
    std::multiset<std::string> seen;
    for (int64_t i = 1; i <= n; ++i) {
      auto part = bench::take_shard(models, bench::parse_shard(std::to_string(i) + "/" + std::to_string(n)));
      EXPECT_GT(part.size(), 500 / n / 2) << i << "/" << n;  // roughly balanced
      for (const auto& m : part) seen.insert(m.name);
    }
    EXPECT_EQ(seen.size(), 500u);
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 500u);  // no model twice
  }
  // A model's part depends on its name only: adding models moves none of the others.
  int64_t before = bench::shard_of("test_model_17", 4);
  models.insert(models.begin(), named("aaa_new_model"));
  auto part = bench::take_shard(models, {before, 4});
  EXPECT_TRUE(std::any_of(part.begin(), part.end(), [](const auto& m) { return m.name == "test_model_17"; }));
  for (const char* bad : {"0/4", "5/4", "1/0", "x", "1/", "/2", "-1/2", "1/2/3"})
    EXPECT_THROW(bench::parse_shard(bad), UsageError) << bad;
}

TEST(HistoryCheck, ARunsCentreIsTheMedianOfItsRepetitionsSoOneDisturbedRepetitionDoesNotMoveIt) {
  EXPECT_EQ(run_center({5.7, 11.1, 5.8, 5.9, 5.6}), 5.8);
  EXPECT_DOUBLE_EQ(run_center({4.0, 9.0, 100.0, 1.0}), 6.0);  // even: the geometric mean of the middle two
  EXPECT_EQ(run_center({}), 0);
  EXPECT_EQ(run_center({3.0, 0.0}), 0);  // not timings
}

TEST(HistoryCheck, PredictionTestMatchesThePythonReference) {
  // scripts/compare-reference/tdist.py (stdlib Python, its own incomplete beta): t 6.044802707935906,
  // p 0.00019169824759394198, interval [1.0588703004118893, 1.1338523166356904], base centre 10.039060134399572.
  std::vector<double> base{10.0, 10.2, 9.9, 10.1, 10.3, 9.8, 10.0, 10.1, 9.95, 10.05};
  WelchLogRatio w = prediction_log_ratio(base, 11.0, 0.95);
  EXPECT_NEAR(w.t, 6.044802707935906, 1e-12);
  EXPECT_NEAR(w.p_value, 0.00019169824759394198, 1e-12);
  EXPECT_NEAR(w.ci.low, 1.0588703004118893, 1e-10);
  EXPECT_NEAR(w.ci.high, 1.1338523166356904, 1e-10);
  EXPECT_NEAR(w.base_center, 10.039060134399572, 1e-12);
  EXPECT_EQ(w.df, 9);
  EXPECT_EQ(prediction_log_ratio({10.0}, 11.0, 0.95).p_value, 1);  // one earlier run: no distribution, no test
}

// A series of `n` sessions around `level` ms (session-to-session spread `cv`), seeded.
std::vector<HistoryPoint> series(const std::string& model, int n, double level, double cv, uint64_t seed,
                                 int day0 = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, cv);
  std::vector<HistoryPoint> out;
  for (int i = 0; i < n; ++i) {
    HistoryPoint p;
    p.session = model + std::to_string(day0 + i);
    char when[40];
    std::snprintf(when, sizeof when, "2026-01-%02dT00:00:00.000000Z", day0 + i);
    p.created_at = when;
    p.machine = "m1";
    p.model = model;
    p.config = "batch=1";
    p.status = "pass";
    double centre = level * std::exp(z(rng));
    p.run_medians = {centre * 0.99, centre, centre * 1.01};
    p.center_ms = run_center(p.run_medians);
    out.push_back(p);
  }
  return out;
}

TEST(HistoryCheck, TenRunsThenTenPercentSlowerIsARegressionAndNoiseIsNot) {
  auto base = series("resnet18", 10, 8.0, 0.02, 1);
  for (double factor : {1.10, 1.005}) {
    auto points = base;
    auto latest = series("resnet18", 1, 8.0 * factor, 0.0, 2, 11);
    points.push_back(latest[0]);
    Trends t = build_trends(points, {});
    check_latest(t, "m1", CheckOptions{});
    ASSERT_EQ(t.checks.size(), 1u);
    const TrendCheck& c = t.checks[0];
    EXPECT_EQ(c.baseline_runs, 10);
    if (factor > 1.05) {
      EXPECT_EQ(c.verdict, "regression") << c.change;
      EXPECT_TRUE(check_fails(t));
    } else {
      EXPECT_EQ(c.verdict, "within noise") << c.change;
      EXPECT_FALSE(check_fails(t));
    }
  }
}

TEST(HistoryCheck, FewRunsAreInsufficientAndAFailureAfterPassesIsNew) {
  auto points = series("m", 3, 5.0, 0.02, 3);
  Trends t = build_trends(points, {});
  check_latest(t, "", CheckOptions{});
  ASSERT_EQ(t.checks.size(), 1u);
  EXPECT_EQ(t.checks[0].verdict, kInsufficientHistory);  // 2 earlier runs < --min-runs 3
  auto more = series("m", 6, 5.0, 0.02, 4);
  more.back().status = "crash";
  more.back().error = "run: died";
  t = build_trends(more, {});
  check_latest(t, "", CheckOptions{});
  EXPECT_EQ(t.checks[0].verdict, "new failure");
  EXPECT_TRUE(check_fails(t));
}

TEST(HistoryTrends, GroupsPerMachineFiltersAndFindsTheLevelShift) {
  auto a = series("resnet18", 12, 8.0, 0.01, 5);
  auto b = series("resnet18", 12, 8.0 * 1.15, 0.01, 6, 13);
  std::vector<HistoryPoint> all = a;
  all.insert(all.end(), b.begin(), b.end());
  auto other = series("resnet18", 5, 20.0, 0.01, 7);
  for (auto& p : other) p.machine = "m2";
  all.insert(all.end(), other.begin(), other.end());
  Trends t = build_trends(all, {});
  ASSERT_EQ(t.series.size(), 2u);  // one per machine: never mixed
  const TrendSeries& s = t.series[0].machine == "m1" ? t.series[0] : t.series[1];
  ASSERT_EQ(s.points.size(), 24u);
  std::vector<size_t> shifts;
  for (size_t i = 0; i < s.points.size(); ++i)
    if (s.points[i].change_point) shifts.push_back(i);
  ASSERT_EQ(shifts, std::vector<size_t>{12});
  EXPECT_NEAR(s.points[12].change, 0.15, 0.03);
  // A quiet series has none.
  Trends quiet = build_trends(series("q", 40, 3.0, 0.03, 8), {});
  for (const auto& p : quiet.series[0].points) EXPECT_FALSE(p.change_point);
  EXPECT_TRUE(build_trends(all, {"^mobilenet$", ""}).series.empty());
  EXPECT_THROW(build_trends(all, {"(", ""}), UsageError);
}

}  // namespace
