// The generative server's scheduler and metrics against the null executor, whose step times are known: every TTFT,
// TPOT, inter-token gap and goodput below is worked out by hand from the step costs (base 1 ms, 0.1 ms per prompt
// token, 0.5 ms per decoded row), not read back from the code.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "capacity/calibrate_decoder.h"
#include "capacity/generative/batcher.h"
#include "capacity/generative/instances.h"
#include "capacity/generative/lengths.h"
#include "capacity/generative/metrics.h"
#include "capacity/generative/null_executor.h"
#include "capacity/generative/step_model.h"
#include "capacity/generative/trace.h"
#include "core/errors.h"
#include "core/report.h"

using namespace rooflens;
using namespace rooflens::capacity::generative;
using rooflens::capacity::CalibrationSpan;
using rooflens::capacity::calibration_span;
using rooflens::capacity::decode_batches;
using rooflens::capacity::decode_contexts;
using rooflens::capacity::prefill_lengths;

namespace {

constexpr StepCost kCost{1.0, 0.1, 0.5, 0.0};

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

LoadPlan trace_of(std::vector<std::pair<double, RequestShape>> arrivals_ms) {
  LoadPlan l;
  l.kind = LoadKind::trace;
  for (const auto& [at, shape] : arrivals_ms) {
    l.trace_ns.push_back(static_cast<int64_t>(std::llround(at * 1e6)));
    l.shapes.push_back(shape);
  }
  return l;
}

LoadPlan offline(std::vector<RequestShape> shapes) {
  LoadPlan l;
  l.kind = LoadKind::offline;
  l.shapes = std::move(shapes);
  return l;
}

ServingRecords run(const LoadPlan& load, BatcherSettings s, StepCost cost = kCost, int64_t fail_at = -1) {
  NullExecutor exec(cost, fail_at);
  EXPECT_EQ(check_settings(s), "");
  return serve(load, s, exec);
}

std::vector<double> token_times_ms(const RequestRecord& r) {
  std::vector<double> out;
  for (int64_t t : r.token_ns) out.push_back(ms(t));
  return out;
}

TEST(GenerativeServing, TwoPromptsPrefillTogetherThenDecodeAsOneBatch) {
  BatcherSettings s;
  s.max_batch = 2;
  ServingRecords r = run(offline({{10, 3}, {10, 3}}), s);
  ASSERT_EQ(r.requests.size(), 2u);
  for (const auto& q : r.requests) {
    EXPECT_EQ(q.status, RequestStatus::ok);
    // prefill of 20 prompt tokens: 1 + 2 = 3 ms; two decode steps of 2 rows: 2 ms each.
    EXPECT_EQ(token_times_ms(q), (std::vector<double>{3, 5, 7}));
    const RequestMetrics m = request_metrics(q);
    EXPECT_DOUBLE_EQ(m.ttft_ms, 3);
    EXPECT_DOUBLE_EQ(m.e2e_ms, 7);
    ASSERT_TRUE(m.tpot_ms);
    EXPECT_DOUBLE_EQ(*m.tpot_ms, 2);
    EXPECT_EQ(m.itl_ms, (std::vector<double>{2, 2}));
    EXPECT_DOUBLE_EQ(m.queue_ms, 0);
  }
  EXPECT_EQ(r.steps, 3);
  const ServingSummary sum = summarize_serving(r, Slo{});
  EXPECT_DOUBLE_EQ(sum.duration_s, 0.007);
  EXPECT_NEAR(sum.request_throughput, 2 / 0.007, 1e-9);
  EXPECT_NEAR(sum.output_tokens_per_s, 6 / 0.007, 1e-9);
  EXPECT_NEAR(sum.tokens_per_s_per_user.mean, 500, 1e-9);  // 1 / 2 ms
}

// A joins at 0 (10 in, 4 out), B arrives at 4 ms (10 in, 2 out). Continuous: B is admitted at the next step boundary
// (5 ms), its prompt runs in a step of its own, then both decode together.
TEST(GenerativeServing, ContinuousBatchingAdmitsAtTheNextStepAndDecodesTogether) {
  ServingRecords r = run(trace_of({{0, {10, 4}}, {4, {10, 2}}}), BatcherSettings{});
  const RequestRecord &a = r.requests[0], &b = r.requests[1];
  EXPECT_EQ(token_times_ms(a), (std::vector<double>{2, 3.5, 5, 9}));
  EXPECT_EQ(token_times_ms(b), (std::vector<double>{7, 9}));
  EXPECT_DOUBLE_EQ(ms(b.admitted_ns), 5);
  const RequestMetrics ma = request_metrics(a), mb = request_metrics(b);
  EXPECT_DOUBLE_EQ(ma.ttft_ms, 2);
  EXPECT_NEAR(*ma.tpot_ms, 7.0 / 3, 1e-12);
  EXPECT_EQ(ma.itl_ms, (std::vector<double>{1.5, 1.5, 4}));
  EXPECT_DOUBLE_EQ(mb.queue_ms, 1);
  EXPECT_DOUBLE_EQ(mb.ttft_ms, 3);
  EXPECT_DOUBLE_EQ(mb.e2e_ms, 5);
  EXPECT_DOUBLE_EQ(*mb.tpot_ms, 2);

  // Goodput: a TTFT limit of 2.5 ms only A meets; a TPOT limit of 2.2 ms only B meets. 1 of 2 requests in 9 ms.
  Slo ttft;
  ttft.ttft_ms = 2.5;
  ServingSummary sum = summarize_serving(r, ttft);
  EXPECT_EQ(sum.good, 1);
  EXPECT_NEAR(sum.goodput, 1 / 0.009, 1e-9);
  Slo tpot;
  tpot.tpot_ms = 2.2;
  EXPECT_EQ(summarize_serving(r, tpot).good, 1);
  Slo both = ttft;
  both.tpot_ms = 2.2;
  EXPECT_EQ(summarize_serving(r, both).good, 0);
}

TEST(GenerativeServing, TheDecodeBatchsJoinsAndLeavesAreToldToTheExecutor) {
  struct Recorder final : StepExecutor {
    NullExecutor inner{kCost};
    std::vector<DecoderStep> plans;
    StepResult run(const DecoderStep& p) override {
      plans.push_back(p);
      return inner.run(p);
    }
    void idle_until(int64_t ns) override { inner.idle_until(ns); }
    const capacity::Clock& clock() const override { return inner.clock(); }
  } rec;
  serve(trace_of({{0, {10, 4}}, {4, {10, 2}}, {9.5, {10, 2}}}), BatcherSettings{}, rec);
  std::vector<std::vector<int64_t>> joined, left;
  for (const auto& p : rec.plans) {
    joined.push_back(p.joined);
    left.push_back(p.left);
  }
  // Steps: prefill A, decode A, decode A, prefill B, decode A+B (both finish at 9), then idle until C arrives at
  // 9.5, prefill C, decode C: the batch A+B left and C joined.
  ASSERT_EQ(rec.plans.size(), 7u);
  EXPECT_EQ(joined, (std::vector<std::vector<int64_t>>{{}, {0}, {}, {}, {1}, {}, {2}}));
  EXPECT_EQ(left, (std::vector<std::vector<int64_t>>{{}, {}, {}, {}, {}, {}, {0, 1}}));
}

TEST(GenerativeServing, StaticBatchingMakesALaterRequestWaitForTheWholeBatch) {
  BatcherSettings s;
  s.batching = Batching::static_batches;
  ServingRecords r = run(trace_of({{0, {10, 4}}, {4, {10, 2}}}), s);
  EXPECT_EQ(token_times_ms(r.requests[0]), (std::vector<double>{2, 3.5, 5, 6.5}));
  EXPECT_DOUBLE_EQ(ms(r.requests[1].admitted_ns), 6.5);
  EXPECT_DOUBLE_EQ(request_metrics(r.requests[1]).ttft_ms, 4.5);
  EXPECT_DOUBLE_EQ(request_metrics(r.requests[1]).e2e_ms, 6);
}

// In a static batch a finished sequence is still computed (padding) until the longest one ends; continuous batching
// lets it leave, so the long one's remaining steps are cheaper.
TEST(GenerativeServing, AStaticBatchCarriesItsFinishedRowsToTheEnd) {
  BatcherSettings st;
  st.batching = Batching::static_batches;
  ServingRecords r = run(offline({{10, 2}, {10, 4}}), st);
  EXPECT_EQ(token_times_ms(r.requests[0]), (std::vector<double>{3, 5}));
  EXPECT_EQ(token_times_ms(r.requests[1]), (std::vector<double>{3, 5, 7, 9}));
  ServingRecords c = run(offline({{10, 2}, {10, 4}}), BatcherSettings{});
  EXPECT_EQ(token_times_ms(c.requests[1]), (std::vector<double>{3, 5, 6.5, 8}));
}

TEST(GenerativeServing, ChunkedPrefillSharesEachStepsTokenBudgetWithTheDecodes) {
  BatcherSettings s;
  s.prefill = PrefillMode::chunked;
  s.max_batched_tokens = 8;
  ServingRecords r = run(offline({{10, 3}, {10, 3}}), s);
  // step 0: A's first 8 prompt tokens (1.8 ms); step 1: A's last 2 and B's first 6 (1.8 ms): A's first token at 3.6;
  // step 2: A decodes, B's last 4 (1 + 0.4 + 0.5 = 1.9 ms): 5.5; step 3: both decode (2 ms): 7.5; step 4: B (1.5): 9.
  EXPECT_EQ(token_times_ms(r.requests[0]), (std::vector<double>{3.6, 5.5, 7.5}));
  EXPECT_EQ(token_times_ms(r.requests[1]), (std::vector<double>{5.5, 7.5, 9}));
}

TEST(GenerativeServing, ConcurrencyUsersSendTheirNextRequestWhenTheLastFinished) {
  LoadPlan l;
  l.kind = LoadKind::concurrency;
  l.users = 1;
  l.shapes = {{10, 2}, {10, 2}, {10, 2}};
  ServingRecords r = run(l, BatcherSettings{});
  ASSERT_EQ(r.requests.size(), 3u);
  EXPECT_DOUBLE_EQ(ms(r.requests[0].scheduled_ns), 0);
  EXPECT_DOUBLE_EQ(ms(r.requests[1].scheduled_ns), 3.5);
  EXPECT_DOUBLE_EQ(ms(r.requests[2].scheduled_ns), 7);
  for (const auto& q : r.requests) EXPECT_DOUBLE_EQ(request_metrics(q).e2e_ms, 3.5);
  l.users = 3;  // three users: all at once, one batch
  r = run(l, BatcherSettings{});
  for (const auto& q : r.requests) EXPECT_DOUBLE_EQ(ms(q.scheduled_ns), 0);
}

// Serves each instance's share on a null runner of its own (virtual time from the same zero) and merges them.
ServingRecords run_instances(const LoadPlan& load, int64_t instances, BatcherSettings s) {
  const std::vector<InstanceShare> shares = split_load(load, instances);
  std::vector<ServingRecords> parts;
  for (const auto& share : shares) parts.push_back(share.ids.empty() ? ServingRecords{} : run(share.load, s));
  return merge_records(std::move(parts), shares);
}

TEST(GenerativeServing, InstancesTakeRequestsInTurnAtTheirArrivalsAndMergeBackUnderTheirIds) {
  LoadPlan server;
  server.kind = LoadKind::server;
  server.rate = 200;
  server.seed = 5;
  server.shapes = std::vector<RequestShape>(7, {10, 2});
  const std::vector<InstanceShare> shares = split_load(server, 2);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].ids, (std::vector<int64_t>{0, 2, 4, 6}));
  EXPECT_EQ(shares[1].ids, (std::vector<int64_t>{1, 3, 5}));
  const std::vector<int64_t> at = arrivals(server);
  for (const auto& share : shares)
    for (size_t j = 0; j < share.ids.size(); ++j) EXPECT_EQ(share.load.trace_ns[j], at[share.ids[j]]);
  const ServingRecords merged = run_instances(server, 2, BatcherSettings{});
  ASSERT_EQ(merged.requests.size(), 7u);
  EXPECT_EQ(merged.planned, 7);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(merged.requests[i].id, static_cast<int64_t>(i));
    EXPECT_EQ(merged.requests[i].scheduled_ns, at[i]) << "latencies count from the whole load's arrivals";
  }
  // Offline, one sequence per instance: two instances serve two requests at a time (prefill 2 ms + a decode of
  // 1.5 ms each), one instance serves them one after another.
  BatcherSettings one;
  one.max_batch = 1;
  std::vector<double> two_e2e, one_e2e;
  for (const auto& r : run_instances(offline(std::vector<RequestShape>(4, {10, 2})), 2, one).requests)
    two_e2e.push_back(request_metrics(r).e2e_ms);
  for (const auto& r : run_instances(offline(std::vector<RequestShape>(4, {10, 2})), 1, one).requests)
    one_e2e.push_back(request_metrics(r).e2e_ms);
  EXPECT_EQ(two_e2e, (std::vector<double>{3.5, 3.5, 7, 7}));
  EXPECT_EQ(one_e2e, (std::vector<double>{3.5, 7, 10.5, 14}));
}

