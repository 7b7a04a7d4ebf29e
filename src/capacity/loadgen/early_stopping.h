#pragma once
// MLPerf's early-stopping bound (LoadGen's early_stopping.cc; docs/capacity.md has the formulas). A run of n
// queries, t of them over a latency limit, supports "the p-th percentile is within the limit" with confidence c when
// a system whose queries were under the limit with probability exactly p would show at least h = n - t of them
// under it with probability at most 1 - c:
//
//     P(Binomial(h + t, p) >= h) = I_p(h, t + 1) <= 1 - c      (I: the regularized incomplete beta function)
//
// h(t) is the smallest such h; a server run passes when n >= h(t) + t. For single- and multi-stream, the bound
// licenses a percentile *estimate*: the t-th highest latency for the largest t with n >= h(t) + t.
#include <cstdint>
#include <vector>

namespace rooflens::capacity {

// MLPerf LoadGen's early-stopping confidence; no flag changes it (a caller such as score may).
inline constexpr double kMlperfConfidence = 0.99;

// P(Binomial(h + t, p) >= h) = I_p(h, t + 1): the odds of h or more of h + t queries under the limit when each is
// under it with probability p.
double under_limit_odds(int64_t h, int64_t t, double p);

// h(t): the smallest h with under_limit_odds(h, t, p) <= 1 - confidence.
int64_t min_under_limit(int64_t t, double p, double confidence);

struct PercentileEstimate {
  bool possible = false;   // n >= h(1) + 1: enough queries to say anything
  int64_t needed = 0;      // h(1) + 1
  int64_t t = 0;           // the estimate is the t-th highest latency (t - 1 highest discarded)
  double value = 0;        // that latency
};

// The early-stopping estimate of the p-th percentile of `latencies` (any order).
PercentileEstimate percentile_estimate(std::vector<double> latencies, double p, double confidence);

}  // namespace rooflens::capacity
