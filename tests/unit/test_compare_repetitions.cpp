// Repeated runs in `rooflens compare`: Welch's t-test on the logs of run medians (Student's t is stats/'s, tested in
// test_stats.cpp), and the verdicts it gives where a single run per side is fooled by the machine. Reference figures
// come from an independent Python implementation (stdlib only).
#include <cmath>
#include <random>
#include <vector>

#include <algorithm>

#include <gtest/gtest.h>

#include "compare/compare.h"
#include "compare/significance.h"
#include "compare/sources.h"
#include "compare/verdict.h"
#include "core/repetitions.h"
#include "core/stats.h"
#include "support/backend_info.h"

using namespace rooflens;

namespace {

// A side timed in `runs` fresh runs: each run's level is the true median times a machine factor
// exp(N(0, run_sigma)) (the run-to-run variation), its samples scatter around that level with CV `cv`.
LatencySide repeated_side(uint64_t seed, size_t runs, size_t per_run, double median, double run_sigma, double cv) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> machine(0, run_sigma), noise(0, cv);
  LatencySide s;
  for (size_t r = 0; r < runs; ++r) {
    double level = median * std::exp(machine(rng));
    for (size_t i = 0; i < per_run; ++i) s.samples.push_back(level * (1 + noise(rng)));
    s.repetitions.push_back(static_cast<int64_t>(per_run));
  }
  return s;
}

// The first run of a side alone, as a report made without --repeat would hold it.
LatencySide first_run(const LatencySide& s) {
  LatencySide one;
  one.samples.assign(s.samples.begin(), s.samples.begin() + s.repetitions[0]);
  return one;
}

}  // namespace

// ---- Welch's t-test on log(run medians) ----

TEST(CompareWelch, MatchesTheIndependentCalculation) {
  // The five run medians of one unchanged model the lead measured (ms) against five other runs of it.
  WelchLogRatio w = welch_log_ratio({8.62, 8.70, 7.61, 6.66, 12.11}, {9.1, 8.4, 10.2, 7.9, 8.8}, 0.95);
  EXPECT_NEAR(w.ratio, 1.0332376267490833, 1e-13);
  EXPECT_NEAR(w.t, 0.3022315677188178, 1e-12);
  EXPECT_NEAR(w.df, 5.432602892333057, 1e-11);
  EXPECT_NEAR(w.p_value, 0.7737081572271527, 1e-12);
  EXPECT_NEAR(w.ci.low, 0.7875149705617931, 1e-11);
  EXPECT_NEAR(w.ci.high, 1.3556313635136275, 1e-11);
  // Unequal sizes; a clear 11% slowdown.
  w = welch_log_ratio({10.0, 10.3, 9.8}, {11.2, 10.9, 11.5, 11.0}, 0.95);
  EXPECT_NEAR(w.ratio, 1.1112949173859596, 1e-13);
  EXPECT_NEAR(w.df, 4.287946934262567, 1e-11);
  EXPECT_NEAR(w.p_value, 0.0038993227597785385, 1e-13);
  EXPECT_NEAR(w.ci.low, 1.0566062219142536, 1e-11);
  EXPECT_NEAR(w.ci.high, 1.1688142354210826, 1e-11);
  // Two runs per side: +18%, but with ~1 degree of freedom that is not yet significant.
  w = welch_log_ratio({10.0, 10.5}, {12.0, 12.2}, 0.95);
  EXPECT_NEAR(w.df, 1.2265639461743858, 1e-11);
  EXPECT_NEAR(w.p_value, 0.06782605313237633, 1e-12);
  EXPECT_NEAR(w.ci.low, 0.9533748789557372, 1e-10);
  EXPECT_NEAR(w.ci.high, 1.4624737289206946, 1e-10);
}