TEST(GenerativeServing, InstancesSplitAConcurrencyLoadsUsersAndKeepEachUserOnOne) {
  LoadPlan l;
  l.kind = LoadKind::concurrency;
  l.users = 3;
  l.shapes = std::vector<RequestShape>(5, {10, 2});
  std::vector<InstanceShare> shares = split_load(l, 2);
  EXPECT_EQ(shares[0].load.users, 2);
  EXPECT_EQ(shares[1].load.users, 1);
  l.users = 1;  // fewer users than instances: the second instance has nothing to serve
  shares = split_load(l, 2);
  EXPECT_EQ(shares[0].ids.size(), 5u);
  EXPECT_TRUE(shares[1].ids.empty());
  // Two users on two instances, 3 requests: instance 0's user sends request 2 when request 0 is done (3.5 ms).
  l.users = 2;
  l.shapes.resize(3);
  const ServingRecords r = run_instances(l, 2, BatcherSettings{});
  ASSERT_EQ(r.requests.size(), 3u);
  EXPECT_DOUBLE_EQ(ms(r.requests[0].scheduled_ns), 0);
  EXPECT_DOUBLE_EQ(ms(r.requests[1].scheduled_ns), 0);
  EXPECT_DOUBLE_EQ(ms(r.requests[2].scheduled_ns), 3.5);
  for (const auto& q : r.requests) EXPECT_DOUBLE_EQ(request_metrics(q).e2e_ms, 3.5);
}

