#pragma once
// What `rooflens history --fleet ID` shows: the merged result of one fleet run (a Slurm array, a CI matrix — every
// session and score tagged fleet=ID, core/fleet_tags.h). The store reads what it holds of the fleet (FleetStored:
// kept and superseded rows alike, db/fleet_store.h); history/fleet_merge.h turns it into a FleetSummary (the kept
// rows grouped by machine class, each saying which attempt it is and how many it replaced); the reporters render
// that (reporters/fleet_report.h: a text table, and JSON "schema": "rooflens.fleet/1"). docs/history.md, "Fleets".
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/history.h"

namespace rooflens {

inline constexpr const char* kFleetSchema = "rooflens.fleet/1";

// One run stored under the fleet, kept or superseded, with what the view needs of its session and machine.
struct FleetStoredRun {
  HistoryPoint point;              // its session's tags hold the task, attempt and node; superseded_by: the uuid
                                   // of the session whose run is kept in its place ("" = kept)
  std::string cpu;                 // the machine's CPU name: the machine class it is grouped under
};

// One score result stored under the fleet, kept or superseded.
struct FleetStoredScore {
  std::string uuid, created_at, machine, cpu;
  std::map<std::string, std::string> tags;
  std::string suite, kind;         // kind: measured | projected
  bool quick = false;
  double overall = 0, low = 0, high = 0;  // the overall score and its 95% interval
  std::string superseded_by;       // the uuid of the score kept in its place ("" = kept)
};

// One session stored under the fleet (runs or none: a task whose shard held no model stores an empty session).
struct FleetStoredSession {
  std::string uuid, machine, cpu;
  std::map<std::string, std::string> tags;
};

// Everything the database holds of one fleet, oldest first: the input of merge_fleet.
struct FleetStored {
  std::string fleet, database;     // database: its shown form (no password)
  std::vector<FleetStoredSession> sessions;
  std::vector<FleetStoredRun> runs;
  std::vector<FleetStoredScore> scores;
};

// One kept run: a model × configuration of the fleet as its last attempt left it.
struct FleetRunRow {
  std::string model, backend, options, config;
  std::string status, error;       // the bench verdict: pass | fail | timeout | crash | skip, and its error
  double median_ms = 0;            // median of its samples (0: not timed)
  std::string machine, node, task, attempt;  // node, task, attempt: its session's tags ("" when absent)
  std::string session, created_at;
  int64_t superseded = 0;          // earlier runs of this model × configuration it replaced
};

// One kept score result of a machine.
struct FleetScoreRow {
  std::string uuid, created_at, machine, node, task, attempt;
  std::string suite, kind;
  bool quick = false;
  double overall = 0, low = 0, high = 0;
  int64_t superseded = 0;          // earlier results of this machine, suite, mode and kind it replaced
};

// The kept rows of one machine class (the CPU name of the machine fingerprint: machines that differ only in memory
// or OS are one class).
struct FleetClass {
  std::string cpu;
  std::vector<std::string> machines, nodes;  // distinct machine ids and node names of its kept rows, sorted
  std::vector<FleetRunRow> runs;             // by model, then configuration
  std::vector<FleetScoreRow> scores;         // by machine, then node
};

struct FleetSummary {
  std::string schema = kFleetSchema;
  std::string fleet, database;
  std::vector<FleetClass> classes;           // by CPU name
  int64_t models = 0;                        // distinct models among the kept runs
  int64_t runs = 0;                          // kept runs (model × configuration)
  std::map<std::string, int64_t> statuses;   // kept runs per status
  int64_t superseded_runs = 0, superseded_scores = 0;
  int64_t scores = 0;                        // kept score results
  std::vector<std::string> tasks;            // distinct task tags of every session and score (numbers in order)
  int64_t sessions = 0;                      // sessions stored under the fleet, every attempt's
};

}  // namespace rooflens
