#pragma once
// Statistics for comparing two sets of timing samples, free of any notion of models, reports or verdicts:
// a two-sided Mann-Whitney U test and a bootstrap confidence interval of the ratio of medians (for the samples of
// one run per side: both rank/order based, so a few slow outliers — a context switch, a page fault — cannot fake
// a change the way they move a mean), and Welch's t-test on the logarithms of repetition medians (for several
// runs per side: the runs are the independent units). See docs/compare.md for the formulas.
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

// Percentile bootstrap of median(next) / median(base), resampling whole blocks: each resample draws as many
// blocks as the side has, with replacement (BASE's, then NEW's), and takes the median of every sample in them
// (mean of the middle two for an even count). A draw is floor(u32 * blocks / 2^32) over the blocks in time
// order, from two 32-bit halves per 64-bit output (low half first, each side's resample starting on a fresh
// output). The interval drops floor((1 - confidence) / 2 * resamples) sorted ratios at each end. Deterministic
// for a given seed on every platform (SplitMix64, no std:: engines or distributions). Empty sides give {0, 0}.
RatioInterval bootstrap_median_ratio(const std::vector<std::vector<double>>& base_blocks,
                                     const std::vector<std::vector<double>>& new_blocks,
                                     const BootstrapOptions& options = {});
// The same with every sample its own block: the ordinary bootstrap of independent samples.
RatioInterval bootstrap_median_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                     const BootstrapOptions& options = {});

// Welch's unequal-variance t-test on log(values): for the medians of repeated runs, whose run-to-run variation
// is multiplicative (a slower machine state slows everything by a factor). d = mean(log new) - mean(log base),
// se^2 = s_b^2/n_b + s_n^2/n_n, df by Welch-Satterthwaite, t = d / se, two-sided p from Student's t; the
// interval of exp(d) (the ratio of the geometric means) is exp(d -+ t_{1-(1-confidence)/2, df} * se).
struct WelchLogRatio {
  double ratio = 1;        // exp(d): geometric mean of NEW over geometric mean of BASE
  double base_center = 0;  // the geometric means themselves
  double new_center = 0;
  double se = 0;           // standard error of d
  double df = 0;           // Welch-Satterthwaite degrees of freedom
  double t = 0;
  double p_value = 1;      // two-sided
  RatioInterval ci;        // of the ratio
};

// Needs at least 2 values per side, all > 0 (returns the defaults otherwise). When both sides have no spread
// at all, se = 0: p = 1 and ci = [1, 1] if the centres are equal, else p = 0 and ci = [ratio, ratio].
WelchLogRatio welch_log_ratio(const std::vector<double>& base, const std::vector<double>& next, double confidence);

// One new value against the distribution of earlier ones (`rooflens history --check`: the latest run's centre
// against the centres of the runs before it on the same machine). On logarithms, like Welch above: d = log(new)
// - mean(log base), s = the sample standard deviation of log(base), se = s * sqrt(1 + 1/n) (the spread of one more
// value from the same distribution: the prediction interval), t = d / se with n - 1 degrees of freedom (Student),
// two-sided p; the interval of the ratio is exp(d -+ q * se). Uses every earlier run, never one of them alone.
// Needs at least 2 base values, all > 0 (returns the defaults otherwise); no spread at all: as welch_log_ratio.
WelchLogRatio prediction_log_ratio(const std::vector<double>& base, double next, double confidence);

// Runs measured in adjacent pairs (base[k] next to next[k] in time): the paired t-test on the logs of the per-pair
// ratios, d_k = log(next[k]) - log(base[k]); d = mean(d_k), se = sd(d_k) / sqrt(n), n - 1 degrees of freedom, the
// interval of the ratio exp(d -+ q * se). Whatever slows both runs of a pair alike (the host, other processes
// over minutes) is in neither d_k. ratio = exp(d) is the ratio of the geometric means, as in Welch above. Needs
// the same number (>= 2) of values on both sides, all > 0 (returns the defaults otherwise); no spread: as Welch.
WelchLogRatio paired_log_ratio(const std::vector<double>& base, const std::vector<double>& next, double confidence);

// Timing samples taken one after another are not independent: the machine's state drifts (frequency, caches,
// other processes) over tens to hundreds of milliseconds, so thousands of samples of one run overstate what is
// known about it. Tests therefore run on blocks of consecutive samples when a side has enough of them: at
// least kMinTimeBlocks blocks of at least kMinBlockSamples samples, at most kMaxTimeBlocks.
inline constexpr size_t kMinBlockSamples = 10, kMinTimeBlocks = 5, kMaxTimeBlocks = 20;

// How many blocks `samples` consecutive samples make: min(20, samples / 10), or 0 when that is below 5 (the
// samples are then tested one by one).
size_t time_block_count(size_t samples);
// The samples in time order cut into `blocks` consecutive runs: block b holds [b*n/blocks, (b+1)*n/blocks).
std::vector<std::vector<double>> time_blocks(const std::vector<double>& samples, size_t blocks);

}  // namespace rooflens