TEST(GenerativeServing, AKvBudgetMakesARequestWaitAndRejectsOneThatCanNeverFit) {
  BatcherSettings s;
  s.kv_budget_tokens = 30;
  ServingRecords r = run(offline({{10, 10}, {10, 10}, {30, 20}}), s);
  EXPECT_EQ(r.requests[0].status, RequestStatus::ok);
  EXPECT_FALSE(r.requests[0].waited_for_kv);
  // B's 20 tokens do not fit beside A's 20: it waits for A (prefill 2 ms + 9 decodes of 1.5 ms = 15.5 ms).
  EXPECT_TRUE(r.requests[1].waited_for_kv);
  EXPECT_DOUBLE_EQ(ms(r.requests[1].admitted_ns), 15.5);
  EXPECT_DOUBLE_EQ(request_metrics(r.requests[1]).ttft_ms, 17.5);
  EXPECT_EQ(r.requests[2].status, RequestStatus::rejected);
  EXPECT_EQ(r.requests[2].error, "needs 50 tokens of KV cache; the budget holds 30 (raise --kv-budget)");
  const ServingSummary sum = summarize_serving(r, Slo{});
  EXPECT_EQ(sum.waited_for_kv, 1);
  EXPECT_EQ(sum.rejected, 1);
  const ServingVerdict v = judge_serving(r, sum, Slo{}, 1);
  EXPECT_FALSE(v.valid);

  BatcherSettings ctx;
  ctx.max_context = 40;
  r = run(offline({{30, 20}}), ctx);
  EXPECT_EQ(r.requests[0].error, "needs 50 tokens of context (30 in + 20 out); the model holds 40");
}

