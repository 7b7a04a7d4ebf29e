#include "stats/beta.h"

#include <cmath>
#include <limits>

namespace rooflens::stats {
namespace {

// ln B(a, b) = ln Γ(a) + ln Γ(b) - ln Γ(a + b). std::lgamma writes the sign to a global on some C libraries; a and
// b are positive here, so the sign is never read.
double log_beta(double a, double b) { return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b); }

// One level of the modified Lentz recurrence: folds the partial numerator `num` into (c, d) and returns the factor
// the fraction's value moves by.
double lentz_step(double num, double& c, double& d) {
  constexpr double kTiny = 1e-300;
  d = 1 + num * d;
  if (std::fabs(d) < kTiny) d = kTiny;
  c = 1 + num / c;
  if (std::fabs(c) < kTiny) c = kTiny;
  d = 1 / d;
  return c * d;
}

// The continued fraction of I_x(a, b):
//   I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...)))
//   d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),   d_{2m} = m(b-m) x / ((a+2m-1)(a+2m)),
// evaluated front to back. Converges fast for x < (a+1)/(a+b+2).
double continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  constexpr int kMaxTerms = 100000;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    f *= lentz_step(m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), c, d);
    const double delta = lentz_step(-(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)), c, d);
    f *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return f;
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(a * std::log(x) + b * std::log1p(-x) - log_beta(a, b));
  if (x < (a + 1) / (a + b + 2)) return front * continued_fraction(a, b, x) / a;
  return 1 - front * continued_fraction(b, a, 1 - x) / b;
}

}  // namespace rooflens::stats
