// The generation part of a report: figures computed from raw samples (checked against hand calculations), the
// TPOT-vs-KV fit, the DRAM roof it is held against, the JSON round trip, and the llama-bench-style terminal table.
#include <cmath>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/report.h"
#include "generate/generation_stats.h"
#include "reporters/generation_summary.h"

using namespace rooflens;

namespace {

// batch 2, prompt 100, 4 decode steps, 3 requests; KV 1000 bytes per token, weights 1 MB per step.
GenerationRun sample_run() {
  GenerationRun r;
  r.batch = 2;
  r.prompt = 100;
  r.gen = 4;
  r.threads = 2;
  r.kv_bytes_per_token = 1000;
  r.weight_bytes = 1'000'000;
  add_requests(r, {{50, {10, 11, 12, 13}, {40, 0, 0, 0}, std::nullopt}, {40, {10, 12, 12, 14}, {0, 0, 0, 0}, std::nullopt},
                   {60, {11, 11, 13, 13}, {0, 8, 0, 0}, std::nullopt}});
  refresh_figures(r);
  return r;
}

TEST(GenerationStats, FiguresFromSamples) {
  const GenerationRun r = sample_run();
  EXPECT_EQ(r.repetitions, (std::vector<int64_t>{3}));
  EXPECT_EQ(r.ttft_ms.n, 3);
  EXPECT_DOUBLE_EQ(r.ttft_ms.median, 50);
  EXPECT_EQ(r.tpot_ms.n, 12);
  EXPECT_DOUBLE_EQ(r.tpot_ms.max, 14);
  EXPECT_EQ(r.e2e_samples_ms, (std::vector<double>{96, 88, 108}));
  // prefill t/s per request = 2 * 100 / ttft s: 4000, 5000, 3333.33 -> mean 4111.11, sample std 839.9
  EXPECT_NEAR(r.prefill_tokens_per_s, (4000 + 5000 + 200 / 0.06) / 3, 1e-9);
  const double m = r.prefill_tokens_per_s;
  const double sd = std::sqrt((std::pow(4000 - m, 2) + std::pow(5000 - m, 2) + std::pow(200 / 0.06 - m, 2)) / 2);
  EXPECT_NEAR(r.prefill_tokens_per_s_std, sd, 1e-9);
  // decode t/s = 2 * 4 / steps s: 8 / 0.046, 8 / 0.048, 8 / 0.048
  EXPECT_NEAR(r.decode_tokens_per_s, (8 / 0.046 + 8 / 0.048 + 8 / 0.048) / 3, 1e-9);
  // context of step s = prompt + s + 1; TPOT = median over the 3 requests of that step, but for the one step with
  // more than kQuietStepFaults page faults (request 0's first: 40), left out since every context has a step without
  ASSERT_EQ(r.by_context.size(), 4u);
  EXPECT_EQ(r.by_context[0].context, 101);
  EXPECT_EQ(r.by_context[0].n, 2);
  EXPECT_DOUBLE_EQ(r.by_context[0].tpot_ms, 10.5);  // 10 and 11; with the faulted step it would be 10
  EXPECT_EQ(r.by_context[1].n, 3);                  // request 2's 8 faults are not more than kQuietStepFaults
  EXPECT_EQ(r.by_context_faulted_steps.value_or(-1), 1);
  EXPECT_DOUBLE_EQ(r.by_context[1].tpot_ms, 11);
  EXPECT_DOUBLE_EQ(r.by_context[3].tpot_ms, 13);
  EXPECT_EQ(r.by_context[3].kv_bytes, 2u * 104 * 1000);
  EXPECT_EQ(r.by_context[3].bytes, 1'000'000u + 208'000u);
  EXPECT_EQ(r.kv_bytes_end, 2u * 104 * 1000);
  // bytes per token: mean over steps of (1 MB + 2 * context * 1000) / batch
  EXPECT_EQ(r.decode_bytes_per_token, static_cast<uint64_t>((1'000'000 + 2 * 102.5 * 1000) / 2));
  // achieved GB/s: every step's bytes over every step's time
  double bytes = 0, secs = 0;
  const double steps[3][4] = {{10, 11, 12, 13}, {10, 12, 12, 14}, {11, 11, 13, 13}};
  for (const auto& q : steps)
    for (int s = 0; s < 4; ++s) bytes += 1e6 + 2.0 * (101 + s) * 1000, secs += q[s] / 1000;
  EXPECT_NEAR(r.decode_gbps, bytes / secs / 1e9, 1e-12);
  // page faults: 40 + 0 + 8 over 3 requests x 4 steps
  EXPECT_EQ(r.step_page_faults, (std::vector<int64_t>{40, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0}));
  ASSERT_TRUE(r.page_faults_per_step);
  EXPECT_DOUBLE_EQ(*r.page_faults_per_step, 4);
}

TEST(GenerationStats, RepetitionsAppend) {
  GenerationRun r = sample_run();
  add_requests(r, {{45, {9, 9, 9, 9}, {16, 0, 0, 0}, std::nullopt}});
  refresh_figures(r);
  EXPECT_EQ(r.repetitions, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(r.ttft_ms.n, 4);
  EXPECT_EQ(r.by_context[0].n, 2);  // requests 0 and 3 faulted at their first step
  EXPECT_EQ(r.by_context[1].n, 4);
  EXPECT_DOUBLE_EQ(*r.page_faults_per_step, 64.0 / 16);
  // A repetition whose source did not count page faults leaves the run without the figure (no mean over some).
  add_requests(r, {{45, {9, 9, 9, 9}, {}, std::nullopt}});
  refresh_figures(r);
  EXPECT_TRUE(r.step_page_faults.empty());
  EXPECT_FALSE(r.page_faults_per_step);
  EXPECT_THROW(add_requests(r, {{45, {9, 9}, {}, std::nullopt}}), UserError);  // not gen steps
}

// An unstable TPOT names page faults as its cause when the steps took them, and the machine otherwise.
TEST(GenerationStats, UnstableTpotNamesPageFaultsWhenTheStepsTookThem) {
  GenerationRun r;
  r.gen = 4;
  add_requests(r, {{50, {1, 1, 1, 7}, {1, 1, 1, 1}, std::nullopt}, {50, {1, 1, 1, 7}, {1, 1, 1, 1}, std::nullopt}});
  refresh_figures(r);
  ASSERT_GT(r.tpot_ms.cv, 0.05);
  std::vector<std::string> w = generation_timing_warnings(r);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("another process busy"), std::string::npos) << w[0];  // 1 fault a step: not the cause
  r = GenerationRun{};
  r.gen = 4;
  add_requests(r, {{50, {1, 1, 1, 7}, {0, 0, 0, 2000}, std::nullopt}, {50, {1, 1, 1, 7}, {0, 0, 0, 0}, std::nullopt}});
  refresh_figures(r);
  w = generation_timing_warnings(r);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("with 250 page faults a decode step"), std::string::npos) << w[0];
}

// A faulting episode — several requests' steps at the same positions landing on fresh pages — bends the TPOT-vs-KV line
// however the KV grows; the series then takes the steps without faults. Where every step faults alike (the binding's
// steady cost at a short context) no step is left out.
TEST(GenerationStats, TheContextSeriesLeavesOutAFaultingEpisode) {
  GenerationRun r;
  r.batch = 1;
  r.prompt = 100;
  r.gen = 6;
  r.kv_bytes_per_token = 100'000;  // 0.1 MB a token: 0.1 ms more a step at 1 ms per MB
  auto steps = [](double slow_from) {
    std::vector<double> v;
    for (int s = 0; s < 6; ++s) v.push_back(1.0 + 0.1 * s + (s < slow_from ? 3.0 : 0.0));
    return v;
  };
  const std::vector<int64_t> faulted{500, 500, 500, 0, 0, 0}, quiet(6, 0);
  add_requests(r, {{5, steps(3), faulted, std::nullopt}, {5, steps(3), faulted, std::nullopt}, {5, steps(0), quiet, std::nullopt}});
  refresh_figures(r);
  EXPECT_EQ(r.by_context_faulted_steps.value_or(-1), 6);
  EXPECT_NEAR(r.tpot_vs_kv.ms_per_mb, 1.0, 1e-9);  // every step without faults: the KV's own slope
  EXPECT_NEAR(r.tpot_vs_kv.r, 1.0, 1e-9);
  // 0.5 MB more KV (contexts 101..106) against 10.35 MB a step on average.
  EXPECT_NEAR(r.by_context_kv_share.value_or(-1), 0.5 / 10.35, 1e-9);
  // With every step used the episode makes the slope negative.
  GenerationRun all = r;
  all.step_page_faults.clear();
  refresh_figures(all);
  EXPECT_FALSE(all.by_context_faulted_steps);
  EXPECT_LT(all.tpot_vs_kv.ms_per_mb, 0);
  // Every request faulting at the first three positions: those contexts have no quiet step; nothing is left out.
  GenerationRun steady;
  steady.batch = 1;
  steady.prompt = 100;
  steady.gen = 6;
  steady.kv_bytes_per_token = 100'000;
  add_requests(steady, {{5, steps(3), faulted, std::nullopt}, {5, steps(3), faulted, std::nullopt}});
  refresh_figures(steady);
  EXPECT_FALSE(steady.by_context_faulted_steps);
  EXPECT_EQ(steady.by_context[0].n, 2);
}

// The prefill's page faults beside TTFT: their mean, a TTFT-unstable warning that names them, none without a count
// from every request, and a list of the wrong length refused when read.
TEST(GenerationStats, PrefillPageFaultsAreKeptBesideTtft) {
  GenerationRun r;
  r.gen = 2;
  add_requests(r, {{60, {1, 1}, {0, 0}, 300}, {10, {1, 1}, {0, 0}, 0}, {11, {1, 1}, {0, 0}, 30}});
  refresh_figures(r);
  EXPECT_EQ(r.prefill_page_faults, (std::vector<int64_t>{300, 0, 30}));
  EXPECT_DOUBLE_EQ(r.page_faults_per_prefill.value_or(-1), 110);
  std::vector<std::string> w = generation_timing_warnings(r);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("TTFT unstable: CV"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("with 110 page faults a prefill"), std::string::npos) << w[0];
  Report rep;
  rep.generation = Generation{};
  rep.generation->runs = {r};
  const std::string text = generation_summary(rep);
  EXPECT_NE(text.find("faults/prefill"), std::string::npos) << text;
  rep.backends = {BackendInfo{"onnxruntime", "1.30.0", {}, "onnxruntime-node 1.30.0", "onnxruntime", ""}};
  const std::string once = report_to_json(rep);
  EXPECT_EQ(report_from_json(once).generation->runs[0].prefill_page_faults, r.prefill_page_faults);
  std::string bad = once;
  const size_t at = bad.find("\"prefill_page_faults\": [");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, bad.find(']', at) + 1 - at, "\"prefill_page_faults\": [1, 2]");
  EXPECT_THROW(report_from_json(bad), UserError);
  add_requests(r, {{10, {1, 1}, {0, 0}, std::nullopt}});  // a request without a count: no figure from some
  refresh_figures(r);
  EXPECT_TRUE(r.prefill_page_faults.empty());
  EXPECT_FALSE(r.page_faults_per_prefill);
}

