#include "cli/db_flags.h"

#include <filesystem>
#include <iostream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "db/store.h"
#include "hw/cpu_features.h"
#include "hw/machine.h"

namespace rooflens::cli {
namespace fs = std::filesystem;

void DbFlags::add_to(CLI::App& app) {
  CLI::Option* db = app.add_option(
      "--db", url,
      "Results database: a file path or sqlite:PATH, or postgresql://user@host/db (default $ROOFLENS_DB, else "
      "$XDG_DATA_HOME/rooflens/results.db, created on first use)");
  app.add_flag("--no-db", off, "Do not store the results in the database")->excludes(db);
  app.add_option("--tag", tags, "Tag the stored results: key=value (repeatable; rooflens history --tag finds them)");
  app.add_option("--commit", commit, "The commit the results belong to (stored as the tag commit=SHA)");
}

std::map<std::string, std::string> DbFlags::tag_map() const {
  std::map<std::string, std::string> out;
  for (const auto& t : tags) {
    auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--tag expects key=value, got '" + t + "'");
    out[t.substr(0, eq)] = t.substr(eq + 1);
  }
  if (!commit.empty()) out["commit"] = commit;
  return out;
}

void DbFlags::validate() const {
  tag_map();
  if (!off) db::parse_db_url(db::resolve_db_url(url));
}

MachineFingerprint this_machine(const HardwareInfo* roofs) {
  return fingerprint_of(hw::describe_machine(hw::detect_features()), roofs);
}

namespace {

// Where a session that could not be stored is kept: next to the default database, one file per session.
std::string rescue(const HistorySession& s) {
  try {
    std::string base = db::default_db_path(std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
    if (base.empty()) return "";
    fs::path dir = fs::path(base).parent_path() / "unstored";
    fs::create_directories(dir);
    std::string file = (dir / (s.id + ".jsonl")).string();
    write_file_atomically(file, history_session_to_json_line(s) + "\n");
    return file;
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

int store_session(const DbFlags& flags, HistorySession s, const std::string& command, bool quiet) {
  if (flags.off) return 0;
  s.tags = flags.tag_map();
  std::string shown;
  try {
    std::string url = db::resolve_db_url(flags.url);
    shown = db::parse_db_url(url).shown;
    auto store = db::ResultStore::open(url);
    store->store(s);
    if (!quiet)
      std::cerr << "rooflens " << command << ": stored " << s.runs.size() << " run" << (s.runs.size() == 1 ? "" : "s")
                << " in " << shown << " (session " << s.id << ")\n";
    return 0;
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    std::string kept = rescue(s);
    // db::DbError messages name the database already (scrubbed); anything else gets its name here.
    std::string msg = e.what();
    if (dynamic_cast<const db::DbError*>(&e) == nullptr && !shown.empty()) msg = "database " + shown + ": " + msg;
    std::cerr << "rooflens " << command << ": warning: results not stored: " << msg
              << (kept.empty() ? std::string("; the result files stand")
                               : "; the result files stand, and the session is saved in " + kept +
                                     " (rooflens db import " + kept + " stores it later)")
              << "\n";
    return kExitDbFailed;
  }
}

MachineFingerprint imported_machine(const std::string& device, const std::string& format) {
  MachineDesc d;
  d.model = device.empty() ? "unnamed device" : device;
  d.os = "imported (" + format + ")";
  return fingerprint_of(d, nullptr);
}

int store_report(const DbFlags& db, const Report& report, const std::string& command, bool quiet,
                 const std::string& settings, const std::optional<MachineFingerprint>& machine) {
  if (db.off) return 0;
  const HardwareInfo* roofs = report.hardware ? &*report.hardware : nullptr;
  HistorySession s = new_session(command, machine ? *machine : this_machine(roofs));
  s.settings = settings;
  add_report(s, report);
  return store_session(db, std::move(s), command, quiet);
}

int store_bench(const DbFlags& db, const BenchResults& results, const std::string& command, bool quiet,
                const std::string& settings) {
  if (db.off) return 0;
  HistorySession s = new_session(command, this_machine(nullptr));
  s.settings = settings;
  add_bench_results(s, results);
  return store_session(db, std::move(s), command, quiet);
}

}  // namespace rooflens::cli
