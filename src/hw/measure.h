#pragma once
// Measures this machine's roofs: compute peaks per kernel and thread count, bandwidth sweeps per kernel and
// thread count with the memory levels (L1/L2/L3/DRAM) found on them (hw/levels.h), and plausibility warnings. A sub-benchmark that fails (allocation, pinning, a kernel
// throwing) becomes an entry in HardwareInfo::errors and the run goes on.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/report_hardware.h"
#include "hw/bandwidth_kernels.h"
#include "hw/compute_kernels.h"
#include "hw/cpu_features.h"
#include "hw/probe.h"

namespace rooflens::hw {

struct HwOptions {
  bool quick = false;
  std::vector<int> threads;            // empty: 1 and all cores
  FeatureMask force_mask = kAllFeatures;  // ANDed with what cpuid reports (tests mask ISAs off)
  double compute_seconds = 0;          // per timed repetition; 0 = default (0.5 ms)
  double bandwidth_seconds = 0;        // per timed repetition (at least one pass); 0 = default (0.5 ms)
  int reps = 3;                        // best of K: at least K repetitions per round, more while they are short
  int rounds = 4;                      // every figure is visited this many times, interleaved (see Probe)
  double figure_seconds = 0;           // wall time per figure over all rounds; 0 = default (compute 0.2,
                                       // bandwidth quick 0.15, full 0.04)
  uint64_t max_working_set = 0;        // the sweep's largest working set, no extension beyond it; 0 = from the
                                       // reported caches (full: max(8 x LLC, 1 GiB); quick: max(8 x LLC, 512 MiB),
                                       // at most 1 GiB), then further while the sweep shows no DRAM plateau,
                                       // within a quarter of the free memory
  // The cache sizes to take as the reported ones instead of hwloc's (tests: a machine that misreports them).
  std::optional<std::vector<CacheInfo>> reported_caches;
  bool bandwidth = true, compute = true;
  // Registries to draw kernels from; tests substitute their own. Default: everything compiled in.
  const std::vector<ComputeKernel>* compute_registry = nullptr;
  const BwKernelSet* bandwidth_set = nullptr;
  std::function<void(const std::string&)> progress;  // one line per stage, for stderr
};

HardwareInfo measure_hardware(const HwOptions& opts, const std::string& version);

// The untimed stretch (bytes over all threads and arrays) before each round of a bandwidth point timed in windows
// (see Probe::bandwidth): twice the reported caches, but at least 64 MiB (a cache no one reported) and at most
// 512 MiB (a reported size that is absurd).
uint64_t bandwidth_settle_bytes(const MachineDesc& m, int threads);

// Working sets of a sweep: 4 KiB upwards by factors of `step` to `max_bytes` inclusive (full: sqrt(2); --quick: 2).
std::vector<uint64_t> sweep_sizes(uint64_t max_bytes, double step = 1.4142135623730951);

}  // namespace rooflens::hw
