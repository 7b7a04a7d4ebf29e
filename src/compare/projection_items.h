#pragma once
// `compare` on a `whatif` report: its projection stands for the side, never its measured runs (which are the other
// report's, copied). Each projected run becomes an item keyed like the run it projects, its latency the projected
// end-to-end median (no samples: a projection has none, so it is never significance-tested) and its layers the
// projected layer times. So `compare import.json whatif-a100.json` reads as "this profile, projected onto the A100".
#include <string>

#include "compare/sources.h"

namespace rooflens {

// Adds one item per projected run; false when the report holds no projection.
bool add_projection_items(CompareSource& src, const Report& report, const std::string& model);

}  // namespace rooflens
