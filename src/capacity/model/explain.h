#pragma once
// Why the capacity is what it is: the machine-wide rates at the measured capacity — samples per second × the work
// of one sample from the analysis — against the roofs of the cores in use (fp32 compute peak and DRAM read
// bandwidth at the thread count nearest instances × threads), so a user sees how much of the machine it reaches.
#include <cstdint>
#include <string>

#include "capacity/sut/served_model.h"
#include "core/capacity.h"
#include "core/report_hardware.h"

namespace rooflens::capacity {

// The roofs a rate at `threads` threads is held against: the compute peak of `dtype` ("fp32", "int8") and the DRAM
// read bandwidth, each measured at the thread count nearest `threads` (ties: fewer threads), the fastest among those.
// nullptr when the roofs have none. `rooflens score` holds its figures against the same ones.
const ComputeRoof* nearest_compute_roof(const HardwareInfo& roofs, int64_t threads, const std::string& dtype);
const MemoryRoof* nearest_dram_read_roof(const HardwareInfo& roofs, int64_t threads);

CapacityExplanation explain(double samples_per_s, const ServedModel& w, const CapacityConfig& c, int64_t cores,
                            const HardwareInfo* roofs);

}  // namespace rooflens::capacity
