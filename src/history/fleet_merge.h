#pragma once
// `rooflens history --fleet ID`: what one fleet run stored, merged (core/fleet_summary.h). The database is not
// touched here: the store's rows of the fleet in (db/fleet_store.h: load_fleet), the summary out.
#include "core/fleet_summary.h"

namespace rooflens {

// The kept runs and scores of `stored`, grouped by machine class (CPU name), each with the task, node and attempt
// its session was tagged with and how many rows it superseded; the counts of the summary line. Pure.
FleetSummary merge_fleet(const FleetStored& stored);

}  // namespace rooflens
