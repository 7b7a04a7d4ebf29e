#include "db/schema.h"

#include <string>
#include <vector>

#include "core/history.h"
#include "db/rows.h"

namespace rooflens::db {
namespace {

struct Migration {
  int version;
  const char* description;
  std::string (*sql)(std::string_view id_column);  // the dialect's primary-key spelling goes in
};

// Version 1. Times are ISO 8601 UTC text (they sort as text on both databases); samples and counts are JSON
// arrays in TEXT columns (one row per run, readable with any SQL client); everything a trend needs without the
// samples (latency statistics, each repetition's median, their geometric mean) has its own column.
std::string v1(std::string_view id) {
  std::string id_col(id);
  return "CREATE TABLE machines ("
         " id TEXT PRIMARY KEY, cpu TEXT NOT NULL, cores BIGINT NOT NULL, threads BIGINT NOT NULL,"
         " memory_bytes BIGINT NOT NULL, os TEXT NOT NULL, first_seen TEXT NOT NULL);"
         "CREATE TABLE sessions ("
         " id " + id_col + ", uuid TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, command TEXT NOT NULL,"
         " machine TEXT NOT NULL REFERENCES machines(id), kernel TEXT NOT NULL, roofs_hash TEXT NOT NULL,"
         " rooflens_version TEXT NOT NULL, runtime TEXT NOT NULL, settings TEXT NOT NULL);"
         "CREATE INDEX sessions_machine_time ON sessions (machine, created_at);"
         "CREATE INDEX sessions_time ON sessions (created_at);"
         "CREATE TABLE tags ("
         " session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, key TEXT NOT NULL,"
         " value TEXT NOT NULL, PRIMARY KEY (session_id, key));"
         "CREATE INDEX tags_key_value ON tags (key, value);"
         "CREATE TABLE runs ("
         " id " + id_col + ", session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
         " seq INTEGER NOT NULL, model TEXT NOT NULL, model_hash TEXT NOT NULL, backend TEXT NOT NULL,"
         " options TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, error TEXT NOT NULL,"
         " n BIGINT NOT NULL, min_ms DOUBLE PRECISION NOT NULL, max_ms DOUBLE PRECISION NOT NULL,"
         " mean_ms DOUBLE PRECISION NOT NULL, median_ms DOUBLE PRECISION NOT NULL, p90_ms DOUBLE PRECISION NOT NULL,"
         " p95_ms DOUBLE PRECISION NOT NULL, p99_ms DOUBLE PRECISION NOT NULL, std_ms DOUBLE PRECISION NOT NULL,"
         " cv DOUBLE PRECISION NOT NULL, center_ms DOUBLE PRECISION NOT NULL, repetition_medians TEXT NOT NULL,"
         " repetitions TEXT NOT NULL, samples TEXT NOT NULL);"
         "CREATE INDEX runs_session ON runs (session_id);"
         "CREATE INDEX runs_series ON runs (model, config);"
         "CREATE TABLE layers ("
         " run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL, name TEXT NOT NULL,"
         " op TEXT NOT NULL, time_ms DOUBLE PRECISION NOT NULL, onnx_nodes TEXT NOT NULL, PRIMARY KEY (run_id, seq))";
}

// Version 2: the reference a run was timed beside (profile --reference): its name, file hash and repetition
// medians (a JSON array beside repetition_medians, pair by pair). Runs stored before have none.
std::string v2(std::string_view) {
  return "ALTER TABLE runs ADD COLUMN reference_model TEXT NOT NULL DEFAULT '';"
         "ALTER TABLE runs ADD COLUMN reference_hash TEXT NOT NULL DEFAULT '';"
         "ALTER TABLE runs ADD COLUMN reference_medians TEXT NOT NULL DEFAULT '[]'";
}

// Version 3: the runner's peak resident set of a run (bytes; 0 for runs stored before, which had none recorded).
std::string v3(std::string_view) { return "ALTER TABLE runs ADD COLUMN peak_rss_bytes BIGINT NOT NULL DEFAULT 0"; }

// Version 4: `rooflens score` results (docs/score.md, "Side by side"). One row per score with the machine's identity
// and the summary a leaderboard sorts by in columns (readable with any SQL client), the categories in their own
// table, and the whole rooflens.score/1 result as text: the record the listing reads back (validated by the JSON
// reader and against these columns). Projected scores carry kind 'projected' and the device; `machine` is the
// fingerprint of the machine the record names.
std::string v4(std::string_view id) {
  std::string id_col(id);
  return "CREATE TABLE scores ("
         " id " + id_col + ", uuid TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, stored_at TEXT NOT NULL,"
         " machine TEXT NOT NULL REFERENCES machines(id), suite TEXT NOT NULL, quick INTEGER NOT NULL,"
         " kind TEXT NOT NULL, device TEXT NOT NULL, cpu TEXT NOT NULL, cores BIGINT NOT NULL, threads BIGINT NOT NULL,"
         " cores_used BIGINT NOT NULL, isa TEXT NOT NULL, memory_bytes BIGINT NOT NULL, os TEXT NOT NULL,"
         " kernel TEXT NOT NULL, runtime TEXT NOT NULL, runtime_version TEXT NOT NULL, rooflens_version TEXT NOT NULL,"
         " rooflens_commit TEXT NOT NULL, roofs TEXT NOT NULL, overall DOUBLE PRECISION NOT NULL,"
         " overall_low DOUBLE PRECISION NOT NULL, overall_high DOUBLE PRECISION NOT NULL,"
         " roof_ratio DOUBLE PRECISION NOT NULL, efficiency DOUBLE PRECISION NOT NULL, incomplete INTEGER NOT NULL,"
         " partial INTEGER NOT NULL, result TEXT NOT NULL);"
         "CREATE INDEX scores_suite ON scores (suite, quick, kind, created_at);"
         "CREATE TABLE score_categories ("
         " score_id BIGINT NOT NULL REFERENCES scores(id) ON DELETE CASCADE, seq INTEGER NOT NULL, name TEXT NOT NULL,"
         " score DOUBLE PRECISION NOT NULL, low DOUBLE PRECISION NOT NULL, high DOUBLE PRECISION NOT NULL,"
         " roof_ratio DOUBLE PRECISION NOT NULL, efficiency DOUBLE PRECISION NOT NULL, members BIGINT NOT NULL,"
         " valid_members BIGINT NOT NULL, incomplete INTEGER NOT NULL, PRIMARY KEY (score_id, seq))";
}

// Version 5: fleets (core/fleet_tags.h, docs/history.md "Fleets"). A requeued or retried task of a fleet stores its
// results again; the earlier ones stay, marked with the uuid of the session (or score) whose result is kept in
// their place, so a fleet's view can say which attempt it kept and how many it replaced, and every reader skips
// the marked rows ('' = kept: every row stored before). Score results gain tags, as sessions have (`--tag`).
std::string v5(std::string_view) {
  return "ALTER TABLE runs ADD COLUMN superseded_by TEXT NOT NULL DEFAULT '';"
         "ALTER TABLE scores ADD COLUMN superseded_by TEXT NOT NULL DEFAULT '';"
         "CREATE TABLE score_tags ("
         " score_id BIGINT NOT NULL REFERENCES scores(id) ON DELETE CASCADE, key TEXT NOT NULL,"
         " value TEXT NOT NULL, PRIMARY KEY (score_id, key));"
         "CREATE INDEX score_tags_key_value ON score_tags (key, value)";
}

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> m{{1, "sessions, runs, layers, tags, machines", &v1},
                                        {2, "runs.reference_model, reference_hash, reference_medians", &v2},
                                        {3, "runs.peak_rss_bytes", &v3},
                                        {4, "scores, score_categories", &v4},
                                        {5, "runs.superseded_by, scores.superseded_by, score_tags", &v5}};
  return m;
}

[[noreturn]] void too_new(const Connection& c, int version) {
  throw DbTooNew("database " + c.shown() + " was written by a newer rooflens (schema version " +
                 std::to_string(version) + "; this rooflens knows up to " + std::to_string(kSchemaVersion) +
                 "): upgrade rooflens, or give another --db; nothing was changed");
}

}  // namespace

