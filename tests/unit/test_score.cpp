// The score's arithmetic (score/arithmetic.h) against values computed here by hand: geometric means, the t-based
// interval on log scores, a figure's score from its repetitions and reference, categories and the overall score
// with their intervals from the workloads' spreads (Welch–Satterthwaite),
// the decomposition roof ratio × efficiency reproducing the score ratio, an INVALID workload making its category and
// the overall score incomplete; the result's JSON round trip; the suite file's validated reader.
#include <cmath>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/score.h"
#include "score/arithmetic.h"
#include "score/references.h"
#include "score/suite.h"

using namespace rooflens;
using namespace rooflens::score;

namespace {

ScoreFigure latency(std::vector<double> ms, double ref_ms, double roof_ms = 0, double ref_roof_ms = 0) {
  ScoreFigure f;
  f.metric = "latency";
  f.category = "fp32 latency";
  f.unit = "ms";
  f.repetitions = std::move(ms);
  f.reference_time_ms = ref_ms;
  f.roof.time_ms = roof_ms;
  f.reference_roof_time_ms = ref_roof_ms;
  return f;
}

ScoreFigure throughput(std::vector<double> per_s, double ref_ms, double roof_ms = 0, double ref_roof_ms = 0) {
  ScoreFigure f = latency(std::move(per_s), ref_ms, roof_ms, ref_roof_ms);
  f.metric = "throughput";
  f.category = "fp32 throughput";
  f.unit = "samples/s";
  return f;
}

ScoreWorkload workload(std::string id, std::vector<ScoreFigure> figs, WorkloadStatus st = WorkloadStatus::valid) {
  ScoreWorkload w;
  w.id = std::move(id);
  w.precision = "fp32";
  w.status = st;
  w.figures = std::move(figs);
  return w;
}

}  // namespace

TEST(ScoreArithmetic, LogTInterval) {
  const ScoreInterval none = log_t_interval({5});
  EXPECT_EQ(none.low, 0);
  EXPECT_EQ(none.high, 0);
  // Two values e^0 and e^1: mean 0.5, sd 1/sqrt(2), n 2: half = t(0.975, 1) × 0.5 = 12.7062 × 0.5.
  const ScoreInterval ci = log_t_interval({1, std::exp(1.0)});
  EXPECT_NEAR(std::log(ci.low), 0.5 - 12.7062047 * 0.5, 1e-5);
  EXPECT_NEAR(std::log(ci.high), 0.5 + 12.7062047 * 0.5, 1e-5);
}

TEST(ScoreArithmetic, FigureScoreFromRepetitions) {
  // Measured 50 and 200 ms against a reference of 100 ms: scores 2000 and 500, geometric mean 1000.
  ScoreFigure f = latency({50, 200}, 100);
  score_figure(f, true);
  EXPECT_NEAR(f.score, 1000, 1e-9);
  EXPECT_NEAR(f.value, 100, 1e-9);
  EXPECT_NEAR(f.drift, 3.0, 1e-12);  // the last took 4× as long
  EXPECT_GT(f.ci.high, f.score);
  EXPECT_LT(f.ci.low, f.score);
  // A rate: 20 samples/s = 50 ms per sample against 100 ms: 2000.
  ScoreFigure t = throughput({20, 20, 20}, 100);
  score_figure(t, true);
  EXPECT_NEAR(t.score, 2000, 1e-9);
  EXPECT_NEAR(t.ci.low, 2000, 1e-6);  // no spread, no width
  EXPECT_FALSE(t.drift_beyond_ci);
  // Not valid: no score from its figures.
  ScoreFigure bad = latency({50}, 100);
  score_figure(bad, false);
  EXPECT_EQ(bad.score, 0);
}

TEST(ScoreArithmetic, DriftBeyondTheIntervalIsFlagged) {
  ScoreFigure f = latency({100, 100.5, 99.5, 100.2, 99.8, 130}, 100);
  score_figure(f, true);
  EXPECT_TRUE(f.drift_beyond_ci);
  EXPECT_NEAR(f.drift, 0.30, 1e-12);
}