// MLPerf's early stopping at p99 with 99% confidence: with no request over the limit, h(0) = ceil(ln 0.01 / ln 0.99)
// = 459 requests are needed to claim the percentile.
TEST(GenerativeServing, TheVerdictNeedsEnoughRequestsForItsPercentileAndEveryLimit) {
  Slo slo;
  slo.ttft_ms = 100;
  slo.tpot_ms = 100;
  for (int n : {458, 459}) {
    LoadPlan l;
    l.kind = LoadKind::concurrency;
    l.users = 4;
    l.shapes.assign(static_cast<size_t>(n), RequestShape{8, 4});
    ServingRecords r = run(l, BatcherSettings{});
    const ServingVerdict v = judge_serving(r, summarize_serving(r, slo), slo, 1);
    EXPECT_EQ(v.valid, n == 459) << n << ": " << (v.reasons.empty() ? "" : v.reasons[0]);
    if (n == 458) {
      ASSERT_EQ(v.reasons.size(), 2u);  // TTFT and TPOT, each
      EXPECT_NE(v.reasons[0].find("early stopping needs 459"), std::string::npos) << v.reasons[0];
    }
  }
  // Over the limit: the percentile itself says so.
  slo.ttft_ms = 1;
  LoadPlan l = offline(std::vector<RequestShape>(500, RequestShape{8, 4}));
  ServingRecords r = run(l, BatcherSettings{});
  const ServingVerdict v = judge_serving(r, summarize_serving(r, slo), slo, 1);
  ASSERT_FALSE(v.valid);
  EXPECT_NE(v.reasons[0].find("p99 TTFT"), std::string::npos);
  EXPECT_NE(v.reasons[0].find("over its limit of 1.00 ms"), std::string::npos) << v.reasons[0];
}

