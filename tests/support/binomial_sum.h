#pragma once
// The binomial tail by summing its terms (in long double, each term in log space from lgammal): the independent
// value the incomplete-beta form (stats/binomial.h) and MLPerf's early stopping (capacity/loadgen/early_stopping.h) are held to.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace rooflens::testing {

// P(X >= k) for X ~ Binomial(n, p) = Σ_{j=k..n} C(n, j) p^j (1-p)^(n-j).
inline long double binomial_at_least_by_sum(int64_t k, int64_t n, long double p) {
  long double sum = 0;
  for (int64_t j = std::max<int64_t>(k, 0); j <= n; ++j)
    sum += std::exp(std::lgamma(static_cast<long double>(n + 1)) - std::lgamma(static_cast<long double>(j + 1)) -
                    std::lgamma(static_cast<long double>(n - j + 1)) + static_cast<long double>(j) * std::log(p) +
                    static_cast<long double>(n - j) * std::log1p(-p));
  return sum;
}

}  // namespace rooflens::testing
