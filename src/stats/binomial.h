#pragma once
// The binomial distribution's upper tail (MLPerf's early-stopping bound, docs/capacity.md). Pure functions.
#include <cstdint>

namespace rooflens::stats {

// P(X >= k) for X ~ Binomial(n, p): 1 for k <= 0, 0 for k > n, else I_p(k, n - k + 1) (the regularized incomplete
// beta function), exact to ~1e-14 without summing n terms.
double binomial_at_least(int64_t k, int64_t n, double p);

}  // namespace rooflens::stats