TEST(GenerationStats, FitIsExactOnALine) {
  std::vector<ContextPoint> pts;
  for (int i = 1; i <= 5; ++i) {
    ContextPoint p;
    p.kv_bytes = static_cast<uint64_t>(i) * 2'000'000;
    p.tpot_ms = 3 + 0.25 * 2 * i;  // 0.25 ms per MB
    pts.push_back(p);
  }
  const ContextFit f = fit_tpot_vs_kv(pts);
  EXPECT_NEAR(f.ms_per_mb, 0.25, 1e-12);
  EXPECT_NEAR(f.intercept_ms, 3, 1e-12);
  EXPECT_NEAR(f.r, 1, 1e-12);
  pts.resize(2);
  EXPECT_EQ(fit_tpot_vs_kv(pts).r, 0);  // too few points for a correlation
}

TEST(GenerationStats, DramRoofPrefersReadAtTheNearestThreads) {
  HardwareInfo hw;
  hw.memory = {{"DRAM", "triad", 2, 29, 0}, {"DRAM", "read", 2, 33, 0}, {"DRAM", "read", 1, 16, 0},
               {"L2", "read", 2, 280, 0}};
  EXPECT_EQ(dram_roof(hw, 2).label, "DRAM read x2");
  EXPECT_DOUBLE_EQ(dram_roof(hw, 2).gbps, 33);
  EXPECT_DOUBLE_EQ(dram_roof(hw, 1).gbps, 16);
  EXPECT_DOUBLE_EQ(dram_roof(hw, 8).gbps, 33);
  hw.memory.clear();
  EXPECT_EQ(dram_roof(hw, 2).label, "");
}

