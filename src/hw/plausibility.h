#pragma once
// What a measured set of roofs should look like, checked: every thread count with a bandwidth sweep has a DRAM
// level; each level is slower than the one before it (DRAM the slowest), kernel by kernel; no level gets slower
// and no compute kernel computes less as threads are added. A roof that breaks one of these is mislabelled (a cache-sized working set called
// DRAM, a DRAM-sized one called L3) or was measured on a machine too busy to trust, and a layer held against it
// would be judged by the wrong ceiling. The warnings are stored with the roofs, so every report shows them.
#include <string>
#include <vector>

#include "core/report_hardware.h"

namespace rooflens::hw {

std::vector<std::string> plausibility_warnings(const HardwareInfo& hw);

}  // namespace rooflens::hw
