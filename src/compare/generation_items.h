#pragma once
// `compare` on generation reports (`rooflens generate`): each configuration becomes two items, its time to first
// token ("... · TTFT": one sample per request, layers of the prefill step) and its time per output token ("... ·
// TPOT": one sample per decode step, layers of the decode step), so both are significance-tested like any latency.
#include <string>

#include "compare/sources.h"

namespace rooflens {

// Adds the items of report.generation and of its failures (dims "prompt" and "gen"; both items fail).
void add_generation_items(CompareSource& src, const Report& report, const std::string& model);

}  // namespace rooflens
