// profile --reference, without runtimes: the pair-by-pair ratio (core/reference_ratio.h), its journey through the report
// and history JSON, and `history --check` judging the ratio — so that a host that steps 20% faster between
// sessions hides neither a real +11% nor invents one, where the same check on milliseconds is fooled.
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/history.h"
#include "core/reference_ratio.h"
#include "core/report.h"
#include "history/trends.h"
#include "reporters/history_report.h"
#include "reporters/profile_summary.h"

using namespace rooflens;

namespace {

ProfileRun run_beside_reference(const std::vector<double>& run_medians, const std::vector<double>& reference_medians) {
  ProfileRun run;
  run.batch = 1;
  for (double m : run_medians) {
    run.latencies_ms.insert(run.latencies_ms.end(), {m * 0.99, m, m * 1.02});
    run.repetitions.push_back(3);
  }
  ReferenceTiming ref{"/models/ref.onnx", "ref", {}, {}};
  for (double m : reference_medians) {
    ref.latencies_ms.insert(ref.latencies_ms.end(), {m, m});
    ref.repetitions.push_back(2);
  }
  run.reference = ref;
  return run;
}

}  // namespace

TEST(Reference, RatiosArePairByPairAndTheirCentreIgnoresOneDisturbedPair) {
  EXPECT_EQ(paired_ratios({2, 4, 9}, {1, 2}), (std::vector<double>{2, 2}));  // the shorter list decides
  EXPECT_EQ(paired_ratios({2, 0, 9}, {1, 2, 3}), (std::vector<double>{2, 3}));  // a pair without a time is skipped
  EXPECT_TRUE(paired_ratios({}, {1}).empty());
  EXPECT_EQ(reference_ratio({}, {}), 0);
  // The host slows pair 3 by half for the model only (a spell between the two chunks): the median does not move.
  EXPECT_DOUBLE_EQ(reference_ratio({5.5, 5.5, 8.25, 5.5, 5.5}, {5, 5, 5, 5, 5}), 1.1);
  ProfileRun run = run_beside_reference({5.5, 4.4, 6.6}, {5.0, 4.0, 6.0});  // the host moved, the ratio did not
  EXPECT_DOUBLE_EQ(reference_ratio(run), 1.1);
  run.reference.reset();
  EXPECT_EQ(reference_ratio(run), 0);
}

namespace {

// A profile report of model "m" (its file not there) whose one run had a reference: pair ratios 1.1 and 1.1.
Report report_beside_reference() {
  Report r;
  r.tool.command = "profile";
  r.model.name = "m";
  r.model.path = "/nonexistent/m.onnx";
  r.backends = {BackendInfo{"onnxruntime", "1.30.0", {}, "ort", "onnxruntime", ""}};
  r.runs.push_back(run_beside_reference({5.5, 4.4}, {5.0, 4.0}));
  return r;
}

}  // namespace

TEST(Reference, TheReportCarriesItAndRefusesAPartitionThatDoesNotAddUp) {
  Report r = report_beside_reference();
  std::string text = report_to_json(r);
  Report back = report_from_json(text);
  ASSERT_TRUE(back.runs[0].reference);
  EXPECT_EQ(back.runs[0].reference->name, "ref");
  EXPECT_EQ(back.runs[0].reference->repetitions, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(report_to_json(back), text);
  back.runs[0].live_from = 1;
  EXPECT_EQ(report_from_json(report_to_json(back)).runs[0].live_from, 1);
  back.runs[0].live_from = 2;  // only two repetitions: 2 is none of them
  EXPECT_THROW(report_from_json(report_to_json(back)), UserError);
  back.runs[0].live_from.reset();
  std::string summary = profile_summary(back);
  EXPECT_NE(summary.find("÷ reference ref (timed in turns, 2 pairs): 1.100"), std::string::npos) << summary;

  nlohmann::json doc = nlohmann::json::parse(text);
  doc["runs"][0]["reference"]["repetitions"] = {3, 2};  // sums to 5 for its 4 samples
  const std::string bad = doc.dump();
  try {
    report_from_json(bad);
    ADD_FAILURE() << "accepted a reference whose repetitions do not partition its samples";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("reference.repetitions"), std::string::npos) << e.what();
  }
}

TEST(Reference, HistoryKeepsTheReferencesNameHashAndMediansAndRejectsBadOnes) {
  Report r = report_beside_reference();
  HistorySession s;
  s.id = random_uuid();
  s.created_at = "2026-03-04T05:06:07.000123Z";
  s.command = "profile";
  s.machine.id = "0123456789abcdef";
  add_report(s, r);
  ASSERT_EQ(s.runs.size(), 1u);
  EXPECT_EQ(s.runs[0].reference.model, "ref");
  EXPECT_EQ(s.runs[0].reference.model_hash, "");  // the file is not there: no hash, the run is kept
  EXPECT_EQ(s.runs[0].reference.run_medians, (std::vector<double>{5.0, 4.0}));
  std::string line = history_session_to_json_line(s);
  EXPECT_EQ(history_session_to_json_line(history_session_from_json(line)), line);
  for (auto [from, to] : {std::pair{"\"run_medians\":[5.0", "\"run_medians\":[-5.0"},
                          std::pair{"\"model\":\"ref\"", "\"model\":\"\""},
                          std::pair{"\"run_medians\":[5.0,4.0]", "\"run_medians\":7"}}) {
    std::string bad = line;
    size_t at = bad.find(from);
    ASSERT_NE(at, std::string::npos) << from << " in " << line;
    bad.replace(at, std::string(from).size(), to);
    EXPECT_THROW(history_session_from_json(bad), UserError) << to;
  }
  // A run without a reference writes no "reference": lines of older sessions stay as they were.
  s.runs[0].reference = {};
  EXPECT_EQ(history_session_to_json_line(s).find("reference"), std::string::npos);
}

