#include "capacity/loadgen/schedule.h"

#include <cmath>
#include <cstring>

namespace rooflens::capacity {

PoissonSchedule::PoissonSchedule(double qps, uint64_t seed) : qps_(qps), rng_(seed) {}

int64_t PoissonSchedule::next_ns() {
  at_s_ += -std::log1p(-rng_.uniform()) / qps_;
  return static_cast<int64_t>(std::llround(at_s_ * 1e9));
}

std::vector<int64_t> poisson_arrivals(double qps, uint64_t seed, int64_t count) {
  PoissonSchedule s(qps, seed);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out.push_back(s.next_ns());
  return out;
}

uint64_t schedule_seed(uint64_t seed, double qps) {
  uint64_t bits = 0;
  std::memcpy(&bits, &qps, sizeof bits);
  stats::SplitMix64 mix(seed ^ bits);
  return mix.next();
}

}  // namespace rooflens::capacity
