// Fuzz target (fuzz_targets.h) over what the results database reads from outside: a JSON line of `rooflens db import`
// (history_session_from_json) and the text of database columns (db/rows.h). Any input must end in a value or a
// UserError (DbError is one) — never a crash, a hang or a sanitizer report. A session that parses must write back
// to a line that parses to the same line (the importer's round trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/errors.h"
#include "core/history.h"
#include "db/rows.h"
#include "fuzz_targets.h"

int rooflens::fuzz::history(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    rooflens::HistorySession s = rooflens::history_session_from_json(text);
    std::string line = rooflens::history_session_to_json_line(s);
    if (rooflens::history_session_to_json_line(rooflens::history_session_from_json(line)) != line) std::abort();
  } catch (const rooflens::UserError&) {
  }
  const std::optional<std::string> cell = text;
  auto guard = [](auto&& parse) {
    try {
      parse();
    } catch (const rooflens::UserError&) {
    }
  };
  guard([&] { rooflens::db::parse_int(cell, "fuzz"); });
  guard([&] { rooflens::db::parse_double(cell, "fuzz"); });
  guard([&] { rooflens::db::parse_doubles(cell, "fuzz"); });
  guard([&] { rooflens::db::parse_counts(cell, "fuzz"); });
  guard([&] { rooflens::db::parse_strings(cell, "fuzz"); });
  return 0;
}
