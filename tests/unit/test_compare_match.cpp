// `rooflens compare` without the binary: source adapters, item matching, status verdicts, latency verdicts on
// synthetic samples, layer matching by ONNX node identity, --threshold parsing.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "compare/compare.h"
#include "compare/layer_match.h"
#include "compare/sources.h"
#include "compare/verdict.h"
#include "core/errors.h"
#include "core/stats.h"
#include "support/backend_info.h"

using namespace rooflens;

namespace {

std::vector<double> noisy(uint64_t seed, size_t n, double median, double cv) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, cv);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(median * (1 + z(rng)));
  return v;
}

ProfileRun match_run(int64_t batch, int64_t threads, std::vector<double> samples) {
  ProfileRun r;
  r.batch = batch;
  r.dims = {{"batch", batch}};
  r.threads = threads;
  r.latency_ms = summarize(samples);
  r.latencies_ms = std::move(samples);
  return r;
}

Failure failure(int64_t batch, int64_t threads, const std::string& kind, const std::string& msg) {
  Failure f;
  f.batch = batch;
  f.threads = threads;
  f.stage = "load";
  f.kind = kind;
  f.message = msg;
  return f;
}

Report report(const std::string& model) {
  Report r;
  r.model.name = model;
  r.backends = {rooflens::testing::backend_info("onnxruntime", "1.30.0", {}, "onnxruntime-node 1.30.0")};
  return r;
}

BenchEntry match_entry(const std::string& model, const std::string& config, const std::string& status,
                 std::vector<double> samples = {}) {
  BenchEntry e;
  e.model = model;
  e.config = config;
  e.status = status;
  if (status != "pass") e.stage = "run", e.message = model + " broke";
  e.latency_ms = summarize(samples);
  e.latencies_ms = std::move(samples);
  return e;
}

const ItemComparison& item(const Comparison& c, const std::string& model, const std::string& config) {
  for (const auto& i : c.items)
    if (i.model == model && i.config == config) return i;
  throw std::runtime_error("no item " + model + " " + config);
}

Layer layer(const std::string& name, std::vector<std::string> nodes, double ms, bool alias = false) {
  Layer l;
  l.name = name;
  l.op = "Conv";
  l.onnx_nodes = std::move(nodes);
  l.time_ms = ms;
  l.alias = alias;
  return l;
}

}  // namespace

// ---- verdicts on synthetic samples ----

TEST(CompareVerdict, TenPercentSlowdownIsASignificantRegression) {
  CompareOptions o;
  auto l = compare_latency(noisy(1, 30, 10, 0.02), noisy(2, 30, 11, 0.02), o);
  EXPECT_TRUE(l.tested);
  EXPECT_TRUE(l.significant);
  EXPECT_LT(l.p_value, 1e-6);
  EXPECT_GT(l.ci_low, 1.05);
  EXPECT_NEAR(l.change, 0.10, 0.02);
  EXPECT_EQ(latency_verdict(l, o), verdict::kRegression);
}

TEST(CompareVerdict, ASpeedUpIsNeverARegression) {
  CompareOptions o;
  auto l = compare_latency(noisy(3, 30, 10, 0.02), noisy(4, 30, 9, 0.02), o);
  EXPECT_EQ(latency_verdict(l, o), verdict::kImprovement);
  EXPECT_LT(l.ci_high, 1);
  o.threshold = 0;  // even with no threshold at all
  EXPECT_EQ(latency_verdict(l, o), verdict::kImprovement);
}

// Over many seeded data sets: a 1% slowdown at 5% noise is never a regression (it is below the threshold even
// when a data set happens to look significant) and is mostly within noise; with no change at all the rule
// calls a change significant in about alpha of the cases, and never a regression or an improvement.
TEST(CompareVerdict, OnePercentInsideTheNoiseIsNotARegression) {
  CompareOptions o;
  o.resamples = 500;
  int noise = 0, significant_null = 0, trials = 100;
  for (int t = 0; t < trials; ++t) {
    auto base = noisy(1000 + t, 30, 10, 0.05);
    auto l = compare_latency(base, noisy(2000 + t, 30, 10.1, 0.05), o);
    std::string v = latency_verdict(l, o);
    EXPECT_NE(v, verdict::kRegression) << "trial " << t << " change " << l.change;
    noise += v == verdict::kWithinNoise;
    auto same = compare_latency(base, noisy(3000 + t, 30, 10, 0.05), o);
    significant_null += same.significant;
    EXPECT_NE(latency_verdict(same, o), verdict::kRegression);
    EXPECT_NE(latency_verdict(same, o), verdict::kImprovement);
  }
  EXPECT_GE(noise, 80);
  EXPECT_LE(significant_null, 10);  // alpha = 0.05: about 5 of 100
}

