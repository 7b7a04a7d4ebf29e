#pragma once
// `rooflens compare BASE.onnx NEW.onnx`: the two models measured by compare itself, interleaved run by run —
// BASE's run 1, NEW's run 1, NEW's run 2, BASE's run 2, ... (ABBA), each run a fresh runner — so whatever the
// machine does meanwhile (a neighbour's compile, a frequency change, the host) touches both sides alike instead
// of deciding the verdict. Then the two profile reports are compared as any two reports are.
#include <string>
#include <vector>

#include "cli/shape_flags.h"
#include "core/report.h"

namespace rooflens::cli {

struct MeasureFlags {
  std::string backend = "onnxruntime", batches;
  ShapeFlags shape;
  int threads = 0, warmup = 1, iterations = 10, profile_iterations = 10, repeat = 10;
  double warmup_ms = 300, duration_s = 0.5, timeout_s = 900;
  bool no_layers = false, realtime = false, quiet = false;
  std::string reports;  // --reports DIR: keep base.json and new.json there
};

struct MeasuredPair {
  Report base, head;
};

// Throws UserError / UsageError as `profile` does for either model.
MeasuredPair measure_pair(const std::string& base_model, const std::string& new_model, const MeasureFlags& flags);

}  // namespace rooflens::cli
