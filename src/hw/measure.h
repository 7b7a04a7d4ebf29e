#pragma once
// Measures this machine's roofs: compute peaks per kernel and thread count, bandwidth sweeps per kernel and
// thread count with plateaus named L1/L2/L3/DRAM. A sub-benchmark that fails (allocation, pinning, a kernel
// throwing) becomes an entry in HardwareInfo::errors and the run goes on.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/report.h"
#include "hw/bandwidth_kernels.h"
#include "hw/compute_kernels.h"
#include "hw/cpu_features.h"

namespace rooflens::hw {

struct HwOptions {
  bool quick = false;
  std::vector<int> threads;            // empty: 1 and all cores
  FeatureMask force_mask = kAllFeatures;  // ANDed with what cpuid reports (tests mask ISAs off)
  double compute_seconds = 0;          // per timed repetition; 0 = default for quick/full
  double bandwidth_seconds = 0;
  int reps = 3;                        // best of K
  uint64_t max_working_set = 0;        // 0 = max(8 x LLC, 1 GiB when memory allows)
  bool bandwidth = true, compute = true;
  // Registries to draw kernels from; tests substitute their own. Default: everything compiled in.
  const std::vector<ComputeKernel>* compute_registry = nullptr;
  const BwKernelSet* bandwidth_set = nullptr;
  std::function<void(const std::string&)> progress;  // one line per stage, for stderr
};

HardwareInfo measure_hardware(const HwOptions& opts, const std::string& version);

// Working sets of the full sweep: 4 KiB upwards by factors of sqrt(2) to `max_bytes` inclusive.
std::vector<uint64_t> sweep_sizes(uint64_t max_bytes);

}  // namespace rooflens::hw
