#pragma once
// Statistics for comparing two sets of timing samples, free of any notion of models, reports or verdicts:
// a two-sided Mann-Whitney U test and a bootstrap confidence interval of the ratio of medians. Both are
// rank/order based, so a few slow outliers (a context switch, a page fault) cannot fake a change the way they
// move a mean. See docs/compare.md for the formulas.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rooflens {

struct MannWhitney {
  double u_base = 0;      // pairs (b, n) with b > n, ties counting 1/2: large when BASE is the slower side
  double u_new = 0;       // pairs with n > b: large when NEW is slower; u_base + u_new = n_base * n_new
  double z = 0;           // normal approximation (continuity- and tie-corrected); 0 when exact
  double p_value = 1;     // two-sided
  bool exact = false;     // p from the exact null distribution (small samples without ties)
};

// Exact p for samples without ties when both sides have at most this many values; the normal approximation
// (tie-corrected variance, continuity correction) otherwise.
inline constexpr size_t kExactMaxSamples = 30;

MannWhitney mann_whitney_u(const std::vector<double>& base, const std::vector<double>& next);

// The smallest two-sided p any data could reach with these sample sizes (complete separation, no ties):
// 2 / C(n_base + n_new, n_base). When it is not below alpha, no test can call a change significant.
double mann_whitney_min_p(size_t n_base, size_t n_new);

struct RatioInterval {
  double low = 0, high = 0;
};

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.95;
  uint64_t seed = 0x726f6f666c656e73;  // "rooflens": fixed, so the same inputs always give the same interval
};

// Percentile bootstrap of median(next) / median(base): each resample draws BASE then NEW with replacement
// (sizes kept; a draw is an index into the sorted sample, floor(u32 * n / 2^32), two 32-bit halves per 64-bit
// output, low half first, each resample starting on a fresh output); the interval drops
// floor((1 - confidence) / 2 * resamples) sorted ratios at each end. Deterministic for a given seed on every
// platform (SplitMix64 and an explicit index mapping, no std:: engines or distributions). Empty samples give
// {0, 0}.
RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                     const BootstrapOptions& options = {});

}  // namespace rooflens
