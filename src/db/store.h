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
};

struct StoreCounts {
  int64_t sessions = 0, runs = 0, layers = 0, machines = 0;
};

class ResultStore {
 public:
  // Connects and migrates (db/schema.h). Throws DbError / DbTooNew / UsageError (bad URL).
  static std::unique_ptr<ResultStore> open(const std::string& url);
  explicit ResultStore(std::unique_ptr<Connection> c);

  // One transaction. False (and nothing written) when a session with this id is stored already.
  bool store(const HistorySession& s);
  std::vector<HistoryPoint> points(const HistoryQuery& q);
  std::vector<MachineFingerprint> machines();
  std::vector<std::string> session_ids();   // every session, oldest first
  HistorySession load_session(const std::string& id);  // complete: samples and layers
  StoreCounts counts();
  Connection& connection() { return *c_; }

 private:
  std::unique_ptr<Connection> c_;
};

}  // namespace rooflens::db
