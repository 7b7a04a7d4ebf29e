#pragma once
// The model as `rooflens capacity` serves it: what one sample is (the model's inputs at batch 1 when its batch is
// dynamic, else at its own fixed batch), which inputs stack samples along their batch dim, and the work of one
// sample from the analysis (for the machine-wide rates at the measured capacity).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/report_model.h"
#include "model/shapes.h"

namespace rooflens {
struct Model;
}

namespace rooflens::capacity {

struct ServedModel {
  std::filesystem::path model;
  FeedSpec feed;                          // one sample
  std::vector<std::string> batch_inputs;  // stacked along dim 0 (dynamic batch)
  std::string batch_dim;                  // the symbolic batch dim; "" when the batch is fixed
  int64_t fixed_batch = 0;                // the model's own batch when it is fixed (0: dynamic)
  uint64_t flops_per_sample = 0, bytes_per_sample = 0;
  ModelInfo info;                         // the model analysed at one sample (the report's `model`)
  std::shared_ptr<const Model> loaded;    // for assembling per-layer profiles
};

// Throws UserError (one line naming the file) when the model cannot be read, UsageError on bad shape flags.
ServedModel load_served_model(const std::string& path, ShapeOverrides overrides,
                              const std::map<std::string, std::string>& input_files, uint64_t seed);

}  // namespace rooflens::capacity
