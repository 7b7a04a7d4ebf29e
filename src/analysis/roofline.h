#pragma once
// Placing a measured layer on the roofline this machine's measured ceilings draw.
#include <cstdint>
#include <string>

#include "core/report_hardware.h"

namespace rooflens {

struct RoofPlacement {
  std::string bound;        // "compute" | "memory" | "" (no usable ceilings)
  std::string roof;         // the ceiling that limits this layer, e.g. "fp32_fma_avx512 x2", "L2 read x2"
  double attainable = 0;    // GFLOP/s allowed at this intensity (GB/s for flop-free layers)
  double efficiency = 0;    // achieved / attainable
};

// The memory level whose ceiling a working set of `bytes` run on `threads` threads is held against. With levels
// the sweep found (hw.levels, at the thread count nearest `threads`): the nearest level whose successor's plateau
// has not begun at `bytes` — a working set on the slope between two levels goes with the faster one, whose
// roof it cannot exceed. Without them (datasheets, roofs measured before levels were kept), from the reported
// cache sizes as below.
std::string memory_level_for(const HardwareInfo& hw, uint64_t bytes, int64_t threads);
// From reported cache sizes: the first level whose capacity usable by `threads` holds `bytes`: "L1", "L2", "L3"
// or "DRAM".
std::string memory_level_for(const MachineDesc& m, uint64_t bytes, int64_t threads);

// flops may be 0 (layout kernels): then the layer is memory bound and efficiency is achieved GB/s over the
// level's bandwidth. Uses the compute ceilings of `dtype` (a roof dtype: "fp32", "fp16", "int8", ...; a layer
// whose source names no precision, and any dtype the roofs lack, uses fp32: the dtype of the zoo and most models)
// and the memory ceiling of the level the layer's bytes fit in (memory_level_for), both at the thread count nearest
// `threads`. A level's memory ceiling is the best any bandwidth kernel reached there, whatever its mix of reads
// and writes: a layer's bytes are counted as the kernels' are (each tensor once, no write-allocate), so no layer
// that moves what it is said to move can beat the best of them (docs/roofs.md).
// `written`: of `bytes`, those the kernel wrote (0: not known). A cache moves what a core reads and what it writes
// back on paths of their own, so a kernel whose working set lies in a cache is held to the time its reads need at
// the level's read roof or its writes at its write roof, whichever is longer; in DRAM, whose channels carry both
// directions in turn, and without the split, to all its bytes at the level's best roof.
RoofPlacement place_on_roofline(const HardwareInfo& hw, int64_t threads, uint64_t flops, uint64_t bytes,
                                double seconds, const std::string& dtype = "fp32", uint64_t written = 0);

// As place_on_roofline, but against the memory ceiling of the named `level` itself (a hierarchical roofline: the
// source counted the bytes the kernel moved at each level). No ceiling at exactly that level: no memory bound (a
// level's traffic may legitimately exceed a farther level's bandwidth, so no other level stands in for it).
RoofPlacement place_at_level(const HardwareInfo& hw, int64_t threads, uint64_t flops, uint64_t bytes, double seconds,
                             const std::string& dtype, const std::string& level);

// The roof dtype of an ONNX element type name ("float" -> "fp32", "float16" -> "fp16", "int8"/"uint8" -> "int8",
// "bfloat16" -> "bf16", "double" -> "fp64"); "" for "" and types no roof is measured for.
std::string roof_dtype(const std::string& onnx_dtype);

}  // namespace rooflens
