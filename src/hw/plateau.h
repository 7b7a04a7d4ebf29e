#pragma once
// Plateau detection on a bandwidth-vs-working-set sweep: the curve is a staircase (L1, L2, L3, DRAM) with
// sloped transitions between steps. A plateau is a run of points whose bandwidth stays within a tolerance of
// the run's median; short runs are transitions and are dropped; neighbouring plateaus at the same height
// (a noisy dip split one) are merged. Runs are found on the sweep's upper envelope (see plateau.cpp). Plateaus are then named from the cache capacities when known.
#include <cstdint>
#include <string>
#include <vector>

namespace rooflens::hw {

struct BwSample {
  uint64_t working_set_bytes = 0;
  double gbps = 0;
};

struct Plateau {
  std::string level;          // "L1", "L2", "L3", ... or "DRAM"
  size_t first = 0, last = 0; // indices into the sweep (inclusive)
  double gbps = 0;            // best sustained point inside the plateau (edges excluded when it is long)
  uint64_t working_set_bytes = 0;  // where that point was measured
};

struct PlateauOptions {
  double tolerance = 0.15;    // relative distance from the run's median that still counts as flat
  size_t min_points = 2;      // shorter runs are transitions
};

// `sweep` sorted by working set. `capacities`: total cache bytes usable by the measuring threads per level,
// ascending (L1, L2, L3); empty when unknown, in which case plateaus are named L1, L2, ... and the last
// one DRAM. With capacities, a plateau whose (geometric) middle working set fits in level k is "Lk", one that
// fits in none is "DRAM" — so a level the sweep could not resolve is missing rather than invented.
std::vector<Plateau> find_plateaus(const std::vector<BwSample>& sweep, const std::vector<uint64_t>& capacities,
                                   const PlateauOptions& opts = {});

}  // namespace rooflens::hw
