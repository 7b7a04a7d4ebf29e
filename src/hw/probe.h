#pragma once
// One figure of `rooflens hw` — a compute peak or a bandwidth point — timed on every thread of a team.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "hw/bandwidth_kernels.h"
#include "hw/compute_kernels.h"
#include "hw/team.h"

namespace rooflens::hw {

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

}  // namespace rooflens::hw