TEST(GenerativeServing, AFailedStepFailsTheRunningRequestsAndKeepsTheFinishedOnes) {
  BatcherSettings s;
  s.max_batch = 1;
  // A (10 in, 2 out) finishes in steps 0-1; B's prefill is step 2, which fails; C never starts.
  ServingRecords r = run(offline({{10, 2}, {10, 2}, {10, 2}}), s, kCost, 2);
  EXPECT_EQ(r.requests[0].status, RequestStatus::ok);
  EXPECT_EQ(r.requests[1].status, RequestStatus::failed);
  EXPECT_NE(r.requests[1].error.find("step 2 failed"), std::string::npos);
  EXPECT_EQ(r.requests[2].status, RequestStatus::abandoned);
  EXPECT_FALSE(r.fault.empty());
  const ServingSummary sum = summarize_serving(r, Slo{});
  EXPECT_EQ(sum.completed + sum.failed + sum.abandoned, 3);
  const ServingVerdict v = judge_serving(r, sum, Slo{}, 1);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons[0].find("the run stopped"), std::string::npos);
}

TEST(GenerativeServing, ServerArrivalsArePoissonOrGammaAtTheRate) {
  LoadPlan l;
  l.kind = LoadKind::server;
  l.rate = 50;
  l.seed = 7;
  l.shapes.assign(40000, RequestShape{1, 1});
  for (double k : {1.0, 0.5, 4.0}) {
    l.burstiness = k;
    const std::vector<int64_t> at = arrivals(l);
    std::vector<double> gaps;
    for (size_t i = 0; i < at.size(); ++i) gaps.push_back(static_cast<double>(at[i] - (i ? at[i - 1] : 0)) / 1e9);
    double mean = 0, var = 0;
    for (double g : gaps) mean += g / static_cast<double>(gaps.size());
    for (double g : gaps) var += (g - mean) * (g - mean) / static_cast<double>(gaps.size() - 1);
    EXPECT_NEAR(mean, 1.0 / 50, 0.02 / 50) << "burstiness " << k;
    // A gamma gap's squared coefficient of variation is 1 / shape: burstier below 1, steadier above.
    EXPECT_NEAR(var / (mean * mean), 1 / k, 0.08 / k) << "burstiness " << k;
    EXPECT_EQ(arrivals(l), at) << "seeded";
  }
}