TEST(CompareWelch, DegenerateInputs) {
  WelchLogRatio same = welch_log_ratio({5, 5}, {5, 5, 5}, 0.95);  // no spread, no difference
  EXPECT_EQ(same.p_value, 1);
  EXPECT_EQ(same.ci.low, 1);
  WelchLogRatio apart = welch_log_ratio({5, 5}, {6, 6}, 0.95);  // no spread, a difference: certain
  EXPECT_EQ(apart.p_value, 0);
  EXPECT_DOUBLE_EQ(apart.ci.low, 1.2);
  EXPECT_EQ(welch_log_ratio({5}, {6, 7}, 0.95).base_center, 0);   // one run: no test
  EXPECT_EQ(welch_log_ratio({5, 0}, {6, 7}, 0.95).base_center, 0); // not timings
}

// ---- the paired test: runs measured next to each other ----

TEST(ComparePaired, MatchesTheIndependentCalculation) {
  // Five pairs on a machine whose level moves between pairs (10 -> 14 ms), NEW about 10% slower in each pair.
  // Python: d_k = log(n_k / b_k), t = mean / (sd / sqrt 5), p by numerical integration of the t(4) density.
  WelchLogRatio w = paired_log_ratio({10.0, 12.5, 9.6, 14.1, 11.0}, {11.2, 13.6, 10.8, 15.4, 12.0}, 0.95);
  EXPECT_NEAR(w.ratio, 1.1031077147677915, 1e-13);
  EXPECT_NEAR(w.t, 13.675950919571774, 1e-10);
  EXPECT_EQ(w.df, 4);
  EXPECT_NEAR(w.p_value, 1.6557597457627753e-4, 1e-9);
  EXPECT_NEAR(w.ci.low, 1.0813487340775834, 1e-10);
  EXPECT_NEAR(w.ci.high, 1.1253045313066545, 1e-10);
  // Welch on the same values sees the machine's moves as spread: the same 10% is not significant.
  EXPECT_GT(welch_log_ratio({10.0, 12.5, 9.6, 14.1, 11.0}, {11.2, 13.6, 10.8, 15.4, 12.0}, 0.95).p_value, 0.2);
  EXPECT_EQ(paired_log_ratio({5, 6}, {6, 7, 8}, 0.95).base_center, 0);  // not pairs: no test
  EXPECT_EQ(paired_log_ratio({5, 0}, {6, 7}, 0.95).base_center, 0);     // not timings
}

// A machine whose level drifts between pairs by far more than +10% (sd of log level 15%), both runs of a pair
// seeing the same level: the paired test finds +10% nearly always and calls identical models changed about as
// often as alpha says; Welch on the same data misses most of the +10%. Unequal run counts fall back to Welch.
TEST(ComparePaired, ADriftingMachineCancelsOutOfPairs) {
  auto pair_sides = [](uint64_t seed, size_t runs, double ratio) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> machine(0, 0.15), noise(0, 0.02);
    std::pair<LatencySide, LatencySide> s;
    for (size_t r = 0; r < runs; ++r) {
      double level = 10.0 * std::exp(machine(rng));
      for (int i = 0; i < 20; ++i) s.first.samples.push_back(level * std::exp(noise(rng)));
      for (int i = 0; i < 20; ++i) s.second.samples.push_back(ratio * level * std::exp(noise(rng)));
      s.first.repetitions.push_back(20);
      s.second.repetitions.push_back(20);
    }
    return s;
  };
  CompareOptions paired, welch;
  paired.paired = true;
  int paired_found = 0, welch_found = 0, paired_false = 0;
  for (int t = 0; t < 50; ++t) {
    auto [b, n] = pair_sides(100 + t, 10, 1.10);
    LatencyComparison l = compare_latency(b, n, paired);
    EXPECT_EQ(l.unit, test_unit::kPairs);
    EXPECT_EQ(l.df, 9);
    EXPECT_FALSE(l.single_run());
    paired_found += latency_verdict(l, paired) == verdict::kRegression;
    welch_found += latency_verdict(compare_latency(b, n, welch), welch) == verdict::kRegression;
    auto [b2, n2] = pair_sides(500 + t, 10, 1.0);
    paired_false += latency_verdict(compare_latency(b2, n2, paired), paired) != verdict::kWithinNoise;
  }
  EXPECT_GE(paired_found, 48);
  EXPECT_LE(welch_found, 30);
  EXPECT_LE(paired_false, 6);  // alpha 5% of 50 is 2.5
  auto [b, n] = pair_sides(7, 10, 1.10);
  n.samples.resize(180);
  n.repetitions.pop_back();
  EXPECT_EQ(compare_latency(b, n, paired).unit, test_unit::kRuns);
}

