#include "stats/student_t.h"

#include <cmath>
#include <limits>

#include "stats/beta.h"

namespace rooflens::stats {

double student_t_two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_cdf(double t, double df) {
  const double tail = student_t_two_sided_p(t, df) / 2;
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // P(T >= t) = 1 - p, searched on the upper tail where it is computed without cancellation.
  const double tail = 1 - p;
  double lo = 0, hi = 1;
  while (student_t_two_sided_p(hi, df) / 2 > tail && hi < 1e300) hi *= 2;
  for (int i = 0; i < 2000 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (student_t_two_sided_p(mid, df) / 2 > tail) lo = mid;
    else hi = mid;
  }
  return lo + (hi - lo) / 2;
}

}  // namespace rooflens::stats
