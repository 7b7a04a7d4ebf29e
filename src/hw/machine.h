#pragma once
// The machine description every report carries: CPU (cpuid brand string via hwloc), topology and caches
// (hwloc), memory and OS (/proc, uname), frequency (/sys cpufreq, else /proc/cpuinfo).
#include <cstdint>
#include <vector>

#include "core/report_hardware.h"
#include "hw/cpu_features.h"

namespace rooflens::hw {

MachineDesc describe_machine(FeatureMask usable);

// Data-cache capacity (bytes) usable by `threads` threads pinned one per core, per level ascending:
// a private L2 counts once per thread, a shared L3 once per instance the threads span.
std::vector<uint64_t> cache_capacities(const MachineDesc& m, int threads);

// Bytes of memory available right now (MemAvailable), 0 when unknown.
uint64_t available_memory_bytes();

}  // namespace rooflens::hw