// ---- verdicts on repeated runs ----

// The lead's observation in small: the same code run again lands somewhere else. With one run per side the
// noise inside the run is all the test sees, and it calls the machine's mood a regression; with five runs per
// side the run-to-run variation is measured and the same offset is within noise.
TEST(CompareRepetitions, AnOffsetSmallerThanTheRunToRunNoiseIsNotARegression) {
  CompareOptions o;
  o.resamples = 500;
  int single_flagged = 0, repeated_regressions = 0, repeated_flagged = 0;
  const int trials = 100;
  for (int t = 0; t < trials; ++t) {
    // No change at all; runs vary by 8% (log-sd), samples within a run by 3%.
    LatencySide base = repeated_side(100 + t, 5, 60, 8.0, 0.08, 0.03);
    LatencySide next = repeated_side(500 + t, 5, 60, 8.0, 0.08, 0.03);
    LatencyComparison single = compare_latency(first_run(base), first_run(next), o);
    EXPECT_TRUE(single.single_run());
    std::string sv = latency_verdict(single, o);
    single_flagged += sv == verdict::kRegression || sv == verdict::kImprovement;
    LatencyComparison runs = compare_latency(base, next, o);
    ASSERT_TRUE(runs.tested);
    EXPECT_EQ(runs.unit, test_unit::kRuns);
    EXPECT_FALSE(runs.single_run());
    std::string rv = latency_verdict(runs, o);
    repeated_regressions += rv == verdict::kRegression;
    repeated_flagged += rv == verdict::kRegression || rv == verdict::kImprovement;
  }
  EXPECT_GE(single_flagged, 40) << "one run per side: the machine's run-to-run variation looks like change";
  EXPECT_LE(repeated_flagged, 8);   // alpha = 0.05, and the 5% threshold on top
  EXPECT_LE(repeated_regressions, 5);

  // One seeded case spelled out: NEW's runs are BASE's run levels 3% slower (the offset) in another order,
  // while the runs themselves spread by about 9%: within noise, and --fail-on-regression would pass.
  LatencySide base, next;
  const std::vector<double> levels{8.0, 8.7, 7.4, 8.4, 7.7};
  const std::vector<size_t> order{2, 0, 4, 1, 3};
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.02);
  for (size_t r = 0; r < levels.size(); ++r) {
    for (int i = 0; i < 40; ++i) base.samples.push_back(levels[r] * (1 + noise(rng)));
    for (int i = 0; i < 40; ++i) next.samples.push_back(levels[order[r]] * 1.03 * (1 + noise(rng)));
    base.repetitions.push_back(40);
    next.repetitions.push_back(40);
  }
  LatencyComparison l = compare_latency(base, next, o);
  EXPECT_NEAR(l.change, 0.03, 0.005);
  EXPECT_GT(l.p_value, 0.3);
  EXPECT_LT(l.ci_low, 1);
  EXPECT_EQ(latency_verdict(l, o), verdict::kWithinNoise);
}

