#pragma once
// Bandwidth kernels (read, write, copy, triad) per ISA, chosen at run time from what the CPU supports.
// Bytes are counted as STREAM counts them: read 1 word per element, write 1, copy 2 (read + write),
// triad 3 (two reads + one write); the write-allocate read of the destination line is not counted.
// All stores are ordinary (temporal) stores, like likwid-bench's stream_avx512/store_avx512/copy_avx512.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/cpu_features.h"

namespace rooflens::hw {

struct BwArgs {
  double* a = nullptr;        // destination (write, copy, triad)
  const double* b = nullptr;  // source (read, copy, triad)
  const double* c = nullptr;  // second source (triad)
  size_t n = 0;               // elements per array; a multiple of kBwElementBlock
  uint64_t passes = 1;        // sweeps over the arrays in one call
};

inline constexpr size_t kBwElementBlock = 64;  // 512 bytes: one fully unrolled AVX-512 iteration

using BwFn = double (*)(const BwArgs&);

struct BwKernel {
  std::string name;   // "read" | "write" | "copy" | "triad"
  int arrays = 1;     // arrays touched; working set = arrays x n x 8 bytes
  int words = 1;      // 8-byte words moved per element, STREAM convention
  BwFn fn = nullptr;
  bool quick = false; // part of `hw --quick`
};

struct BwKernelSet {
  std::string isa;
  FeatureMask needs = 0;
  std::vector<BwKernel> kernels;
};

// Best ISA first; the last entry needs nothing beyond x86-64 (or plain C++ elsewhere).
const std::vector<BwKernelSet>& bandwidth_kernel_sets();
// The first set whose needs are covered by mask (always found: the portable set needs nothing).
const BwKernelSet& select_bandwidth(FeatureMask mask);

}  // namespace rooflens::hw
