#pragma once
// The result of `rooflens compare`: BASE and NEW matched item by item (model × configuration). It is produced
// by compare_sources() (compare.h) and rendered by the compare reporters (reporters/compare_report.h); nothing
// in here knows how it is printed. Verdicts and statuses are plain strings (the constants below) so every
// format writes the same words.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooflens {

// Status of one item on one side, the same words for reports and bench results.
namespace status {
inline constexpr const char* kPass = "pass";
inline constexpr const char* kFail = "fail";
inline constexpr const char* kTimeout = "timeout";
inline constexpr const char* kCrash = "crash";
inline constexpr const char* kSkip = "skip";
inline constexpr const char* kAbsent = "";       // the item is not on this side
// The status a failed configuration shows, from its failure kind (core/report_run.h's Failure::kind: "error",
// "timeout", "died", "interrupted"); an unknown kind is a failure.
const char* of_failure(const std::string& kind);
}  // namespace status

// What became of an item. Timing verdicts apply when both sides passed; the others describe status changes.
namespace verdict {
inline constexpr const char* kRegression = "regression";         // significant slowdown beyond the threshold
inline constexpr const char* kImprovement = "improvement";       // significant speed-up beyond the threshold
inline constexpr const char* kBelowThreshold = "below threshold";  // significant, but smaller than the threshold
inline constexpr const char* kWithinNoise = "within noise";      // not significant
inline constexpr const char* kInsufficient = "insufficient samples";  // too few samples for any test to decide
inline constexpr const char* kNotTimed = "not timed";            // passed on both sides, neither side timed
inline constexpr const char* kNewFailure = "new failure";        // fails in NEW, did not fail in BASE
inline constexpr const char* kFixed = "fixed";                   // failed in BASE, passes in NEW
inline constexpr const char* kStillFailing = "still failing";
inline constexpr const char* kStatusChanged = "status changed";  // skip involved (pass <-> skip, fail -> skip)
inline constexpr const char* kSkipped = "skipped";               // skipped on both sides
inline constexpr const char* kOnlyBase = "only in BASE";
inline constexpr const char* kOnlyNew = "only in NEW";
}  // namespace verdict

struct CompareOptions {
  double threshold = 0.05;   // |median change| a significant change must exceed to count (0.05 = 5%)
  double alpha = 0.05;       // significance level; the bootstrap interval is the (1 - alpha) one
  int resamples = 2000;      // bootstrap resamples
  size_t min_samples = 3;    // fewer raw samples on a side: insufficient samples
  // BASE's and NEW's runs were measured in adjacent pairs (compare BASE.onnx NEW.onnx, ABBA): run k of one side
  // and run k of the other saw the same moment of the machine, so the test is on the per-pair ratios and a
  // machine that drifts between pairs cancels out (test_unit::kPairs).
  bool paired = false;
};

// What the latency test compared: whole runs (repetitions: the run-to-run variation is measured), or the
// samples of one run per side, as they are or in blocks of consecutive samples (it is not).
namespace test_unit {
inline constexpr const char* kRuns = "runs";        // Welch's t on log(repetition medians), >= 2 runs per side
inline constexpr const char* kBlocks = "blocks";    // one run on a side: Mann-Whitney + bootstrap on time blocks
inline constexpr const char* kSamples = "samples";  // one run on a side: Mann-Whitney + bootstrap on samples
inline constexpr const char* kPairs = "pairs";      // runs measured in pairs (CompareOptions::paired): paired t
}  // namespace test_unit

struct LatencyComparison {
  int64_t base_n = 0, new_n = 0;             // raw samples on each side
  int64_t base_runs = 0, new_runs = 0;       // repetitions (runs) on each side; 1 for a report before --repeat
  int64_t base_blocks = 0, new_blocks = 0;   // tested on blocks of consecutive samples (0: not on blocks)
  std::string unit;                          // test_unit::k* when tested, "" otherwise
  // The typical latency of each side: one run per side, the median of its samples; with repetitions, the
  // geometric mean of the repetition medians (what Welch's test and its interval are about).
  double base_median_ms = 0, new_median_ms = 0;
  double ratio = 0;                          // new / base median (0 when undefined)
  double change = 0;                         // ratio - 1: +0.10 = 10% slower
  bool tested = false;                       // the statistics below were computed (enough samples)
  double ci_low = 0, ci_high = 0;            // interval of the ratio: bootstrap (samples, blocks) or Welch (runs)
  double p_value = 1;                        // two-sided: Mann-Whitney U (samples, blocks) or Welch's t (runs)
  double df = 0;                             // runs: Welch-Satterthwaite degrees of freedom
  double u_new = 0;                          // samples, blocks: U of NEW (pairs where NEW is slower)
  bool exact = false;                        // samples, blocks: p from the exact distribution
  bool significant = false;                  // p < alpha and the interval excludes 1
  // Tested on the samples of a single run on at least one side: run-to-run variation was not measured.
  bool single_run() const { return tested && unit != test_unit::kRuns && unit != test_unit::kPairs; }
};

