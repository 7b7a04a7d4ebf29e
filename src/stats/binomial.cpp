#include "stats/binomial.h"

#include "stats/beta.h"

namespace rooflens::stats {

double binomial_at_least(int64_t k, int64_t n, double p) {
  if (k <= 0) return 1;
  if (k > n) return 0;
  return incomplete_beta(static_cast<double>(k), static_cast<double>(n - k + 1), p);
}

}  // namespace rooflens::stats