TEST(ScoreArithmetic, DecompositionReproducesTheScoreRatio) {
  // Reference: 100 ms with a roof of 10 ms. Here: 40 ms with a roof of 5 ms → roof 2×, efficiency 1.25×.
  ScoreFigure f = latency({40, 40}, 100, 5, 10);
  score_figure(f, true);
  EXPECT_NEAR(f.roof_ratio, 2, 1e-12);
  EXPECT_NEAR(f.efficiency, 1.25, 1e-12);
  EXPECT_NEAR(f.roof_ratio * f.efficiency, f.score / 1000, 1e-12);
  std::vector<ScoreWorkload> ws{workload("a", {f, throughput({10, 12}, 200, 20, 30)}),
                                workload("b", {latency({30, 33}, 60, 3, 9)})};
  for (auto& w : ws)
    for (auto& x : w.figures) score_figure(x, true);
  ScoreAggregate lat = aggregate_category("fp32 latency", ws), thr = aggregate_category("fp32 throughput", ws);
  EXPECT_NEAR(lat.score, std::sqrt(ws[0].figures[0].score * ws[1].figures[0].score), 1e-9);
  EXPECT_NEAR(lat.roof_ratio * lat.efficiency, lat.score / 1000, 1e-12);
  const ScoreAggregate overall = aggregate_overall({lat, thr}, ws);
  EXPECT_NEAR(overall.score, std::sqrt(lat.score * thr.score), 1e-9);
  EXPECT_NEAR(overall.roof_ratio * overall.efficiency, overall.score / 1000, 1e-12);
  EXPECT_FALSE(overall.incomplete);
  EXPECT_NE(lat.explanation.find("fp32 latency"), std::string::npos);
  EXPECT_NE(lat.explanation.find("efficiency"), std::string::npos);
}

// A category of two workloads whose log scores each spread ±0.1 over 3 repetitions (sample variance 0.01): each is
// half the category, so its part varies 0.25 × 0.01 / 3 per mean; two equal parts give Welch–Satterthwaite's
// df = (2v)² / (2 v² / 2) = 4, and the half-width is t(0.975, 4) × √(2 × 0.25 × 0.01 / 3) = 2.776445 × 0.0408248.
// The old interval (t over the 3 per-repetition geometric means, 2 df) would be t(0.975, 2) = 4.303 wide.
TEST(ScoreArithmetic, CategoryIntervalPoolsTheWorkloadsSpreads) {
  const double e = std::exp(0.1);
  // Latency in ms against a reference of 100 ms: score = 100 / ms × 1000.
  std::vector<ScoreWorkload> ws{workload("a", {latency({100 * e, 100, 100 / e}, 100)}),
                                workload("b", {latency({50 / e, 50 * e, 50}, 100)})};
  for (auto& w : ws)
    for (auto& x : w.figures) score_figure(x, true);
  const ScoreAggregate lat = aggregate_category("fp32 latency", ws);
  EXPECT_NEAR(lat.score, std::sqrt(1000.0 * 2000.0), 1e-6);
  EXPECT_NEAR(std::log(lat.ci.high / lat.score), 2.7764451 * std::sqrt(2 * 0.25 * 0.01 / 3), 1e-6);
  EXPECT_NEAR(std::log(lat.score / lat.ci.low), 2.7764451 * std::sqrt(2 * 0.25 * 0.01 / 3), 1e-6);
  // One repetition somewhere: no variance for that workload, so no interval at all.
  ws[1].figures[0].repetitions = {50};
  score_figure(ws[1].figures[0], true);
  EXPECT_EQ(aggregate_category("fp32 latency", ws).ci.high, 0);
}

// Two figures of one workload are measured in the same repetitions: the overall sums them per repetition before
// taking a spread, so a repetition that was slower for one and faster for the other by as much cancels out — where
// treating the figures as independent would add their spreads.
TEST(ScoreArithmetic, OverallIntervalKeepsWhatAWorkloadsFiguresShare) {
  const double e = std::exp(0.2);
  // Latency scores 1000/e, 1000e, 1000; throughput (10 samples/s is 100 ms per sample: 1000) the mirror image.
  std::vector<ScoreWorkload> ws{workload("a", {latency({100 * e, 100 / e, 100}, 100), throughput({10 * e, 10 / e, 10}, 100)})};
  for (auto& x : ws[0].figures) score_figure(x, true);
  EXPECT_GT(ws[0].figures[0].ci.high, ws[0].figures[0].score * 1.1) << "each figure alone spreads";
  const ScoreAggregate l = aggregate_category("fp32 latency", ws), t = aggregate_category("fp32 throughput", ws);
  const ScoreAggregate overall = aggregate_overall({l, t}, ws);
  EXPECT_NEAR(overall.score, 1000, 1e-6);
  EXPECT_NEAR(overall.ci.low, 1000, 1e-6) << "the two figures' repetitions cancel in the overall";
  EXPECT_NEAR(overall.ci.high, 1000, 1e-6);
}