TEST(CompareRepetitions, TenPercentSlowerOverFiveRunsPerSideIsARegression) {
  CompareOptions o;
  LatencySide base = repeated_side(1, 5, 50, 10.0, 0.02, 0.03), next = repeated_side(2, 5, 50, 11.0, 0.02, 0.03);
  LatencyComparison l = compare_latency(base, next, o);
  EXPECT_EQ(l.base_runs, 5);
  EXPECT_EQ(l.new_runs, 5);
  EXPECT_EQ(l.base_n, 250);
  EXPECT_EQ(l.unit, test_unit::kRuns);
  EXPECT_GT(l.df, 4);
  EXPECT_LT(l.p_value, 1e-4);
  EXPECT_GT(l.ci_low, 1.05);
  EXPECT_NEAR(l.change, 0.10, 0.03);
  // The medians shown are the geometric means of the run medians: change = their ratio - 1.
  EXPECT_NEAR(l.new_median_ms / l.base_median_ms - 1, l.change, 1e-12);
  EXPECT_EQ(latency_verdict(l, o), verdict::kRegression);
  // Over many data sets it is (nearly) always found; a speed-up never is a regression.
  int found = 0;
  for (int t = 0; t < 50; ++t) {
    auto slow = compare_latency(repeated_side(10 + t, 5, 30, 10.0, 0.02, 0.03),
                                repeated_side(90 + t, 5, 30, 11.0, 0.02, 0.03), o);
    found += latency_verdict(slow, o) == verdict::kRegression;
    auto fast = compare_latency(repeated_side(10 + t, 5, 30, 10.0, 0.02, 0.03),
                                repeated_side(90 + t, 5, 30, 9.0, 0.02, 0.03), o);
    EXPECT_NE(latency_verdict(fast, o), verdict::kRegression);
  }
  EXPECT_GE(found, 48);
}

TEST(CompareRepetitions, OneRunOnASideFallsBackToItsSamplesAndSaysSo) {
  CompareOptions o;
  LatencySide base = repeated_side(3, 5, 30, 10.0, 0.02, 0.02);
  LatencySide one = first_run(repeated_side(4, 5, 30, 11.0, 0.02, 0.02));
  LatencyComparison l = compare_latency(base, one, o);
  EXPECT_EQ(l.base_runs, 5);
  EXPECT_EQ(l.new_runs, 1);
  EXPECT_EQ(l.unit, test_unit::kSamples);  // 150 and 30 samples: 30 make too few blocks, so the samples
  EXPECT_TRUE(l.single_run());
  // Two runs per side are enough for Welch (df >= 1): the unit is the run.
  LatencySide two_b = repeated_side(5, 2, 20, 10.0, 0.01, 0.02), two_n = repeated_side(6, 2, 20, 10.0, 0.01, 0.02);
  LatencyComparison w = compare_latency(two_b, two_n, o);
  EXPECT_EQ(w.unit, test_unit::kRuns);
  EXPECT_FALSE(w.single_run());
  // Too few samples in all: no verdict, whatever the runs.
  LatencySide tiny{{10, 10.1}, {1, 1}, 0}, tiny2{{11, 11.1}, {1, 1}, 0};
  EXPECT_EQ(latency_verdict(compare_latency(tiny, tiny2, o), o), verdict::kInsufficient);
}

