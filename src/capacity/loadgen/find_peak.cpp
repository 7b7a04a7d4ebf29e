#include "capacity/loadgen/find_peak.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

namespace rooflens::capacity {

int64_t lengthened_min_queries(const ScenarioResult& r, double qps, int64_t max_queries, double max_seconds) {
  const EarlyStoppingCheck& e = r.early_stopping;
  const bool short_only = !r.valid && r.reasons.size() == 1 && !e.passed && e.needed > e.queries;
  if (!short_only || !(qps > 0) || static_cast<double>(e.needed) / qps > max_seconds) return 0;
  if (max_queries > 0 && e.needed > max_queries) return 0;
  return e.needed;
}

namespace {

// Queries over the SLO whose instance was idle at their scheduled time (the call before theirs there had ended).
int64_t misses_without_waiting(const RunRecords& records, int64_t slo_ns) {
  std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> calls;  // instance -> (start, end), by start
  for (const auto& q : records.queries)
    if (q.done.status == QueryStatus::ok) calls[q.done.instance].push_back({q.done.start_ns, q.done.end_ns});
  for (auto& [i, v] : calls) std::sort(v.begin(), v.end());
  int64_t alone = 0;
  for (const auto& q : records.queries) {
    if (q.done.status != QueryStatus::ok || q.done.completed_ns - q.issued.scheduled_ns <= slo_ns) continue;
    const auto& v = calls[q.done.instance];
    auto it = std::lower_bound(v.begin(), v.end(), std::pair{q.done.start_ns, int64_t{0}});
    if (it == v.begin() || std::prev(it)->second <= q.issued.scheduled_ns) ++alone;
  }
  return alone;
}

}  // namespace

std::optional<std::string> lower_rates_cannot_help(const ScenarioResult& r, const RunRecords& records, double slo_ms,
                                                   double percentile) {
  if (r.valid || r.queries <= 0) return std::nullopt;
  const int64_t alone = misses_without_waiting(records, static_cast<int64_t>(slo_ms * 1e6));
  if (static_cast<double>(alone) <= (1 - percentile / 100) * static_cast<double>(r.queries)) return std::nullopt;
  return fmt::format(
      "find-peak stopped at {:g} QPS: {} of {} queries missed the SLO of {:g} ms without waiting for another query "
      "(more than the {:g}% the p{:g} allows), so no lower rate meets it: raise --slo, lower --percentile, or "
      "quiet the machine", r.target_qps, alone, r.queries, slo_ms, 100 - percentile, percentile);
}

PeakOutcome find_peak(const PeakOptions& o, const std::function<ScenarioResult(double qps)>& run,
                      const std::function<bool(const ScenarioResult&)>& broken) {
  PeakOutcome out;
  out.peak.precision = o.precision;
  double lo = 0, hi = 0;
  auto any_valid = [&] {
    return std::any_of(out.points.begin(), out.points.end(), [](const ScenarioResult& p) { return p.valid; });
  };
  auto attempt = [&](double qps) {
    if (!out.points.empty() && o.out_of_time && o.out_of_time()) {
      out.out_of_time = out.stopped = true;
      return false;
    }
    out.points.push_back(run(qps));
    const ScenarioResult& r = out.points.back();
    if (broken(r)) out.stopped = true;
    if (!out.stopped && !r.valid && o.hopeless && !any_valid()) {
      if (std::optional<std::string> why = o.hopeless(r)) {
        out.hopeless = *why;
        out.stopped = true;
      }
    }
    return r.valid;
  };
  // Bracket: one VALID rate below one INVALID rate. A search out of time leaves lo/hi at the rates really run.
  double step = 1.25, q = std::max(o.start_qps, o.floor_qps);
  if (attempt(q)) {
    lo = q;
    while (!out.stopped && static_cast<int>(out.points.size()) < o.max_runs) {
      q = lo * step;
      step *= step;
      const bool valid = attempt(q);
      if (out.out_of_time) break;
      if (!valid) {
        hi = q;
        break;
      }
      lo = q;
    }
  } else {
    hi = q;
    while (!out.stopped && static_cast<int>(out.points.size()) < o.max_runs && hi / step >= o.floor_qps) {
      q = hi / step;
      step *= step;
      const bool valid = attempt(q);
      if (out.out_of_time) break;
      if (valid) {
        lo = q;
        break;
      }
      hi = q;
    }
    if (lo <= 0 && !out.stopped && hi / step < o.floor_qps) out.below_floor_qps = hi / step;
  }
  // Bisect the bracket.
  while (!out.stopped && lo > 0 && hi > 0 && (hi - lo) / lo > o.precision &&
         static_cast<int>(out.points.size()) < o.max_runs) {
    q = (lo + hi) / 2;
    const bool valid = attempt(q);
    if (out.out_of_time) break;
    if (valid) lo = q;
    else hi = q;
  }
  out.peak.qps = lo;
  out.peak.lower = lo;
  out.peak.upper = hi;
  out.peak.converged = !out.stopped && lo > 0 && hi > 0 && (hi - lo) / lo <= o.precision;
  return out;
}

}  // namespace rooflens::capacity
