#pragma once
// Placing a measured layer on the roofline this machine's measured ceilings draw.
#include <cstdint>
#include <string>

#include "core/report.h"

namespace rooflens {

struct RoofPlacement {
  std::string bound;        // "compute" | "memory" | "" (no usable ceilings)
  std::string roof;         // the ceiling that limits this layer, e.g. "fp32_fma_avx512 x2", "L2 read x2"
  double attainable = 0;    // GFLOP/s allowed at this intensity (GB/s for flop-free layers)
  double efficiency = 0;    // achieved / attainable
};

// The memory level a working set of `bytes` fits in, given `threads` threads: "L1", "L2", "L3" or "DRAM".
std::string memory_level_for(const MachineDesc& m, uint64_t bytes, int64_t threads);

// flops may be 0 (layout kernels): then the layer is memory bound and efficiency is achieved GB/s over the
// level's bandwidth. Uses fp32 compute ceilings (the dtype of the zoo and most models; other dtypes later)
// and the memory ceiling of the level the layer's bytes fit in, both at the thread count nearest `threads`.
RoofPlacement place_on_roofline(const HardwareInfo& hw, int64_t threads, uint64_t flops, uint64_t bytes,
                                double seconds);

}  // namespace rooflens