TEST(CompareRepetitions, ReportsAndBenchResultsCarryTheirRunsIntoCompare) {
  LatencySide b = repeated_side(7, 3, 20, 10.0, 0.02, 0.02), n = repeated_side(8, 3, 20, 10.0, 0.02, 0.02);
  Report base, next;
  for (auto* r : {&base, &next}) {
    r->model.name = "net";
    r->backends = {rooflens::testing::backend_info("onnxruntime", "1.30.0", {}, "onnxruntime-node 1.30.0")};
  }
  auto add_run = [](Report& r, const LatencySide& s) {
    ProfileRun run;
    run.batch = 1;
    run.threads = 2;
    run.latencies_ms = s.samples;
    run.repetitions = s.repetitions;
    run.latency_ms = summarize(s.samples);
    r.runs.push_back(run);
  };
  add_run(base, b);
  add_run(next, n);
  Comparison c = compare_sources(source_from_report(base, "b"), source_from_report(next, "n"), {});
  ASSERT_TRUE(c.items[0].latency);
  EXPECT_EQ(c.items[0].latency->unit, test_unit::kRuns);
  EXPECT_EQ(c.items[0].latency->base_runs, 3);
  for (const auto& note : c.notes) EXPECT_EQ(note.find("run-to-run variation is not measured"), std::string::npos);

  // Runs whose repetitions after the first were turns of a live runner (compare's or --reference's chunks): two
  // such files made at different times are not pairs, and the comparison says so; measured as pairs, it does not.
  Report chunked = next;
  chunked.runs[0].live_from = 1;
  auto live_note = [](const Comparison& k) {
    return std::count_if(k.notes.begin(), k.notes.end(),
                         [](const std::string& x) { return x.find("NEW's runs after the first are turns of one live runner") == 0; });
  };
  EXPECT_EQ(live_note(compare_sources(source_from_report(base, "b"), source_from_report(chunked, "n"), {})), 1);
  CompareOptions paired;
  paired.paired = true;
  EXPECT_EQ(live_note(compare_sources(source_from_report(base, "b"), source_from_report(chunked, "n"), paired)), 0);
  EXPECT_EQ(live_note(c), 0);

  // A later run of that configuration failed in NEW (a failure of exactly the run's configuration): the item
  // is a new failure, not a pass with fewer runs.
  Failure f;
  f.batch = 1;
  f.threads = 2;
  f.stage = "run";
  f.kind = "died";
  f.message = "run 3 of 3: the runner died (signal 11)";
  next.failures.push_back(f);
  CompareSource src = source_from_report(next, "n");
  ASSERT_EQ(src.items.size(), 1u);
  EXPECT_EQ(src.items[0].status, status::kCrash);
  EXPECT_EQ(src.items[0].config, "batch=1 threads=2");
  Comparison broke = compare_sources(source_from_report(base, "b"), src, {});
  EXPECT_EQ(broke.items[0].verdict, verdict::kNewFailure);

  // One run on a side: the comparison says loudly that run-to-run variation was not measured.
  next.failures.clear();
  next.runs[0].repetitions.clear();
  next.runs[0].latencies_ms.resize(20);
  Comparison single = compare_sources(source_from_report(base, "b"), source_from_report(next, "n"), {});
  ASSERT_FALSE(single.notes.empty());
  EXPECT_NE(single.notes.back().find("run-to-run variation is not measured for 1 item: NEW was timed in one run"),
            std::string::npos)
      << single.notes.back();
  EXPECT_NE(single.notes.back().find("--repeat 5"), std::string::npos);
}

// ---- the partition of samples into runs ----

TEST(Repetitions, PartitionSplitAndSpread) {
  std::vector<double> s{10, 11, 12, 20, 21, 22, 23};
  EXPECT_EQ(repetition_sizes({}, 7), (std::vector<int64_t>{7}));  // older documents: one run
  EXPECT_TRUE(repetition_sizes({}, 0).empty());
  EXPECT_EQ(partition_error({3, 4}, 7), "");
  EXPECT_NE(partition_error({3, 3}, 7).find("sum to 6"), std::string::npos);
  EXPECT_NE(partition_error({7, 0}, 7), "");
  auto reps = split_repetitions(s, {3, 4});
  ASSERT_EQ(reps.size(), 2u);
  EXPECT_EQ(reps[1], (std::vector<double>{20, 21, 22, 23}));
  EXPECT_EQ(repetition_medians(s, {3, 4}), (std::vector<double>{11, 21.5}));
  RepetitionSpread sp = repetition_spread(s, {3, 4});
  EXPECT_EQ(sp.count, 2u);
  EXPECT_EQ(sp.min_samples, 3u);
  EXPECT_DOUBLE_EQ(sp.min_median, 11);
  EXPECT_DOUBLE_EQ(sp.max_median, 21.5);
  EXPECT_DOUBLE_EQ(sp.spread, (21.5 - 11) / 20);
  EXPECT_TRUE(spread_is_large(sp));  // 52% apart, runs of CV ~8%
  // Runs that agree as well as their samples do: not large.
  LatencySide calm = repeated_side(11, 5, 200, 10.0, 0.0, 0.05);
  EXPECT_FALSE(spread_is_large(repetition_spread(calm.samples, calm.repetitions)));
  LatencySide moody = repeated_side(12, 5, 200, 10.0, 0.15, 0.05);
  EXPECT_TRUE(spread_is_large(repetition_spread(moody.samples, moody.repetitions)));
}
