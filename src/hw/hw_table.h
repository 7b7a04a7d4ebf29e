#pragma once
// Terminal rendering of a HardwareInfo: machine lines, compute and memory ceilings, the levels found on the sweep,
// notes, plausibility warnings, errors; the whole sweep when verbose.
#include <string>

#include "core/report_hardware.h"

namespace rooflens::hw {

std::string render_hardware(const HardwareInfo& hw, bool verbose, const std::string& provenance);
std::string binary_bytes(uint64_t bytes);  // 32 KiB, 1.5 MiB, 1 GiB

}  // namespace rooflens::hw
