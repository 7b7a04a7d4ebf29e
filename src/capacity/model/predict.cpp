#include "capacity/model/predict.h"

#include <algorithm>

#include "capacity/loadgen/find_peak.h"
#include "stats/order.h"

namespace rooflens::capacity {
namespace {

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// A prediction is a statement about the configuration, not about a run's length: the simulated runs are long enough
// that the percentile against the SLO decides, not early stopping's query count. Otherwise one slow call in a
// 50-call baseline (a moment the host took the CPUs) recurs in every short simulated run often enough that early
// stopping fails at every rate and the predicted peak is 0.
constexpr int64_t kPredictionQueries = 5000;

ScenarioResult simulated(const RunPlan& plan, const PredictionPlan& p, const ServiceModel& m) {
  return judge(plan, simulate(plan, p.instances, p.rules, m), p.judging);
}

}  // namespace

ServiceModel service_model(const std::vector<RunRecords>& baselines) {
  ServiceModel m;
  std::vector<double> send, reply;
  for (const auto& r : baselines)
    for (const auto& q : r.queries) {
      if (q.done.status != QueryStatus::ok) continue;
      m.service_ms[q.done.batch].push_back(ms(q.done.end_ns - q.done.start_ns));
      send.push_back(ms(q.done.start_ns - q.done.sent_ns));
      reply.push_back(ms(q.done.completed_ns - q.done.end_ns));
    }
  m.send_ms = std::max(0.0, stats::median_of(send));
  m.reply_ms = std::max(0.0, stats::median_of(reply));
  return m;
}

Prediction predict(const ServiceModel& model, const PredictionPlan& p) {
  Prediction out;
  const int64_t batch = p.server.samples_per_query;
  out.service_ms = model.median_ms(batch);
  out.overhead_ms = model.send_ms + model.reply_ms;
  if (out.service_ms <= 0) return out;
  const ScenarioResult offline = simulated(p.offline, p, model);
  out.offline_samples_per_s = offline.samples_per_s;
  if (!p.server_peak) return out;
  // The search starts where the simulated Offline throughput says the queue stops draining.
  PeakOptions o;
  o.start_qps = std::max(0.01, 0.8 * offline.completed_qps);
  o.precision = p.precision;
  RunPlan plan = p.server;
  plan.min_queries = std::max(plan.min_queries, kPredictionQueries);
  if (plan.max_queries > 0) plan.max_queries = std::max(plan.max_queries, plan.min_queries);
  const PeakOutcome peak = find_peak(
      o,
      [&](double qps) {
        plan.qps = qps;
        return simulated(plan, p, model);
      },
      [](const ScenarioResult&) { return false; });
  out.peak_qps = peak.peak.qps;
  const double reference = out.peak_qps > 0 ? out.peak_qps : offline.completed_qps;
  for (double f : {0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25}) {
    plan.qps = reference * f;
    if (plan.qps <= 0) continue;
    const ScenarioResult s = simulated(plan, p, model);
    out.curve.push_back({plan.qps, s.latency_ms.p50, s.latency_ms.p99, s.valid});
  }
  return out;
}

}  // namespace rooflens::capacity
