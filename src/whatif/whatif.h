#pragma once
// `rooflens whatif`: project a profile's measured layers onto other ceilings (another machine's roofs, a
// datasheet device, another thread count here), another dtype, another batch, or sparse weights, and say every
// assumption the projection rests on. The model: each layer keeps its measured efficiency (achieved / what the
// roofline allowed it) and gets the roofline of the target at its new intensity; the time between kernels stays.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/report.h"
#include "whatif/perf_table.h"

namespace rooflens {

struct SparseSpec {
  double ratio = 0;              // fraction of zero weights, (0, 1)
  std::string pattern = "4x1";   // block pattern, as the perf-ratio table names it ("4x1", "2:4", ...)
};

struct WhatIfOptions {
  std::optional<HardwareInfo> roofs;   // --roofs FILE / --device NAME: the target's ceilings
  std::string roofs_label;             // where they came from ("datasheet NVIDIA A100 ...", "roofs.json")
  std::optional<int64_t> threads;      // --threads N: this report's roofs at N threads
  std::string quantize;                // "" | "int8" | "fp16"
  std::optional<int64_t> batch;        // --batch N
  std::optional<SparseSpec> sparse;    // --sparse RATIO[:PATTERN]
  PerfTable perf_table;                // --perf-table FILE (empty: the ideal ratio 1 / (1 - ratio))
};

// "0.9" or "0.9:4x1" or "90%:2:4"; throws UsageError naming --sparse.
SparseSpec parse_sparse(const std::string& text);

// Projects every run of `report` that has layers. Throws UsageError for contradictory or impossible options
// (nothing to project, --threads without per-thread roofs, --threads with --device, ...).
Projection project(const Report& report, const WhatIfOptions& options);

}  // namespace rooflens
