#pragma once
// `rooflens compare BASE.onnx NEW.onnx`: the two models measured by compare itself, interleaved — BASE, NEW, NEW,
// BASE, ... (ABBA) — so whatever the machine does meanwhile (a neighbour's compile, a frequency change, the host)
// touches both sides alike instead of deciding the verdict. Then the two profile reports are compared as any two
// reports are, pair by pair.
//
// --interleave chunks (the default): one full run per side in a fresh runner (with the profiled run for layers),
// then both models stay loaded in a live runner each, idle between turns, and take --chunks turns of
// --chunk-iterations iterations: a pair is ~0.1 s apart instead of the ~1.5 s two fresh runners need, shorter than
// the spells in which this kind of host runs fast or slow. --interleave runs: every run a fresh runner (--repeat).
#include <string>
#include <vector>

#include "cli/shape_flags.h"
#include "core/report.h"

namespace rooflens::cli {

struct MeasureFlags {
  std::string backend = "onnxruntime", batches;
  ShapeFlags shape;
  int threads = 0, warmup = 1, iterations = 10, profile_iterations = 10, repeat = 10;
  std::string interleave = "chunks";  // chunks | runs
  int chunks = 100, chunk_iterations = 10;
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
