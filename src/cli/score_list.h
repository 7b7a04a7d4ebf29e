#pragma once
// Score results side by side, for the commands that show them: `rooflens history --scores` binds these options
// today, and `rooflens score --list` can bind the same struct (one line in cmd_score.cpp). The listing reads the
// results database (db/score_store.h) and, with `files`, score results written with `score -o` on other machines;
// it never runs the suite. Text on stdout, or `--json` (rooflens.leaderboard/1), and `--html FILE` (the page).
#include <string>
#include <vector>

namespace rooflens::cli {

struct ScoreListOptions {
  std::string db;                  // --db URL ("" = $ROOFLENS_DB, else the default SQLite file)
  std::string machine;             // a machine id prefix ("" = every machine)
  std::string since;               // ISO 8601 UTC ("" = all time)
  std::string suite;               // "v1" ("" = every suite, each its own group)
  std::vector<std::string> files;  // rooflens.score/1 files listed beside the database's scores
  bool measured_only = false;      // leave projected scores out
  bool all = false;                // every stored score, not only each machine's latest
  bool json = false;               // rooflens.leaderboard/1 instead of the table
  std::string output;              // -o FILE: the table or JSON written there ("" or "-": stdout)
  std::string html;                // --html FILE: the leaderboard page
  bool quiet = false;
};

// 0 when listed; throws UserError / db::DbError (one line naming the row and column) on bad stored data.
int run_score_list(const ScoreListOptions& o);

}  // namespace rooflens::cli
