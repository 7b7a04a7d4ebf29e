#pragma once
// The results database: history sessions in, trend points and whole sessions out, over either Connection. A
// session is written in one transaction — all of it or, whatever happens to the writer, nothing.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/history.h"
#include "db/connection.h"

namespace rooflens::db {

struct HistoryQuery {
  std::string since;       // sessions created at or after this ISO 8601 UTC time ("" = all)
  std::string machine;     // a machine id or a prefix of it ("" = all)
  std::vector<std::pair<std::string, std::string>> tags;  // sessions carrying every one of these key=value
  // Also the runs a later attempt of a fleet superseded (db/fleet_store.h): only the fleet view reads them.
  bool with_superseded = false;
};

struct StoreCounts {
  int64_t sessions = 0, runs = 0, layers = 0, machines = 0;
  int64_t superseded_runs = 0;  // of `runs`: replaced by a later attempt of their fleet's task
};

class ResultStore {
 public:
  // Connects and migrates (db/schema.h). Throws DbError / DbTooNew / UsageError (bad URL).
  static std::unique_ptr<ResultStore> open(const std::string& url);
  explicit ResultStore(std::unique_ptr<Connection> c);

  // One transaction. False (and nothing written) when a session with this id is stored already. A session tagged
  // fleet=ID supersedes, in that transaction, the fleet's earlier runs of its models × configurations
  // (db/fleet_store.h): a requeued or retried task counts once.
  bool store(const HistorySession& s);
  // The runs of the sessions `q` selects, oldest first; never a superseded one unless q.with_superseded.
  std::vector<HistoryPoint> points(const HistoryQuery& q);
  std::vector<MachineFingerprint> machines();
  std::vector<std::string> session_ids();   // every session, oldest first
  // Complete: samples and layers, and every run, superseded ones too — the session as it was stored. `db export`
  // writes it so; the marks are no part of rooflens.history/1, and storing the sessions again (`db import`, in any
  // order) marks the same runs, since the rule depends only on the sessions' times.
  HistorySession load_session(const std::string& id);
  StoreCounts counts();
  Connection& connection() { return *c_; }

 private:
  std::unique_ptr<Connection> c_;
};

}  // namespace rooflens::db