TEST(CompareVerdict, SignificantButSmallIsBelowThresholdUnlessTheThresholdIsLower) {
  CompareOptions o;
  auto l = compare_latency(noisy(7, 40, 10, 0.002), noisy(8, 40, 10.2, 0.002), o);  // +2%, very quiet
  EXPECT_TRUE(l.significant);
  EXPECT_EQ(latency_verdict(l, o), verdict::kBelowThreshold);
  o.threshold = 0.01;
  EXPECT_EQ(latency_verdict(l, o), verdict::kRegression);
}

TEST(CompareVerdict, TooFewSamplesNeverGetAVerdict) {
  CompareOptions o;
  // 3 vs 3 completely separated and 50% slower: still no test can reach p < 0.05 (best p = 0.1).
  auto l = compare_latency({10, 10.1, 10.2}, {15, 15.1, 15.2}, o);
  EXPECT_FALSE(l.tested);
  EXPECT_EQ(latency_verdict(l, o), verdict::kInsufficient);
  EXPECT_NEAR(l.change, 0.5, 0.01);  // the medians are still shown
  EXPECT_EQ(latency_verdict(compare_latency({10, 11}, noisy(9, 50, 20, 0.01), o), o), verdict::kInsufficient);
  // A side without raw samples (only a summary): medians from the summary, no test.
  auto s = compare_latency({}, noisy(10, 30, 12, 0.01), o, 10.0);
  EXPECT_FALSE(s.tested);
  EXPECT_DOUBLE_EQ(s.base_median_ms, 10.0);
  EXPECT_NEAR(s.change, 0.2, 0.01);
  // 4 vs 4 can reach significance (best p = 0.029), so the test runs.
  auto four = compare_latency({10, 10.1, 10.2, 10.3}, {15, 15.1, 15.2, 15.3}, o);
  EXPECT_TRUE(four.tested);
  EXPECT_NEAR(four.p_value, 2.0 / 70, 1e-12);
}

// ---- sources and matching ----

TEST(CompareMatch, ReportRunsAndFailuresBecomeItemsWithTheirLabels) {
  Report r = report("net");
  r.runs.push_back(match_run(1, 2, {1, 2, 3}));
  r.runs.back().layers.push_back(layer("conv", {"c"}, 1));
  r.failures.push_back(failure(8, 0, "died", "runner exited\nsignal 11"));
  r.failures.push_back(failure(16, 2, "interrupted", "interrupted (Ctrl-C)"));
  auto s = source_from_report(r, "r.json");
  ASSERT_EQ(s.items.size(), 3u);
  EXPECT_EQ(s.items[0].config, "batch=1 threads=2");
  EXPECT_EQ(s.items[0].status, status::kPass);
  ASSERT_TRUE(s.items[0].layers);
  EXPECT_EQ(s.items[0].layers->size(), 1u);
  EXPECT_EQ(s.items[1].config, "batch=8");
  EXPECT_EQ(s.items[1].status, status::kCrash);
  EXPECT_EQ(s.items[1].error, "load: runner exited signal 11");  // one line
  EXPECT_EQ(s.items[2].config, "batch=16 threads=2");
  EXPECT_EQ(s.items[2].status, status::kSkip);
}

TEST(CompareMatch, NewAndFixedFailuresBetweenReports) {
  Report base = report("net"), next = report("net");
  base.runs.push_back(match_run(1, 2, noisy(1, 20, 10, 0.01)));
  next.failures.push_back(failure(0, 0, "error", "ORT refused the model"));  // requested "default" = batch=1 threads=2
  base.failures.push_back(failure(4, 0, "timeout", "timed out after 5 s"));
  next.runs.push_back(match_run(4, 2, noisy(2, 20, 30, 0.01)));
  auto c = compare_sources(source_from_report(base, "b"), source_from_report(next, "n"), {});
  ASSERT_EQ(c.items.size(), 2u);
  const auto& broke = item(c, "net", "batch=1 threads=2");
  EXPECT_EQ(broke.verdict, verdict::kNewFailure);
  EXPECT_EQ(broke.new_error, "load: ORT refused the model");
  const auto& fixed = item(c, "net", "batch=4 threads=2");
  EXPECT_EQ(fixed.verdict, verdict::kFixed);
  EXPECT_EQ(fixed.base_status, status::kTimeout);
  EXPECT_FALSE(fixed.latency);
  auto n = count_verdicts(c);
  EXPECT_EQ(n.new_failures, 1u);
  EXPECT_EQ(n.fixed, 1u);
  EXPECT_TRUE(fails_check(n));
}