namespace {

// Sessions of a model timed beside a reference on a host whose speed steps: `host` scales both, `ratio` is the
// model's work over the reference's; 11 pairs per session, each pair with 1% of noise of its own.
HistoryPoint session_point(int day, double host, double ratio, std::mt19937_64& rng,
                           const std::string& reference_hash = "feed") {
  std::normal_distribution<double> z(0, 0.01);
  HistoryPoint p;
  p.session = "s" + std::to_string(day);
  char when[40];
  std::snprintf(when, sizeof when, "2026-01-%02dT00:00:00.000000Z", day);
  p.created_at = when;
  p.machine = "m1";
  p.model = "resnet18";
  p.config = "batch=1";
  p.status = "pass";
  p.reference.model = "ref";
  p.reference.model_hash = reference_hash;
  for (int i = 0; i < 11; ++i) {
    double spell = host * std::exp(z(rng) * 3);  // the host within the session: both chunks of a pair alike
    p.reference.run_medians.push_back(5.0 * spell);
    p.run_medians.push_back(5.0 * spell * ratio * std::exp(z(rng)));
  }
  p.center_ms = run_center(p.run_medians);
  return p;
}

}  // namespace

TEST(Reference, TheCheckJudgesTheRatioSoAHostStepNeitherHidesNorInventsAChange) {
  std::mt19937_64 rng(7);
  std::vector<HistoryPoint> history;
  // Ten sessions: six at the host's usual speed, then it steps 20% faster for four (as measured in issue 18).
  for (int d = 1; d <= 10; ++d) history.push_back(session_point(d, d <= 6 ? 1.0 : 0.8, 1.0, rng));
  struct Case {
    double host, ratio;
    const char* by_ratio;
  };
  for (const Case& c : {Case{0.8, 1.11, "regression"}, Case{0.8, 1.0, "within noise"}, Case{1.0, 1.0, "within noise"}}) {
    auto points = history;
    points.push_back(session_point(11, c.host, c.ratio, rng));
    Trends t = build_trends(points, {});
    check_latest(t, "m1", CheckOptions{});
    ASSERT_EQ(t.checks.size(), 1u);
    const TrendCheck& k = t.checks[0];
    EXPECT_EQ(k.reference, "ref");
    EXPECT_EQ(k.baseline_runs, 10);
    EXPECT_EQ(k.verdict, c.by_ratio) << "host " << c.host << " ratio " << c.ratio << ": change " << k.change;
    EXPECT_NEAR(k.latest_ratio, c.ratio, 0.02);
    EXPECT_NEAR(k.baseline_ratio, 1.0, 0.01);
    EXPECT_GT(k.baseline_ms, 0);  // shown beside, in ms
    EXPECT_NEAR(k.change, c.ratio - 1, 0.02);

    // The counter-case: the same runs without their reference are judged on milliseconds, and the host's step
    // decides — the real +11% on the faster host reads as within noise.
    auto bare = points;
    for (auto& p : bare) p.reference = {};
    Trends m = build_trends(bare, {});
    check_latest(m, "m1", CheckOptions{});
    EXPECT_EQ(m.checks[0].reference, "");
    if (c.ratio > 1.05) {
      EXPECT_NE(m.checks[0].verdict, "regression") << m.checks[0].change;
    }
  }
}

TEST(Reference, TheBaselineIsRunsBesideTheSameReferenceFile) {
  std::mt19937_64 rng(11);
  std::vector<HistoryPoint> points;
  for (int d = 1; d <= 3; ++d) points.push_back(session_point(d, 1.0, 2.0, rng, "other"));  // another file
  for (int d = 4; d <= 8; ++d) points.push_back(session_point(d, 1.0, 1.0, rng));
  points.push_back(session_point(9, 1.0, 1.0, rng));
  Trends t = build_trends(points, {});
  check_latest(t, "", CheckOptions{});
  EXPECT_EQ(t.checks[0].baseline_runs, 5);
  EXPECT_EQ(t.checks[0].verdict, "within noise");
  const std::string text = checks_text(t);
  EXPECT_NE(text.find("÷ reference"), std::string::npos) << text;
  EXPECT_NE(text.find(" ref"), std::string::npos) << text;
  const std::string json = trends_to_json(t);
  EXPECT_NE(json.find("\"baseline_ratio\""), std::string::npos);
  EXPECT_NE(json.find("\"reference_ratio\""), std::string::npos);

  // A latest run beside a reference with no history beside it is not judged on milliseconds instead.
  std::vector<HistoryPoint> fresh;
  for (int d = 1; d <= 6; ++d) fresh.push_back(session_point(d, 1.0, 1.0, rng));
  for (auto& p : fresh) p.reference = {};
  fresh.push_back(session_point(7, 1.0, 1.0, rng));
  t = build_trends(fresh, {});
  check_latest(t, "", CheckOptions{});
  EXPECT_EQ(t.checks[0].verdict, kInsufficientHistory);
  EXPECT_EQ(t.checks[0].baseline_runs, 0);
}
