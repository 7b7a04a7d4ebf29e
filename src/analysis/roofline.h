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
// level's bandwidth. Uses the compute ceilings of `dtype` (a roof dtype: "fp32", "fp16", "int8", ...; a layer
// whose source names no precision, and any dtype the roofs lack, uses fp32: the dtype of the zoo and most models)
// and the memory ceiling of the level the layer's bytes fit in, both at the thread count nearest `threads`.
RoofPlacement place_on_roofline(const HardwareInfo& hw, int64_t threads, uint64_t flops, uint64_t bytes,
                                double seconds, const std::string& dtype = "fp32");

// The roof dtype of an ONNX element type name ("float" -> "fp32", "float16" -> "fp16", "int8"/"uint8" -> "int8",
// "bfloat16" -> "bf16"); "" for "" and types no roof is measured for.
std::string roof_dtype(const std::string& onnx_dtype);

}  // namespace rooflens
