#pragma once
// How many weight bytes one step of a decoder must read: every initializer once, except a table that is only ever
// indexed by Gather (an embedding), of which only the gathered rows are read.
#include <cstdint>

#include "model/graph.h"

namespace rooflens {

// `step` is the model loaded at the step's shapes (the Gather indices' element counts come from it).
uint64_t weight_bytes_read(const Model& step);

}  // namespace rooflens