TEST(GenerativeServing, LengthsAreFixedUniformNormalOrAMixture) {
  LengthPlan p = parse_length_plan("uniform:64-256", "normal:32,8");
  std::vector<RequestShape> s = draw_shapes(p, 20000, 3);
  int64_t lo = 1 << 30, hi = 0;
  double mean_out = 0;
  for (const auto& x : s) {
    lo = std::min(lo, x.input_tokens);
    hi = std::max(hi, x.input_tokens);
    mean_out += static_cast<double>(x.output_tokens) / 20000;
  }
  EXPECT_EQ(lo, 64);
  EXPECT_EQ(hi, 256);
  EXPECT_NEAR(mean_out, 32, 0.3);
  EXPECT_EQ(draw_shapes(p, 100, 3), draw_shapes(p, 100, 3));
  EXPECT_EQ(describe(p), "uniform:64-256 in / normal:32,8 out");

  p = parse_length_plan("128:32@70,512:128@30", "");
  s = draw_shapes(p, 10000, 5);
  const auto small = std::count(s.begin(), s.end(), RequestShape{128, 32});
  EXPECT_EQ(small + std::count(s.begin(), s.end(), RequestShape{512, 128}), 10000);
  EXPECT_NEAR(static_cast<double>(small) / 10000, 0.7, 0.02);
  EXPECT_EQ(describe(p), "mixture 128:32@70,512:128@30");
  EXPECT_EQ(describe(parse_length_plan("128", "")), "128 in / 32 out");

  for (const auto& [in, out, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"0", "32", "--input-tokens 0"},
           {"uniform:9-3", "32", "LOW is above HIGH"},
           {"normal:10", "32", "normal needs MEAN,STDDEV"},
           {"lots", "32", "unknown form"},
           {"128", "uniform:1", "uniform needs LOW-HIGH"},
           {"128:32@70,bad", "", "is not INPUT:OUTPUT@WEIGHT"},
           {"128:32@70", "16", "leave --output-tokens out"}}) {
    try {
      parse_length_plan(in, out);
      ADD_FAILURE() << in << " / " << out << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

TEST(GenerativeServing, ATraceIsReplayedInTimestampOrderFromItsFirstRequest) {
  const Trace t = parse_trace("{\"timestamp\": 1000250, \"input_tokens\": 5, \"output_tokens\": 2}\n\n"
                              "{\"timestamp\": 1000000, \"input_tokens\": 7, \"output_tokens\": 3}\n",
                              "t.jsonl");
  EXPECT_EQ(t.arrival_ns, (std::vector<int64_t>{0, 250'000'000}));
  EXPECT_EQ(t.shapes, (std::vector<RequestShape>{{7, 3}, {5, 2}}));
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"{\"timestamp\": 0, \"input_tokens\": 5, \"output_tokens\": 2}\nnot json\n", "t.jsonl:2: not a JSON object"},
           {"{\"timestamp\": -1, \"input_tokens\": 5, \"output_tokens\": 2}\n", "t.jsonl:1: 'timestamp'"},
           {"{\"timestamp\": 0, \"input_tokens\": 0, \"output_tokens\": 2}\n", "t.jsonl:1: 'input_tokens'"},
           {"{\"timestamp\": 0, \"input_tokens\": 3}\n", "t.jsonl:1: 'output_tokens'"},
           {"\n\n", "t.jsonl: the trace holds no request"}}) {
    try {
      parse_trace(text, "t.jsonl");
      ADD_FAILURE() << text << " was accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(says, 0), 0u) << e.what();
    }
  }
}

TEST(GenerativeServing, AServingReportRoundTripsByteForByte) {
  Slo slo;
  slo.ttft_ms = 2.5;
  ServingRecords r = run(trace_of({{0, {10, 4}}, {4, {10, 2}}}), BatcherSettings{});
  Report rep;
  rep.tool.command = "capacity";
  rep.serving = ServingResult{};
  rep.serving->settings.scenario = "trace";
  rep.serving->settings.slo_ttft_ms = 2.5;
  rep.serving->summary = summarize_serving(r, slo);
  rep.serving->verdict = judge_serving(r, rep.serving->summary, slo, 1);
  rep.serving->steps = r.steps;
  const std::string once = report_to_json(rep);
  const Report back = report_from_json(once);
  ASSERT_TRUE(back.serving.has_value());
  EXPECT_EQ(back.serving->summary.good, 1);
  EXPECT_EQ(back.serving->verdict.reasons, rep.serving->verdict.reasons);
  EXPECT_EQ(report_to_json(back), once);

  // With a prediction; one written before the step model charged the KV rebuild reads as predicting none.
  rep.serving->predicted = ServingPrediction{};
  rep.serving->predicted->rebuilt_token_ms = 0.05;
  const std::string predicted = report_to_json(rep);
  EXPECT_EQ(report_to_json(report_from_json(predicted)), predicted);
  nlohmann::ordered_json older = nlohmann::ordered_json::parse(predicted);
  older["serving"]["predicted"].erase("rebuilt_token_ms");
  const Report before = report_from_json(older.dump());
  ASSERT_TRUE(before.serving->predicted.has_value());
  EXPECT_EQ(before.serving->predicted->rebuilt_token_ms, 0);
}

