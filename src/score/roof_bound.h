#pragma once
// The roof that bounds a figure: each node of one pass of the model alone on the roofline — the compute roof of its
// dtype (int8 for a quantized matrix node), the memory roof of the level its bytes fit in — summed, per unit of the
// figure, at the thread count nearest the cores the figure used. It is the time `score --project` projects with
// (whatif/score_projection.h), so a measured figure's efficiency and a projected one mean one thing.
#include <cstdint>
#include <string>

#include "core/report_hardware.h"
#include "core/score.h"
#include "score/kind.h"

namespace rooflens::score {

// `precision`: the workload's ("fp32" | "int8"). No roofs, or roofs without a ceiling for some of the work (an
// int8 roof the machine lacks): the flops and bytes only, time 0 (the figure is not decomposed).
RoofBound roof_bound(const FigureWork& work, const std::string& precision, int64_t threads, const HardwareInfo* roofs);

}  // namespace rooflens::score
