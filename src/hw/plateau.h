#pragma once
// The shape of a bandwidth-vs-working-set curve: its upper envelope and the flat runs (plateaus) on it. A
// plateau is a run of points whose value stays within a tolerance of the run's median and that spans enough
// working set to be a level rather than a step of the slope between two levels; neighbouring plateaus at the
// same height (a noisy dip split one) are merged. hw/levels.h names the plateaus.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rooflens::hw {

struct BwSample {
  uint64_t working_set_bytes = 0;
  double gbps = 0;
};

struct PlateauOptions {
  double tolerance = 0.15;  // relative distance from the run's median that still counts as flat
  double min_span = 1.9;    // a plateau's last working set / its first, at least: a factor of ~2 (3 points of
                            // the full sweep's sqrt(2) steps, 2 of the quick sweep's x2 steps); shorter runs are
                            // the slope between two levels
};

// Indices first..last (inclusive) into the curve, and the run's median value.
struct Plateau {
  size_t first = 0, last = 0;
  double height = 0;
};

// Interference (other processes, interrupts) only ever slows a kernel down, and a larger working set is never
// faster than a smaller one: each point takes the best bandwidth measured at its working set or any larger one.
std::vector<BwSample> upper_envelope(std::vector<BwSample> s);

// Plateaus of `values` sampled at ascending working sets `ws` (same length), in order.
std::vector<Plateau> find_plateaus(const std::vector<uint64_t>& ws, const std::vector<double>& values,
                                   const PlateauOptions& opts = {});

}  // namespace rooflens::hw