// The step-time model is fitted by least squares: calls made exactly of known terms give the terms back, a per-call
// step of the null executor adds up from them, and a term the data make negative is held at 0.
TEST(GenerativeServing, TheStepModelFitsTheCallsTimedAndHoldsNegativeTermsAtZero) {
  std::vector<TimedCall> prefill, decode;
  for (int64_t tokens : {16, 64, 256}) prefill.push_back({tokens, 0, 0, 0, 2.0 + 0.25 * static_cast<double>(tokens)});
  auto decode_ms = [](int64_t rows, int64_t context, int64_t rebuilt) {
    return 3.0 + 0.5 * static_cast<double>(rows) + 0.001 * static_cast<double>(context) +
           0.002 * static_cast<double>(rebuilt);
  };
  for (int64_t rows : {1, 2, 4, 8})
    for (int64_t context : {32, 192}) {
      decode.push_back({0, rows, rows * context, rows * context, decode_ms(rows, rows * context, rows * context)});
      decode.push_back({0, rows, rows * (context + 2), 0, decode_ms(rows, rows * (context + 2), 0)});
    }
  const StepCost c = fit_step_cost(prefill, decode);
  EXPECT_NEAR(c.per_prefill_call_ms, 2.0, 1e-9);
  EXPECT_NEAR(c.per_prefill_token_ms, 0.25, 1e-12);
  EXPECT_NEAR(c.per_decode_call_ms, 3.0, 1e-9);
  EXPECT_NEAR(c.per_decode_row_ms, 0.5, 1e-9);
  EXPECT_NEAR(c.per_context_token_ms, 0.001, 1e-12);
  EXPECT_NEAR(c.per_rebuilt_token_ms, 0.002, 1e-12);
  // A step of two prompts (10 and 20 tokens) and a decode of 3 rows whose longest context is 40 (padded: 3 × 40),
  // one of them new (the batch's membership changed: 30 + 30 + 40 tokens copied): 2 calls + 1 call.
  DecoderStep s;
  s.rows = {{0, 0, 10, true, true, false}, {1, 0, 20, true, true, false}, {2, 30, 1, false, false, false},
            {3, 30, 1, false, false, false}, {4, 40, 1, false, false, false}};
  s.joined = {4};
  EXPECT_NEAR(c.time_ms(s), (2 + 2.5) + (2 + 5) + (3 + 1.5 + 0.12 + 0.2), 1e-9);
  s.joined.clear();  // the same batch as the step before: nothing copied
  EXPECT_NEAR(c.time_ms(s), (2 + 2.5) + (2 + 5) + (3 + 1.5 + 0.12), 1e-9);

  // Without a rebuild timed, its term is 0 rather than a singular fit.
  std::vector<TimedCall> steady;
  for (const auto& d : decode)
    if (d.rebuilt == 0) steady.push_back(d);
  EXPECT_EQ(fit_step_cost(prefill, steady).per_rebuilt_token_ms, 0);
  // Prompt time that falls with length (noise on a flat call) cannot be a negative cost per token.
  prefill = {{16, 0, 0, 0, 5.0}, {64, 0, 0, 0, 4.9}, {256, 0, 0, 0, 4.8}};
  const StepCost flat = fit_step_cost(prefill, decode);
  EXPECT_EQ(flat.per_prefill_token_ms, 0);
  EXPECT_NEAR(flat.per_prefill_call_ms, 4.9, 1e-9);
  EXPECT_THROW(fit_step_cost({prefill[0]}, decode), std::invalid_argument);
}

// The calibration times calls at the lengths the load runs: prompts about its own, decode contexts from its shortest
// prompt to its longest context; always two distinct contexts (rows and padded context must not be collinear).
TEST(GenerativeServing, TheCalibrationSpansTheLoadsOwnLengths) {
  const CalibrationSpan fixed = calibration_span({{64, 16}, {64, 16}});
  EXPECT_EQ(fixed.shortest_prompt, 64);
  EXPECT_EQ(fixed.longest_context, 79);
  EXPECT_EQ(prefill_lengths(fixed), (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(decode_contexts(fixed), (std::vector<int64_t>{64, 79}));
  const CalibrationSpan mixed = calibration_span({{128, 32}, {512, 128}});
  EXPECT_EQ(prefill_lengths(mixed), (std::vector<int64_t>{64, 128, 512}));
  EXPECT_EQ(decode_contexts(mixed), (std::vector<int64_t>{128, 639}));
  const CalibrationSpan one = calibration_span({{1, 1}});
  EXPECT_EQ(prefill_lengths(one), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(decode_contexts(one), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(decode_batches(8), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(decode_batches(6), (std::vector<int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(decode_batches(1), (std::vector<int64_t>{1}));
}

}  // namespace
