#pragma once
// The step times a generative prediction simulates with, measured in runners of their own — never the run it predicts
// (the calibration-constant rule, docs/architecture.md) — and cached like the roofs: per model file (path, size,
// mtime), intra-op threads, the load's lengths (its span, below), rooflens version and machine class, under
// $XDG_CACHE_HOME/rooflens.
// The calls timed, at the lengths the load will run — a step's time is not linear far from them (the KV cache of
// 8 rows × 192 tokens leaves the last-level cache where 8 × 72 does not): prompts of half the shortest, the shortest
// and the longest prompt alone (five times each, after two untimed prompts); decode calls of 1, 2, 4 and 8 rows (at
// most --max-batch, which is always among them) over the shortest prompt's and the longest context's tokens per row —
// the step that built the batch (a rebuild of the padded cache) and four steady steps after it, twice. Each kind's
// median is one point; all of it in two runner processes, one after the other, whose points
// capacity/generative/step_model.h fits together.
#include <functional>
#include <string>
#include <vector>

#include "backends/generation.h"
#include "capacity/generative/lengths.h"
#include "capacity/generative/null_executor.h"

namespace rooflens::capacity {

// The lengths a load's steps run at.
struct CalibrationSpan {
  int64_t shortest_prompt = 16, longest_prompt = 256;
  int64_t longest_context = 256;  // the most tokens a decode row attends to: the longest prompt + output − 1
};
CalibrationSpan calibration_span(const std::vector<generative::RequestShape>& shapes);
std::vector<int64_t> prefill_lengths(const CalibrationSpan& s);  // at least two, ascending
std::vector<int64_t> decode_contexts(const CalibrationSpan& s);  // two, ascending
std::vector<int64_t> decode_batches(int64_t max_batch);          // 1, 2, 4, 8 below max_batch, and max_batch

// Times each prompt this many times and takes the median; all of it in this many runner processes, fitted together.
inline constexpr int kCalibrationRepeats = 5;
inline constexpr int kCalibrationProcesses = 2;

struct DecoderCalibration {
  generative::StepCost cost;
  std::string measured_at;  // ISO 8601 UTC
  bool cached = false;
};

// Throws BackendError when the decoder cannot be served for the calibration.
DecoderCalibration calibrate_decoder(DecoderGeneration& generation, const DecoderServingConfig& config,
                                     const CalibrationSpan& span, int64_t max_batch,
                                     const std::function<void(const std::string&)>& progress);

}  // namespace rooflens::capacity