Report generation_report() {
  Report rep;
  rep.tool.command = "generate";
  rep.model.name = "tiny";
  rep.model.weight_bytes = 4'000'000;
  rep.model.analysis.totals.params = 1'000'000;
  rep.backends = {BackendInfo{"onnxruntime", "1.30.0", {}, "onnxruntime-node 1.30.0", "onnxruntime", ""}};
  Generation g;
  g.io.layout = "optimum";
  g.io.input_ids = "input_ids";
  g.io.logits = "logits";
  g.io.cache = {{"past_key_values.0.key", "past_key_values.0.value", "present.0.key", "present.0.value"}};
  g.io.kv_heads = 2;
  g.io.head_dim = 8;
  g.io.vocab = 32;
  g.io.kv_dtype = "float";
  GenerationRun run = sample_run();
  run.next_token = NextToken::fixed;
  run.dram_gbps = 33;
  run.dram_roof = "DRAM read x2";
  run.tokens = {1, 2, 3};
  PhaseProfile decode;
  decode.phase = Phase::decode;
  decode.tokens = 1;
  decode.past = 103;
  decode.dims = {{"past_sequence_length", 103}};
  Layer l;
  l.name = "mm";
  l.op = "MatMul";
  l.bound = "memory";
  l.time_ms = 0.5;
  decode.layers = {l};
  run.phases = {decode};
  g.runs = {run};
  rep.generation = g;
  return rep;
}

