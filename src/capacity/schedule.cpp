#include "capacity/schedule.h"

#include <cmath>
#include <cstring>

namespace rooflens::capacity {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

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
  SplitMix64 mix(seed ^ bits);
  return mix.next();
}

}  // namespace rooflens::capacity
