#include "capacity/loadgen/early_stopping.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/binomial.h"

namespace rooflens::capacity {

double under_limit_odds(int64_t h, int64_t t, double p) {
  return stats::binomial_at_least(h, h + t, p);
}

int64_t min_under_limit(int64_t t, double p, double confidence) {
  const double alpha = 1 - confidence;
  // The odds fall as h grows (more queries under the limit are less likely at the boundary): double, then bisect.
  int64_t lo = 1, hi = 1;
  while (under_limit_odds(hi, t, p) > alpha) {
    lo = hi + 1;
    hi *= 2;
    if (hi > (int64_t{1} << 40)) return hi;  // p so close to 1 that no run could ever pass
  }
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (under_limit_odds(mid, t, p) <= alpha) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

PercentileEstimate percentile_estimate(std::vector<double> latencies, double p, double confidence) {
  PercentileEstimate e;
  const auto n = static_cast<int64_t>(latencies.size());
  e.needed = min_under_limit(1, p, confidence) + 1;
  if (n < e.needed) return e;
  // n >= h(t) + t holds for t = 1 and fails beyond some t (h(t) + t grows with t): bisect for the largest t.
  int64_t lo = 1, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (n >= min_under_limit(mid, p, confidence) + mid) lo = mid;
    else hi = mid - 1;
  }
  std::sort(latencies.begin(), latencies.end());
  e.possible = true;
  e.t = lo;
  e.value = latencies[static_cast<size_t>(n - lo)];
  return e;
}

}  // namespace rooflens::capacity
