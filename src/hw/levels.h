#pragma once
// Memory levels found on the measured bandwidth sweep of one thread count. The curves of all bandwidth kernels
// are combined into one (the mean of their log upper envelopes: a cache boundary is where every kernel falls, a
// step only one kernel shows is diluted); its plateaus are the levels and the falls between them the boundaries.
// Reported cache sizes are hints only: a reported size within a factor of 2 of where a fall begins names it (so a step inside
// L1 is not taken for L2), a fall no reported size agrees with still makes a level (named in order: a VM that
// reports a 508 MiB L3 still gets the L3 its sweep shows), and a reported size with no fall near it makes none.
// The last plateau is DRAM only when the sweep ends on it with two points beyond 4x the last cache found (STREAM's
// rule; a point at 4x still holds a share of the cache); otherwise there is no DRAM level and the caller measures
// further out — as it does, memory allowing, to 4x a reported size the sweep has not confirmed.
// A level is named after the reported caches its plateau spans (core/level_names.h): when a fall agrees with a
// later cache than the next one, the caches between read alike and share the plateau ("L1+L2" on a Zen-1 EPYC).
// Thread counts whose sweeps show as many levels get the same names (find_levels_by_thread_count).
#include <cstdint>
#include <string>
#include <vector>

#include "hw/plateau.h"

namespace rooflens::hw {

struct KernelSweep {
  std::string kernel;
  std::vector<BwSample> points;  // ascending working sets (total over arrays and threads)
};

struct FoundLevel {
  std::string level;                         // "L1".."L4", "L1+L2" (caches that read alike) | "DRAM"
  uint64_t first_bytes = 0, last_bytes = 0;  // the working sets its plateau spans on the combined curve
  uint64_t reported_bytes = 0;               // the reported capacity that named its fall; 0: named from the sweep
};

struct LevelFigure {
  std::string level, kernel;
  double gbps = 0;                 // the best point of this kernel inside the level's plateau
  uint64_t working_set_bytes = 0;  // where it was measured
};

struct SweepLevels {
  std::vector<FoundLevel> levels;          // ascending; DRAM last when `dram`
  std::vector<LevelFigure> figures;        // per level, per kernel
  bool dram = false;                       // the sweep settled on a DRAM plateau
  std::vector<std::string> disagreements;  // reported sizes the sweep shows no fall near ("L3 508 MiB")
  std::vector<std::string> shared;         // levels that span several reported caches ("L1 32 KiB and L2 512 KiB
                                           // read alike: one level, L1+L2")
  uint64_t unconfirmed_bytes = 0;          // the largest of those beyond the last cache found that the sweep has
                                           // not passed 4x: DRAM's plateau may still be inside such a cache
};

struct ThreadCountSweep {
  std::vector<KernelSweep> kernels;
  // Cache capacities usable by the measuring threads per level, ascending (L1, L2, L3[, L4]); may be empty or wrong.
  std::vector<uint64_t> reported;
  // `reported` comes from another sweep of the same caches (an engine's levels named after the native ones): a fall
  // none of them agrees with is then a level only when unmistakable, not merely steep — a slope of the engine's own
  // (WebAssembly's loads leaving the L3) must not take a cache's name.
  bool reported_measured = false;
};

// The levels of each thread count's sweep, in the order given. Thread counts whose sweeps keep as many falls take
// one sequence of names: the one the most reported sizes agree with over all of them, so a size near the edge of
// agreeing cannot name a level differently at 1 thread and at 2.
std::vector<SweepLevels> find_levels_by_thread_count(const std::vector<ThreadCountSweep>& counts,
                                                     const PlateauOptions& opts = {});

// One thread count's sweep alone.
SweepLevels find_levels(const std::vector<KernelSweep>& sweeps, const std::vector<uint64_t>& reported,
                        const PlateauOptions& opts = {});

}  // namespace rooflens::hw
