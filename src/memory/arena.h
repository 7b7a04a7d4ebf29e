#pragma once
// A runtime's arena simulated over a run's buffer allocations (docs/memory.md, "The arena"): best fit over free chunks
// (smallest that fits, then lowest address), a chunk split only when it is at least twice the allocation or the rest
// would waste too much, freed chunks merged with free neighbours, never a chunk across two regions, and a new region when no
// free chunk fits, sized by the rules' growth. Neutral: the rules come from the backend (core/memory.h ArenaRules).
#include <cstdint>
#include <vector>

#include "core/memory.h"
#include "memory/liveness.h"

namespace rooflens {

// The regions, held bytes, pages written and peak in use after the events (low_bytes/high_bytes are left 0: the
// caller adds the prediction's other parts).
ArenaPrediction simulate_arena(const ArenaRules& rules, const std::vector<BufferEvent>& events);

}  // namespace rooflens
