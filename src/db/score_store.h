#pragma once
// `rooflens score` results in the database (schema version 4: tables scores and score_categories, docs/score.md
// "Side by side"). A score is stored whole (its rooflens.score/1 JSON) beside columns holding the machine's identity
// and the summary; reading one back is reading outside data: the JSON goes through the score reader, the columns
// through db/rows.h's strict parsers, and the two must agree — a row that disagrees with itself is refused with a
// one-line DbError naming the column, never shown as a score.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/score.h"
#include "db/connection.h"

namespace rooflens::db {

// Which stored scores to read ("" / false: no filter).
struct ScoreQuery {
  std::string suite;         // "v1"
  std::string machine;       // a machine id or a prefix of it
  std::string since;         // ISO 8601 UTC: scores created at or after
  bool measured_only = false;  // leave projected scores out
  std::vector<std::pair<std::string, std::string>> tags = {};  // scores carrying every one of these key=value
  // Also the scores a later attempt of a fleet superseded (db/fleet_store.h): only the fleet view reads them.
  bool with_superseded = false;
};

struct StoredScore {
  std::string uuid;          // the row's id (random, given by the store)
  std::string machine;       // the fingerprint id of the record's machine (core/history.h)
  std::string stored_at;     // when the row was written (ISO 8601 UTC)
  ScoreResult result;
  std::map<std::string, std::string> tags;  // --tag of the score command (schema version 5; none before)
  std::string superseded_by;  // the uuid of the score a later attempt of its fleet kept in its place ("" = kept)
};

// Writes one score with its tags in one transaction (the machine row too, when new). Returns the new row's uuid, or
// nullopt (and writes nothing) when the identical result is stored already (importing a file twice stores it
// once). A score tagged fleet=ID supersedes, in that transaction, the fleet's other scores of its machine, suite,
// mode (quick/full) and kind, the latest kept (db/fleet_store.h): a requeued score task counts once.
std::optional<std::string> store_score(Connection& c, const ScoreResult& r,
                                       const std::map<std::string, std::string>& tags = {});

// Scores matching `q`, oldest first; never a superseded one unless q.with_superseded. Throws DbError naming the
// column of the first malformed row.
std::vector<StoredScore> load_scores(Connection& c, const ScoreQuery& q = {});

// One row of `SELECT kScoreColumns FROM scores` and the category rows of that score (kCategoryColumns, in seq
// order) as a StoredScore: strict, pure (tests/fuzz/fuzz_score.cpp feeds it arbitrary cells).
StoredScore score_from_rows(const Row& score, const std::vector<Row>& categories);
inline constexpr const char* kScoreColumns =
    "uuid, created_at, stored_at, machine, suite, quick, kind, device, cpu, cores, threads, cores_used, memory_bytes, "
    "runtime, rooflens_version, overall, overall_low, overall_high, roof_ratio, efficiency, incomplete, partial, result";
inline constexpr const char* kCategoryColumns =
    "name, score, low, high, roof_ratio, efficiency, members, valid_members, incomplete";

// The figures a listing shows must be numbers a score can be: finite, not negative, the interval around the score.
// Throws UserError naming `what` and the aggregate otherwise (the JSON reader checks types, not these).
void check_score_figures(const ScoreResult& r, const std::string& what);

}  // namespace rooflens::db
