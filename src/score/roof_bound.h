#pragma once
// The roof that bounds a figure: t_roof = max(flops / compute roof of the workload's dtype, bytes / DRAM read
// roof), each roof taken at the thread count nearest the cores the figure used (as capacity's explanation does).
#include <cstdint>
#include <string>

#include "core/report.h"
#include "core/score.h"

namespace rooflens::score {

// `dtype`: "fp32" | "int8" (int8 falls back to nothing: no int8 roof, no decomposition). Per unit of the figure.
RoofBound roof_bound(double flops, double bytes, const std::string& dtype, int64_t threads, const HardwareInfo* roofs);

}  // namespace rooflens::score
