#pragma once
// Renderings of `rooflens history --fleet ID` (core/fleet_summary.h): the summary line, then per machine class its
// machines and nodes, one row per kept model × configuration (status, median, the task, node and attempt that
// stored it, how many earlier attempts it replaced) and its scores; or the same as JSON ("rooflens.fleet/1").
#include <string>

#include "core/fleet_summary.h"

namespace rooflens {

// "fleet F in DB: 3 models stored (4 runs: 3 pass, 1 timeout), tasks 0 1 2, 5 sessions, 1 run superseded": the line
// a fleet's end prints, and the first line of fleet_text.
std::string fleet_summary_line(const FleetSummary& f);
std::string fleet_text(const FleetSummary& f);
std::string fleet_to_json(const FleetSummary& f, int indent = 2);

}  // namespace rooflens