TEST(CompareMatch, AFailureIsNotPairedWhenSeveralRunsCouldBeIt) {
  Report base = report("net"), next = report("net");
  base.runs.push_back(match_run(1, 1, noisy(1, 10, 10, 0.01)));
  base.runs.push_back(match_run(1, 2, noisy(2, 10, 10, 0.01)));
  next.failures.push_back(failure(1, 0, "error", "boom"));  // batch=1, threads unknown: either run
  auto c = compare_sources(source_from_report(base, "b"), source_from_report(next, "n"), {});
  auto n = count_verdicts(c);
  EXPECT_EQ(n.only_base, 2u);
  EXPECT_EQ(n.only_new, 1u);
  EXPECT_EQ(n.new_failures, 0u);
}

TEST(CompareMatch, BenchEntriesByModelAndConfig) {
  BenchResults base, next;
  base.entries = {match_entry("a", "ort", "pass", noisy(1, 20, 10, 0.01)), match_entry("b", "ort", "pass"),
                  match_entry("c", "ort", "fail"), match_entry("d", "ort", "crash"), match_entry("e", "ort", "skip"),
                  match_entry("gone", "ort", "pass"), match_entry("f", "ort", "pass")};
  next.entries = {match_entry("a", "ort", "pass", noisy(2, 20, 12, 0.01)), match_entry("b", "ort", "timeout"),
                  match_entry("c", "ort", "pass"), match_entry("d", "ort", "fail"), match_entry("e", "ort", "skip"),
                  match_entry("new", "ort", "fail"), match_entry("f", "ort", "fail"), match_entry("f", "ort", "pass")};
  auto s = source_from_bench(next, "n");
  EXPECT_EQ(s.items.size(), 7u);  // the later "f" replaced the earlier one
  auto c = compare_sources(source_from_bench(base, "b"), s, {});
  EXPECT_EQ(item(c, "a", "ort").verdict, verdict::kRegression);
  EXPECT_EQ(item(c, "b", "ort").verdict, verdict::kNewFailure);
  EXPECT_EQ(item(c, "b", "ort").new_status, status::kTimeout);
  EXPECT_EQ(item(c, "c", "ort").verdict, verdict::kFixed);
  EXPECT_EQ(item(c, "d", "ort").verdict, verdict::kStillFailing);
  EXPECT_EQ(item(c, "e", "ort").verdict, verdict::kSkipped);
  EXPECT_EQ(item(c, "f", "ort").verdict, verdict::kNotTimed);
  EXPECT_EQ(item(c, "gone", "ort").verdict, verdict::kOnlyBase);
  EXPECT_EQ(item(c, "new", "ort").verdict, verdict::kOnlyNew);
  EXPECT_EQ(c.items.back().model, "new");  // BASE's order, then NEW-only items
}

TEST(CompareMatch, StatusVerdictTable) {
  EXPECT_EQ(status_verdict("pass", "pass"), "");
  EXPECT_EQ(status_verdict("pass", "crash"), verdict::kNewFailure);
  EXPECT_EQ(status_verdict("skip", "fail"), verdict::kNewFailure);
  EXPECT_EQ(status_verdict("timeout", "pass"), verdict::kFixed);
  EXPECT_EQ(status_verdict("fail", "skip"), verdict::kStatusChanged);
  EXPECT_EQ(status_verdict("pass", "skip"), verdict::kStatusChanged);
  EXPECT_EQ(status_verdict("crash", "timeout"), verdict::kStillFailing);
  EXPECT_EQ(status_verdict("", "pass"), verdict::kOnlyNew);
  EXPECT_EQ(status_verdict("fail", ""), verdict::kOnlyBase);
}

TEST(CompareMatch, MixingKindsIsAUsageError) {
  BenchResults b;
  b.entries = {match_entry("a", "ort", "pass")};
  Report r = report("a");
  EXPECT_THROW(compare_sources(source_from_report(r, "r.json"), source_from_bench(b, "dir"), {}), UsageError);
}

TEST(CompareMatch, ReportsOfDifferentlyNamedModelsMatchByConfiguration) {
  Report base = report("net_v1"), next = report("net_v2");
  base.runs.push_back(match_run(1, 2, noisy(1, 20, 10, 0.01)));
  next.runs.push_back(match_run(1, 2, noisy(2, 20, 10, 0.01)));
  auto c = compare_sources(source_from_report(base, "b"), source_from_report(next, "n"), {});
  ASSERT_EQ(c.items.size(), 1u);
  EXPECT_EQ(c.items[0].model, "net_v1 → net_v2");
  EXPECT_EQ(c.items[0].verdict, verdict::kWithinNoise);
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes[0].find("different models"), std::string::npos);
  EXPECT_NE(c.notes[1].find("run-to-run variation is not measured for 1 item: BASE and NEW were timed in one run"),
            std::string::npos)
      << c.notes[1];
}

