#pragma once
// The compute-peak kernel registry: one entry per (ISA, dtype), each compiled for its ISA with a target
// attribute. Every kernel runs kChains independent dependency chains so the FMA pipes never wait on a
// result: peak needs latency (4-5 cycles) x issue ports (2) = 8-10 chains in flight; 12 covers that with room.
#include <cstdint>
#include <string>
#include <vector>

#include "hw/cpu_features.h"

namespace rooflens::hw {

inline constexpr int kChains = 12;

struct ComputeKernel {
  std::string name, isa, dtype;
  FeatureMask needs = 0;
  double ops_per_iter = 0;          // FLOPs (or int8 ops) one inner iteration performs
  double (*run)(uint64_t iters) = nullptr;  // returns a value derived from every chain (kept, so not elided)
  bool quick = false;               // part of `hw --quick`
};

// Every kernel compiled into this binary, best ISA first within each dtype.
const std::vector<ComputeKernel>& compute_kernels();
// The kernels whose needs are all in `mask`.
std::vector<ComputeKernel> select_compute(const std::vector<ComputeKernel>& all, FeatureMask mask);

}  // namespace rooflens::hw