struct LayerDelta {
  std::string name, op;                      // NEW's layer (BASE's when only in BASE)
  std::string base_name;                     // matched: BASE's layer (another runtime names it its own way)
  std::vector<std::string> onnx_nodes;
  bool alias = false;
  double base_ms = 0, new_ms = 0;            // 0 on the side the layer is missing from
  double base_share = 0, new_share = 0;
  double delta_ms() const { return new_ms - base_ms; }
  double delta_share() const { return new_share - base_share; }
};

// Layers fused differently on the two sides: BASE's layers and NEW's layers that compute the same ONNX nodes
// (a connected group: each layer shares a node with another of the group), compared as a whole.
struct LayerGroupDelta {
  std::vector<std::string> base_layers, new_layers;  // kernel names, in execution order
  std::vector<std::string> onnx_nodes;       // every node the group computes (sorted)
  double base_ms = 0, new_ms = 0;            // sums over the group's layers
  double base_share = 0, new_share = 0;
  double delta_ms() const { return new_ms - base_ms; }
};

// Layers of one configuration in two profile reports, matched by the ONNX nodes they compute. Layer times are
// medians of the profiled iterations; no raw per-iteration samples exist, so these deltas carry no test.
struct LayerComparison {
  std::vector<LayerDelta> matched;           // same node set on both sides; by |delta_ms|, largest first
  std::vector<LayerGroupDelta> regrouped;    // fusion changed; by |delta_ms|, largest first
  std::vector<LayerDelta> only_base;         // nothing in NEW computes these nodes (aliases, kernels without nodes)
  std::vector<LayerDelta> only_new;
};

struct ItemComparison {
  std::string model, config;
  std::string base_status, new_status;       // status::k*
  std::string base_error, new_error;         // "stage: message" of a failing side
  std::string verdict;                       // verdict::k*
  std::optional<LatencyComparison> latency;  // when at least one side has timings
  std::optional<LayerComparison> layers;     // report vs report, both sides passed with layers
  std::vector<std::string> why_slower;       // why NEW is slower, where the measurements say (compare/why_slower.h)
  // The runners' own peak resident sets, when both sides measured one (0: not measured); compared like time but
  // without a test: a peak barely scatters between runs of one model (docs/memory.md).
  uint64_t base_peak_rss_bytes = 0, new_peak_rss_bytes = 0;
  double memory_change() const {
    return base_peak_rss_bytes && new_peak_rss_bytes
               ? static_cast<double>(new_peak_rss_bytes) / static_cast<double>(base_peak_rss_bytes) - 1
               : 0;
  }
};

struct CompareSourceInfo {
  std::string path;
  std::string kind;                          // "report" | "bench"
  std::string description;                   // model or sources, runtime: one line
  size_t items = 0;
  bool partial = false;                      // the run behind it was interrupted
};

struct Comparison {
  CompareSourceInfo base, head;              // BASE and NEW (JSON: "base", "new")
  CompareOptions options;
  std::vector<ItemComparison> items;         // BASE's order, then items only in NEW
  std::vector<std::string> notes;            // caveats the reader needs (models differ, partial runs, ...)
};

struct VerdictCounts {
  size_t regressions = 0, improvements = 0, below_threshold = 0, within_noise = 0, insufficient = 0,
         not_timed = 0, new_failures = 0, fixed = 0, still_failing = 0, status_changed = 0, skipped = 0,
         only_base = 0, only_new = 0;
};

VerdictCounts count_verdicts(const Comparison& c);

// What --fail-on-regression fails on: a significant regression beyond the threshold, or a new failure
// (an item that ran in BASE and fails in NEW is at least as bad as one that got slower).
bool fails_check(const VerdictCounts& counts);

}  // namespace rooflens