// ---- layers ----

TEST(CompareLayers, MatchedByOnnxNodesNotByKernelName) {
  std::vector<Layer> base{layer("fused conv1", {"conv1", "relu1"}, 2.0), layer("pool", {"pool"}, 0.5),
                          layer("reorder", {"conv1"}, 0.1, true), layer("fc", {"fc_mm", "fc_add"}, 1.0)};
  std::vector<Layer> next{layer("relu1_nchwc", {"relu1", "conv1"}, 3.0), layer("pool", {"pool"}, 0.5),
                          layer("reorder", {"conv1"}, 0.1, true), layer("fc_mm", {"fc_mm"}, 0.6),
                          layer("fc_add", {"fc_add"}, 0.3)};
  base[0].share = 0.5;
  next[0].share = 0.6;
  auto c = compare_layers(base, next);
  ASSERT_EQ(c.matched.size(), 3u);
  EXPECT_EQ(c.matched[0].name, "relu1_nchwc");  // largest |delta| first
  EXPECT_DOUBLE_EQ(c.matched[0].delta_ms(), 1.0);
  EXPECT_NEAR(c.matched[0].delta_share(), 0.1, 1e-12);
  // MatMul+Add was one kernel in BASE and two in NEW: compared as a group.
  ASSERT_EQ(c.regrouped.size(), 1u);
  EXPECT_EQ(c.regrouped[0].base_layers, std::vector<std::string>{"fc"});
  EXPECT_EQ(c.regrouped[0].new_layers, (std::vector<std::string>{"fc_mm", "fc_add"}));
  EXPECT_EQ(c.regrouped[0].onnx_nodes, (std::vector<std::string>{"fc_add", "fc_mm"}));
  EXPECT_DOUBLE_EQ(c.regrouped[0].base_ms, 1.0);
  EXPECT_NEAR(c.regrouped[0].delta_ms(), -0.1, 1e-12);
  EXPECT_TRUE(c.only_base.empty());
  EXPECT_TRUE(c.only_new.empty());
}

TEST(CompareLayers, FusionChainsGroupTransitivelyAndLoneLayersStayOneSided) {
  // BASE: [a+b] [c+d]; NEW: [a] [b+c] [d] -> one group of 2 vs 3 layers. NEW also computes "e", which BASE
  // folded away, and has a reorder alias: both only in NEW.
  std::vector<Layer> base{layer("ab", {"a", "b"}, 1), layer("cd", {"c", "d"}, 1)};
  std::vector<Layer> next{layer("a", {"a"}, 0.5), layer("bc", {"b", "c"}, 1), layer("d", {"d"}, 0.25),
                          layer("e", {"e"}, 0.1), layer("reorder", {"a"}, 0.05, true)};
  auto c = compare_layers(base, next);
  EXPECT_TRUE(c.matched.empty());
  ASSERT_EQ(c.regrouped.size(), 1u);
  EXPECT_EQ(c.regrouped[0].base_layers.size(), 2u);
  EXPECT_EQ(c.regrouped[0].new_layers.size(), 3u);
  EXPECT_DOUBLE_EQ(c.regrouped[0].new_ms, 1.75);
  ASSERT_EQ(c.only_new.size(), 2u);
  EXPECT_EQ(c.only_new[0].name, "e");  // by time
  EXPECT_EQ(c.only_new[1].name, "reorder");
  EXPECT_TRUE(c.only_base.empty());
}

TEST(CompareLayers, AliasesByNameAndRepeatsByOccurrence) {
  std::vector<Layer> base{layer("reorder_in", {"conv"}, 0.1, true), layer("k", {}, 0.2), layer("k", {}, 0.3)};
  std::vector<Layer> next{layer("reorder_out", {"conv"}, 0.1, true), layer("k", {}, 0.2), layer("k", {}, 0.4)};
  auto ids = layer_identities(base);
  EXPECT_NE(ids[1], ids[2]);
  auto c = compare_layers(base, next);
  EXPECT_EQ(c.matched.size(), 2u);     // both "k" kernels, in order
  EXPECT_DOUBLE_EQ(c.matched[0].delta_ms(), 0.1);
  EXPECT_EQ(c.only_base.size(), 1u);   // a differently named alias is a different layer
  EXPECT_EQ(c.only_new.size(), 1u);
}

