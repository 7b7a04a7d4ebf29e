#include "cli/fleet_view.h"

#include <iostream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "db/fleet_store.h"
#include "db/store.h"
#include "history/fleet_merge.h"
#include "reporters/fleet_report.h"

namespace rooflens::cli {

FleetSummary load_fleet_summary(const std::string& db_url, const std::string& fleet) {
  const std::string url = db::resolve_db_url(db_url);
  auto store = db::ResultStore::open(url);
  FleetStored stored = db::load_fleet(*store, fleet);
  stored.database = db::parse_db_url(url).shown;
  if (stored.sessions.empty() && stored.scores.empty())
    throw UserError("history --fleet " + fleet + ": nothing is stored under fleet=" + fleet + " in " + stored.database +
                    " (the tasks store with --tag fleet=" + fleet + "; check the id and --db)");
  return merge_fleet(stored);
}

int print_fleet(const std::string& db_url, const std::string& fleet, std::ostream& out) {
  out << fleet_text(load_fleet_summary(db_url, fleet));
  return 0;
}

int run_fleet_view(const FleetViewOptions& o) {
  const FleetSummary f = load_fleet_summary(o.db, o.fleet);
  const std::string text = o.json ? fleet_to_json(f) : fleet_text(f);
  if (o.output.empty() || o.output == "-")
    std::cout << text;
  else
    write_file_atomically(o.output, text);
  return 0;
}

}  // namespace rooflens::cli