TEST(GenerationReport, JsonRoundTripsByteForByte) {
  const std::string once = report_to_json(generation_report());
  const Report back = report_from_json(once);
  ASSERT_TRUE(back.generation);
  EXPECT_EQ(back.generation->runs[0].next_token, NextToken::fixed);
  EXPECT_EQ(back.generation->runs[0].phases[0].phase, Phase::decode);
  EXPECT_EQ(report_to_json(back), once);
  EXPECT_NE(once.find("\"next_token\": \"fixed\""), std::string::npos);
  EXPECT_NE(once.find("\"label\": \"batch=2 gen=4 prompt=100 threads=2\""), std::string::npos);
  EXPECT_EQ(back.generation->runs[0].step_page_faults.size(), 12u);
  EXPECT_EQ(back.generation->runs[0].page_faults_per_step, 4.0);
  EXPECT_EQ(back.generation->runs[0].by_context_faulted_steps.value_or(-1), 1);  // sample_run's one faulted step
  EXPECT_NEAR(back.generation->runs[0].by_context_kv_share.value_or(-1), 6000 / 1'205'000.0, 1e-12);
  EXPECT_FALSE(back.generation->runs[0].warmup_requests);  // not set: not written
  Report warm = generation_report();
  warm.generation->runs[0].warmup_requests = 7;
  EXPECT_EQ(report_from_json(report_to_json(warm)).generation->runs[0].warmup_requests, 7);
  // A report without generation writes no such key, as before.
  Report plain;
  EXPECT_EQ(report_to_json(plain).find("generation"), std::string::npos);
}

