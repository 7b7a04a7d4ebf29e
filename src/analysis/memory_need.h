#pragma once
// What a model needs at least at its dims, before anything runs: profile and generate warn when it exceeds the memory
// free here (memory/memory_guard.h).
#include <cstdint>

#include "model/graph.h"

namespace rooflens {

// Weights a node reads + the activations' liveness peak of `m` (at its dims).
uint64_t predicted_need(const Model& m);

}  // namespace rooflens