TEST(ScoreArithmetic, InvalidWorkloadMakesTheScoreIncomplete) {
  std::vector<ScoreWorkload> ws{workload("a", {latency({50, 50}, 100)}),
                                workload("b", {latency({10, 10}, 100)}, WorkloadStatus::invalid)};
  for (auto& w : ws)
    for (auto& x : w.figures) score_figure(x, w.status == WorkloadStatus::valid);
  const ScoreAggregate lat = aggregate_category("fp32 latency", ws);
  EXPECT_NEAR(lat.score, 2000, 1e-9);  // only the valid figure: no number from wrong outputs
  EXPECT_EQ(lat.members, 2);
  EXPECT_EQ(lat.valid_members, 1);
  EXPECT_TRUE(lat.incomplete);
  EXPECT_TRUE(aggregate_overall({lat}, ws).incomplete);
  EXPECT_NE(lat.explanation.find("incomplete"), std::string::npos);
}

TEST(ScoreRecord, JsonRoundTripAndValidatedReading) {
  ScoreResult r;
  r.workloads = {workload("a", {latency({50, 60}, 100)})};
  rescore(r, {"fp32 latency"});
  const std::string text = score_to_json(r);
  EXPECT_EQ(score_to_json(score_from_json(text)), text);
  std::string bad = text;
  bad.replace(bad.find("\"status\": \"valid\""), 17, "\"status\": \"great\"");
  EXPECT_THROW(score_from_json(bad), UserError);
  std::string negative = text;
  negative.replace(negative.find("50.0"), 4, "-5.0");
  EXPECT_THROW(score_from_json(negative), UserError);
  EXPECT_THROW(score_from_json("{\"schema\": \"rooflens.score/9\"}"), UserError);
  EXPECT_THROW(score_from_json("[1"), UserError);
  // A count written as a float beyond any integer (found by fuzz_score; the cast was undefined behaviour): refused,
  // naming the field. A float that is a whole count in range still reads.
  const std::string members = "\"valid_members\": " + std::to_string(r.overall.valid_members);
  ASSERT_NE(text.find(members), std::string::npos);
  std::string huge = text;
  huge.replace(huge.find(members), members.size(), "\"valid_members\": 8.9e22");
  try {
    score_from_json(huge);
    ADD_FAILURE() << "8.9e22 read as a count";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("valid_members"), std::string::npos) << e.what();
  }
  std::string whole = text;
  whole.replace(whole.find(members), members.size(), "\"valid_members\": 1.0");
  EXPECT_EQ(score_from_json(whole).overall.valid_members, 1);
}

TEST(ScoreSuite, BuiltinSuiteReadsAndRoundTrips) {
  const Suite& s = builtin_suite();
  EXPECT_EQ(s.version, "v2");
  EXPECT_EQ(s.categories.size(), 5u);
  EXPECT_FALSE(s.workloads.empty());
  const Suite again = parse_suite(suite_to_json(s), "round trip");
  EXPECT_EQ(suite_to_json(again), suite_to_json(s));
  EXPECT_THROW(parse_suite("{}", "x.json"), UserError);
  std::string dup = suite_to_json(s);
  EXPECT_THROW(parse_suite(dup.replace(dup.find("\"precision\": \"fp32\""), 19, "\"precision\": \"fp64\""), "x.json"),
               UserError);
}

TEST(ScoreReferences, SampleAndGate) {
  TensorValue v;
  v.name = "y";
  v.data_type = 1;
  v.dims = {1, 3000};
  std::vector<float> xs(3000);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) * 0.5f;
  v.bytes.assign(reinterpret_cast<const char*>(xs.data()), xs.size() * sizeof(float));
  const OutputSample s = sample_output(v);
  EXPECT_EQ(s.stride, 3);
  EXPECT_EQ(s.values.size(), 1000u);
  EXPECT_TRUE(check_outputs_against({s}, {v}, Tolerance{1e-3, 1e-4, 0}).passed);
  xs[2997] += 10.0f;  // a sampled element (999 × 3) moved beyond rtol × 1498.5
  v.bytes.assign(reinterpret_cast<const char*>(xs.data()), xs.size() * sizeof(float));
  const GateResult g = check_outputs_against({s}, {v}, Tolerance{1e-3, 1e-4, 0});
  EXPECT_FALSE(g.passed);
  EXPECT_NEAR(g.max_abs_error, 10.0, 1e-3);
  EXPECT_FALSE(check_tokens_against({{1, 2, 3}}, {{1, 2, 4}}).passed);
  EXPECT_TRUE(check_tokens_against({{1, 2, 3}}, {{1, 2, 3}}).passed);
}