TEST(GenerationReport, MalformedSamplesAreRefused) {
  Report r = generation_report();
  r.generation->runs[0].tpot_samples_ms.pop_back();  // no longer gen samples per request
  EXPECT_THROW(report_from_json(report_to_json(r)), UserError);
  r = generation_report();
  r.generation->runs[0].repetitions = {2, 2};  // 4 requests claimed, 3 recorded
  EXPECT_THROW(report_from_json(report_to_json(r)), UserError);
  r = generation_report();
  r.generation->runs[0].step_page_faults.pop_back();  // a count missing for a step
  EXPECT_THROW(report_from_json(report_to_json(r)), UserError);
}

TEST(GenerationReport, LlamaBenchStyleTable) {
  const std::string s = generation_summary(generation_report());
  EXPECT_NE(s.find("pp100"), std::string::npos) << s;
  EXPECT_NE(s.find("tg4"), std::string::npos);
  EXPECT_NE(s.find(" ± "), std::string::npos);
  EXPECT_NE(s.find("TTFT p50"), std::string::npos);
  EXPECT_NE(s.find("TPOT p50"), std::string::npos);
  EXPECT_NE(s.find("faults/step"), std::string::npos);
  EXPECT_NE(s.find("warm-up"), std::string::npos);
  EXPECT_NE(s.find("batch=2 gen=4 prompt=100 threads=2"), std::string::npos);
  EXPECT_NE(s.find("DRAM read x2"), std::string::npos);
  EXPECT_NE(s.find("decode"), std::string::npos);
  EXPECT_NE(s.find("(1 steps with more than 8 page faults left out)"), std::string::npos) << s;
  // 6 KB more KV over the series against ~1.2 MB a step: no slope is stated, and the text says why.
  EXPECT_NE(s.find("no slope stated: the KV read grows by 6.00KB over the series, 0.5% of the 1.21MB a step reads"),
            std::string::npos) << s;
  EXPECT_EQ(s.find("ms per MB of KV"), std::string::npos) << s;
  const MatMulBounds b = matmul_bounds(generation_report().generation->runs[0].phases[0]);
  EXPECT_EQ(b.layers, 1u);
  EXPECT_EQ(b.memory, 1u);
}

TEST(GenerationReport, MemoryTableSetsThePredictionAgainstTheMemoryGenerationAndNamesWhatKeepsMemory) {
  Report r = generation_report();
  EXPECT_EQ(generation_summary(r).find("memory above the runner's start"), std::string::npos);  // no memory: no table
  KvMemory m;
  m.weights_bytes = 4'000'000;
  m.prefill_kv_bytes = 100'000;
  m.decode_kv_bytes = 104'000;
  m.prefill_peak_bytes = 40'000'000;
  m.decode_peak_bytes = 36'000'000;
  m.prefill_collected_bytes = 40'400'000;  // -1.0%
  m.decode_collected_bytes = 0;            // not measured
  m.prefill_measured_bytes = 45'000'000;
  m.decode_measured_bytes = 47'000'000;
  r.generation->runs[0].memory = m;
  std::string s = generation_summary(r);
  EXPECT_NE(s.find("memory above the runner's start"), std::string::npos) << s;
  EXPECT_NE(s.find("-1.0%"), std::string::npos) << s;
  EXPECT_NE(s.find("40.40MB"), std::string::npos) << s;
  EXPECT_NE(s.find("47.00MB"), std::string::npos) << s;  // the timed requests' peak beside it
  // Neither the arena nor glibc's retention was turned off: the note says what the prediction leaves out.
  EXPECT_NE(s.find("memory arena was on"), std::string::npos) << s;
  EXPECT_NE(s.find("glibc kept freed blocks"), std::string::npos) << s;
  r.backends[0].options = {{"enableCpuMemArena", "false"}, {"mallocMmapThreshold", "131072"}};
  s = generation_summary(r);
  EXPECT_EQ(s.find("memory arena was on"), std::string::npos) << s;
  EXPECT_EQ(s.find("glibc kept freed blocks"), std::string::npos) << s;
}

}  // namespace
