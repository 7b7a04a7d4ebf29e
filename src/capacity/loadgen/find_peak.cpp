#include "capacity/loadgen/find_peak.h"

#include <algorithm>

namespace rooflens::capacity {

int64_t lengthened_min_queries(const ScenarioResult& r, double qps, int64_t max_queries, double max_seconds) {
  const EarlyStoppingCheck& e = r.early_stopping;
  const bool short_only = !r.valid && r.reasons.size() == 1 && !e.passed && e.needed > e.queries;
  if (!short_only || !(qps > 0) || static_cast<double>(e.needed) / qps > max_seconds) return 0;
  if (max_queries > 0 && e.needed > max_queries) return 0;
  return e.needed;
}

PeakOutcome find_peak(const PeakOptions& o, const std::function<ScenarioResult(double qps)>& run,
                      const std::function<bool(const ScenarioResult&)>& broken) {
  PeakOutcome out;
  out.peak.precision = o.precision;
  double lo = 0, hi = 0;
  auto attempt = [&](double qps) {
    if (!out.points.empty() && o.out_of_time && o.out_of_time()) {
      out.out_of_time = out.stopped = true;
      return false;
    }
    out.points.push_back(run(qps));
    if (broken(out.points.back())) out.stopped = true;
    return out.points.back().valid;
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
