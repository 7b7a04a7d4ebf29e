#pragma once
// One fleet run's merged result, for the commands that show it: `rooflens history --fleet ID` binds these options,
// and the code that runs a fleet calls print_fleet once its tasks have ended (and db::fleet_models_stored,
// db/fleet_store.h, for a progress line while they run). Reads the results database; never runs anything.
#include <ostream>
#include <string>

#include "core/fleet_summary.h"

namespace rooflens::cli {

struct FleetViewOptions {
  std::string db;        // --db URL ("" = $ROOFLENS_DB, else the default SQLite file)
  std::string fleet;     // the fleet tag's value
  bool json = false;     // rooflens.fleet/1 instead of the tables
  std::string output;    // -o FILE ("" or "-": stdout)
};

// The kept runs and scores tagged fleet=`fleet`, merged (history/fleet_merge.h). Throws UserError, one line naming
// the id and the database, when nothing is stored under it; db::DbError on a database that cannot be read.
FleetSummary load_fleet_summary(const std::string& db_url, const std::string& fleet);

// The fleet's tables (the summary line first) written to `out`. 0; throws as load_fleet_summary.
int print_fleet(const std::string& db_url, const std::string& fleet, std::ostream& out);

// `history --fleet`: the tables or the JSON on stdout or in o.output. 0; throws as load_fleet_summary.
int run_fleet_view(const FleetViewOptions& o);

}  // namespace rooflens::cli
