#include "compare/student_t.h"

#include <cmath>
#include <limits>

namespace rooflens {
namespace {

// ln B(a, b) = ln Γ(a) + ln Γ(b) - ln Γ(a + b). std::lgamma writes the sign to a global on some C libraries;
// a and b are positive here, so the sign is never needed (and compare runs on one thread).
double log_beta(double a, double b) { return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b); }

// The continued fraction of I_x(a, b) (DLMF 8.17.22):
//   I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...)))
//   d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),   d_{2m} = m(b-m) x / ((a+2m-1)(a+2m)),
// evaluated front to back with the modified Lentz method. Converges fast for x < (a+1)/(a+b+2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  constexpr int max_terms = 10000;
  double c = 1, d = 1 - (a + b) * x / (a + 1);  // the first two levels: 1 + d1 / ...
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= max_terms; ++m) {
    double dm = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));  // even step d_{2m}
    d = 1 + dm * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + dm / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    f *= d * c;
    double dn = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));  // odd step d_{2m+1}
    d = 1 + dn * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + dn / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    double delta = d * c;
    f *= delta;
    if (std::fabs(delta - 1) < eps) break;
  }
  return f;
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double front = std::exp(a * std::log(x) + b * std::log1p(-x) - log_beta(a, b));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double student_t_two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double student_t_cdf(double t, double df) {
  double tail = student_t_two_sided_p(t, df) / 2;
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // P(T >= t) = (1 - p), searched on the upper tail where it is computed without cancellation.
  double tail = 1 - p, lo = 0, hi = 1;
  while (student_t_two_sided_p(hi, df) / 2 > tail && hi < 1e300) hi *= 2;
  for (int i = 0; i < 2000 && hi - lo > 1e-15 * hi; ++i) {
    double mid = lo + (hi - lo) / 2;
    if (student_t_two_sided_p(mid, df) / 2 > tail) lo = mid;
    else hi = mid;
  }
  return lo + (hi - lo) / 2;
}

}  // namespace rooflens