TEST(CompareLayers, ReportItemsCarryLayerDeltas) {
  Report base = report("net"), next = report("net");
  base.runs.push_back(match_run(1, 2, noisy(1, 20, 10, 0.01)));
  next.runs.push_back(match_run(1, 2, noisy(2, 20, 10, 0.01)));
  base.runs[0].layers = {layer("a", {"x"}, 1), layer("b", {"y"}, 2)};
  next.runs[0].layers = {layer("a2", {"x"}, 1.5), layer("b", {"y"}, 2)};
  auto c = compare_sources(source_from_report(base, "b"), source_from_report(next, "n"), {});
  ASSERT_TRUE(c.items[0].layers);
  EXPECT_EQ(c.items[0].layers->matched.size(), 2u);
  EXPECT_TRUE(c.items[0].layers->only_base.empty());
}

// ---- flags ----

TEST(CompareThreshold, PercentOrFraction) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("2.5%"), 0.025);
  EXPECT_DOUBLE_EQ(parse_threshold("0"), 0);
  for (const char* bad : {"5", "abc", "", "%", "-1%", "100%", "5%%", "0.05x", "nan"})
    EXPECT_THROW(parse_threshold(bad), UsageError) << bad;
}

TEST(CompareMatch, NotesSayWhatDiffersBetweenTheSides) {
  Report base = report("net"), next = report("net");
  next.backends[0].options = {{"graphOptimizationLevel", "disabled"}};
  next.backends[0].runtime = "onnxruntime-node 1.31.0";
  next.partial = true;
  base.runs.push_back(match_run(1, 2, noisy(1, 20, 10, 0.01)));
  next.runs.push_back(match_run(1, 2, noisy(2, 20, 10, 0.01)));
  auto c = compare_sources(source_from_report(base, "b"), source_from_report(next, "n"), {});
  std::string all;
  for (const auto& n : c.notes) all += n + "\n";
  EXPECT_NE(all.find("NEW was interrupted"), std::string::npos) << all;
  EXPECT_NE(all.find("runtimes differ: BASE onnxruntime-node 1.30.0, NEW onnxruntime-node 1.31.0"), std::string::npos)
      << all;
  EXPECT_NE(all.find("backend options differ: BASE defaults, NEW graphOptimizationLevel=disabled"), std::string::npos)
      << all;
  EXPECT_TRUE(c.head.partial);
}

// ---- a whatif report stands for its projection ----

// `compare import.json whatif.json`: the NEW side is the projection (times from whatif), not the measured runs the
// whatif report carries along; nothing projected is significance-tested.
TEST(CompareProjection, AWhatifReportIsComparedByItsProjectedTimes) {
  Report base = report("net");
  ProfileRun r = match_run(1, 2, {10, 10.5, 9.5, 10.2, 9.8});
  r.layers = {layer("conv", {"conv"}, 6), layer("fc", {"fc"}, 2)};
  base.runs = {r};
  Report head = base;
  Projection p;
  p.target = "NVIDIA A100 SXM4 80GB (datasheet)";
  RunProjection rp;
  rp.run = r.label();
  rp.measured_ms = 10;
  rp.projected_ms = 2.5;
  LayerProjection conv, fc;
  conv.name = "conv", conv.time_ms = 1.5;
  fc.name = "fc", fc.time_ms = 0.5;
  rp.layers = {conv, fc};
  p.runs = {rp};
  head.whatif = p;
  const CompareSource projected = source_from_report(head, "whatif.json");
  EXPECT_NE(projected.description.find("PROJECTION of net onto NVIDIA A100"), std::string::npos) << projected.description;
  ASSERT_EQ(projected.items.size(), 1u);
  EXPECT_TRUE(projected.items[0].samples_ms.empty());
  const Comparison c = compare_sources(source_from_report(base, "import.json"), projected, {});
  const ItemComparison& i = item(c, "net", r.label());
  ASSERT_TRUE(i.latency);
  EXPECT_DOUBLE_EQ(i.latency->new_median_ms, 2.5);
  EXPECT_FALSE(i.latency->tested);
  ASSERT_TRUE(i.layers);
  ASSERT_EQ(i.layers->matched.size(), 2u);
  for (const auto& d : i.layers->matched) {
    if (d.name == "conv") {
      EXPECT_DOUBLE_EQ(d.new_ms, 1.5);
      EXPECT_DOUBLE_EQ(d.new_share, 0.75);
    } else {
      EXPECT_DOUBLE_EQ(d.new_ms, 0.5);
      EXPECT_DOUBLE_EQ(d.base_ms, 2);
    }
  }
}
