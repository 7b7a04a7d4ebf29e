#pragma once
// The results-database flags every command that produces results shares (profile, bench, and commands that make
// reports another way, such as import or generate), and the one call that stores what they produced:
//
//   DbFlags db;  db.add_to(*cmd);                            // --db URL, --no-db, --tag k=v, --commit SHA
//   ...write the report file first...
//   return worst_exit(rc, store_report(db, report, "profile", quiet));
//
// The database is written after the result files, so a database that is down or refuses the write never costs
// a result: the store call prints one warning line (no password in it), saves the session as JSON lines under
// the data directory (`rooflens db import FILE` stores it later) and returns kExitDbFailed.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/bench_results.h"
#include "core/history.h"
#include "core/report.h"

namespace rooflens::cli {

// Exit code when the results were written but could not be stored in the database.
inline constexpr int kExitDbFailed = 3;

struct DbFlags {
  std::string url;                 // --db; "" = $ROOFLENS_DB, else the default SQLite file
  bool off = false;                // --no-db
  std::vector<std::string> tags;   // --tag key=value (repeatable)
  std::string commit;              // --commit SHA: the tag "commit"

  void add_to(CLI::App& app);
  // Before the run: a malformed --tag or an unknown kind of URL is a usage error now, not after an hour of work.
  void validate() const;
  // Tags as a map; throws UsageError for a tag without '=' or an empty key.
  std::map<std::string, std::string> tag_map() const;
};

// Stores the session (command, this machine's fingerprint, the flags' tags) in one transaction. Returns 0 when
// stored or --no-db, kExitDbFailed after a warning on stderr otherwise. `settings`: the timing options as
// compact JSON. `roofs`: the roofs the results were placed against (their hash goes into the fingerprint).
// `machine`: where the results were measured when not here (an import: the device the other tool's files name).
int store_report(const DbFlags& db, const Report& report, const std::string& command, bool quiet,
                 const std::string& settings = "", const std::optional<MachineFingerprint>& machine = std::nullopt);
int store_bench(const DbFlags& db, const BenchResults& results, const std::string& command, bool quiet,
                const std::string& settings = "");
// The lower-level form: a session built by the caller (new_session + add_report/add_bench_results).
int store_session(const DbFlags& db, HistorySession session, const std::string& command, bool quiet);

// This machine's fingerprint (hwloc, /proc, uname), with the hash of `roofs` when given.
MachineFingerprint this_machine(const HardwareInfo* roofs);
// The machine an imported profile was measured on, as far as its files say: the device they name ("Tesla T4"; ""
// when they name none) and the format. Its own id, so imported runs never join this machine's baselines.
MachineFingerprint imported_machine(const std::string& device, const std::string& format);

// The exit code of a command that ran with code `rc` and stored with `db_rc`: a failed run (1, 2) outranks a
// failed store (3), which outranks success.
inline int worst_exit(int rc, int db_rc) { return rc != 0 ? rc : db_rc; }

}  // namespace rooflens::cli
