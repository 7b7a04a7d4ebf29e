#pragma once
// What `rooflens history` shows: runs from the results database grouped into trends, one per model ×
// configuration × machine, with their change points, and (--check) the verdict on each trend's latest run.
// history/ computes it from HistoryPoints; the reporters render it (terminal table, JSON, HTML trend charts).
// Its JSON form ("schema": "rooflens.trends/1") is what `history --json` prints and the HTML page embeds.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/comparison.h"
#include "core/history.h"

namespace rooflens {

inline constexpr const char* kTrendsSchema = "rooflens.trends/1";

struct TrendPoint {
  std::string session, created_at;
  std::map<std::string, std::string> tags;
  std::string model_hash, status, error, rooflens_version, runtime;
  double center_ms = 0;                 // median of the repetition medians (0: not timed or failed)
  double median_ms = 0;                 // median of all samples
  int64_t samples = 0;
  std::vector<double> run_medians;      // one per repetition (ms)
  // profile --reference: the reference's name and file hash, and the run's repetition medians over the
  // reference's, pair by pair (core/reference_ratio.h; 0: no reference, or not timed)
  std::string reference, reference_hash;
  double reference_ratio = 0;
  uint64_t peak_rss_bytes = 0;          // the runner's peak resident set (0: not measured)
  bool model_changed = false;           // its model hash differs from the previous point's
  // A change point: the level shifts at this point. change = geometric mean of the segment from here /
  // that of the segment before - 1 (+0.10: 10% slower from here on); p of Welch's test between the segments.
  bool change_point = false;
  double change = 0, change_p = 1;
};

struct TrendSeries {
  std::string model, backend, options, config, machine;
  std::vector<TrendPoint> points;       // oldest first
};
// "resnet18 · batch=1 threads=2 [graphOptimizationLevel=basic]": model and configuration as users name them.
std::string series_label(const TrendSeries& s);
std::string config_label(const std::string& config, const std::string& options);

// `history --check`: one trend's latest run judged against the runs before it on the same machine.
struct TrendCheck {
  std::string model, config, options, machine;
  std::string session, created_at;      // the latest run's
  std::string verdict;                  // verdict::k* of core/comparison.h, or kInsufficientHistory
  int64_t baseline_runs = 0;            // passing, timed runs it was judged against
  double baseline_ms = 0, latest_ms = 0;  // geometric mean of the baseline's centres; the latest centre
  double change = 0, ci_low = 0, ci_high = 0, p_value = 1;
  bool model_changed = false;           // the latest run's model hash is not the baseline's last one
  std::string error;                    // the latest run's failure
  // Judged on the ratio to this reference (the latest run had one; the baseline: earlier runs beside the same
  // reference file) instead of on milliseconds: change, CI and p are then the ratio's. "" = judged on ms.
  std::string reference;
  double baseline_ratio = 0, latest_ratio = 0;  // geometric mean of the baseline's ratios; the latest ratio
  // Memory, judged apart from time with its own threshold: the latest run's peak resident set against the earlier
  // passing runs' that have one. "" when the latest run has none.
  std::string memory_verdict;           // verdict::kRegression | kImprovement | kBelowThreshold | kInsufficientHistory
  uint64_t baseline_peak_rss_bytes = 0; // median of the earlier runs' peaks
  uint64_t latest_peak_rss_bytes = 0;
  double memory_change = 0;             // latest / baseline - 1
};
inline constexpr const char* kInsufficientHistory = "insufficient history";

struct CheckOptions {
  int last = 10;                        // baseline: at most this many earlier passing runs
  int min_runs = 3;                     // fewer: insufficient history
  double alpha = 0.05, threshold = 0.05;
  double memory_threshold = 0.10;       // a peak memory this much above the baseline's median (and above every
                                        // earlier run's) is a memory regression
};

struct Trends {
  std::string schema = kTrendsSchema;
  std::string database;                 // shown form (no password)
  std::vector<MachineFingerprint> machines;
  std::vector<TrendSeries> series;      // by model, config, machine
  std::optional<CheckOptions> check_options;  // set by --check
  std::vector<TrendCheck> checks;
  std::vector<std::string> notes;
};

std::string trends_to_json(const Trends& t, int indent = 2);

}  // namespace rooflens
