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
#include "hw/team.h"

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
  uint64_t max_working_set = 0;        // 0 = max(8 x LLC, 1 GiB when memory allows)
  bool bandwidth = true, compute = true;
  // Registries to draw kernels from; tests substitute their own. Default: everything compiled in.
  const std::vector<ComputeKernel>* compute_registry = nullptr;
  const BwKernelSet* bandwidth_set = nullptr;
  std::function<void(const std::string&)> progress;  // one line per stage, for stderr
};

HardwareInfo measure_hardware(const HwOptions& opts, const std::string& version);

// One figure (a compute peak or a bandwidth point) on every thread of a team, measured in rounds: the first
// round sizes the work so a repetition lasts about `seconds` (re-sizing if a disturbed probe fooled it), every
// round runs at least `min_reps` repetitions and more until `budget` seconds have passed; the figure is the
// best repetition over all rounds. A repetition is timed as Team::timed does (common barrier start, slowest
// thread's end), so the figure is the team's total over an interval every thread worked through.
// measure_hardware interleaves all figures' rounds; perf/hw interleaves them with likwid-bench runs.
class Probe {
 public:
  // Best seconds over at least `reps` repetitions of `units` of work, more until `budget` seconds passed.
  // `settle`: this timing is a figure (not a sizing probe), so first bring the caches to the state the
  // kernel's own steady state leaves them in (bandwidth windows; see Probe::bandwidth).
  using Timed = std::function<double(uint64_t units, int reps, double budget, bool settle)>;
  using Amount = std::function<double(uint64_t units)>;           // giga-ops (or GB) the team does in one
  Probe(Timed timed, Amount amount);
  // GFLOP/s (giga-ops for int8) of one compute kernel.
  static Probe compute(Team& team, const ComputeKernel& k);
  // GB/s, bytes counted as STREAM does (BwKernel::words), each thread on its own arrays of n elements;
  // team.reserve(bandwidth_buffer_bytes(...)) must cover them. Team and kernel must outlive the probe.
  // An array that takes longer than a repetition is timed in windows that sweep it cyclically; before each
  // round an untimed stretch of the sweep (settle_bytes over all threads and arrays, 0 = a whole pass; about
  // twice the caches is enough) leaves the caches as the kernel's own steady state would.
  static Probe bandwidth(Team& team, const BwKernel& k, size_t n, uint64_t settle_bytes = 0);
  // One more round; returns this round's figure. Throws what the kernel throws.
  double round(double seconds, int min_reps, double budget);
  double best() const { return best_; }

 private:
  Timed timed_;
  Amount amount_;
  uint64_t units_ = 0;  // 0 until the first round sized the work
  double best_ = 0;
};

// Elements per array per thread for a total working set (all threads, all arrays), and the per-thread
// buffer that holds them.
size_t bandwidth_elements(uint64_t working_set, int threads, int arrays);
uint64_t bandwidth_buffer_bytes(uint64_t working_set, int threads);

// Working sets of the full sweep: 4 KiB upwards by factors of sqrt(2) to `max_bytes` inclusive.
std::vector<uint64_t> sweep_sizes(uint64_t max_bytes);

}  // namespace rooflens::hw
