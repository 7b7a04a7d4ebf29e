#pragma once
// Repetitions, the one meaning of the word (docs/architecture.md glossary): a repetition is one timed loop of one
// configuration — a stretch of its samples. A configuration is timed more than once because a run's samples only show
// how the machine behaved during that run: the next (new process, new inference session, new memory layout, another
// moment) can differ by much more than the samples of one run scatter. Every repetition is one of two kinds:
//   - a fresh run: timed in a runner process of its own (the first repetition always; `--repeat N`: all N). Their
//     medians' spread is run-to-run variation (repetition_spread, spread_is_large below).
//   - a turn: timed on a live runner, loaded once and idle in between, alternating with another side's turn
//     (`compare`'s turns of two models, `profile --reference`'s reference; the CLI's `--turns N`). Turn
//     i pairs with the other side's turn i; their medians follow the host's spells, which the pairing cancels, so
//     their spread says nothing about fresh runs. ProfileRun::live_from marks the first turn (all later ones are
//     turns too); ProfileRun::repetitions_are_fresh_runs() is how code asks.
// A scheduler's round (profile's, generate's, bench's `--repeat`) is one pass over every configuration: it gives each
// one repetition.
//
// The raw samples of all repetitions lie end to end in one vector (ProfileRun::latencies_ms, ReferenceTiming,
// GenerationRun's samples, BenchEntry::latencies_ms, compare's items, the database's runs); a partition, the sample
// count of each repetition, says where each one starts. These helpers read it the same way everywhere.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens {

// Samples per repetition: `sizes` when given, else one repetition holding every sample (documents written before
// --repeat existed); no repetition at all when there are no samples.
std::vector<int64_t> repetition_sizes(const std::vector<int64_t>& sizes, size_t samples);

// "" when `sizes` is empty or partitions `samples` samples (every count positive, the counts summing to it);
// otherwise what is wrong, for an error message ("counts sum to 40 but there are 41 samples").
std::string partition_error(const std::vector<int64_t>& sizes, size_t samples);

// The samples of each repetition, in order. `sizes` must pass partition_error (else: one repetition of all).
std::vector<std::vector<double>> split_repetitions(const std::vector<double>& samples,
                                                   const std::vector<int64_t>& sizes);

// The median of each repetition's samples, in order.
std::vector<double> repetition_medians(const std::vector<double>& samples, const std::vector<int64_t>& sizes);

// Run-to-run against within-run variation of one configuration.
struct RepetitionSpread {
  size_t count = 0;                        // repetitions
  size_t min_samples = 0;                  // the fewest samples any repetition has
  double min_median = 0, max_median = 0;   // the lowest and highest repetition median (ms)
  double spread = 0;                       // (max_median - min_median) / median of all samples
  // The median over repetitions of each one's robust CV, 1.4826 * MAD / median (the CV of normal samples, but
  // blind to the few huge outliers of sub-millisecond runs, whose classical CV can exceed 300%).
  double within_cv = 0;
};
RepetitionSpread repetition_spread(const std::vector<double>& samples, const std::vector<int64_t>& sizes);

// True when the repetitions' medians differ by more than the noise inside a run explains: the spread exceeds
// the within-run (robust) CV, 2%, and 4 standard errors of a median at that CV (1.2533 * cv / sqrt(n), n the
// fewest samples of a repetition; it matters for short repetitions only). One run then says little about the next.
// The within-run CV is stats::robust_cv (stats/order.h).
bool spread_is_large(const RepetitionSpread& s);

}  // namespace rooflens
