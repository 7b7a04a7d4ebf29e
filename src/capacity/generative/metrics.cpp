#include "capacity/generative/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "capacity/loadgen/early_stopping.h"
#include "core/units.h"
#include "stats/order.h"

namespace rooflens::capacity::generative {
namespace {

double ns_to_ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string ms_text(double ms) { return fixed(ms, ms < 10 ? 2 : 0) + " ms"; }

// One objective judged at the percentile with the early-stopping bound: "" when it holds, else the reason.
std::string judge_limit(const std::string& metric, const std::vector<double>& values, double limit, double percentile,
                        double confidence) {
  if (limit <= 0) return "";
  const auto n = static_cast<int64_t>(values.size());
  if (n == 0) return metric + " has a limit but no completed request measured one (TPOT needs two output tokens)";
  const auto over = static_cast<int64_t>(std::count_if(values.begin(), values.end(), [&](double v) { return v > limit; }));
  const int64_t h = min_under_limit(over, percentile / 100, confidence);
  if (n >= h + over) return "";
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const std::string p = "p" + fixed(percentile, percentile == std::floor(percentile) ? 0 : 1);
  const double at = stats::percentile_nearest_rank(sorted, percentile);
  if (at > limit)
    return p + " " + metric + " " + ms_text(at) + " is over its limit of " + ms_text(limit) + " (" +
           std::to_string(over) + " of " + std::to_string(n) + " requests over): lower the load or change the batching";
  return p + " " + metric + " " + ms_text(at) + " is under its limit of " + ms_text(limit) + ", but " +
         std::to_string(n) + " requests with " + std::to_string(over) + " over cannot show it at " +
         fixed(confidence * 100, 0) + "% confidence (early stopping needs " + std::to_string(h + over) +
         "): run more requests";
}

}  // namespace

ServingDistribution distribution_of(std::vector<double> values) {
  ServingDistribution d;
  d.n = static_cast<int64_t>(values.size());
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  d.p50 = stats::percentile_nearest_rank(values, 50);
  d.p90 = stats::percentile_nearest_rank(values, 90);
  d.p95 = stats::percentile_nearest_rank(values, 95);
  d.p99 = stats::percentile_nearest_rank(values, 99);
  d.max = values.back();
  return d;
}

RequestMetrics request_metrics(const RequestRecord& r) {
  RequestMetrics m;
  m.queue_ms = ns_to_ms(r.admitted_ns - r.scheduled_ns);
  m.ttft_ms = ns_to_ms(r.first_token_ns - r.scheduled_ns);
  m.e2e_ms = ns_to_ms(r.end_ns - r.scheduled_ns);
  if (r.shape.output_tokens > 1) m.tpot_ms = (m.e2e_ms - m.ttft_ms) / static_cast<double>(r.shape.output_tokens - 1);
  for (size_t i = 1; i < r.token_ns.size(); ++i) m.itl_ms.push_back(ns_to_ms(r.token_ns[i] - r.token_ns[i - 1]));
  return m;
}

bool met(const RequestMetrics& m, const Slo& slo) {
  if (slo.ttft_ms > 0 && m.ttft_ms > slo.ttft_ms) return false;
  if (slo.tpot_ms > 0 && m.tpot_ms && *m.tpot_ms > slo.tpot_ms) return false;
  if (slo.e2e_ms > 0 && m.e2e_ms > slo.e2e_ms) return false;
  return true;
}

const std::vector<SloPreset>& slo_presets() {
  static const std::vector<SloPreset> presets = {
      {"llama2-70b", 2000, 200},           {"llama2-70b-interactive", 450, 40},
      {"mixtral-8x7b", 2000, 200},         {"llama3.1-405b", 6000, 175},
      {"llama3.1-405b-interactive", 4500, 80}, {"llama3.1-8b", 2000, 100},
      {"llama3.1-8b-interactive", 500, 30}, {"deepseek-r1", 2000, 80},
      {"deepseek-r1-interactive", 1500, 15},
  };
  return presets;
}

std::optional<Slo> preset_slo(const std::string& name) {
  for (const auto& p : slo_presets()) {
    if (name != p.name) continue;
    Slo s;
    s.ttft_ms = p.ttft_ms;
    s.tpot_ms = p.tpot_ms;
    s.preset = p.name;
    return s;
  }
  return std::nullopt;
}

ServingSamples serving_samples(const ServingRecords& records) {
  ServingSamples s;
  for (const auto& r : records.requests) {
    if (r.status != RequestStatus::ok) continue;
    const RequestMetrics m = request_metrics(r);
    s.ttft_ms.push_back(m.ttft_ms);
    if (m.tpot_ms) s.tpot_ms.push_back(*m.tpot_ms);
  }
  return s;
}

ServingSummary summarize_serving(const ServingRecords& records, const Slo& slo) {
  ServingSummary s;
  s.requests = static_cast<int64_t>(records.requests.size());
  s.duration_s = static_cast<double>(records.end_ns - records.start_ns) / 1e9;
  std::vector<double> queue, ttft, tpot, itl, e2e, per_user;
  int64_t out_tokens = 0, in_tokens = 0;
  for (const auto& r : records.requests) {
    s.waited_for_kv += r.waited_for_kv;
    switch (r.status) {
      case RequestStatus::failed: ++s.failed; continue;
      case RequestStatus::rejected: ++s.rejected; continue;
      case RequestStatus::abandoned: ++s.abandoned; continue;
      case RequestStatus::ok: break;
    }
    ++s.completed;
    out_tokens += r.shape.output_tokens;
    in_tokens += r.shape.input_tokens;
    const RequestMetrics m = request_metrics(r);
    queue.push_back(m.queue_ms);
    ttft.push_back(m.ttft_ms);
    e2e.push_back(m.e2e_ms);
    if (m.tpot_ms) {
      tpot.push_back(*m.tpot_ms);
      if (*m.tpot_ms > 0) per_user.push_back(1000 / *m.tpot_ms);
    }
    itl.insert(itl.end(), m.itl_ms.begin(), m.itl_ms.end());
    s.good += met(m, slo);
  }
  s.queue_ms = distribution_of(queue);
  s.ttft_ms = distribution_of(ttft);
  s.tpot_ms = distribution_of(tpot);
  s.itl_ms = distribution_of(itl);
  s.e2e_ms = distribution_of(e2e);
  s.tokens_per_s_per_user = distribution_of(per_user);
  if (s.duration_s > 0) {
    s.request_throughput = static_cast<double>(s.completed) / s.duration_s;
    s.output_tokens_per_s = static_cast<double>(out_tokens) / s.duration_s;
    s.input_tokens_per_s = static_cast<double>(in_tokens) / s.duration_s;
    s.total_tokens_per_s = static_cast<double>(out_tokens + in_tokens) / s.duration_s;
    s.goodput = static_cast<double>(s.good) / s.duration_s;
  }
  return s;
}

ServingVerdict judge_serving(const ServingRecords& records, const ServingSummary& summary, const Slo& slo,
                             int64_t min_requests, double confidence) {
  ServingVerdict v;
  if (!records.fault.empty()) v.reasons.push_back("the run stopped: " + records.fault);
  if (records.interrupted)
    v.reasons.push_back("interrupted before every request finished (" + std::to_string(records.requests.size()) +
                        " of " + std::to_string(records.planned) + " had arrived)");
  if (summary.failed) v.reasons.push_back(std::to_string(summary.failed) + " request(s) failed");
  if (summary.rejected)
    v.reasons.push_back(std::to_string(summary.rejected) + " request(s) rejected (too long for the context or the KV "
                        "budget): shorten them or raise --kv-budget");
  if (summary.abandoned) v.reasons.push_back(std::to_string(summary.abandoned) + " request(s) never finished");
  if (summary.completed < min_requests)
    v.reasons.push_back(std::to_string(summary.completed) + " request(s) completed, fewer than the " +
                        std::to_string(min_requests) + " required: run more requests");
  std::vector<double> ttft, tpot, e2e;
  for (const auto& r : records.requests) {
    if (r.status != RequestStatus::ok) continue;
    const RequestMetrics m = request_metrics(r);
    ttft.push_back(m.ttft_ms);
    e2e.push_back(m.e2e_ms);
    if (m.tpot_ms) tpot.push_back(*m.tpot_ms);
  }
  for (const auto& [name, values, limit] : {std::tuple{std::string("TTFT"), &ttft, slo.ttft_ms},
                                            std::tuple{std::string("TPOT"), &tpot, slo.tpot_ms},
                                            std::tuple{std::string("E2E"), &e2e, slo.e2e_ms}}) {
    std::string why = judge_limit(name, *values, limit, slo.percentile, confidence);
    if (!why.empty()) v.reasons.push_back(std::move(why));
  }
  v.valid = v.reasons.empty();
  return v;
}

}  // namespace rooflens::capacity::generative
