#include "capacity/loadgen/verdict.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "capacity/loadgen/early_stopping.h"
#include "stats/order.h"

namespace rooflens::capacity {
namespace {

double ns_to_ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

QueryLatency summary(std::vector<double> v) {
  QueryLatency q;
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  q.n = static_cast<int64_t>(v.size());
  q.min = v.front();
  q.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  q.mean = sum / static_cast<double>(v.size());
  q.p50 = stats::percentile_nearest_rank(v, 50);
  q.p90 = stats::percentile_nearest_rank(v, 90);
  q.p95 = stats::percentile_nearest_rank(v, 95);
  q.p99 = stats::percentile_nearest_rank(v, 99);
  q.p999 = stats::percentile_nearest_rank(v, 99.9);
  return q;
}

double at_percentile(std::vector<double> all, double p) {
  if (all.empty()) return 0;
  std::sort(all.begin(), all.end());
  return stats::percentile_nearest_rank(all, p);
}

std::vector<InstanceUse> instance_use(const RunRecords& r, int64_t instances, double wall_s) {
  std::vector<InstanceUse> out(static_cast<size_t>(std::max<int64_t>(instances, 0)));
  std::vector<std::set<int64_t>> calls(out.size());
  for (size_t i = 0; i < out.size(); ++i) out[i].index = static_cast<int64_t>(i);
  for (const auto& q : r.queries) {
    const int32_t i = q.done.instance;
    if (i < 0 || static_cast<size_t>(i) >= out.size()) continue;
    InstanceUse& u = out[static_cast<size_t>(i)];
    if (q.done.status == QueryStatus::failed) ++u.failed;
    if (q.done.status != QueryStatus::ok) continue;
    ++u.queries;
    if (calls[static_cast<size_t>(i)].insert(q.done.start_ns).second) {  // a merged batch is one call
      ++u.calls;
      u.busy_share += ns_to_ms(q.done.end_ns - q.done.start_ns) / 1000.0;
    }
  }
  for (auto& u : out) u.busy_share = wall_s > 0 ? u.busy_share / wall_s : 0;
  return out;
}

// The counts and rates of the run.
void fill_counts(ScenarioResult& s, const RunPlan& plan, const RunRecords& r) {
  int64_t last_done = r.start_ns, first_sched = 0, last_sched = 0, done_samples = 0;
  bool any = false;
  for (const auto& q : r.queries) {
    s.samples += q.issued.samples;
    if (!any || q.issued.scheduled_ns < first_sched) first_sched = q.issued.scheduled_ns;
    last_sched = std::max(last_sched, q.issued.scheduled_ns);
    any = true;
    if (q.done.status == QueryStatus::ok) {
      ++s.completed;
      done_samples += q.issued.samples;
      last_done = std::max(last_done, q.done.completed_ns);
    } else if (q.done.status == QueryStatus::failed) {
      ++s.failed;
    } else {
      ++s.abandoned;
    }
  }
  s.queries = static_cast<int64_t>(r.queries.size());
  s.target_qps = plan.scenario == Scenario::server ? plan.qps : 0;
  const double wall = static_cast<double>(last_done - r.start_ns) / 1e9;
  s.duration_s = wall;
  const double sched_span = static_cast<double>(last_sched - first_sched) / 1e9;
  s.scheduled_qps = plan.scenario == Scenario::server && sched_span > 0 ? static_cast<double>(s.queries - 1) / sched_span
                    : wall > 0 ? static_cast<double>(s.queries) / wall : 0;
  s.completed_qps = wall > 0 ? static_cast<double>(s.completed) / wall : 0;
  s.samples_per_s = wall > 0 ? static_cast<double>(done_samples) / wall : 0;
}

void fill_latency(ScenarioResult& s, const RunRecords& r, const Judging& j, std::vector<double>& all) {
  std::vector<const QueryRecord*> answered;
  std::vector<double> lags;
  for (const auto& q : r.queries) {
    if (q.done.status == QueryStatus::failed) continue;
    const double l = latency_ms(q, s.scenario, r.end_ns);
    all.push_back(l);
    if (s.scenario == Scenario::server && l > j.slo_ms) ++s.over_slo;
    if (q.done.status == QueryStatus::ok) answered.push_back(&q);
    lags.push_back(ns_to_ms(q.issued.issued_ns - q.issued.scheduled_ns));
  }
  std::sort(answered.begin(), answered.end(),
            [](const QueryRecord* a, const QueryRecord* b) { return a->done.completed_ns < b->done.completed_ns; });
  for (const QueryRecord* q : answered) s.latencies_ms.push_back(latency_ms(*q, s.scenario, r.end_ns));
  s.latency_ms = summary(all);
  if (s.scenario == Scenario::server && !lags.empty()) {
    std::sort(lags.begin(), lags.end());
    s.issue_lag = {stats::percentile_nearest_rank(lags, 50), stats::percentile_nearest_rank(lags, 99), lags.back()};
  }
}

void fail(ScenarioResult& s, std::string reason, std::string recommendation) {
  s.reasons.push_back(std::move(reason));
  s.recommendations.push_back(std::move(recommendation));
}

void check_run(ScenarioResult& s, const RunPlan& plan, const RunRecords& r) {
  if (!r.fault.empty())
    fail(s, r.fault + "; the run stopped there", "see the runner's last words in the error; the records so far are kept");
  if (r.interrupted) fail(s, "interrupted (Ctrl-C)", "run it again to the end");
  if (s.failed > 0) {
    std::string first;
    for (const auto& q : r.queries)
      if (q.done.status == QueryStatus::failed) {
        first = q.done.error;
        break;
      }
    fail(s, fmt::format("{} of {} queries failed ({})", s.failed, s.queries, first),
         "fix what failed; every failed query is in the records (--queries)");
  }
  if (s.queries < plan.min_queries && r.fault.empty() && !r.interrupted)
    fail(s, fmt::format("{} queries, fewer than the minimum of {}", s.queries, plan.min_queries),
         fmt::format("run at least {} more queries", plan.min_queries - s.queries));
  int64_t last = r.start_ns;
  for (const auto& q : r.queries) last = std::max(last, plan.scenario == Scenario::offline ? q.done.completed_ns
                                                       : plan.scenario == Scenario::server ? q.issued.scheduled_ns
                                                                                           : q.issued.issued_ns);
  const double span = static_cast<double>(last - r.start_ns) / 1e9;
  if (span < plan.min_duration_s && r.fault.empty() && !r.interrupted)
    fail(s, fmt::format("ran {:.2f} s, less than the minimum duration of {:g} s", span, plan.min_duration_s),
         "raise --max-queries, or lower --duration");
}

void check_server(ScenarioResult& s, const Judging& j) {
  const double at = s.percentile_ms;
  if (at > j.slo_ms)
    fail(s, fmt::format("p{:g} latency {:.2f} ms exceeds the SLO of {:g} ms ({} of {} queries over it)", j.percentile,
                        at, j.slo_ms, s.over_slo, s.queries),
         fmt::format("reduce --qps (this run: {:g})", s.target_qps));
  EarlyStoppingCheck& e = s.early_stopping;
  e.queries = s.queries;
  e.over_limit = s.over_slo + s.failed;
  e.needed = min_under_limit(e.over_limit, j.percentile / 100, j.confidence) + e.over_limit;
  e.passed = e.queries >= e.needed;
  if (!e.passed)
    fail(s, fmt::format("early stopping: {} of {} queries over the SLO; the p{:g} bound at {:g}% confidence needs at "
                        "least {} queries", e.over_limit, e.queries, j.percentile, j.confidence * 100, e.needed),
         fmt::format("run at least {} more queries (--min-queries {}), VALID if every one of them meets the SLO; or "
                     "reduce --qps", e.needed - e.queries, e.needed));
  if (s.issue_lag.p99_ms > j.lag_warning_share * j.slo_ms)
    s.warnings.push_back(fmt::format("the generator's issue lag p99 {:.3f} ms is above {:g}% of the SLO ({:g} ms): the "
                                     "latencies carry its cost (see rooflens capacity --self-test)",
                                     s.issue_lag.p99_ms, j.lag_warning_share * 100, j.slo_ms));
}

void check_stream(ScenarioResult& s, const Judging& j) {
  EarlyStoppingCheck& e = s.early_stopping;
  const PercentileEstimate est = percentile_estimate(s.latencies_ms, j.percentile / 100, j.confidence);
  e.queries = static_cast<int64_t>(s.latencies_ms.size());
  e.needed = est.needed;
  e.passed = est.possible;
  e.over_limit = est.t;
  e.estimate_ms = est.value;
  if (!e.passed)
    fail(s, fmt::format("{} answered queries; the early-stopping p{:g} estimate needs at least {}", e.queries,
                        j.percentile, e.needed),
         fmt::format("run at least {} more queries (--min-queries {})", e.needed - e.queries, e.needed));
}

}  // namespace

double latency_ms(const QueryRecord& r, Scenario s, int64_t end_ns) {
  const int64_t from = s == Scenario::server ? r.issued.scheduled_ns : r.issued.issued_ns;
  const int64_t to = r.done.completed_ns > 0 ? r.done.completed_ns : end_ns;
  return ns_to_ms(to - from);
}

ScenarioResult judge(const RunPlan& plan, const RunRecords& records, const Judging& j) {
  ScenarioResult s;
  s.scenario = plan.scenario;
  s.calls_per_message = plan.calls_per_message;
  s.early_stopping.percentile = plan.scenario == Scenario::offline ? 0 : j.percentile;
  s.early_stopping.confidence = j.confidence;
  fill_counts(s, plan, records);
  std::vector<double> all;
  fill_latency(s, records, j, all);
  if (plan.scenario != Scenario::offline) s.percentile_ms = at_percentile(all, j.percentile);
  check_run(s, plan, records);
  if (plan.scenario == Scenario::server) check_server(s, j);
  else if (plan.scenario != Scenario::offline) check_stream(s, j);
  else s.early_stopping.passed = true;
  s.instances = instance_use(records, j.instances, s.duration_s);
  s.valid = s.reasons.empty();
  return s;
}

}  // namespace rooflens::capacity
