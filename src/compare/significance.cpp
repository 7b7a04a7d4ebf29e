#include "compare/significance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "stats/splitmix64.h"
#include "stats/normal.h"
#include "stats/student_t.h"

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
// P_{m,n}(k) = m/(m+n) P_{m-1,n}(k - n) + n/(m+n) P_{m,n-1}(k). Probabilities, not counts, so large sizes
// cannot overflow. The recurrence only ever moves mass upwards (k -> k + j): only k <= u is kept.
double exact_cdf(size_t m, size_t n, size_t u) {
  // prev[j] / cur[j]: P(U = k) for k <= u, sizes (i - 1, j) / (i, j) while i runs from 1 to m.
  std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = {1.0};  // i = 0: U is always 0
  for (size_t i = 1; i <= m; ++i) {
    cur[0] = {1.0};
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double> d(std::min(i * j, u) + 1, 0.0);
      double take_x = static_cast<double>(i) / static_cast<double>(i + j), take_y = 1 - take_x;
      for (size_t k = 0; k < prev[j].size() && k + j < d.size(); ++k) d[k + j] += take_x * prev[j][k];
      for (size_t k = 0; k < cur[j - 1].size() && k < d.size(); ++k) d[k] += take_y * cur[j - 1][k];
      cur[j] = std::move(d);
    }
    std::swap(prev, cur);
  }
  double p = 0;
  for (double v : prev[n]) p += v;
  return p;
}

// Uniform indices below n (< 2^32) by multiply-shift, two per 64-bit draw (low half first): the same on every
// standard library, unlike std::uniform_int_distribution. The bias is below n / 2^32 (2e-6 for 10,000 samples).
class IndexDraws {
 public:
  IndexDraws(stats::SplitMix64& rng, uint64_t n) : rng_(rng), n_(n) {}
  size_t next() {
    if (!have_high_) {
      word_ = rng_.next();
      have_high_ = true;
      return static_cast<size_t>(((word_ & 0xffffffffu) * n_) >> 32);
    }
    have_high_ = false;
    return static_cast<size_t>(((word_ >> 32) * n_) >> 32);
  }

 private:
  stats::SplitMix64& rng_;
  uint64_t n_, word_ = 0;
  bool have_high_ = false;
};

// Resamples of one side, whole blocks at a time (a block of one sample when samples are resampled). Each
// sample's rank in the sorted side is computed once, so a resample is a histogram over ranks and its median is
// found by one counting scan: no copy, no selection (this loop is where `compare` spends its time on a zoo).
class MedianResampler {
 public:
  explicit MedianResampler(const std::vector<std::vector<double>>& blocks) : ranks_(blocks.size()) {
    std::vector<std::pair<double, size_t>> all;  // value, block
    for (size_t b = 0; b < blocks.size(); ++b)
      for (double v : blocks[b]) all.emplace_back(v, b);
    std::sort(all.begin(), all.end());
    for (size_t r = 0; r < all.size(); ++r) {
      sorted_.push_back(all[r].first);
      ranks_[all[r].second].push_back(r);
    }
    counts_.resize(sorted_.size());
  }

  double draw(stats::SplitMix64& rng) {
    std::fill(counts_.begin(), counts_.end(), 0u);
    IndexDraws index(rng, ranks_.size());  // a resample starts on a fresh 64-bit draw
    size_t m = 0;
    for (size_t i = 0; i < ranks_.size(); ++i) {
      const std::vector<size_t>& block = ranks_[index.next()];
      for (size_t r : block) ++counts_[r];
      m += block.size();
    }
    if (m == 0) return 0;
    // The resample's order statistics (m - 1) / 2 and m / 2 (0-based): equal when m is odd.
    size_t lower_rank = (m - 1) / 2, upper_rank = m / 2, seen = 0, j = 0;
    while (seen + counts_[j] <= lower_rank) seen += counts_[j++];
    double lower = sorted_[j];
    while (seen + counts_[j] <= upper_rank) seen += counts_[j++];
    return (lower + sorted_[j]) / 2;
  }

 private:
  std::vector<double> sorted_;
  std::vector<std::vector<size_t>> ranks_;  // per block: the ranks of its samples
  std::vector<uint32_t> counts_;
};

std::vector<std::vector<double>> singletons(const std::vector<double>& samples) {
  std::vector<std::vector<double>> blocks;
  blocks.reserve(samples.size());
  for (double v : samples) blocks.push_back({v});
  return blocks;
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
    // Without ties U is a whole number.
    r.p_value = std::min(1.0, 2 * exact_cdf(base.size(), next.size(), static_cast<size_t>(std::llround(u_small))));
    return r;
  }
  double mean = n1 * n2 / 2;
  double variance = n1 * n2 / 12 * ((n + 1) - s.tie_term / (n * (n - 1)));
  if (!(variance > 0)) return r;  // every value tied: no evidence of any difference, p = 1
  double distance = std::max(0.0, std::fabs(r.u_new - mean) - 0.5);  // continuity correction
  r.z = std::copysign(distance / std::sqrt(variance), r.u_new - mean);
  r.p_value = std::min(1.0, 2 * stats::normal_cdf(-std::fabs(r.z)));
  return r;
}

