#include "capacity/loadgen/find_peak.h"

#include <algorithm>
#include <cmath>
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

namespace {

// The next point up or down the bracket: on a counting axis at least one away, and whole.
double step_from(double x, double factor, bool whole) {
  if (!whole) return x * factor;
  const double next = factor > 1 ? std::ceil(x * factor) : std::floor(x * factor);
  return factor > 1 ? std::max(next, x + 1) : std::min(next, x - 1);
}

bool narrow_enough(double lo, double hi, const PeakOptions& o) {
  return o.whole ? hi - lo <= 1 : (hi - lo) / lo <= o.precision;
}

}  // namespace

PeakOutcome search_peak(const PeakOptions& o, const std::function<PeakProbe(double x)>& attempt_at) {
  PeakOutcome out;
  out.peak.precision = o.precision;
  double lo = 0, hi = 0;
  int runs = 0;
  auto attempt = [&](double x) {
    if (runs > 0 && o.out_of_time && o.out_of_time()) {
      out.out_of_time = out.stopped = true;
      return false;
    }
    ++runs;
    const PeakProbe p = attempt_at(x);
    if (p.stop) out.stopped = true;
    return p.valid;
  };
  const double lowest = o.whole ? std::max(1.0, o.floor_qps) : o.floor_qps;
  // Bracket: one VALID point below one INVALID point. A search out of time leaves lo/hi at the points really run.
  double step = 1.25, q = std::max(o.whole ? std::round(o.start_qps) : o.start_qps, lowest);
  if (attempt(q)) {
    lo = q;
    while (!out.stopped && runs < o.max_runs) {
      q = step_from(lo, step, o.whole);
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
    // Down the bracket; a count stops at its floor (one user) rather than jumping past it.
    auto down = [&](double x) { return o.whole && x > lowest ? std::max(step_from(x, 1 / step, true), lowest)
                                                            : step_from(x, 1 / step, o.whole); };
    while (!out.stopped && runs < o.max_runs && down(hi) >= lowest) {
      q = down(hi);
      step *= step;
      const bool valid = attempt(q);
      if (out.out_of_time) break;
      if (valid) {
        lo = q;
        break;
      }
      hi = q;
    }
    if (lo <= 0 && !out.stopped && down(hi) < lowest) out.below_floor_qps = std::max(0.0, down(hi));
  }
  // Bisect the bracket.
  while (!out.stopped && lo > 0 && hi > 0 && !narrow_enough(lo, hi, o) && runs < o.max_runs) {
    q = o.whole ? std::floor((lo + hi) / 2) : (lo + hi) / 2;
    const bool valid = attempt(q);
    if (out.out_of_time) break;
    if (valid) lo = q;
    else hi = q;
  }
  out.peak.qps = lo;
  out.peak.lower = lo;
  out.peak.upper = hi;
  out.peak.converged = !out.stopped && lo > 0 && hi > 0 && narrow_enough(lo, hi, o);
  return out;
}

PeakOutcome find_peak(const PeakOptions& o, const std::function<ScenarioResult(double qps)>& run,
                      const std::function<bool(const ScenarioResult&)>& broken) {
  std::vector<ScenarioResult> points;
  std::string hopeless;
  PeakOutcome out = search_peak(o, [&](double qps) {
    points.push_back(run(qps));
    const ScenarioResult& r = points.back();
    PeakProbe p{r.valid, broken(r)};
    const bool any_valid =
        std::any_of(points.begin(), points.end(), [](const ScenarioResult& x) { return x.valid; });
    if (!p.stop && !r.valid && o.hopeless && !any_valid) {
      if (std::optional<std::string> why = o.hopeless(r)) {
        hopeless = *why;
        p.stop = true;
      }
    }
    return p;
  });
  out.points = std::move(points);
  out.hopeless = std::move(hopeless);
  return out;
}

}  // namespace rooflens::capacity
