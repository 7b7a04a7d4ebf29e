#include "capacity/early_stopping.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rooflens::capacity {
namespace {

// The continued fraction of I_x(a, b) (modified Lentz), converging fast for x < (a + 1) / (a + b + 2).
double beta_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m < 100000; ++m) {
    for (int odd = 0; odd < 2; ++odd) {
      const double num = odd == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                  : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + num * d;
      if (std::fabs(d) < kTiny) d = kTiny;
      c = 1 + num / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      d = 1 / d;
      const double step = c * d;
      f *= step;
      if (odd == 1 && std::fabs(step - 1) < kEps) return f;
    }
  }
  return f;
}

}  // namespace

double incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * beta_fraction(x, a, b) / a;
  return 1 - std::exp(log_front) * beta_fraction(1 - x, b, a) / b;
}

double under_limit_odds(int64_t h, int64_t t, double p) {
  return incomplete_beta(p, static_cast<double>(h), static_cast<double>(t + 1));
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
