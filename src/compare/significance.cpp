#include "compare/significance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

namespace rooflens {
namespace {

struct RankSums {
  double base = 0;        // sum of the (mid-)ranks of BASE's values in the pooled sample
  double tie_term = 0;    // sum over tie groups of t^3 - t
};

RankSums rank_sums(const std::vector<double>& base, const std::vector<double>& next) {
  std::vector<std::pair<double, bool>> pooled;  // value, is_base
  pooled.reserve(base.size() + next.size());
  for (double v : base) pooled.emplace_back(v, true);
  for (double v : next) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  RankSums s;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    double t = static_cast<double>(j - i);
    double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks are 1-based
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second) s.base += mid_rank;
    s.tie_term += t * t * t - t;
    i = j;
  }
  return s;
}

// P(U <= u) under the null hypothesis for sizes m, n without ties, U counting pairs (x from m) > (y from n).
// The largest pooled value is one of the m (probability m/(m+n); it beats all n) or one of the n (beats none):
// P_{m,n}(u) = m/(m+n) P_{m-1,n}(u - n) + n/(m+n) P_{m,n-1}(u). Probabilities, not counts, so large sizes
// cannot overflow.
double exact_cdf(size_t m, size_t n, double u) {
  // row[j][k]: P(U = k) for sizes (i, j) while i runs from 0 to m.
  std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = {1.0};  // i = 0: U is always 0
  for (size_t i = 1; i <= m; ++i) {
    cur[0] = {1.0};
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double> d(i * j + 1, 0.0);
      double take_x = static_cast<double>(i) / static_cast<double>(i + j), take_y = 1 - take_x;
      for (size_t k = 0; k < prev[j].size(); ++k) d[k + j] += take_x * prev[j][k];
      for (size_t k = 0; k < cur[j - 1].size(); ++k) d[k] += take_y * cur[j - 1][k];
      cur[j] = std::move(d);
    }
    std::swap(prev, cur);
  }
  const std::vector<double>& dist = prev[n];
  double p = 0;
  for (size_t k = 0; k < dist.size() && static_cast<double>(k) <= u + 1e-9; ++k) p += dist[k];
  return p;
}

double median_in_place(std::vector<double>& v) {
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double upper = v[mid];
  if (v.size() % 2) return upper;
  double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

// A uniform index below n from one 64-bit draw (multiply-shift): the same on every standard library, unlike
// std::uniform_int_distribution. Its bias is below n / 2^64.
size_t draw_index(std::mt19937_64& rng, size_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

double resampled_median(const std::vector<double>& sample, std::vector<double>& buf, std::mt19937_64& rng) {
  buf.resize(sample.size());
  for (double& v : buf) v = sample[draw_index(rng, sample.size())];
  return median_in_place(buf);
}

double ratio(double numerator, double denominator) {
  if (denominator > 0) return numerator / denominator;
  return numerator > 0 ? std::numeric_limits<double>::infinity() : 1.0;  // keep the ordering NaN-free
}

}  // namespace

double mann_whitney_min_p(size_t n_base, size_t n_new) {
  // C(n1 + n2, k) with k the smaller size, as a running product (exact enough; inf for huge sizes gives 0).
  size_t k = std::min(n_base, n_new), total = n_base + n_new;
  double c = 1;
  for (size_t i = 1; i <= k; ++i) c = c * static_cast<double>(total - k + i) / static_cast<double>(i);
  return std::min(1.0, 2 / c);
}

MannWhitney mann_whitney_u(const std::vector<double>& base, const std::vector<double>& next) {
  MannWhitney r;
  if (base.empty() || next.empty()) return r;
  double n1 = static_cast<double>(base.size()), n2 = static_cast<double>(next.size()), n = n1 + n2;
  RankSums s = rank_sums(base, next);
  r.u_base = s.base - n1 * (n1 + 1) / 2;
  r.u_new = n1 * n2 - r.u_base;
  double u_small = std::min(r.u_base, r.u_new);
  if (s.tie_term == 0 && base.size() <= kExactMaxSamples && next.size() <= kExactMaxSamples) {
    r.exact = true;
    r.p_value = std::min(1.0, 2 * exact_cdf(base.size(), next.size(), u_small));
    return r;
  }
  double mean = n1 * n2 / 2;
  double variance = n1 * n2 / 12 * ((n + 1) - s.tie_term / (n * (n - 1)));
  if (!(variance > 0)) return r;  // every value tied: no evidence of any difference, p = 1
  double distance = std::max(0.0, std::fabs(r.u_new - mean) - 0.5);  // continuity correction
  r.z = std::copysign(distance / std::sqrt(variance), r.u_new - mean);
  r.p_value = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
  return r;
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                     const BootstrapOptions& o) {
  RatioInterval ci;
  if (base.empty() || next.empty() || o.resamples < 1) return ci;
  std::mt19937_64 rng(o.seed);
  std::vector<double> ratios, buf;
  ratios.reserve(static_cast<size_t>(o.resamples));
  for (int i = 0; i < o.resamples; ++i) {
    double b = resampled_median(base, buf, rng);
    double n = resampled_median(next, buf, rng);
    ratios.push_back(ratio(n, b));
  }
  std::sort(ratios.begin(), ratios.end());
  // Central interval: as many resampled ratios fall below `low` as above `high`.
  double tail = (1 - o.confidence) / 2 * static_cast<double>(ratios.size());
  size_t cut = std::min(ratios.size() - 1, static_cast<size_t>(std::floor(tail)));
  ci.low = ratios[cut];
  ci.high = ratios[ratios.size() - 1 - cut];
  return ci;
}

}  // namespace rooflens
