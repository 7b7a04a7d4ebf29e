#pragma once
// The step times a generative prediction simulates with, measured in a runner of its own — never the run it predicts
// (the calibration-constant rule, docs/architecture.md) — and cached like the roofs: per model file (path, size,
// mtime), intra-op threads, rooflens version and machine class, under $XDG_CACHE_HOME/rooflens.
// The calls timed: a prompt of 16, 64 and 256 tokens alone (three times each), and decode calls of 1, 2, 4 and 8 rows
// (at most --max-batch, which is always among them) over contexts of 32 and 192 tokens per row, three steps each after
// the step that built the batch; capacity/generative/step_model.h fits them.
#include <functional>
#include <string>

#include "backends/generation.h"
#include "capacity/generative/null_executor.h"

namespace rooflens::capacity {

struct DecoderCalibration {
  generative::StepCost cost;
  std::string measured_at;  // ISO 8601 UTC
  bool cached = false;
};

// Throws BackendError when the decoder cannot be served for the calibration.
DecoderCalibration calibrate_decoder(DecoderGeneration& generation, const DecoderServingConfig& config,
                                     int64_t max_batch, const std::function<void(const std::string&)>& progress);

}  // namespace rooflens::capacity