int schema_version(Connection& c) {
  if (!c.table_exists("rooflens_schema")) return 0;
  auto rows = c.query("SELECT max(version) FROM rooflens_schema");
  if (rows.empty() || rows[0].empty() || !rows[0][0]) return 0;
  return static_cast<int>(parse_int(rows[0][0], "rooflens_schema.version"));
}

void ensure_schema(Connection& c, int target) {
  int version = schema_version(c);
  if (version > kSchemaVersion) too_new(c, version);
  if (version < target) {
    Transaction t(c);
    c.lock_schema();
    version = schema_version(c);  // another process may have migrated meanwhile
    if (version > kSchemaVersion) too_new(c, version);
    if (version == 0)
      c.exec_script("CREATE TABLE IF NOT EXISTS rooflens_schema (version INTEGER NOT NULL, applied_at TEXT NOT NULL,"
                    " description TEXT NOT NULL)");
    for (const Migration& m : migrations()) {
      if (m.version <= version || m.version > target) continue;
      c.exec_script(m.sql(c.id_column()));
      c.query("INSERT INTO rooflens_schema (version, applied_at, description) VALUES (?, ?, ?)",
              {int64_t{m.version}, now_iso8601_utc(), std::string(m.description)});
    }
    t.commit();
  }
  c.ready_for_writes();
}

}  // namespace rooflens::db
