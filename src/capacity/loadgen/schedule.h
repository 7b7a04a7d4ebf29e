#pragma once
// The server scenario's arrivals: a Poisson process at `qps` queries per second from a seeded generator, so the same
// seed gives the same schedule on every machine (no std:: distribution, whose output the standard leaves to each
// library). Gaps are exponential: -ln(1 - u) / qps with u uniform in [0, 1) from SplitMix64's 53 high bits.
#include <cstdint>
#include <vector>

#include "stats/splitmix64.h"

namespace rooflens::capacity {

class PoissonSchedule {
 public:
  PoissonSchedule(double qps, uint64_t seed);
  // The next arrival, in ns after the schedule's start (the first one is a gap after 0, not at 0).
  int64_t next_ns();

 private:
  double qps_;
  stats::SplitMix64 rng_;
  double at_s_ = 0;
};

// The first `count` arrivals (ns after the start), for tests and the simulation.
std::vector<int64_t> poisson_arrivals(double qps, uint64_t seed, int64_t count);

// The schedule's seed for a run at `qps`: one per QPS, so two runs at the same rate share a schedule and the
// runs of a peak search do not reuse each other's gaps.
uint64_t schedule_seed(uint64_t seed, double qps);

}  // namespace rooflens::capacity
