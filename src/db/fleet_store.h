#pragma once
// Fleets in the results database (schema version 5, docs/history.md "Fleets"). Every task of a fleet run stores its
// session (and `score`'s result) tagged fleet=ID (core/fleet_tags.h). A task that runs twice — a Slurm requeue, a
// retry — stores twice; a fleet must still count each model once. So storing under a fleet supersedes: of the
// fleet's runs of one model × configuration, the run of the latest session (by created_at, then by the order
// stored) is kept and every other is marked with that session's uuid (`runs.superseded_by`); of its scores of one
// machine × suite × quick/full × kind, the latest score is kept likewise (`scores.superseded_by`). Marked, not
// deleted: the fleet view says which attempt it kept and how many it replaced. The rule depends only on the rows'
// times, so storing the same attempts in any order (db import of an export, a rescued session stored late) marks
// the same rows. The key holds no machine or task on purpose: a requeued task may land on another node.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/fleet_summary.h"
#include "db/connection.h"
#include "db/store.h"

namespace rooflens::db {

// Inside a transaction, before reading the fleet's rows: serialises the writers of one fleet, so two attempts
// storing at once never both keep their rows.
void lock_fleet(Connection& c, const std::string& fleet);

// Inside the transaction that stored a session tagged fleet=`fleet` and task=`task` ("" without a task tag):
// applies the rule to the fleet's runs of that task for each model × configuration in `keys` (the session's).
// Writes only the marks that change.
void supersede_fleet_runs(Connection& c, const std::string& fleet, const std::string& task,
                          const std::vector<std::pair<std::string, std::string>>& keys);

// What makes two scores of a fleet the same result stored twice.
struct ScoreKey {
  std::string machine, suite;
  bool quick = false;
  std::string kind;
};
// Inside the transaction that stored a score tagged fleet=`fleet`: applies the rule to the fleet's scores of `key`.
void supersede_fleet_scores(Connection& c, const std::string& fleet, const ScoreKey& key);

// Everything stored under fleet=`fleet`, kept and superseded rows alike (history/fleet_merge.h groups them).
// Throws DbError naming the column of a malformed row.
FleetStored load_fleet(ResultStore& store, const std::string& fleet);

// How many distinct models the fleet has stored so far (kept runs): one cheap query, for a progress line while the
// fleet's tasks run.
int64_t fleet_models_stored(ResultStore& store, const std::string& fleet);

}  // namespace rooflens::db