RatioInterval bootstrap_median_ratio(const std::vector<std::vector<double>>& base,
                                     const std::vector<std::vector<double>>& next, const BootstrapOptions& o) {
  RatioInterval ci;
  if (base.empty() || next.empty() || o.resamples < 1) return ci;
  if (base.size() >= (uint64_t{1} << 32) || next.size() >= (uint64_t{1} << 32)) return ci;  // beyond the index draws
  stats::SplitMix64 rng(o.seed);
  MedianResampler b(base), n(next);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(o.resamples));
  for (int i = 0; i < o.resamples; ++i) {
    double base_median = b.draw(rng);  // BASE's draws, then NEW's: the order the stream is consumed in
    ratios.push_back(ratio(n.draw(rng), base_median));
  }
  std::sort(ratios.begin(), ratios.end());
  // Central interval: as many resampled ratios fall below `low` as above `high`.
  double tail = (1 - o.confidence) / 2 * static_cast<double>(ratios.size());
  size_t cut = std::min(ratios.size() - 1, static_cast<size_t>(std::floor(tail)));
  ci.low = ratios[cut];
  ci.high = ratios[ratios.size() - 1 - cut];
  return ci;
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                     const BootstrapOptions& o) {
  return bootstrap_median_ratio(singletons(base), singletons(next), o);
}

namespace {

struct LogMoments {
  double mean = 0, variance = 0;  // of log(values); variance with n - 1
};

LogMoments log_moments(const std::vector<double>& values) {
  LogMoments m;
  for (double v : values) m.mean += std::log(v);
  m.mean /= static_cast<double>(values.size());
  for (double v : values) m.variance += (std::log(v) - m.mean) * (std::log(v) - m.mean);
  m.variance /= static_cast<double>(values.size() - 1);
  return m;
}

bool usable(const std::vector<double>& v) {
  return v.size() >= 2 && std::all_of(v.begin(), v.end(), [](double x) { return x > 0 && std::isfinite(x); });
}

}  // namespace

WelchLogRatio welch_log_ratio(const std::vector<double>& base, const std::vector<double>& next, double confidence) {
  WelchLogRatio w;
  if (!usable(base) || !usable(next)) return w;
  const double nb = static_cast<double>(base.size()), nn = static_cast<double>(next.size());
  LogMoments b = log_moments(base), n = log_moments(next);
  const double d = n.mean - b.mean, vb = b.variance / nb, vn = n.variance / nn;
  w.ratio = std::exp(d);
  w.base_center = std::exp(b.mean);
  w.new_center = std::exp(n.mean);
  w.se = std::sqrt(vb + vn);
  if (!(w.se > 0)) {  // no spread on either side: nothing to weigh the difference against
    w.df = nb + nn - 2;
    w.p_value = d == 0 ? 1 : 0;
    w.ci = {w.ratio, w.ratio};
    return w;
  }
  w.df = (vb + vn) * (vb + vn) / (vb * vb / (nb - 1) + vn * vn / (nn - 1));
  w.t = d / w.se;
  w.p_value = stats::student_t_two_sided_p(w.t, w.df);
  double q = stats::student_t_quantile(1 - (1 - confidence) / 2, w.df);
  w.ci = {std::exp(d - q * w.se), std::exp(d + q * w.se)};
  return w;
}

WelchLogRatio prediction_log_ratio(const std::vector<double>& base, double next, double confidence) {
  WelchLogRatio w;
  if (!usable(base) || !(next > 0) || !std::isfinite(next)) return w;
  const double n = static_cast<double>(base.size());
  LogMoments b = log_moments(base);
  const double d = std::log(next) - b.mean;
  w.ratio = std::exp(d);
  w.base_center = std::exp(b.mean);
  w.new_center = next;
  w.df = n - 1;
  w.se = std::sqrt(b.variance * (1 + 1 / n));
  if (!(w.se > 0)) {
    w.p_value = d == 0 ? 1 : 0;
    w.ci = {w.ratio, w.ratio};
    return w;
  }
  w.t = d / w.se;
  w.p_value = stats::student_t_two_sided_p(w.t, w.df);
  double q = stats::student_t_quantile(1 - (1 - confidence) / 2, w.df);
  w.ci = {std::exp(d - q * w.se), std::exp(d + q * w.se)};
  return w;
}

WelchLogRatio paired_log_ratio(const std::vector<double>& base, const std::vector<double>& next, double confidence) {
  WelchLogRatio w;
  if (!usable(base) || !usable(next) || base.size() != next.size()) return w;
  const double n = static_cast<double>(base.size());
  std::vector<double> ratios;
  for (size_t k = 0; k < base.size(); ++k) ratios.push_back(next[k] / base[k]);
  LogMoments r = log_moments(ratios);
  const double d = r.mean;
  w.ratio = std::exp(d);
  w.base_center = std::exp(log_moments(base).mean);
  w.new_center = std::exp(log_moments(next).mean);
  w.df = n - 1;
  w.se = std::sqrt(r.variance / n);
  if (!(w.se > 0)) {
    w.p_value = d == 0 ? 1 : 0;
    w.ci = {w.ratio, w.ratio};
    return w;
  }
  w.t = d / w.se;
  w.p_value = stats::student_t_two_sided_p(w.t, w.df);
  double q = stats::student_t_quantile(1 - (1 - confidence) / 2, w.df);
  w.ci = {std::exp(d - q * w.se), std::exp(d + q * w.se)};
  return w;
}

size_t time_block_count(size_t samples) {
  size_t blocks = std::min(kMaxTimeBlocks, samples / kMinBlockSamples);
  return blocks >= kMinTimeBlocks ? blocks : 0;
}

std::vector<std::vector<double>> time_blocks(const std::vector<double>& samples, size_t blocks) {
  std::vector<std::vector<double>> out(blocks);
  size_t n = samples.size();
  for (size_t b = 0; b < blocks; ++b)
    out[b].assign(samples.begin() + static_cast<std::ptrdiff_t>(b * n / blocks),
                  samples.begin() + static_cast<std::ptrdiff_t>((b + 1) * n / blocks));
  return out;
}

}  // namespace rooflens
