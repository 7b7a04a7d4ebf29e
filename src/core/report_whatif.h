#pragma once
// The report's projection (`whatif`, core/report.h): measured runs projected onto other ceilings, a dtype, a batch,
// sparsity (src/whatif/).
#include <optional>
#include <string>
#include <vector>

#include "core/memory.h"
#include "core/report_hardware.h"

namespace rooflens {

struct LayerProjection {          // one layer of a run, projected
  std::string name;               // runs[].layers[].name
  double time_ms = 0;             // projected median time
  double flops = 0, bytes = 0;    // the work assumed on the target (changes with --batch / --quantize)
  double intensity = 0, gflops = 0;  // where the projected layer sits on the target's roofline
  std::string bound, roof;        // on the target ("" when the layer kept its measured time)
  double attainable = 0;          // GFLOP/s (GB/s for FLOP-free layers) the target allows at this intensity
  bool bound_changed = false;     // bound differs from the measured layer's
  std::string note;               // why the layer was not projected, or which perf ratio applied
};

struct RunProjection {
  std::string run;                // the measured run's label
  double measured_ms = 0;         // e2e median, profiling off
  double projected_ms = 0;        // measured_ms x (projected layers + gap) / (measured layers + gap)
  double layers_measured_ms = 0, layers_projected_ms = 0;
  double gap_ms = 0;              // profiled run median - sum of layer medians, kept as is (not projected)
  std::vector<LayerProjection> layers;  // same order as the run's layers
  std::optional<MemoryProjection> memory;  // when the run has a memory prediction
};

struct Projection {
  std::vector<std::string> modes; // "roofs" | "device" | "threads" | "quantize" | "batch" | "sparse", as applied
  std::string target;             // one line: "NVIDIA A100 SXM4 80GB (datasheet), int8"
  std::vector<std::string> assumptions;  // every assumption the numbers rest on, in words
  std::optional<HardwareInfo> hardware;  // the target's ceilings when they are not the report's own
  std::vector<RunProjection> runs;
};

}  // namespace rooflens
