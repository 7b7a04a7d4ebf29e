#pragma once
// Why the capacity is what it is: the machine-wide rates at the measured capacity — samples per second × the work
// of one sample from the analysis — against the roofs of the cores in use (fp32 compute peak and DRAM read
// bandwidth at the thread count nearest instances × threads), so a user sees how much of the machine it reaches.
#include <cstdint>

#include "capacity/workload.h"
#include "core/capacity.h"
#include "core/report_hardware.h"

namespace rooflens::capacity {

CapacityExplanation explain(double samples_per_s, const Workload& w, const CapacityConfig& c, int64_t cores,
                            const HardwareInfo* roofs);

}  // namespace rooflens::capacity
