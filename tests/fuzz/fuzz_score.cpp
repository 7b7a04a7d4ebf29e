// Fuzz target (fuzz_targets.h) over the score files rooflens reads from outside: a rooflens.score/1 file (score --from,
// db import, history --score-file), a suite file (score --suite, with its reference outputs and reference roofs) and
// the rows of the database's score tables (db/score_store.h). The whole input is read as a score file and as a suite
// file; split at NUL bytes into cells, as one scores row and category rows of 9 cells. Any input ends in a value or a
// UserError (DbError is one): never a crash, a hang or a sanitizer report. A file that parses writes back to text that
// parses to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/score.h"
#include "db/score_store.h"
#include "fuzz_targets.h"
#include "score/suite.h"

int rooflens::fuzz::score(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    rooflens::ScoreResult r = rooflens::score_from_json(text);
    rooflens::db::check_score_figures(r, "fuzz");
    const std::string again = rooflens::score_to_json(r);
    if (rooflens::score_to_json(rooflens::score_from_json(again)) != again) std::abort();
  } catch (const rooflens::UserError&) {
  }
  try {
    const std::string again = rooflens::score::suite_to_json(rooflens::score::parse_suite(text, "fuzz"));
    if (rooflens::score::suite_to_json(rooflens::score::parse_suite(again, "fuzz")) != again) std::abort();
  } catch (const rooflens::UserError&) {
  }
  std::vector<std::optional<std::string>> cells;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\0') {
      std::string cell = text.substr(start, i - start);
      cells.push_back(cell == "NULL" ? std::nullopt : std::optional<std::string>(cell));
      start = i + 1;
    }
  rooflens::db::Row row(cells.begin(), cells.begin() + std::min<size_t>(cells.size(), 23));
  row.resize(23);
  std::vector<rooflens::db::Row> categories;
  for (size_t at = 23; at + 9 <= cells.size(); at += 9) categories.emplace_back(cells.begin() + at, cells.begin() + at + 9);
  try {
    rooflens::db::score_from_rows(row, categories);
  } catch (const rooflens::UserError&) {
  }
  return 0;
}
