// `rooflens db`: the results database itself — `export` writes every session as JSON lines (rooflens.history/1),
// `import` stores such lines (from another database, or a session a failed store saved) and score results
// (rooflens.score/1 files of `score -o`, from this or another machine: `history --scores` lists them side by side),
// `info` says what is in it. Moving a machine's history to the fleet's PostgreSQL: rooflens db export | rooflens db import --db postgresql://...
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "db/schema.h"
#include "db/score_store.h"
#include "db/store.h"

namespace rooflens::cli {
namespace {

struct DbArgs {
  std::string db, output;
  std::vector<std::string> inputs;
  bool quiet = false;
};

int run_db_export(const DbArgs& a) {
  const std::string url = db::resolve_db_url(a.db);
  auto store = db::ResultStore::open(url);
  std::ostringstream text;
  size_t sessions = 0;
  for (const auto& id : store->session_ids()) {
    text << history_session_to_json_line(store->load_session(id)) << "\n";
    ++sessions;
  }
  if (a.output.empty() || a.output == "-") std::cout << text.str();
  else write_file_atomically(a.output, text.str());
  if (!a.quiet)
    std::cerr << "rooflens db export: " << sessions << " session" << (sessions == 1 ? "" : "s") << " from "
              << db::parse_db_url(url).shown << (a.output.empty() || a.output == "-" ? "" : " to " + a.output) << "\n";
  return 0;
}

struct Imports {
  std::vector<HistorySession> sessions;
  std::vector<ScoreResult> scores;
};

// A whole file that is one rooflens.score/1 result (score -o); nullopt for anything else (JSON lines are read
// line by line after). A score file that is malformed is refused here, naming the file.
std::optional<ScoreResult> score_file(const std::string& in, const std::string& text) {
  if (text.find("\"rooflens.score/") == std::string::npos) return std::nullopt;
  try {
    ScoreResult r = score_from_json(text);
    db::check_score_figures(r, "score result");
    return r;
  } catch (const UserError& e) {
    if (text.find("\"rooflens.history/") != std::string::npos) return std::nullopt;  // JSON lines naming a score
    throw UserError(in + ": " + e.what() + "; nothing was imported");
  }
}

// Every line is read and checked before the first one is stored: a file with a bad line stores nothing.
Imports read_imports(const std::vector<std::string>& inputs) {
  Imports out;
  for (const auto& in : inputs) {
    std::ifstream file;
    if (in != "-") {
      file.open(in, std::ios::binary);
      if (!file) throw UserError(in + ": cannot open it (give a file written by rooflens db export or score -o)");
    }
    std::ostringstream whole;
    whole << (in == "-" ? std::cin : file).rdbuf();
    if (auto r = score_file(in, whole.str())) {
      out.scores.push_back(std::move(*r));
      continue;
    }
    std::istringstream s(whole.str());
    std::string line;
    for (size_t n = 1; std::getline(s, line); ++n) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        out.sessions.push_back(history_session_from_json(line));
      } catch (const UserError& e) {
        throw UserError((in == "-" ? std::string("stdin") : in) + ":" + std::to_string(n) + ": " + e.what() +
                        "; nothing was imported");
      }
    }
  }
  return out;
}

int run_import(const DbArgs& a) {
  Imports in = read_imports(a.inputs.empty() ? std::vector<std::string>{"-"} : a.inputs);
  const std::string url = db::resolve_db_url(a.db);
  auto store = db::ResultStore::open(url);
  size_t stored = 0, present = 0, runs = 0, scores = 0;
  for (const auto& r : in.scores) {
    if (db::store_score(store->connection(), r)) ++scores;
    else ++present;
  }
  for (const auto& s : in.sessions) {
    if (store->store(s)) {
      ++stored;
      runs += s.runs.size();
    } else {
      ++present;
    }
  }
  if (!a.quiet)
    // Scores are named only when the files held some: a sessions-only import keeps the line scripts already read.
    std::cerr << "rooflens db import: " << stored << " session" << (stored == 1 ? "" : "s") << " (" << runs << " runs)"
              << (scores ? " and " + std::to_string(scores) + " score" + (scores == 1 ? "" : "s") : std::string())
              << " stored in " << db::parse_db_url(url).shown << ", " << present << " already there\n";
  return 0;
}

int run_info(const DbArgs& a) {
  const std::string url = db::resolve_db_url(a.db);
  auto store = db::ResultStore::open(url);
  db::StoreCounts c = store->counts();
  std::cout << db::parse_db_url(url).shown << ": schema " << db::schema_version(store->connection()) << ", "
            << c.sessions << " sessions, " << c.runs << " runs"
            << (c.superseded_runs ? " (" + std::to_string(c.superseded_runs) + " superseded by a later attempt)" : "")
            << ", " << c.layers << " layers, " << c.machines << " machines\n";
  for (const auto& m : store->machines())
    std::cout << "  machine " << m.id << ": " << m.cpu << ", " << m.cores << " cores, " << m.os << "\n";
  return 0;
}

}  // namespace

void setup_db(CLI::App& root, Action& action) {
  auto a = std::make_shared<DbArgs>();
  CLI::App* cmd = root.add_subcommand("db", "The results database: export and import history as JSON lines, info");
  cmd->require_subcommand(1);
  cmd->footer(
      "Examples:\n"
      "  rooflens db export -o history.jsonl                  the default database, every session\n"
      "  rooflens db export | rooflens db import --db postgresql://ci@db/perf   move it to a shared server\n"
      "  rooflens db import ~/.local/share/rooflens/unstored/*.jsonl          store what a failed write kept\n"
      "  rooflens db import other-machine-score.json                          a score result (score -o) to compare\n"
      "A session already in the target (same id) is skipped, so importing twice stores once.");
  auto add_db = [&a](CLI::App* sub) {
    sub->add_option("--db", a->db, "Results database (default $ROOFLENS_DB, else $XDG_DATA_HOME/rooflens/results.db)");
    sub->add_flag("-q,--quiet", a->quiet, "Nothing on stderr but errors");
  };
  CLI::App* ex = cmd->add_subcommand("export", "Write every session as one JSON line (rooflens.history/1), oldest first");
  add_db(ex);
  ex->add_option("-o,--output", a->output, "File to write (default: stdout)");
  ex->callback([a, &action] { action = [a] { return run_db_export(*a); }; });
  CLI::App* im = cmd->add_subcommand("import", "Store sessions from JSON-lines files, and score results (default: stdin)");
  add_db(im);
  im->add_option("files", a->inputs, "Files written by rooflens db export or score -o ('-' for stdin)");
  im->callback([a, &action] { action = [a] { return run_import(*a); }; });
  CLI::App* info = cmd->add_subcommand("info", "Schema version, counts of sessions, runs and layers, machines");
  add_db(info);
  info->callback([a, &action] { action = [a] { return run_info(*a); }; });
}

}  // namespace rooflens::cli
